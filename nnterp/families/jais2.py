"""Jais 2 (Jais2ForCausalLM).

Llama's module names on a sequential pre-norm block with LayerNorms (weight and bias) in place of
RMSNorms, a bias on q_proj, k_proj, v_proj and o_proj, and a plain MLP: mlp.{up_proj, act_fn,
down_proj} with ReLU² and no gate_proj, so mlp_activation and mlp_neurons are the same tensor.
"""

from nnterp.declare.family import Family
from nnterp.families._llama import tiny

FAMILY = Family(
    name="jais2",
    summary="Llama's block with LayerNorms, biased projections and a plain ReLU² MLP.",
    tags=("Sequential block", "LayerNorm", "Biased q, k, v", "ReLU² MLP"),
    tiny=tiny("Jais2Config", head_dim=16, eos_token_id=2),
)
