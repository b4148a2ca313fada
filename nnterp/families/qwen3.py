"""Qwen3 (Qwen3ForCausalLM).

The dense Qwen3 models.

Llama's modules and sequential pre-norm block; the attention normalizes each query and key head
with an RMSNorm (self_attn.q_norm, k_norm) before the rotary, so attention_queries and
attention_keys, read at the kernel, are normed, then rotated. No bias on the projections.
"""

from nnterp.declare.family import Family
from nnterp.families._llama import tiny

FAMILY = Family(
    name="qwen3",
    summary="Llama's block with an RMSNorm on every query and key head before the rotary.",
    tags=("Sequential block", "RMSNorm", "QK-norm", "Grouped keys/values", "Gated MLP"),
    sites={
        "attention_queries": "The queries entering attention: normed per head by q_norm, then rotated",
        "attention_keys": "The keys entering attention: normed per head by k_norm, then rotated",
    },
    tiny=tiny("Qwen3Config", head_dim=16),
)

