"""The notes of each family: what to know before you run, with code that runs when the site is built.

A family with a notes file beside its family module (``nnterp/families/notes/<family>.md``, read by
``notes.hand``) writes its own notes: the page's notes (``page: whole``), or notes added before the derived ones.
A snippet's names are ``model`` (the tiny model), ``prompt``, ``torch``, ``nnterp``, ``StandardizedTransformer``
and ``released(repo)``, the config.json facts recorded for one of the family's checkpoints, so that a number a
note quotes as a checkpoint's is asserted against its released config. Every other family gets notes derived from
its own objects, each with a checked snippet.
"""

from __future__ import annotations

from nnterp.declare.vocabulary import BY_NAME, EAGER
from nnterp.encyclopedia import markdown
from nnterp.encyclopedia.notes import derived
from nnterp.encyclopedia.notes.hand import HandNotes, hand_notes
from nnterp.encyclopedia.notes.identity import identity_note
from nnterp.encyclopedia.rows import groups


def default_load(family) -> str | None:
    """The load the snippets run under: eager where the family claims it (the interior is served)."""
    if family.loads is None or EAGER in family.loads:  # None: whatever transformers accepts, eager included
        return EAGER
    return family.loads[0] if family.loads else None


def notes_for(family, rows, block_kind: str, sums: bool = True, mid_sums: bool = True,
              subject=None) -> tuple[list[markdown.Note], HandNotes | None]:
    """The family's notes, parsed, and its notes file (None where it has none). ``sums``: the block is the sum of
    its input and its contributions (false on a post-norm block). A notes file's notes are the page's (``page:
    whole``) or lead the derived ones (``subject``, a ``derived.Subject``)."""
    hand = hand_notes(family.name)
    if hand is not None and hand.whole_page:
        return markdown.parse(hand.text), hand
    found = generated(family, rows, block_kind, sums, mid_sums, subject, hand.drop if hand is not None else ())
    if hand is not None:
        found = markdown.parse(hand.text) + found
    return found, hand


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
    if default_load(family) == EAGER and interior:
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
