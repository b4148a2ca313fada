"""Arcee AFM (ArceeForCausalLM).

Llama's modules and sequential pre-norm block, with a plain MLP: mlp.{up_proj, act_fn, down_proj}
and no gate_proj, the activation ReLU² (relu(x)²). mlp_activation and mlp_neurons are then the same
tensor, act_fn's output and down_proj's input. Keys and values are grouped; the attention calls the
kernel through attention_interface like Llama's.
"""

from nnterp.declare.family import Family
from nnterp.families._llama import tiny

FAMILY = Family(
    name="arcee",
    summary="Llama's block with a plain ReLU² MLP (up_proj, relu², down_proj) and no gate.",
    tags=("Sequential block", "RMSNorm", "Grouped keys/values", "ReLU² MLP"),
    tiny=tiny("ArceeConfig", head_dim=16, bos_token_id=1, eos_token_id=2),
)
