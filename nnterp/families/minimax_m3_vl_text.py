"""MiniMax-M3, the language model (MiniMaxM3VLForCausalLM).

The text decoder of the MiniMax-M3 vision-language model: Llama's block with (1 + weight) RMSNorms,
per-head RMSNorm q_norm/k_norm before partial rotary (rotary_dim), grouped keys and values, and on
layers with an indexer a block-sparse attention: the indexer scores key blocks from the hidden
states and, under eager and sdpa, its chosen blocks become an additive mask merged into the
attention mask the kernel receives, so the attention values are those of the masked kernel. The
MLP slot holds, per mlp_layer_types, a dense MiniMaxM3VLDenseMLP (fused gate_up_proj Linear, a
clamped SwiGLU written inline, down_proj) or a MiniMaxM3VLSparseMoeBlock of a router gate
(MiniMaxM3VLTopKRouter), experts (fused gate_up_proj [num_local_experts, 2·intermediate_size,
hidden_size] and down_proj) and shared_experts (a dense MLP on every token). The router computes
logits = F.linear(x, weight), chooses the top_k of sigmoid(logits) + e_score_correction_bias and
weights the chosen experts by their sigmoid scores normalized to sum to one; the block returns
routed_scaling_factor · experts(x) + shared_experts(x).
"""

from nnterp.declare.family import Family
from nnterp.declare.routers import MoE, Router, experts_sentence
from nnterp.declare.sites import Nowhere
from nnterp.families._llama import tiny

INLINE_SWIGLU = ("a clamped SwiGLU written inline in the dense MLP's forward (gate·sigmoid(swiglu_alpha·gate) on the "
                 "clamped halves of gate_up_proj's output): no activation module or call outputs it")

FAMILY = Family(
    name="minimax_m3_vl_text",
    summary="The text decoder of MiniMax-M3: block-sparse indexed attention on some layers, and a sigmoid router with "
            "a load-balancing bias over 128 experts, scaled and added to a shared expert.",
    tags=("Sequential block", "RMSNorm", "Grouped keys/values", "QK-norm", "Partial rotary", "Mixture of experts",
          "Shared experts"),
    moe=MoE(Router(
        "gate", "F.linear",
        logits="The router's score for every expert, before the sigmoid",
        weights_description="The chosen experts' sigmoid scores normalized to sum to one (the choice adds "
                            "e_score_correction_bias; the weights do not); the block then scales the routed sum by "
                            "routed_scaling_factor and adds the shared experts",
        choices_description="The experts each position is sent to: the top_k of sigmoid(logits) + "
                            "e_score_correction_bias; read-only",
    ), experts_sentence(
        "experts.gate_up_proj [num_local_experts, 2·intermediate_size, hidden_size] and experts.down_proj "
        "[num_local_experts, hidden_size, intermediate_size]"),
        dense={"mlp_activation": Nowhere(INLINE_SWIGLU)}, num_experts="num_local_experts"),
    accessors={"intermediate_size": lambda c: c.dense_intermediate_size},
    tiny=tiny("MiniMaxM3VLTextConfig", dense_intermediate_size=128, shared_intermediate_size=64, head_dim=16,
              num_local_experts=4, num_experts_per_tok=2, index_head_dim=32, index_n_heads=2, bos_token_id=1,
              eos_token_id=2),
)
