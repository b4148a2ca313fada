"""K-EXAONE / EXAONE-MoE (ExaoneMoeForCausalLM).

Llama's names on EXAONE's attention: per-head RMSNorm q_norm/k_norm after the heads are split,
sliding-window layers with rotary interleaved with full-attention layers without it (when a
sliding window is set, only the sliding layers rotate), and a mixture of experts chosen per block
by mlp_layer_types: "dense" blocks hold a gated MLP (ExaoneMoeMLP) of width intermediate_size,
"sparse" ones an ExaoneMoeSparseMoEBlock of a router gate (ExaoneMoeTopkRouter), experts (fused
gate_up_proj [num_experts, 2·moe_intermediate_size, hidden_size] and down_proj) and
shared_experts. The router is DeepSeek-V3's: logits = F.linear(x, weight) in float32, sigmoid
scores, group-limited top_k of scores + e_score_correction_bias, the chosen scores normalized and
multiplied by routed_scaling_factor; the block returns experts(x) + shared_experts(x).
"""

from nnterp.declare.family import Family
from nnterp.declare.routers import DEEPSEEK_V3, experts_sentence
from nnterp.families._llama import tiny

FAMILY = Family(
    name="exaone_moe",
    summary="LG's K-EXAONE: sliding-window layers with rotary interleaved with full NoPE layers, per-head "
            "query/key norms, and a DeepSeek-V3 sigmoid router beside a shared expert on its sparse blocks.",
    tags=("Sequential block", "RMSNorm", "QK-norm", "Sliding window", "Mixture of experts", "Shared experts"),
    moe=DEEPSEEK_V3.but(experts=experts_sentence(), num_experts="num_experts"),
    tiny=tiny("ExaoneMoeConfig", moe_intermediate_size=64, num_experts=4, num_experts_per_tok=2, n_group=1,
              topk_group=1, first_k_dense_replace=1, layer_types=["sliding_attention", "full_attention"],
              mlp_layer_types=["dense", "sparse"]),
)
