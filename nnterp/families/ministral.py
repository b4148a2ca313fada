"""Ministral (MinistralForCausalLM).

Mistral's modules (Llama's names) and sequential pre-norm block; the attention passes
sliding_window to the kernel, and config.layer_types marks which blocks attend within the window
(all of them by default). Every value is read where Llama's is; on a sliding layer
attention_scores holds the masked scores of the window.
"""

from nnterp.declare.family import Family
from nnterp.families._llama import tiny

FAMILY = Family(
    name="ministral",
    summary="Llama's block with sliding-window attention chosen per layer.",
    tags=("Sequential block", "RMSNorm", "Grouped keys/values", "Sliding window", "Gated MLP"),
    tiny=tiny("MinistralConfig", head_dim=16),
)
