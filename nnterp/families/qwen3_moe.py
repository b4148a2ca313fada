"""Qwen3-MoE (Qwen3MoeForCausalLM).

Qwen3's block (per-head RMSNorm q_norm/k_norm on queries and keys before rotary, grouped keys and
values, no projection biases) with a mixture of experts in the MLP slot: model.layers[i].mlp is a
Qwen3MoeSparseMoeBlock of a router gate (Qwen3MoeTopKRouter) and experts (fused gate_up_proj
[num_experts, 2·moe_intermediate_size, hidden_size] and down_proj). On the positions flattened to
[tokens, hidden_size] the router computes logits = F.linear(x, weight), a float32 softmax over all
experts and keeps the top_k probabilities, renormalized when norm_topk_prob (on in the released
checkpoints). No shared expert. Blocks in mlp_only_layers, or off the decoder_sparse_step grid,
hold a dense Qwen3MoeMLP and serve its neurons.
"""

from nnterp.declare.family import Family
from nnterp.declare.routers import LOGITS_BEFORE_SOFTMAX, SOFTMAX_THEN_TOPK_OPTIONAL, MoE, Router, experts_sentence
from nnterp.families._llama import tiny

FAMILY = Family(
    name="qwen3_moe",
    summary="Qwen3's block with per-head query/key norms and a fine-grained mixture of experts: a softmax router "
            "picks 8 of 128 small experts per token, with no shared expert.",
    tags=("Sequential block", "RMSNorm", "Grouped keys/values", "QK-norm", "Mixture of experts"),
    moe=MoE(Router("gate", "F.linear", logits=LOGITS_BEFORE_SOFTMAX,
                   weights_description=SOFTMAX_THEN_TOPK_OPTIONAL), experts_sentence()),
    tiny=tiny("Qwen3MoeConfig", moe_intermediate_size=64, num_experts=4, num_experts_per_tok=2),
)

