"""Flint (FlintForCausalLM).

Llama's block with attention sinks and a mixture of experts. The attention normalizes queries and
keys per head (q_norm, k_norm); only the sliding-window layers rotate them (full-attention layers
are NoPE); its eager kernel computes the scores in float32, appends one learned sink logit per head
(self.sinks, passed as s_aux) as a last key column, softmaxes and drops it, so each query's
probabilities sum to less than one. The model runs only under eager attention. Blocks listed in
mlp_only_layers (and off the decoder_sparse_step grid) hold a dense gated FlintMLP of width
intermediate_size; the others a FlintSparseMoeBlock of a router gate (FlintTopKRouter), experts
(fused gate_up_proj [num_experts, 2·moe_intermediate_size, hidden_size] and down_proj) and a
shared_expert on every token. The router computes logits = F.linear(x, weight) in float32, keeps
the top_k of sigmoid(logits) and, when norm_topk_prob, normalizes them to sum to one; the block
returns experts(x) + shared_expert(x).
"""

from nnterp.declare.family import EAGER_LOADS, Family
from nnterp.declare.routers import LOGITS_BEFORE_SIGMOID, MoE, Router, experts_sentence
from nnterp.declare.sites import sink_scores
from nnterp.families._llama import tiny

FAMILY = Family(
    name="flint",
    summary="Attention sinks on every layer, sliding-window layers with rotary interleaved with full NoPE ones, and a "
            "sigmoid router over fine-grained experts beside a shared expert.",
    tags=("Sequential block", "RMSNorm", "Grouped keys/values", "QK-norm", "Attention sinks", "Sliding window",
          "Mixture of experts", "Shared experts"),
    moe=MoE(Router(
        "gate", "F.linear", logits=LOGITS_BEFORE_SIGMOID,
        weights_description="The chosen experts' sigmoid scores (normalized to sum to one when norm_topk_prob); "
                            "the shared expert runs on every token unweighted",
    ), experts_sentence()),
    sites={
        "attention_scores": sink_scores(),
    },
    loads=EAGER_LOADS,
    tiny=tiny("FlintConfig", moe_intermediate_size=64, shared_expert_intermediate_size=64, head_dim=16, num_experts=4,
              num_experts_per_tok=2, mlp_only_layers=[0], layer_types=["full_attention", "sliding_attention"]),
)
