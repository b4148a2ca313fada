"""The block's identity, as section 01 of a page states it, and the note whose snippet checks it (or the block's own
arithmetic, on a post-norm block): read by the fallback notes and by the derived block note alike."""

from __future__ import annotations

from nnterp.encyclopedia.rows import groups


def identity(rows, sums: bool = True) -> str:
    """The identity section 01 states, or why the block has none."""
    first = groups(rows)[0][1]
    missing = [first[name] for name in ("layer_input", "layer_output")
               if name in first and first[name].status != "served"]
    if missing:
        return f"none: {missing[0].note}"
    if not sums:
        return ("none: layer_output is the block's own arithmetic of layers[i].input and its contributions, "
                "which the family module declares (see 04), not their sum")
    return " + ".join(path for _, path in identity_terms(rows)) + " == layer_output"


def identity_terms(rows) -> list[tuple[str, str]]:
    """(variable, standard path) of the contributions a block adds, those the family serves on block 0."""
    first = groups(rows)[0][1]
    served = {name for name, row in first.items() if row.status != "unavailable"}
    terms = [("x", "layers[i].input")]
    terms += [(var, path) for var, name, path in (("attn", "attention_output", "self_attn.attention_output"),
                                                  ("mlp", "mlp_output", "mlp.mlp_output")) if name in served]
    return terms


def identity_note(first: dict, rows, sums: bool, mid_sums: bool = True) -> list[str]:
    """The block's identity (or its own arithmetic, on a post-norm block) with the snippet that checks it."""
    mid = first.get("layer_mid")
    names = [var for var, _ in identity_terms(rows)]
    paths = {"x": "layer_input", "attn": "self_attn.attention_output", "mlp": "mlp.mlp_output"}
    reads = [f"    {var} = model.layers[0].{paths[var]}.save()" for var in names[:2]]
    if sums:
        claim = (f"The identity `{identity(rows)}` holds on every block, in the block's own order of the sum up "
                 "to rounding:")
        checks = [f"torch.testing.assert_close({' + '.join(names)}, out)"]
    else:
        claim = ("The block is no plain sum of its input and its contributions (section 04 says why); its own "
                 "arithmetic, which the family module declares, gives `layer_output` from them:")
        checks = ["arithmetic = model.family.block.arithmetic(model.config)",
                  f"torch.testing.assert_close(arithmetic(model.layers[0]._module, {', '.join(names)}), out)"]
    if mid is not None and mid.status == "served" and "attn" in names and mid_sums:
        lead = f"`layer_mid` is read at {mid.read_at}: the stream after the attention add. "
        reads.append("    mid = model.layers[0].layer_mid.save()")
        checks.insert(0, "torch.testing.assert_close(x + attn, mid)")
    elif mid is not None and mid.status == "served" and "attn" in names:
        lead = (f"`layer_mid` is read at {mid.read_at}: the stream after the attention's move, by the block's own "
                "arithmetic. ")
        reads.append("    mid = model.layers[0].layer_mid.save()")
        checks[:0] = ["mid_of = model.family.block.mid_arithmetic(model.config)",
                      "torch.testing.assert_close(mid_of(model.layers[0]._module, x, attn), mid)"]
    else:
        lead = f"There is no `layer_mid`: {mid.note if mid is not None and mid.note else 'the family does not serve it'}. "
    reads += [f"    {var} = model.layers[0].{paths[var]}.save()" for var in names[2:]]
    reads.append("    out = model.layers[0].layer_output.save()")
    return [lead + claim, "", "```python", "with model.trace(prompt):", *reads, "", *checks, "```", ""]
