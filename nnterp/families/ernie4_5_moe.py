"""ERNIE 4.5 MoE (Ernie4_5_MoeForCausalLM).

Llama's attention and block with a mixture of experts on the blocks from moe_layer_start_index on,
every moe_layer_interval (the others hold a dense gated Ernie4_5_MoeMLP of width
intermediate_size). An MoE block (Ernie4_5_MoeSparseMoeBlock) holds a router gate
(Ernie4_5_MoeTopKRouter with moe_statics, a learned e_score_correction_bias), experts (fused
gate_up_proj [moe_num_experts, 2·moe_intermediate_size, hidden_size] and down_proj) and
shared_experts. The router computes logits = F.linear(x, weight) in float32, softmaxes them over
all experts, chooses the top_k of softmax + e_score_correction_bias, and weights the chosen experts
by their softmax probabilities renormalized to sum to one (the sum clamped at moe_norm_min); the
block returns experts(x) + shared_experts(x). Embeddings are tied to lm_head.
"""

from nnterp.declare.family import Family
from nnterp.declare.routers import LOGITS_BEFORE_SOFTMAX, MoE, Router, experts_sentence
from nnterp.families._llama import tiny

FAMILY = Family(
    name="ernie4_5_moe",
    summary="Baidu's ERNIE 4.5 MoE: Llama's attention, a dense first block, then a softmax router whose choice adds "
            "a load-balancing bias, beside shared experts.",
    tags=("Sequential block", "RMSNorm", "Grouped keys/values", "Mixture of experts", "Shared experts",
          "Tied embeddings"),
    moe=MoE(Router(
        "gate", "F.linear", logits=LOGITS_BEFORE_SOFTMAX + " (computed in float32)",
        weights_description="The chosen experts' softmax probabilities over all experts, renormalized over the top_k "
                            "(the choice adds moe_statics.e_score_correction_bias; the weights do not)",
        choices_description="The experts each position is sent to: the top_k of softmax(logits) + "
                            "e_score_correction_bias; read-only",
    ), experts_sentence(), num_experts="moe_num_experts", top_k="moe_k"),
    tiny=tiny("Ernie4_5_MoeConfig", moe_intermediate_size=64, moe_num_experts=4, moe_k=2),
)
