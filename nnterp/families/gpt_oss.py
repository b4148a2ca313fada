"""GPT-OSS (GptOssForCausalLM).

Llama's module names on a block with attention sinks and a mixture of experts in every MLP slot.
The attention (biased q/k/v/o projections, grouped keys and values, sliding-window layers
alternating with full ones) passes its per-head sink logits self.sinks to the kernel as s_aux; the
eager kernel appends them as one more key column, subtracts the row maximum, softmaxes and drops
the column, so each query's probabilities sum to less than one. The model runs only under eager
attention (its sdpa path would ignore the sinks). model.layers[i].mlp is a GptOssMLP of a router
(GptOssTopKRouter: logits = F.linear(x, weight, bias), the top_k logits softmaxed among
themselves) and experts with fused, transposed weights: gate_up_proj [num_experts, hidden_size,
2·intermediate_size] with gate and up interleaved, plus biases, a clamped SwiGLU
((up + 1)·gate·sigmoid(1.702·gate), swiglu_limit), down_proj [num_experts, intermediate_size,
hidden_size]. The MLP returns (output, router_scores); the block adds element 0.
"""

from nnterp.declare.family import EAGER_LOADS, Family
from nnterp.declare.routers import MoE, Router, experts_sentence
from nnterp.declare.sites import sink_scores
from nnterp.families._llama import tiny

FAMILY = Family(
    name="gpt_oss",
    summary="A mixture-of-experts transformer with a learned attention sink per head, sliding-window layers "
            "alternating with full ones, and clamped-SwiGLU experts chosen by a top-k-then-softmax router.",
    tags=("Sequential block", "RMSNorm", "Grouped keys/values", "Attention sinks", "Sliding window",
          "Mixture of experts"),
    moe=MoE(Router(
        "router", "F.linear",
        logits="The router's score for every expert (a biased linear map of the normed stream)",
        weights_description="The softmax of the chosen experts' logits, taken among the top_k only",
    ), experts_sentence(
        "experts.gate_up_proj [num_experts, hidden_size, 2·intermediate_size] with gate and up interleaved, "
        "and experts.down_proj [num_experts, intermediate_size, hidden_size], each with a bias"),
        num_experts="num_local_experts"),
    sites={
        "attention_scores": sink_scores(),
    },
    loads=EAGER_LOADS,
    tiny=tiny("GptOssConfig", head_dim=16, num_local_experts=4, num_experts_per_tok=2),
)

