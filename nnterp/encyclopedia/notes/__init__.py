"""The notes of each family: what to know before you run, with code that runs when the site is built.

A family with a notes module beside its family module (``nnterp/families/notes/<family>.py``) writes its own
notes: ``NOTES``, text in the format of ``nnterp.encyclopedia.markdown``, or ``MORE``, added to the derived ones;
optionally ``LOAD``, the attention implementation its snippets run under (eager where the family has it, by
default); and for a real checkpoint available offline, ``CHECKPOINT``, ``load_checkpoint()`` and
``facts(scope)``, the numbers its ``python checkpoint`` snippets measured, quoted in the text as ``{{name}}``.
A snippet's names are ``model`` (the tiny model), ``prompt``, ``torch``, ``nnterp``, ``StandardizedTransformer``
and ``released(repo)``, the config.json facts recorded for one of the family's checkpoints, so that a number a
note quotes as a checkpoint's is asserted against its released config. Every other family gets notes derived from its own objects, each with a checked snippet.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from ...vocabulary import BY_NAME
from .. import markdown
from ..rows import groups
from . import derived
from .identity import identity_note


def module_for(family) -> ModuleType | None:
    """The family's own notes module, if it has one (beside the family modules, named as the family)."""
    module = family.name.replace("-", "_").replace(".", "_")  # openai-gpt's notes are openai_gpt.py
    if not module.isidentifier():
        return None
    name = f"nnterp.families.notes.{module}"
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as error:
        if error.name != name:
            raise
        return None


def default_load(family) -> str | None:
    """The load the snippets run under: eager where the family claims it (the interior is served)."""
    if family.loads is None or "eager" in family.loads:  # None: whatever transformers accepts, eager included
        return "eager"
    return family.loads[0] if family.loads else None


def notes_for(family, rows, block_kind: str, sums: bool = True, mid_sums: bool = True,
              subject=None) -> tuple[list[markdown.Note], ModuleType | None]:
    """The family's notes, parsed, and its notes module (None where it has none). ``sums``: the block is
    the sum of its input and its contributions (false on a post-norm block). A notes module's ``NOTES`` are
    the page's notes; its ``MORE`` lead the derived ones (``subject``, a ``derived.Subject``)."""
    module = module_for(family)
    if module is not None and hasattr(module, "NOTES"):
        return markdown.parse(module.NOTES), module
    found = generated(family, rows, block_kind, sums, mid_sums, subject, getattr(module, "DROP", ()))
    if module is not None and hasattr(module, "MORE"):
        found = markdown.parse(module.MORE) + found
    return found, module


def generated(family, rows, block_kind: str, sums: bool = True, mid_sums: bool = True,
              subject=None, drop=()) -> list[markdown.Note]:
    """Notes for a family without its own: those derived from its objects (``derived``) and the contract's
    limits."""
    if subject is None:
        return markdown.parse(_fallback(family, rows, block_kind, sums, mid_sums))
    found = []
    for position, (kind, text) in enumerate(derived.notes(subject, drop)):
        for note in markdown.parse(text):
            note.kind = kind
            found.append(note)
        if position == 0 and family.contract_note:  # the family module's own statement of its limits
            found += markdown.parse(f"## What the contract cannot check here\n\n{family.contract_note}\n")
            found[-1].kind = "feature"
    return found


def _fallback(family, rows, block_kind: str, sums: bool = True, mid_sums: bool = True) -> str:
    """The notes of a family whose tiny model does not load: the block and the readout."""
    first, last = groups(rows)[0][1], groups(rows)[-1][1]
    text = [f"## The block is {block_kind}", ""]
    if family.contract_note:
        text += ["## What the contract cannot check here", "", family.contract_note, ""]
    stream = [first.get(name) for name in ("layer_input", "layer_output")]
    if all(row is not None and row.status == "served" for row in stream):
        text += identity_note(first, rows, sums, mid_sums)
    else:
        reason = next(row.note for row in stream if row is not None and row.status != "served")
        text += [f"The block has no single residual stream to read: {reason}.", ""]

    last_served = last.get("layer_output") is not None and last["layer_output"].status == "served"
    if not last_served:
        text += ["## The readout", "",
                 "`project_on_vocab` is the final norm, `lm_head` and whatever the model does past `lm_head`; the "
                 "last block serves no `layer_output` here, so it applies to the hidden state the family module "
                 "names (section 04), not to a standard value.", ""]
    elif family.readout.exact_lens:
        text += ["## The readout", "",
                 "`project_on_vocab` is the final norm, `lm_head` and whatever the model does past `lm_head`: "
                 "applied to the last block's `layer_output`, it gives `logits`, so a logit lens at any block "
                 "reads the stream as the model's own head does.", ""]
    else:
        text += ["## The readout", "",
                 "`project_on_vocab` is the final norm, `lm_head` and whatever the model does past `lm_head`, "
                 "but the logits are not that projection of the last block's `layer_output` (see above): on this "
                 "family a logit lens is an approximation, even at the last block.", ""]
    if family.readout.exact_lens and last_served:
        text += ["```python", "with model.trace(prompt):", "    last = model.layers[-1].layer_output.save()",
                 "    logits = model.logits.save()", "",
                 "torch.testing.assert_close(model.project_on_vocab(last), logits)", "```", ""]

    # where both are the standard values (a family that redefines them, around a sink say, explains its own)
    interior = [(index, found) for index, found in groups(rows)
                if all(name in found and found[name].status != "unavailable"
                       and found[name].description == BY_NAME[name].description
                       for name in ("attention_scores", "attention_probabilities"))]
    if default_load(family) == "eager" and interior:
        index, found = interior[0]
        marked = sorted({row.name for row in rows if row.status == "conditioned"})
        lead = (f"Under the default load, {len(marked)} values carry ⚠︎ in the table above "
                f"({', '.join(f'`{n}`' for n in marked)}); an eager load serves them. "
                if marked else "The default load serves the attention's interior. ")
        where = f" (block {index} of the checkpoint is the first with a softmax attention)" if index else ""
        # the snippet runs on the tiny model, whose blocks differ from the checkpoint's: find the block there
        pick = ["block = next(i for i in range(model.num_layers) if model.serves(\"attention_scores\", i) is None)"]
        text += ["## The attention's interior", "",
                 lead + f"The pattern is the softmax of the scores{where}:", "",
                 "```python", *pick, "with model.trace(prompt):",
                 "    scores = model.layers[block].self_attn.attention_scores.save()",
                 "    probs = model.layers[block].self_attn.attention_probabilities.save()", "",
                 "torch.testing.assert_close(scores.softmax(-1), probs)", "```", ""]

    return "\n".join(text)
