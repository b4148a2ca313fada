"""Mistral (MistralForCausalLM).

Llama's modules and sequential pre-norm block; the attention passes config.sliding_window to the
kernel (4096 on Mistral-7B-v0.1, None from v0.2 on). Every value is read where Llama's is; with a
window, attention_scores holds the masked scores of the window.
"""

from nnterp.declare.family import Family
from nnterp.families._llama import tiny

FAMILY = Family(
    name="mistral",
    summary="Llama's block with an optional sliding attention window.",
    tags=("Sequential block", "RMSNorm", "Grouped keys/values", "Sliding window", "Gated MLP"),
    tiny=tiny("MistralConfig", head_dim=16),
)

