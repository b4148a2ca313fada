"""Doge (DogeForCausalLM).

model.{embed_tokens, layers[i].{input_layernorm, self_attn.{q_proj, k_proj, v_proj, dt_proj,
o_proj, q_norm, k_norm}, post_attention_layernorm, mlp}, norm} and lm_head. A pre-norm block whose
residual is scaled by learned per-channel gates before each add: h = input_residual·x +
self_attn(input_layernorm(x)), out = post_attention_residual·h + mlp(post_attention_layernorm(h)),
a bare tensor. So the block's arithmetic replaces the identity, and layer_mid is h, the stream after
the gated add (post_attention_layernorm's input, also the residual the MLP is added to), checked
against the block's own input_residual·layer_input + attention_output. The attention has q_norm and
k_norm and a dynamic mask: dt_proj of the values gives a per-key bias added to the attention mask
(through attention_interface). The MLP is gated, or with is_moe a cross-domain mixture of experts (CDMoE: a product-key router_gate over
num_experts embedding experts, down_embed / up_embed, plus a shared gated MLP).
"""

from nnterp.declare.blocks import ResidualGates
from nnterp.declare.family import COMMON_SITES, Family, described
from nnterp.declare.sites import Element, Nowhere, Own, Read
from nnterp.families._llama import tiny

CDMOE = ("a cross-domain mixture of experts: each position mixes num_experts_per_tok embedding experts chosen by a "
         "product-key router (down_embed, up_embed) with a shared gated MLP, so no single [batch seq "
         "intermediate_size] tensor of neurons exists; the block's output is mlp_output")
_SCORES = COMMON_SITES["attention_scores"]


#: DogeDecoderLayer's adds: the stream scaled by a learned per-channel gate, the sublayer's output added as it is
GATES = ResidualGates(attention=lambda layer: (layer.input_residual, 1),
                      mlp=lambda layer: (layer.post_attention_residual, 1))


def _dense_or(name):
    common, unavailable = COMMON_SITES[name], Nowhere(CDMOE)
    return lambda context: unavailable if context.config.is_moe else common


FAMILY = Family(
    name="doge",
    summary="A pre-norm block whose residual is scaled by learned gates before each add, with a dynamic-mask "
            "attention and an optional cross-domain mixture of experts.",
    tags=("Gated residual", "Dynamic mask attention", "QK norm", "RMSNorm", "Gated MLP", "Mixture of experts"),
    block=GATES.on(),
    sites={
        # the sum is both post_attention_layernorm's input and the residual the MLP is added to: an assignment is
        # copied into it, so it reaches both holders as an in-place edit does
        "layer_mid": "The residual stream after the attention's gated add, input_residual·layer_input + "
                     "attention_output, which post_attention_layernorm normalizes for the MLP and the block "
                     "carries on (times post_attention_residual)",
        "attention_scores": described("attention_scores", "The attention scores entering the softmax: q·k scaled, plus the mask with the dynamic "
                                      "per-key bias from dt_proj"),
        "mlp_activation": _dense_or("mlp_activation"),
        "mlp_neurons": _dense_or("mlp_neurons"),
        "mlp_output": Read(Own("output"), Element(0)),
    },
    tiny=tiny("DogeConfig", num_experts=4, num_experts_per_tok=2),
    variants={"moe": {"num_experts": 16, "num_experts_per_tok": 2, "is_moe": True}},
)
