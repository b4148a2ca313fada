"""Multi-head latent attention: keys and values expanded from one normed latent."""

from __future__ import annotations

import torch

from nnterp.encyclopedia.notes.derived.reading import _attention_module, _children, _instrumented_trace, _note


def latent_attention_note(subject) -> str | None:
    """Multi-head latent attention: keys and values expanded from one normed latent, one rotated key shared by every
    head; each claim measured on the tiny model and asserted."""
    tiny = subject.tiny
    index = subject.served("attention_keys")
    attention = _attention_module(tiny, index) if index is not None else None
    children = _children(attention)
    if not all(name in children for name in ("kv_a_proj_with_mqa", "kv_a_layernorm", "kv_b_proj")):
        return None
    dims = {name: getattr(attention, name, None) for name in ("qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim")}
    if not all(isinstance(value, int) and value > 0 for value in dims.values()):
        return None
    nope, rope, width = dims["qk_nope_head_dim"], dims["qk_rope_head_dim"], dims["v_head_dim"]
    host = tiny.layers[index].self_attn
    saved = _instrumented_trace(tiny, {"latent": lambda: host.kv_a_proj_with_mqa.output,
                                       "normed": lambda: host.kv_a_layernorm.output,
                                       "k": lambda: host.attention_keys, "v": lambda: host.attention_values})
    if saved is None:
        return None
    latent, normed, k, v = saved["latent"], saved["normed"], saved["k"], saved["v"]
    with torch.no_grad():
        kv = attention.kv_b_proj(normed)
    kv = kv.view(*normed.shape[:2], -1, nope + width).transpose(1, 2)
    shared = k[..., nope:]
    holds = {
        "norm": torch.equal(attention.kv_a_layernorm(latent[..., :-rope]), normed),
        "keys": kv.shape[:3] == k.shape[:3] and torch.equal(kv[..., :nope], k[..., :nope]),
        "values": kv.shape[:3] == v.shape[:3] and torch.equal(kv[..., nope:], v),
        "shared": torch.equal(shared, shared[:, :1].expand_as(shared)),
    }
    if not (holds["keys"] and holds["shared"]):
        return None
    checks = [f"nope, rope = {nope}, {rope}   # each key head: non-rotary dims, then the rotated ones"]
    if holds["norm"]:
        checks.append("assert torch.equal(attention.kv_a_layernorm(latent[..., :-rope]), normed)   # the norm reads "
                      "the latent, not the rotary part")
    checks += ["kv = attention.kv_b_proj(normed)",
               f"kv = kv.view(*normed.shape[:2], -1, nope + {width}).transpose(1, 2)   # [batch, heads, seq, dims]",
               "assert torch.equal(kv[..., :nope], k[..., :nope])   # each head's non-rotary key from kv_b_proj"]
    if holds["values"]:
        checks.append("assert torch.equal(kv[..., nope:], v)   # and its value")
    checks.append("assert torch.equal(k[..., nope:], k[:, :1, :, nope:].expand_as(k[..., nope:]))   # one rotated "
                  "key, the same in every head")
    config = subject.config.get_text_config() if hasattr(subject.config, "get_text_config") else subject.config
    rank = getattr(config, "kv_lora_rank", None)
    real = {name: getattr(config, name, None) for name in dims}
    heads = getattr(config, "num_attention_heads", None)
    q_rank = getattr(config, "q_lora_rank", None)
    queries = (f"the queries come through a {q_rank}-wide low-rank path (q_a_proj, q_a_layernorm, q_b_proj)"
               if q_rank and "q_a_proj" in children else "the queries come from q_proj at full width")
    heading = (f"Keys and values come from a {rank}-wide latent; one rotated key of {real['qk_rope_head_dim']} dims "
               f"serves all {heads} heads")
    prose = (f"On {subject.named}, `kv_a_proj_with_mqa` maps the stream to {rank} + {real['qk_rope_head_dim']} "
             f"channels. The first {rank} are normed by `kv_a_layernorm` and expanded by `kv_b_proj` into each head's "
             f"{real['qk_nope_head_dim']} non-rotary key dims and {real['v_head_dim']} value dims; the last "
             f"{real['qk_rope_head_dim']} are one key that the rotary turns and every head shares; {queries}. "
             "`attention_keys` is the kernel's argument, each head's own part joined to the shared one. There is "
             "no k_proj or v_proj to hook: keys and values are read, and edited, at `attention_keys` and "
             "`attention_values`.")
    code = ["model.instrument()   # the trace reads children's outputs and values inside the same forward",
            f"attention = model.layers[{index}].self_attn", "with model.trace(prompt):",
            "    latent = attention.kv_a_proj_with_mqa.output.save()",
            "    normed = attention.kv_a_layernorm.output.save()", "    k = attention.attention_keys.save()",
            "    v = attention.attention_values.save()", "", *checks]
    return _note(heading, prose, code)
