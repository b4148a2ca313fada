"""GLM-4.5 / GLM-4-MoE (Glm4MoeForCausalLM).

Llama's block with partial rotary (half of each head, partial_rotary_factor 0.5), biased q/k/v
projections, optional per-head RMSNorm q_norm/k_norm (use_qk_norm), and DeepSeek-V3's mixture of
experts. The first first_k_dense_replace blocks hold a dense gated MLP (Glm4MoeMLP) of width
intermediate_size; the others a Glm4MoeMoE of a router gate (Glm4MoeTopkRouter), experts (fused
gate_up_proj [n_routed_experts, 2·moe_intermediate_size, hidden_size] and down_proj) and
shared_experts (a gated MLP on every token). The router computes logits = F.linear(x, weight) in
float32, scores = sigmoid(logits); it chooses among the topk_group best of n_group expert groups
the top_k of scores + e_score_correction_bias, and weights the chosen experts by their scores
(normalized when norm_topk_prob, times routed_scaling_factor). The block returns
experts(x) + shared_experts(x).
"""

from nnterp.declare.family import Family
from nnterp.declare.routers import DEEPSEEK_V3
from nnterp.families._llama import tiny

FAMILY = Family(
    name="glm4_moe",
    summary="GLM-4.5: partial rotary attention with biased projections, a dense first block, then DeepSeek-V3's "
            "sigmoid router with group-limited choice over fine-grained experts beside a shared expert.",
    tags=("Sequential block", "RMSNorm", "Grouped keys/values", "Partial rotary", "Biased q, k, v",
          "Mixture of experts", "Shared experts"),
    moe=DEEPSEEK_V3,
    tiny=tiny("Glm4MoeConfig", moe_intermediate_size=64, n_routed_experts=4, num_experts_per_tok=2, n_group=1,
              topk_group=1, first_k_dense_replace=1),
)
