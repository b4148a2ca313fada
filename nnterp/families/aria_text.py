"""Aria, the language model (AriaTextForCausalLM).

The text decoder of the Aria vision-language model: Llama's attention and block, with a mixture
of experts in every MLP slot. model.layers[i].mlp is an AriaTextMoELayer of a router
(AriaTextTopKRouter, a bare [num_experts, hidden_size] weight), experts (AriaExperts, fused and
transposed: gate_up_proj [num_experts, hidden_size, 2·intermediate_size], down_proj
[num_experts, intermediate_size, hidden_size]) and shared_experts (a gated MLP on every token).
On the flattened positions the router computes logits = nn.functional.linear(x, weight), takes the
top_k logits and softmaxes them among themselves; the layer returns experts(x) + shared_experts(x).
"""

from nnterp.declare.family import Family
from nnterp.declare.routers import TOPK_THEN_SOFTMAX, MoE, Router, experts_sentence
from nnterp.families._llama import tiny

FAMILY = Family(
    name="aria_text",
    summary="The text decoder of the Aria vision-language model: Llama's block with a top-k-then-softmax router over "
            "fine-grained experts beside a shared expert.",
    tags=("Sequential block", "RMSNorm", "Mixture of experts", "Shared experts"),
    moe=MoE(Router(
        "router", "nn.functional.linear",
        logits="The router's score for every expert, before the top-k choice",
        weights_description=TOPK_THEN_SOFTMAX + "; the shared experts run on every token unweighted",
    ), experts_sentence(
        "experts.gate_up_proj [num_experts, hidden_size, 2·intermediate_size] and experts.down_proj "
        "[num_experts, intermediate_size, hidden_size]"), num_experts="moe_num_experts", top_k="moe_topk"),
    tiny=tiny("AriaTextConfig", head_dim=16, moe_num_experts=4, moe_topk=2),
)
