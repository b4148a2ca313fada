"""Nemotron (NemotronForCausalLM).

The Nemotron-3 and Minitron dense models.

Llama's module names on a sequential pre-norm block whose norms are LayerNorm1P: a LayerNorm with
a bias that multiplies by (1 + weight). The MLP is plain: mlp.{up_proj, act_fn, down_proj} with
ReLU² and no gate_proj, so mlp_activation and mlp_neurons are the same tensor. Rotary turns
partial_rotary_factor (0.5) of each head.
"""

from nnterp.declare.family import Family
from nnterp.families._llama import tiny

FAMILY = Family(
    name="nemotron",
    summary="Llama's block with LayerNorm1P norms (1 + weight), a plain ReLU² MLP and rotary on half of each head.",
    tags=("Sequential block", "LayerNorm (1 + w)", "ReLU² MLP", "Partial rotary"),
    tiny=tiny("NemotronConfig", head_dim=16),
)
