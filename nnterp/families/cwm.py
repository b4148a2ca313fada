"""CWM (CwmForCausalLM).

Llama's modules and sequential pre-norm block; the attention (Qwen 2's) passes sliding_window to
the kernel, and config.layer_types interleaves sliding-window layers with a full-attention layer
every fourth block (each gets its own mask). Rotary is Llama 3's scaled rotary. Every value is read
where Llama's is; on a sliding layer attention_scores holds the masked scores of the window.
"""

from nnterp.declare.family import Family
from nnterp.families._llama import tiny

FAMILY = Family(
    name="cwm",
    summary="Llama's block with sliding-window attention on three layers of four and Llama 3 rotary.",
    tags=("Sequential block", "RMSNorm", "Grouped keys/values", "Sliding window", "Gated MLP"),
    tiny=tiny("CwmConfig", head_dim=16, bos_token_id=1),
)
