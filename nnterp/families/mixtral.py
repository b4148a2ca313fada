"""Mixtral (MixtralForCausalLM).

Llama's block with a sparse mixture of experts in the MLP slot: model.layers[i].mlp is a
MixtralSparseMoeBlock of a router gate (MixtralTopKRouter, a bare [num_experts, hidden_size]
weight) and experts (MixtralExperts, fused gate_up_proj [num_experts, 2·intermediate_size,
hidden_size] and down_proj [num_experts, hidden_size, intermediate_size]). The block flattens the
positions to [tokens, hidden_size]; the router computes logits = F.linear(x, weight), softmaxes
them over all experts in float32, keeps the top_k and renormalizes the kept probabilities to sum
to one; the experts kernel (config._experts_implementation, grouped_mm by default) runs each
token through its chosen experts and sums their outputs with those weights. No shared expert: the
block's output is the routed sum. The attention is Llama's, with an optional sliding window.
"""

from nnterp.declare.family import Family
from nnterp.declare.routers import MoE, Router, experts_sentence
from nnterp.families._llama import tiny

FAMILY = Family(
    name="mixtral",
    summary="Llama's block with a sparse mixture of experts in the MLP slot: a softmax router picks two of eight "
            "experts per token and mixes them with renormalized probabilities.",
    tags=("Sequential block", "RMSNorm", "Grouped keys/values", "Mixture of experts"),
    moe=MoE(Router(
        "gate", "F.linear",
        logits="The router's score for every expert, before the softmax over all experts",
        weights_description="The chosen experts' softmax probabilities, renormalized to sum to one over the top_k",
    ), experts_sentence(
        "experts.gate_up_proj [num_experts, 2·intermediate_size, hidden_size] and experts.down_proj "
        "[num_experts, hidden_size, intermediate_size]"), num_experts="num_local_experts"),
    tiny=tiny("MixtralConfig", head_dim=16, num_local_experts=4, num_experts_per_tok=2),
)

