"""MiniMax-M2 (MiniMaxM2ForCausalLM).

Llama's block with RMSNorm q_norm/k_norm over the whole projection width (before the heads are
split), grouped keys and values, and a mixture of experts in every MLP slot. model.layers[i].mlp is
a MiniMaxM2SparseMoeBlock of a router gate (MiniMaxM2TopKRouter), experts (fused gate_up_proj
[num_experts, 2·intermediate_size, hidden_size] and down_proj) and the block's own
e_score_correction_bias, which it hands to the router. The router computes
logits = F.linear(x, weight) on the flattened positions, takes sigmoid(logits) in float32, chooses
the top_k of sigmoid + bias, and weights the chosen experts by their sigmoid scores normalized to
sum to one. No shared expert.
"""

from nnterp.declare.family import Family
from nnterp.declare.routers import MoE, Router, experts_sentence
from nnterp.families._llama import tiny

FAMILY = Family(
    name="minimax_m2",
    summary="Full attention with query/key norms over the whole width, and a sigmoid router with a load-balancing "
            "bias choosing 8 of 256 experts per token.",
    tags=("Sequential block", "RMSNorm", "Grouped keys/values", "QK-norm", "Mixture of experts"),
    moe=MoE(Router(
        "gate", "F.linear",
        logits="The router's score for every expert, before the sigmoid",
        weights_description="The chosen experts' sigmoid scores normalized to sum to one (the choice adds the block's "
                            "e_score_correction_bias; the weights do not)",
        choices_description="The experts each position is sent to: the top_k of sigmoid(logits) + "
                            "e_score_correction_bias; read-only",
    ), experts_sentence(
        "experts.gate_up_proj [num_experts, 2·intermediate_size, hidden_size] and experts.down_proj "
        "[num_experts, hidden_size, intermediate_size]"), num_experts="num_local_experts"),
    tiny=tiny("MiniMaxM2Config", head_dim=16, num_local_experts=4, num_experts_per_tok=2, bos_token_id=1,
              eos_token_id=2),
)
