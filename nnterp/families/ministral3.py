"""Ministral 3 (Ministral3ForCausalLM).

Llama's modules and sequential pre-norm block with YaRN rotary. After the rotary the attention
multiplies the queries by Llama 4's position-dependent temperature,
1 + llama_4_scaling_beta * log(1 + floor(position / original_max_position_embeddings)), which is 1
before the original context length; attention_queries are read after it, at the kernel.
"""

from nnterp.family import Checkpoint, Family
from nnterp.sites import KERNEL_ARGUMENTS, Argument, Call, Read

from ._llama import tiny

FAMILY = Family(
    name="ministral3",
    model_types=("ministral3",),
    summary="Llama's block with YaRN rotary and Llama 4's position-dependent query temperature.",
    tags=("Sequential block", "RMSNorm", "Grouped keys/values", "Gated MLP"),
    sites={
        "attention_queries": Read(
            Call("attention_interface", "input"), Argument(1), condition=KERNEL_ARGUMENTS,
            description="The queries entering attention: rotated, then scaled by the position-dependent "
                        "temperature 1 + beta * log(1 + floor(position / original_max_position_embeddings))"),
    },
    checkpoints=(Checkpoint("mistralai/Ministral-3-8B-Base-2512", "Ministral-3-8B-Base-2512"),),
    tiny=tiny("Ministral3Config", head_dim=16),
)
