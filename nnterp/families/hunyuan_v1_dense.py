"""Hunyuan V1 dense (HunYuanDenseV1ForCausalLM).

Llama's modules and sequential pre-norm block; the attention normalizes each query and key head
with an RMSNorm (self_attn.query_layernorm, key_layernorm) after the rotary, so the queries and
keys the kernel receives (attention_queries, attention_keys) are rotated, then normed.
"""

from nnterp.declare.family import Family
from nnterp.families._llama import tiny

FAMILY = Family(
    name="hunyuan_v1_dense",
    summary="Llama's block with an RMSNorm on every query and key head, applied after the rotary.",
    tags=("Sequential block", "RMSNorm", "QK-norm", "Gated MLP"),
    sites={
        "attention_queries": "The queries entering attention: rotated, then normed per head by query_layernorm",
        "attention_keys": "The keys entering attention: rotated, then normed per head by key_layernorm",
    },
    tiny=tiny("HunYuanDenseV1Config", head_dim=16),
)
