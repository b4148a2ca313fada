"""Granite MoE (GraniteMoeForCausalLM).

Granite's multipliers on a Llama-named block whose MLP is a mixture of experts named
block_sparse_moe (aliased mlp). The model multiplies the embeddings by embedding_multiplier before
the first block (token_embeddings is embed_tokens' output, layers[0].input the product); the
attention scales its scores by attention_multiplier instead of 1/sqrt(head_dim); the block adds
each sublayer times residual_multiplier, h = x + residual_multiplier·attn and
out = h + residual_multiplier·moe, so attention_output and mlp_output are those products (an edit
is carried back divided by the multiplier); logits are lm_head's output divided by
logits_scaling. The MoE block holds a router (GraniteMoeTopKRouter: logits = F.linear(x, weight),
cast to float32, the top_k logits softmaxed among themselves) and experts (fused gate_up_proj
[num_local_experts, 2·intermediate_size, hidden_size] and down_proj).
"""

from nnterp.declare.blocks import GRANITE_BLOCK, ConfigKey
from nnterp.declare.family import Family
from nnterp.declare.routers import TOPK_THEN_SOFTMAX, MoE, Router, experts_sentence
from nnterp.declare.sites import Argument, Child, Element, Own, PlusEarlier, Read, Sibling
from nnterp.families._llama import logits_divided_by_scaling, tiny

#: the multiplier the block gives each contribution
RESIDUAL_MULTIPLIER = ConfigKey("residual_multiplier")

_SCALED = Read(Own("output"), Element(0), scale=RESIDUAL_MULTIPLIER,
               description="What the MoE block adds to the residual stream: its output times residual_multiplier")
_WITH_SHARED = PlusEarlier(
    Sibling("shared_mlp"), Element(0), scale=RESIDUAL_MULTIPLIER, earlier=Own("output"),
    earlier_scale=RESIDUAL_MULTIPLIER, words=", times residual_multiplier",
    description="What the MLP adds to the residual stream: the MoE block's output plus the block's shared_mlp "
                "output (a sibling module run on every token), times residual_multiplier")


def _mlp_output(context):
    """The layer's shared_mlp (GraniteMoeShared, GraniteMoeSWA, GraniteMoeHybrid), when the checkpoint has one, is
    part of mlp_output."""
    shared = getattr(context.layer, "shared_mlp", None) if context is not None else None
    return _SCALED if shared is None else _WITH_SHARED


FAMILY = Family(
    name="granitemoe",
    summary="Granite's multipliers (embeddings, attention scale, residual branches, logits) on a Llama block whose "
            "MLP is a top-k-then-softmax mixture of experts.",
    tags=("Sequential block", "RMSNorm", "Grouped keys/values", "Multipliers", "Mixture of experts"),
    rename={"block_sparse_moe": "mlp"},
    block=GRANITE_BLOCK,
    moe=MoE(
        Router("router", "F.linear",
               logits="The router's score for every expert, before the top-k choice (the router casts it to float32)",
               weights_description=TOPK_THEN_SOFTMAX),
        experts_sentence("experts.gate_up_proj [num_local_experts, 2·intermediate_size, hidden_size] and "
                         "experts.down_proj [num_local_experts, hidden_size, intermediate_size]"),
        num_experts="num_local_experts"),
    sites={
        # the MoE block and the shared_mlp read one tensor: an assignment is copied into it, so it reaches both
        "mlp_input": Read(Child("mlp", "input"), Argument(0), shared=True),
        "mlp_output": _mlp_output,
    },
    readout=logits_divided_by_scaling,
    tiny=tiny("GraniteMoeConfig", num_local_experts=4, num_experts_per_tok=2, residual_multiplier=0.22,
              embedding_multiplier=12.0, logits_scaling=6.0, attention_multiplier=0.015625),
)
