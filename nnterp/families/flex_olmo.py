"""FlexOlmo (FlexOlmoForCausalLM).

OLMo 2's post-norm block with a mixture of experts in every MLP slot: no norm before either
sublayer, h = x + post_attention_layernorm(self_attn(x)), out = h + post_feedforward_layernorm(mlp(h));
attention_output and mlp_output are the post-norms' outputs, layer_mid is the MoE block's input.
q_norm and k_norm are RMSNorms over the whole projection width before the rotary.
model.layers[i].mlp is a FlexOlmoSparseMoeBlock of a router gate (FlexOlmoTopKRouter: on the
positions flattened to [tokens, hidden_size], logits = F.linear(x, weight), a float32 softmax over
all experts, the top_k probabilities, renormalized when norm_topk_prob) and experts (fused
gate_up_proj and down_proj).
"""

from nnterp.declare.blocks import OLMO2_POSTNORMS
from nnterp.declare.family import Family
from nnterp.declare.routers import LOGITS_BEFORE_SOFTMAX, SOFTMAX_THEN_TOPK_OPTIONAL, MoE, Router, experts_sentence
from nnterp.families._llama import tiny
from nnterp.families._postnorm_olmo2 import WIDE_QK_NORM

FAMILY = Family(
    name="flex_olmo",
    summary="OLMo 2's post-norm block with a mixture of experts in every MLP slot.",
    tags=("Post-norm block", "RMSNorm", "QK-norm", "Mixture of experts"),
    block=OLMO2_POSTNORMS,
    moe=MoE(
        Router("gate", "F.linear", logits=LOGITS_BEFORE_SOFTMAX,
               weights_description=SOFTMAX_THEN_TOPK_OPTIONAL),
        experts_sentence("experts.gate_up_proj [num_experts, 2·intermediate_size, hidden_size] and "
                         "experts.down_proj [num_experts, hidden_size, intermediate_size]"),
        num_experts=("num_experts", "num_local_experts")),
    sites={
        "attention_queries": "The queries entering attention:" + WIDE_QK_NORM.format(norm="q_norm"),
        "attention_keys": "The keys entering attention:" + WIDE_QK_NORM.format(norm="k_norm"),
    },
    tiny=tiny("FlexOlmoConfig", num_experts=4, num_experts_per_tok=2, pad_token_id=0, eos_token_id=2),
)
