"""Laguna (LagunaForCausalLM).

Llama's block with a gated attention and a mixture of experts. The attention normalizes queries
and keys per head (q_norm, k_norm) before partial rotary, runs the kernel, then multiplies its
output by softplus(g_proj(x)) (one gate per head when gating is per-head, one per channel
otherwise) before o_proj: attention_head_outputs is the kernel's output, before that gate, and
attention_premix is o_proj's input, after it. Sliding-window layers follow layer_types; the head
count may vary per layer (num_attention_heads_per_layer). The MLP slot holds, per mlp_layer_types,
a dense gated LagunaMLP of width intermediate_size or a LagunaSparseMoeBlock of a router gate
(LagunaTopKRouter), experts (fused gate_up_proj [num_experts, 2·moe_intermediate_size,
hidden_size] and down_proj) and shared_experts. The router computes logits = F.linear(x, weight)
in float32, soft-caps them when moe_router_logit_softcapping > 0, chooses the top_k of
sigmoid(logits) + e_score_correction_bias, and weights the chosen experts by their sigmoid scores
normalized to sum to one; the block returns routed_scaling_factor · experts(x) + shared_experts(x).
"""

from nnterp.declare.blocks import Block, attention_dims
from nnterp.declare.family import Family
from nnterp.declare.routers import MoE, Router, experts_sentence
from nnterp.families._llama import tiny
from nnterp.families._mla import premix_per_block


FAMILY = Family(
    name="laguna",
    summary="Poolside's Laguna: a softplus output gate on every attention head, and a sigmoid router with a "
            "load-balancing bias over 256 experts, scaled and added to a shared expert.",
    tags=("Sequential block", "RMSNorm", "Grouped keys/values", "QK-norm", "Gated attention", "Partial rotary",
          "Mixture of experts", "Shared experts"),
    block=Block(dims=attention_dims),  # num_attention_heads_per_layer gives each block its heads
    moe=MoE(Router(
        "gate", "F.linear",
        logits="The router's score for every expert, before the optional soft cap and the sigmoid (float32)",
        weights_description="The chosen experts' sigmoid scores normalized to sum to one (the choice adds "
                            "e_score_correction_bias; the weights do not); the block then scales the routed sum "
                            "by routed_scaling_factor and adds the shared experts",
        choices_description="The experts each position is sent to: the top_k of sigmoid(logits) + "
                            "e_score_correction_bias; read-only",
    ), experts_sentence()),
    sites={
        "attention_head_outputs": "The per-head outputs of the attention kernel, before the output gate: the attention then "
                                  "multiplies them by softplus(g_proj(x)) and attention_premix is after it",
        "attention_premix": premix_per_block(
            "Every head's gated output side by side, as o_proj takes it: the kernel's output times "
            "softplus(g_proj(x))"),
    },
    tiny=tiny("LagunaConfig", moe_intermediate_size=64, shared_expert_intermediate_size=64, head_dim=16,
              num_experts=4, num_experts_per_tok=2),
    variants={"heads_per_layer": {"num_attention_heads_per_layer": [4, 2]}},
)
