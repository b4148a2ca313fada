"""Qwen2-MoE (Qwen2MoeForCausalLM), the architecture of Qwen1.5-MoE.

Qwen2's block (biased q/k/v, grouped keys and values) with a mixture of experts in the MLP slot:
model.layers[i].mlp is a Qwen2MoeSparseMoeBlock of a router gate (Qwen2MoeTopKRouter), experts
(fused gate_up_proj [num_experts, 2·moe_intermediate_size, hidden_size] and down_proj), a
shared_expert (a gated MLP with gate_proj, up_proj, down_proj, act_fn) and a shared_expert_gate
(Linear to one unit). On the positions flattened to [tokens, hidden_size] the router computes
logits = F.linear(x, weight), a float32 softmax over all experts, the top_k probabilities
(renormalized only when norm_topk_prob); the block returns experts(x) + sigmoid(shared_expert_gate(x))
· shared_expert(x). Blocks listed in mlp_only_layers, or off the decoder_sparse_step grid, hold a
dense Qwen2MoeMLP of width intermediate_size instead, and serve the MLP's neurons.
"""

from nnterp.declare.family import Family
from nnterp.declare.routers import MoE, Router, experts_sentence
from nnterp.families._llama import tiny

FAMILY = Family(
    name="qwen2_moe",
    summary="Qwen2's block with a mixture of experts beside a sigmoid-gated shared expert: a softmax router picks "
            "top_k experts per token, and the shared expert runs on every token.",
    tags=("Sequential block", "RMSNorm", "Grouped keys/values", "Biased q, k, v", "Mixture of experts",
          "Shared experts"),
    moe=MoE(Router(
        "gate", "F.linear",
        logits="The router's score for every expert, before the softmax over all experts",
        weights_description="The chosen experts' softmax probabilities (renormalized over the top_k when "
                            "norm_topk_prob); the shared expert is weighted apart, by sigmoid(shared_expert_gate(x))",
    ), experts_sentence()),
    tiny=tiny("Qwen2MoeConfig", moe_intermediate_size=64, shared_expert_intermediate_size=64, num_experts=4,
              num_experts_per_tok=2),
)

