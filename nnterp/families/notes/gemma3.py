"""Notes of the gemma3 wrapper's page (Gemma3ForConditionalGeneration: a SigLIP tower around Gemma 3's text model),
added to the derived ones. nnterp ships no image-text Gemma 3, so the measured notes are those of the gemma3_text
page, run on Gemma 3 270M, a text-only checkpoint of the same text model: the first note says so, and every figure
stays labelled as that model's."""

from .gemma3_text import CHECKPOINT, MEASURED, facts, load_checkpoint  # noqa: F401 (the page reads them)

MORE = r'''
## The measured notes below are a text-only stand-in's

The checkpoints this page serves (Gemma 3 4B and up, ShieldGemma 2) are too large to ship; nnterp ships Gemma 3 270M, a `Gemma3ForCausalLM` with no vision tower. Its `model` is a `Gemma3TextModel`, the class of this wrapper's `model.language_model`, so the notes marked "measured on Gemma 3 270M (Q4_K_M GGUF, dequantized)" measure that class's blocks, at 270M's sizes (18 blocks of width 640) and with its quantized weights: none of their figures is a 4B's or the family's.

```python
assert type(model._module.model.language_model).__name__ == "Gemma3TextModel"
```

```python checkpoint
assert type(model._module).__name__ == "Gemma3ForCausalLM" and type(model._module.model).__name__ == "Gemma3TextModel"
assert (model.num_layers, model.hidden_size) == (18, 640)
```
''' + MEASURED
