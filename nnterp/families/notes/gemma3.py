"""The gemma3 page measures Gemma 3 270M as the gemma3_text page does (its notes include
nnterp/families/notes/gemma3_text_measured.md): the same checkpoint, loader and numbers."""

from nnterp.families.notes.gemma3_text import CHECKPOINT, facts, load_checkpoint  # noqa: F401 (the page reads them)
