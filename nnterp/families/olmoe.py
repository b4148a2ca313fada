"""OLMoE (OlmoeForCausalLM).

Llama's block with a mixture of experts in every MLP slot and a query/key norm: the attention's
q_norm and k_norm are RMSNorms over the whole projection width (all heads at once, not per head),
applied before the heads are split and rotated; clip_qkv, when set, clamps the three projections.
model.layers[i].mlp is an OlmoeSparseMoeBlock of a router gate (OlmoeTopKRouter) and experts
(fused gate_up_proj [num_experts, 2·intermediate_size, hidden_size] and down_proj). On the
positions flattened to [tokens, hidden_size] the router computes logits = F.linear(x, weight), a
float32 softmax over all experts and keeps the top_k probabilities, renormalized only when
norm_topk_prob (off on OLMoE-1B-7B). No shared expert.
"""

from nnterp.declare.family import Family
from nnterp.declare.routers import MoE, Router, experts_sentence
from nnterp.families._llama import tiny

FAMILY = Family(
    name="olmoe",
    summary="Llama's block with a 64-expert mixture in every MLP slot (8 chosen per token by a softmax router) and "
            "a query/key RMSNorm over the whole projection width.",
    tags=("Sequential block", "RMSNorm", "QK-norm", "Mixture of experts"),
    moe=MoE(Router(
        "gate", "F.linear",
        logits="The router's score for every expert, before the softmax over all experts",
        weights_description="The chosen experts' softmax probabilities over all experts (renormalized over the "
                            "top_k only when norm_topk_prob)",
    ), experts_sentence(
        "experts.gate_up_proj [num_experts, 2·intermediate_size, hidden_size] and experts.down_proj "
        "[num_experts, hidden_size, intermediate_size]")),
    tiny=tiny("OlmoeConfig", num_experts=4, num_experts_per_tok=2, eos_token_id=2),
)
