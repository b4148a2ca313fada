"""Command A MoE (Cohere2MoeForCausalLM).

Cohere 2's parallel block (input_layernorm feeds both sublayers, out = x + attn + mlp, no layer_mid;
sliding-window layers rotated, full-attention layers without rotary) with a mixture of experts as
the MLP. model.layers[i].mlp is a Cohere2MoeSparseMoeBlock: on the positions flattened to
[tokens, hidden_size] the router gate computes logits = F.linear(x, weight), keeps the top_k logits
and turns them into weights with a softmax among them (expert_selection_fn "softmax") or a sigmoid
(normalized when norm_topk_prob); the experts are fused gate_up_proj and down_proj, and
shared_experts, when num_shared_experts > 0, are added (or averaged in). The logits are lm_head's
output times logit_scale.
"""

from nnterp.declare.family import Family
from nnterp.declare.routers import MoE, Router, experts_sentence
from nnterp.families._llama import tiny
from nnterp.families._parallel_cohere import COHERE_BLOCK, rotated_on_sliding_layers, times_logit_scale

FAMILY = Family(
    name="cohere2_moe",
    summary="Cohere 2's parallel block with a mixture of experts as the MLP.",
    tags=("Parallel block", "LayerNorm (no bias)", "Sliding window", "NoPE layers", "Mixture of experts",
          "Scaled logits", "Tied embeddings"),
    block=COHERE_BLOCK,
    moe=MoE(
        Router(
            "gate", "F.linear",
            logits="The router's score for every expert, before the top-k choice",
            weights_description="The chosen experts' weights: a softmax among the top_k logits "
                                "(expert_selection_fn softmax), or their sigmoid, normalized when norm_topk_prob"),
        experts_sentence("experts.gate_up_proj [num_experts, 2·intermediate_size, hidden_size] and "
                         "experts.down_proj [num_experts, hidden_size, intermediate_size]")),
    sites={
        "attention_queries": rotated_on_sliding_layers("queries", 1),
        "attention_keys": rotated_on_sliding_layers("keys", 2),
    },
    readout=times_logit_scale,
    tiny=tiny("Cohere2MoeConfig", head_dim=16, num_experts=4, num_experts_per_tok=2, eos_token_id=2,
              logit_scale=0.25, layer_types=["sliding_attention", "full_attention"],
              mlp_layer_types=["sparse", "sparse"]),
)
