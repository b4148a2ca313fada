"""Hy3 (HYV3ForCausalLM).

Llama's block with per-head RMSNorm q_norm/k_norm before rotary, grouped keys and values, and a
mixture of experts chosen per block by mlp_layer_types: "dense" blocks hold a gated HYV3MLP of
width intermediate_size, "sparse" ones an HYV3MoE of a router gate (HYV3TopKRouter), experts
(fused gate_up_proj [num_experts, 2·moe_intermediate_size, hidden_size] and down_proj),
shared_experts and the block's own e_score_correction_bias, handed to the router. The router
computes logits = F.linear(x, weight) in float32, chooses the top_k of sigmoid(logits) + bias and
weights the chosen experts by their sigmoid scores normalized to sum to one, times
router_scaling_factor; the block returns experts(x) + shared_experts(x) (summed in float32 when
enable_moe_fp32_combine).
"""

from nnterp.declare.family import Family
from nnterp.declare.routers import LOGITS_BEFORE_SIGMOID, MoE, Router, experts_sentence
from nnterp.families._llama import tiny

FAMILY = Family(
    name="hy_v3",
    summary="Tencent's Hy3: per-head query/key norms, dense and sparse blocks, and a sigmoid router with a "
            "load-balancing bias beside shared experts.",
    tags=("Sequential block", "RMSNorm", "Grouped keys/values", "QK-norm", "Mixture of experts", "Shared experts"),
    moe=MoE(Router(
        "gate", "F.linear", logits=LOGITS_BEFORE_SIGMOID,
        weights_description="The chosen experts' sigmoid scores normalized to sum to one, times router_scaling_factor "
                            "(the choice adds the block's e_score_correction_bias; the weights do not)",
        choices_description="The experts each position is sent to: the top_k of sigmoid(logits) + "
                            "e_score_correction_bias; read-only",
    ), experts_sentence()),
    tiny=tiny("HYV3Config", moe_intermediate_size=64, head_dim=16, num_experts=4, num_experts_per_tok=2),
)
