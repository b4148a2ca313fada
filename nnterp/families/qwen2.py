"""Qwen2 and Qwen2.5 (Qwen2ForCausalLM).

Llama's modules and sequential pre-norm block with a bias on q_proj, k_proj and v_proj (none on
o_proj). The attention passes sliding_window to the kernel; config.layer_types turns the window on
for the layers past max_window_layers when use_sliding_window is set (off on the released
checkpoints). Every value is read where Llama's is.
"""

from nnterp.declare.family import Family
from nnterp.families._llama import tiny

FAMILY = Family(
    name="qwen2",
    summary="Llama's block with biased query, key and value projections.",
    tags=("Sequential block", "RMSNorm", "Grouped keys/values", "Biased q, k, v", "Gated MLP"),
    tiny=tiny("Qwen2Config"),
)

