"""Multi-head Latent Attention (DeepSeek-V2 and its descendants): what the attention serves.

MLA projects the normed stream to a small latent (kv_a_proj_with_mqa: kv_lora_rank channels plus
one shared rotary key of qk_rope_head_dim), normalizes it (kv_a_layernorm) and expands it per head
with kv_b_proj into the non-rotary key part (qk_nope_head_dim) and the value (v_head_dim); the
queries come from q_proj, or through a low-rank q_a_proj / q_a_layernorm / q_b_proj (q-LoRA), and
are split the same way. Only the kernel sees queries and keys whole (the non-rotary part joined to
the rotated one): there are no k_proj or v_proj modules, and attention_queries, attention_keys and
attention_values are read at the kernel call. Keys and values come out of kv_b_proj with every
query head (no grouping), so num_kv_heads is num_heads; query and key heads are qk_nope_head_dim +
qk_rope_head_dim wide (model.qk_head_dim), value heads v_head_dim (model.head_dim).
"""

from __future__ import annotations

from functools import lru_cache

from nnterp.declare.family import COMMON_SITES, described
from nnterp.declare.sites import Read, SplitHeads

MLA_ACCESSORS = {
    "num_kv_heads": lambda c: c.num_attention_heads,
    "head_dim": lambda c: c.v_head_dim,
    "qk_head_dim": lambda c: c.qk_nope_head_dim + c.qk_rope_head_dim,
}

QUERIES = ("The queries entering attention, which exist only as the kernel's argument: each head's non-rotary part "
           "(qk_nope_head_dim, from q_b_proj after the q-LoRA, or from q_proj) joined to its rotated part "
           "(qk_rope_head_dim)")
KEYS = ("The keys entering attention, which exist only as the kernel's argument: each head's non-rotary part from "
        "kv_b_proj of the normed latent, joined to the one rotated key all heads share (qk_rope_head_dim)")
VALUES = "The values entering attention: each head's v_head_dim-wide part of kv_b_proj's output on the normed latent"
INDEXED = ("; on indexed layers the lightning indexer's top-k key choice is part of the mask (keys outside it get "
           "the dtype's minimum under eager and sdpa)")


def mla_sites(indexed: bool = False) -> dict:
    """The attention interior of an MLA block (``indexed``: a DSA indexer masks the keys)."""
    sites = {
        "attention_queries": described("attention_queries", QUERIES),
        "attention_keys": described("attention_keys", KEYS),
        # the values are one of torch.split's views of kv_b_proj's output, which autograd forbids editing
        # in place: the value is a copy, and an edit is carried back into the kernel's argument
        "attention_values": described("attention_values", VALUES, snapshot=True),
    }
    if indexed:
        sites["attention_scores"] = described(
            "attention_scores", "The attention scores entering the softmax, masked" + INDEXED)
    return sites


def gated_outputs(gate: str) -> dict:
    """attention_head_outputs before an output gate the attention applies ahead of o_proj, and
    attention_premix after it (``gate`` says how, in words)."""
    return {
        "attention_head_outputs": described(
            "attention_head_outputs",
            f"The per-head outputs of the attention kernel, before the output gate: the attention then multiplies "
            f"them by {gate}, and attention_premix is after it"),
        "attention_premix": described(
            "attention_premix", f"Every head's gated output side by side, as o_proj takes it: the kernel's output "
                                f"times {gate}"),
    }


@lru_cache(maxsize=None)
def _premix(heads: int, description: str | None) -> Read:
    common = COMMON_SITES["attention_premix"]
    return Read(common.where, common.element, SplitHeads(heads), description=description)


def premix_per_block(description: str | None = None):
    """attention_premix split with the attention module's own num_heads."""
    return lambda context: _premix(context.module.num_heads, description)


def per_layer_dims(context) -> dict:
    """The attention dimensions of a block of a heterogeneous MLA config (per_layer_config)."""
    layer = context.config.per_layer_config[context.index]
    return {"num_heads": layer.num_attention_heads, "num_kv_heads": layer.num_attention_heads,
            "head_dim": layer.v_head_dim, "qk_head_dim": layer.qk_nope_head_dim + layer.qk_rope_head_dim}


def _first_layer(name):
    return lambda c: getattr(c.per_layer_config[0], name)


#: model-wide numbers of a heterogeneous config: the first block's (per_layer_dims gives each block's)
PER_LAYER_ACCESSORS = {
    "num_heads": _first_layer("num_attention_heads"),
    "num_kv_heads": _first_layer("num_attention_heads"),
    "head_dim": _first_layer("v_head_dim"),
    "qk_head_dim": lambda c: c.per_layer_config[0].qk_nope_head_dim + c.per_layer_config[0].qk_rope_head_dim,
}
