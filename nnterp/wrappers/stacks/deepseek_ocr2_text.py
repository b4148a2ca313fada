"""DeepSeek-OCR 2, the language model (DeepseekOcr2TextModel).

DeepSeek-V2's block and DeepSeekMoE with Llama's attention in place of the latent one: q_proj,
k_proj, v_proj and o_proj with grouped keys and values and the rotary on every dimension
(cos/sin, not complex pairs). Each block's MLP slot holds, per mlp_layer_types, a dense gated
MLP ("dense") or a DeepseekV2Moe ("sparse"): a router gate (softmax over all experts, top_k kept,
within the topk_group best of n_group groups under group_limited_greedy, the weights times
routed_scaling_factor, not renormalized), experts (fused gate_up_proj and down_proj) and
shared_experts on every token; the block returns experts(x) + shared_experts(x).
"""

from nnterp.wrappers.stacks import like

FAMILY = like(
    "deepseek_v2", __name__,
    summary="DeepSeek-V2's DeepSeekMoE blocks (a softmax router over fine-grained experts beside shared experts) with "
            "Llama's multi-head attention in place of the latent one.",
    tags=("Sequential block", "RMSNorm", "Grouped keys/values", "Mixture of experts", "Shared experts"),
    # the attention is Llama's: its queries, keys, values and head sizes are the common ones
    common=("attention_queries", "attention_keys", "attention_values", "num_kv_heads", "head_dim", "qk_head_dim"),
)
