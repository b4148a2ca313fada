"""GLM (GlmForCausalLM).

GLM-4-9B, the predecessor of GLM-4-0414.

Llama's sequential pre-norm block with a bias on q_proj, k_proj and v_proj, rotary on half of each
head, and a fused MLP: mlp.gate_up_proj computes gate and up in one Linear, split in halves,
mlp.activation_fn (SiLU, act_fn) applies to the gate, and down_proj takes act(gate) * up.
mlp_activation is act_fn's output, act(gate); mlp_neurons is down_proj's input. There is no
separate gate_proj or up_proj module.
"""

from nnterp.declare.family import Family
from nnterp.families._llama import tiny

FAMILY = Family(
    name="glm",
    summary="Llama's block with biased query, key and value projections, half-head rotary and a fused "
            "gate_up_proj.",
    tags=("Sequential block", "RMSNorm", "Biased q, k, v", "Partial rotary", "Fused gate/up"),
    rename={"activation_fn": "act_fn"},
    tiny=tiny("GlmConfig", head_dim=16, pad_token_id=0),
)
