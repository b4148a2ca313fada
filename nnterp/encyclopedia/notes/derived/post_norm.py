"""A norm applied to a sublayer's own output, read as ``attention_output`` or ``mlp_output``."""

from __future__ import annotations

import torch

from nnterp.encyclopedia.notes.derived.block import _block_shape
from nnterp.encyclopedia.notes.derived.reading import _trace


def post_norm_note(subject) -> str | None:
    """attention_output / mlp_output read at a norm of the block applied to the sublayer's own output."""
    shape = _block_shape(subject)
    posts = [(name, host, shape[key]) for name, host, key in (
        ("attention_output", "self_attn", "post_attn"), ("mlp_output", "mlp", "post_mlp")) if shape[key]]
    if not posts:
        return None
    model = subject.tiny
    block = model.layers[0]
    own = {}
    kept = []
    for name, host, post in posts:  # what the tiny model shows bit for bit (a term added besides is said in 04)
        try:
            saved = _trace(model, {"own": lambda host=host: getattr(block, host).output,
                                   "value": lambda host=host, name=name: getattr(getattr(block, host), name)})
            own[name] = saved["own"]
            output = own[name][0] if isinstance(own[name], (tuple, list)) else own[name]
            if torch.equal(getattr(block, post)(output), saved["value"]):
                kept.append((name, host, post))
        except Exception:
            continue
    posts = kept
    if not posts:
        return None
    names = " and ".join(f"`{name}`" for name, _, _ in posts)
    after = " and ".join(f"`{post}`" for _, _, post in posts)
    text = [f"## {names} {'are' if len(posts) > 1 else 'is'} read after {after}", ""]
    lines = []
    for name, host, post in posts:
        word = "attention" if host == "self_attn" else "MLP"
        lines.append(f"`{post}` is a norm of the {word}'s own output, applied before the block adds it to the "
                     f"stream: `{name}` is its output, what the stream receives, not `{host}`'s output.")
    if shape["post_attn"] == "post_attention_layernorm" and shape["attn_norm"]:
        lines.append("The name is Llama's, the module is not: on Llama `post_attention_layernorm` is the norm "
                     "before the MLP; here that one is "
                     f"`{shape['mlp_norm'] or 'the pre-MLP norm'}`, and `post_attention_layernorm` normalizes the "
                     "attention's output.")
    lines.append("A reader of the sublayer's own output (a hook on the module, as TransformerLens-style code "
                 "places it) gets the value before the norm, which the stream never receives.")
    text += [" ".join(lines), ""]
    code = ["block = model.layers[0]", "with model.trace(prompt):"]
    checks = []
    for name, host, post in posts:
        var = "attn" if host == "self_attn" else "mlp"
        element = "[0]" if isinstance(own[name], (tuple, list)) else ""
        code += [f"    {var}_own = block.{host}.output{element}.save()", f"    {var} = block.{host}.{name}.save()"]
        checks.append(f"assert torch.equal(block.{post}({var}_own), {var})   # the norm of the sublayer's output")
        checks.append(f"assert not torch.equal({var}_own, {var})")
    text += ["```python", *code, "", *checks, "```", ""]
    return "\n".join(text)
