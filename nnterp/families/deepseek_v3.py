"""DeepSeek-V3 (DeepseekV3ForCausalLM).

DeepSeek-V2's Multi-head Latent Attention (see _mla; rotary interleaved when rope_interleave) with
DeepSeek-V3's router. The first first_k_dense_replace blocks hold a dense gated MLP of width
intermediate_size; the others a DeepseekV3MoE of a router gate (DeepseekV3TopkRouter), experts
(fused gate_up_proj [n_routed_experts, 2·moe_intermediate_size, hidden_size] and down_proj) and
shared_experts on every token. The router computes logits = F.linear(x, weight) in float32,
scores = sigmoid(logits), keeps the topk_group best of n_group expert groups (by the sum of each
group's two best scores + e_score_correction_bias), chooses there the top_k of scores + bias, and
weights the chosen experts by their scores (normalized when norm_topk_prob, times
routed_scaling_factor); the block returns experts(x) + shared_experts(x). The multi-token-
prediction layers of the checkpoint are not built by the causal-LM class.
"""

from nnterp.declare.family import Family
from nnterp.declare.routers import DEEPSEEK_V3
from nnterp.families._llama import tiny
from nnterp.families._mla import MLA_ACCESSORS, mla_sites

FAMILY = Family(
    name="deepseek_v3",
    summary="DeepSeek-V3: Multi-head Latent Attention, three dense blocks, then a sigmoid router with a load-balancing "
            "bias and group-limited choice over 256 experts beside a shared expert.",
    tags=("Sequential block", "RMSNorm", "Latent attention (MLA)", "Mixture of experts", "Shared experts"),
    moe=DEEPSEEK_V3,
    sites=mla_sites(),
    accessors=MLA_ACCESSORS,
    tiny=tiny("DeepseekV3Config", num_key_value_heads=4, moe_intermediate_size=64, n_routed_experts=4,
              num_experts_per_tok=2, n_group=1, topk_group=1, first_k_dense_replace=1, kv_lora_rank=32,
              q_lora_rank=32, qk_rope_head_dim=16, qk_nope_head_dim=16, v_head_dim=16),
)

