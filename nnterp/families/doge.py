"""Doge (DogeForCausalLM).

model.{embed_tokens, layers[i].{input_layernorm, self_attn.{q_proj, k_proj, v_proj, dt_proj,
o_proj, q_norm, k_norm}, post_attention_layernorm, mlp}, norm} and lm_head. A pre-norm block whose
residual is scaled by learned per-channel gates before each add: h = input_residual·x +
self_attn(input_layernorm(x)), out = post_attention_residual·h + mlp(post_attention_layernorm(h)),
a bare tensor. So the block's arithmetic replaces the identity and there is no layer_mid of the
form x + attention_output. The attention has q_norm and k_norm and a dynamic mask: dt_proj of the
values gives a per-key bias added to the attention mask (through attention_interface). The MLP is
gated, or with is_moe a cross-domain mixture of experts (CDMoE: a product-key router_gate over
num_experts embedding experts, down_embed / up_embed, plus a shared gated MLP).
"""

from nnterp.family import COMMON_SITES, Checkpoint, Family
from nnterp.sites import Element, Nowhere, Own, Read

GATED = ("Doge scales the residual by the learned gate input_residual before adding the attention: the stream after "
         "the add, input_residual·x + attention_output, is post_attention_layernorm's input")
CDMOE = ("a cross-domain mixture of experts: each position mixes num_experts_per_tok embedding experts chosen by a "
         "product-key router (down_embed, up_embed) with a shared gated MLP, so no single [batch seq "
         "intermediate_size] tensor of neurons exists; the block's output is mlp_output")
_SCORES = COMMON_SITES["attention_scores"]


def _arithmetic(config):
    def block(layer, x, attn, mlp):
        h = layer.input_residual * x + attn
        return layer.post_attention_residual * h + mlp
    return block


def _dense_or(name):
    common, unavailable = COMMON_SITES[name], Nowhere(CDMOE)
    return lambda context: unavailable if context.config.is_moe else common


FAMILY = Family(
    name="doge",
    model_types=("doge",),
    summary="A pre-norm block whose residual is scaled by learned gates before each add, with a dynamic-mask "
            "attention and an optional cross-domain mixture of experts.",
    tags=("Gated residual", "Dynamic mask attention", "QK norm", "RMSNorm", "Gated MLP", "Mixture of experts"),
    sites={
        "layer_mid": Nowhere(GATED),
        "attention_scores": Read(
            _SCORES.where, _SCORES.element, condition=_SCORES.condition,
            description="The attention scores entering the softmax: q·k scaled, plus the mask with the dynamic "
                        "per-key bias from dt_proj"),
        "mlp_activation": _dense_or("mlp_activation"),
        "mlp_neurons": _dense_or("mlp_neurons"),
        "mlp_output": Read(Own("output"), Element(0)),
    },
    block_arithmetic=_arithmetic,
    block_kind=lambda config: "gated residual",
    checkpoints=(
        Checkpoint("SmallDoge/Doge-320M", "Doge-320M"),
    ),
    tiny={"config_class": "DogeConfig", "overrides": {
        "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
        "intermediate_size": 128, "vocab_size": 300, "num_experts": 4, "num_experts_per_tok": 2}},
    variants={"moe": {"num_experts": 16, "num_experts_per_tok": 2, "is_moe": True}},
)
