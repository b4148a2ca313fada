"""OLMo Hybrid (OlmoHybridForCausalLM).

Two block classes. OlmoHybridLinearAttentionDecoderLayer is pre-norm: input_layernorm -> a gated
DeltaNet mixer (linear_attn, aliased self_attn: q/k/v/a/b/g/o projections, short convolutions, the
gated delta rule) -> add; post_attention_layernorm (pre-MLP, Llama's meaning) -> mlp -> add.
OlmoHybridAttentionDecoderLayer is OLMo 2's post-norm block: self_attn reads the stream unnormed
(per-head q_norm/k_norm, rotary) and post_attention_layernorm normalizes its *output* before the
add; the MLP reads the stream unnormed and post_feedforward_layernorm normalizes its output before
the add. So on attention blocks attention_output and mlp_output are those norms' outputs,
layer_mid is the MLP's input, and there is no attention_norm_output or mlp_norm_output; the same
native name post_attention_layernorm is a pre-MLP norm on one class and a post-attention norm on
the other.
"""

from nnterp.declare.family import COMMON_SITES, Family
from nnterp.declare.mixers import DELTANET, mixer_interior
from nnterp.declare.sites import Argument, Child, Nowhere, Read, Sibling
from nnterp.families._llama import tiny


def _postnorm(context) -> bool:
    return context is not None and context.layer is not None and "post_feedforward_layernorm" in context.layer._modules


def _per_block(common, postnorm):
    return lambda context: postnorm if _postnorm(context) else common


NO_PRE_NORM = ("an OLMo 2 attention block normalizes the attention's output (post_attention_layernorm), not its "
               "input: the attention reads the stream itself, layer_input")
NO_MLP_NORM = ("an OLMo 2 attention block normalizes the MLP's output (post_feedforward_layernorm), not its input: "
               "the MLP reads the stream itself, layer_mid")

FAMILY = Family(
    name="olmo_hybrid",
    summary="OLMo's hybrid: pre-norm gated DeltaNet blocks interleaved with OLMo 2's post-norm attention blocks.",
    tags=("Sequential block", "Post-norm", "RMSNorm", "Hybrid mixers", "Linear attention", "QK-norm", "Gated MLP"),
    rename={"linear_attn": "self_attn"},
    sites={
        **mixer_interior(DELTANET),
        "attention_norm_output": _per_block(COMMON_SITES["attention_norm_output"], Nowhere(NO_PRE_NORM)),
        "attention_output": _per_block(COMMON_SITES["attention_output"], Read(
            Sibling("post_attention_layernorm"),
            description="What the attention adds to the residual stream: its output after post_attention_layernorm")),
        "layer_mid": _per_block(COMMON_SITES["layer_mid"], Read(
            Child("mlp", "input"), Argument(0), shared=True,
            description="The residual stream after the attention add, which the MLP reads unnormed")),
        "mlp_norm_output": _per_block(COMMON_SITES["mlp_norm_output"], Nowhere(NO_MLP_NORM)),
        # the MLP reads the residual stream itself: an assignment is copied into it, as an in-place edit lands
        "mlp_input": _per_block(COMMON_SITES["mlp_input"], Read(
            Child("mlp", "input"), Argument(0), shared=True,
            description="What the MLP is called with: the residual stream itself (layer_mid), unnormed")),
        "mlp_output": _per_block(COMMON_SITES["mlp_output"], Read(
            Sibling("post_feedforward_layernorm"),
            description="What the MLP adds to the residual stream: its output after post_feedforward_layernorm")),
    },
    tiny=tiny("OlmoHybridConfig", pad_token_id=0, eos_token_id=2),
)
