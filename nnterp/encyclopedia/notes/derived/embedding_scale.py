"""An embedding scaled inside its forward, the scale cast to the weights' dtype first."""

from __future__ import annotations

import torch

from nnterp.encyclopedia.notes.derived.reading import _module, _note, _num, _trace_or_none


def embedding_scale_note(subject) -> str | None:
    """An embedding that multiplies by a scale inside its forward, the scale cast to the weights' dtype first."""
    tiny = subject.tiny
    embed = _module(getattr(tiny, "embed_tokens", None)) if hasattr(tiny, "embed_tokens") else None
    if not isinstance(getattr(embed, "embed_scale", None), torch.Tensor):
        return None
    real_embed = _module(subject.real.embed_tokens) if subject.real is not None else embed
    scale = getattr(real_embed, "scalar_embed_scale", None)
    if not isinstance(scale, (int, float)):
        return None
    saved = _trace_or_none(tiny, {"ids": lambda: tiny.input_ids, "x": lambda: tiny.token_embeddings})
    if saved is None:
        return None
    ids, x = saved["ids"], saved["x"]
    if not torch.equal(embed.weight[ids] * embed.embed_scale.to(embed.weight.dtype), x):
        return None
    hidden = getattr(subject.config, "hidden_size", None)
    root = f"√{hidden} = " if hidden and abs(scale - hidden ** 0.5) < 1e-9 else ""
    halves = {name: torch.tensor(scale).to(dtype).item() for name, dtype in
              (("bfloat16", torch.bfloat16), ("float16", torch.float16))}
    heading = (f"The embeddings are multiplied by {root}{scale:.4g}, cast to the weights' dtype: "
               f"{_num(halves['bfloat16'])} in bfloat16")
    prose = (f"`embed_tokens` ({type(real_embed).__name__}) multiplies the looked-up rows by its `embed_scale` inside "
             f"its own forward, after casting that scale to the weights' dtype: on {subject.named}, "
             f"{root}{scale:.6g} in float32, {_num(halves['bfloat16'])} in bfloat16 and {_num(halves['float16'])} in "
             "float16. `token_embeddings` is that product, and so is `layers[0].input`; a reimplementation that "
             "multiplies by the exact root computes another model under a half-precision load.")
    code = ["embed = model.embed_tokens", "with model.trace(prompt):", "    ids = model.input_ids.save()",
            "    x = model.token_embeddings.save()", "",
            "assert torch.equal(embed.weight[ids] * embed.embed_scale.to(embed.weight.dtype), x)",
            f"assert torch.tensor({scale!r}).to(torch.bfloat16).item() == {halves['bfloat16']!r}"
            f"   # {subject.named}'s scale in bfloat16"]
    return _note(heading, prose, code)
