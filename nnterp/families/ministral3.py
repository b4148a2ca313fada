"""Ministral 3 (Ministral3ForCausalLM).

Llama's modules and sequential pre-norm block with YaRN rotary. After the rotary the attention
multiplies the queries by Llama 4's position-dependent temperature,
1 + llama_4_scaling_beta * log(1 + floor(position / original_max_position_embeddings)), which is 1
before the original context length; attention_queries are read after it, at the kernel.
"""

from nnterp.declare.family import Family
from nnterp.families._llama import tiny

FAMILY = Family(
    name="ministral3",
    summary="Llama's block with YaRN rotary and Llama 4's position-dependent query temperature.",
    tags=("Sequential block", "RMSNorm", "Grouped keys/values", "Gated MLP"),
    sites={
        "attention_queries": "The queries entering attention: rotated, then scaled by the position-dependent "
                             "temperature 1 + beta * log(1 + floor(position / original_max_position_embeddings))",
    },
    tiny=tiny("Ministral3Config", head_dim=16),
)
