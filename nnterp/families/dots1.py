"""dots.llm1 (Dots1ForCausalLM).

Llama's block with per-head RMSNorm q_norm/k_norm before rotary, and DeepSeek-V3's mixture of
experts: the first first_k_dense_replace blocks hold a dense gated MLP (Dots1MLP) of width
intermediate_size, the others a Dots1MoE of a router gate (Dots1TopkRouter), experts (fused
gate_up_proj [n_routed_experts, 2·moe_intermediate_size, hidden_size] and down_proj) and
shared_experts (a gated MLP of n_shared_experts·moe_intermediate_size on every token). The router
computes logits = F.linear(x, weight) in float32, scores = sigmoid(logits), chooses among the
topk_group best of n_group groups the top_k of scores + e_score_correction_bias, and weights the
chosen experts by their scores (normalized when norm_topk_prob, times routed_scaling_factor);
the block returns experts(x) + shared_experts(x). Sliding-window layers are possible through
layer_types.
"""

from nnterp.declare.family import Family
from nnterp.declare.routers import DEEPSEEK_V3
from nnterp.families._llama import tiny

FAMILY = Family(
    name="dots1",
    summary="rednote's dots.llm1: per-head query/key norms, a dense first block, then DeepSeek-V3's sigmoid router "
            "choosing 6 of 128 experts per token beside shared experts.",
    tags=("Sequential block", "RMSNorm", "QK-norm", "Mixture of experts", "Shared experts"),
    moe=DEEPSEEK_V3,
    tiny=tiny("Dots1Config", moe_intermediate_size=64, n_group=1, topk_group=1, n_routed_experts=4,
              num_experts_per_tok=2, n_shared_experts=1, first_k_dense_replace=1),
)
