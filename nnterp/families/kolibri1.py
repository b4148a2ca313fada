"""Kolibri 1 (Kolibri1ForCausalLM).

GLM-4's sandwich block (the catalogue finds the same layer forward) with a mixture of experts in
every MLP slot: h = x + post_self_attn_layernorm(self_attn(input_layernorm(x))), then
out = h + post_mlp_layernorm(mlp(post_attention_layernorm(h))); post_attention_layernorm is the
pre-MLP norm, attention_output and mlp_output are the post-norms' outputs. Queries and keys are
normed per head (q_norm, k_norm); sliding-window layers alternate with full attention, and only the
sliding layers are rotated (the full-attention layers carry no position).
model.layers[i].mlp is a Kolibri1SparseMoeBlock: a router gate (Kolibri1TopKRouter: on the
positions flattened to [tokens, hidden_size], float32 logits F.linear(x, weight), the top_k of
logits + e_score_correction_bias, weights sigmoid(logits) at those experts, normalized over the
top_k when norm_topk_prob), experts (fused gate_up_proj and down_proj), and shared_experts, a gated
MLP run on every position and added to the routed output. On CUDA, for a bfloat16 model without
gradients, the router computes its logits with torch.mm instead of F.linear, so router_logits is
not reached there.
"""

from nnterp.declare.blocks import GLM4_POSTNORMS
from nnterp.declare.family import Family
from nnterp.declare.routers import LOGITS_BEFORE_SIGMOID, MoE, Router, experts_sentence
from nnterp.families._llama import TINY
from nnterp.families._llama_renamed import normed_then_rotated_on_sliding_layers

FAMILY = Family(
    name="kolibri1",
    summary="GLM-4's sandwich block with a sigmoid-routed mixture of experts plus a shared expert in every MLP slot.",
    tags=("Sandwich norms", "RMSNorm", "QK-norm", "Sliding window", "Mixture of experts", "Shared expert"),
    block=GLM4_POSTNORMS,
    moe=MoE(
        Router(
            "gate", "F.linear", logits=LOGITS_BEFORE_SIGMOID,
            weights_description="The chosen experts' sigmoid scores (the choice adds e_score_correction_bias, "
                                "the weights do not), normalized over the top_k when norm_topk_prob"),
        experts_sentence("experts.gate_up_proj [num_experts, 2·moe_intermediate_size, hidden_size] and "
                         "experts.down_proj [num_experts, hidden_size, moe_intermediate_size], plus "
                         "shared_experts, a gated MLP on every position")),
    sites={
        "attention_queries": normed_then_rotated_on_sliding_layers("q_norm", "queries"),
        "attention_keys": normed_then_rotated_on_sliding_layers("k_norm", "keys"),
    },
    tiny={"config_class": "Kolibri1Config", "overrides": {
        **{k: v for k, v in TINY.items() if k != "intermediate_size"}, "head_dim": 16, "moe_intermediate_size": 64,
        "shared_expert_intermediate_size": 64, "num_experts": 4, "num_experts_per_tok": 2,
        "layer_types": ["sliding_attention", "full_attention"]}},
)
