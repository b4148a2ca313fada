"""Phi-3.5-MoE (PhimoeForCausalLM).

Llama's names on a block with LayerNorms (with biases) instead of RMSNorms, grouped keys and values
and a mixture of experts in every MLP slot: model.layers[i].mlp is a PhimoeSparseMoeBlock of a
router (PhimoeTopKRouter, itself an nn.Linear: logits = super().forward(x)) and experts (fused
gate_up_proj [num_local_experts, 2·intermediate_size, hidden_size] and down_proj). The router
mixes with SparseMixer: in eval the first expert is the argmax and its weight the softmax over the
experts whose logits lie within a 2·router_jitter_noise relative window of the maximum; the second
expert is the argmax of the rest and its weight the softmax within the same window of the second
maximum. Always two experts, whatever num_experts_per_tok says. lm_head may carry a bias
(lm_head_bias).
"""

from nnterp.declare.family import Family
from nnterp.declare.routers import MoE, Router, experts_sentence
from nnterp.families._llama import tiny

FAMILY = Family(
    name="phimoe",
    summary="Phi-3.5's mixture of experts: LayerNorm blocks whose MLP is 16 experts chosen two per token by a "
            "SparseMixer router, each weighted by a softmax restricted to the experts close to it.",
    tags=("Sequential block", "LayerNorm", "Grouped keys/values", "Mixture of experts"),
    moe=MoE(Router(
        "router", "forward",
        logits="The router's score for every expert: the router is an nn.Linear, read at its super().forward call",
        weights_description="SparseMixer's weights: each chosen expert's softmax among the experts whose logits lie "
                            "within a 2·router_jitter_noise relative window of its own (the first expert excluded "
                            "for the second)",
        choices_description="The argmax expert, then the argmax of the rest (two per position); read-only",
    ), experts_sentence(
        "experts.gate_up_proj [num_local_experts, 2·intermediate_size, hidden_size] and experts.down_proj "
        "[num_local_experts, hidden_size, intermediate_size]"), num_experts="num_local_experts"),
    tiny=tiny("PhimoeConfig", num_local_experts=4, num_experts_per_tok=2),
)
