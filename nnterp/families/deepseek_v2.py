"""DeepSeek-V2 (DeepseekV2ForCausalLM).

Llama's block with Multi-head Latent Attention and DeepSeekMoE. The attention (see _mla): queries
through a q-LoRA (q_a_proj, q_a_layernorm, q_b_proj), or through q_proj on checkpoints with
q_lora_rank None (DeepSeek-V2-Lite); keys and values expanded per head by kv_b_proj from the normed
latent of kv_a_proj_with_mqa, with one rotary key shared by all heads; rotary applied as complex
pairs on the last qk_rope_head_dim channels; the scale is qk_head_dim^-0.5 times YaRN's mscale
correction. The first first_k_dense_replace blocks hold a dense gated MLP; the others a
DeepseekV2Moe of a router gate (DeepseekV2TopkRouter), experts (fused gate_up_proj
[n_routed_experts, 2·moe_intermediate_size, hidden_size] and down_proj) and shared_experts on every
token. The router computes logits = F.linear(x, weight) in float32 and softmaxes them over all
experts; topk_method "greedy" keeps the top_k, "group_limited_greedy" first keeps the topk_group
best of n_group expert groups (by their best expert); the weights are the kept probabilities times
routed_scaling_factor, not renormalized. The block returns experts(x) + shared_experts(x).
"""

from nnterp.declare.family import Family
from nnterp.declare.routers import LOGITS_BEFORE_SOFTMAX, MoE, Router, experts_sentence
from nnterp.families._llama import tiny
from nnterp.families._mla import MLA_ACCESSORS, mla_sites

FAMILY = Family(
    name="deepseek_v2",
    summary="DeepSeek-V2: Multi-head Latent Attention, whose keys and values are expanded from a small shared latent, "
            "and DeepSeekMoE, a softmax router over fine-grained experts beside shared experts.",
    tags=("Sequential block", "RMSNorm", "Latent attention (MLA)", "Mixture of experts", "Shared experts"),
    moe=MoE(Router(
        "gate", "F.linear", logits=LOGITS_BEFORE_SOFTMAX + " (computed in float32)",
        weights_description="The chosen experts' softmax probabilities over all experts, times "
                            "routed_scaling_factor (not renormalized); the shared experts run on every token "
                            "unweighted",
        choices_description="The experts each position is sent to: the top_k probabilities (within the "
                            "topk_group best expert groups under group_limited_greedy); read-only",
    ), experts_sentence(
        "experts.gate_up_proj [n_routed_experts, 2·moe_intermediate_size, hidden_size] and experts.down_proj "
        "[n_routed_experts, hidden_size, moe_intermediate_size]"), num_experts="n_routed_experts"),
    sites={
        **mla_sites(),
    },
    accessors=MLA_ACCESSORS,
    tiny=tiny("DeepseekV2Config", num_key_value_heads=4, moe_intermediate_size=64, head_dim=16, n_routed_experts=4,
              kv_lora_rank=32, q_lora_rank=32, qk_rope_head_dim=16, qk_nope_head_dim=16, v_head_dim=16,
              num_experts_per_tok=2),
    variants={"lite_no_q_lora": {"q_lora_rank": None}},
)

