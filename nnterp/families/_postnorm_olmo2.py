"""Shared pieces of the OLMo 2 post-norm block: norms on the branch outputs, none before them.

h = x + post_attention_layernorm(self_attn(x)), out = h + post_feedforward_layernorm(mlp(h)). The
attention and the MLP read the raw stream; what the stream receives is each post-norm's output, a
module of the block beside the attention and the MLP (Sibling sites). layer_mid is the MLP's input.
"""

from nnterp.sites import Argument, Child, Nowhere, Read, Sibling

NO_ATTENTION_NORM = ("no norm before the attention: the attention reads the residual stream itself, and the block "
                     "normalizes the attention's output instead (post_attention_layernorm)")
NO_MLP_NORM = ("no norm before the MLP: the MLP reads the residual stream itself, and the block normalizes the "
               "MLP's output instead (post_feedforward_layernorm)")

#: the MLP reads the stream itself, which the block also keeps as the residual: an assignment is
#: copied into it so that it reaches both, as an in-place edit does
_STREAM_INTO_MLP = Read(
    Child("mlp", "input"), Argument(0), shared=True,
    description="The residual stream after the attention add, which the MLP reads unnormed")

POSTNORM_SITES = {
    "attention_norm_output": Nowhere(NO_ATTENTION_NORM),
    "attention_output": Read(
        Sibling("post_attention_layernorm"),
        description="What the attention adds to the residual stream: its output after the block's post-norm "
                    "post_attention_layernorm"),
    "layer_mid": _STREAM_INTO_MLP,
    "mlp_norm_output": Nowhere(NO_MLP_NORM),
    "mlp_input": _STREAM_INTO_MLP,
    "mlp_output": Read(
        Sibling("post_feedforward_layernorm"),
        description="What the MLP adds to the residual stream: its output after the block's post-norm "
                    "post_feedforward_layernorm"),
}

#: OLMo 2 and 3 normalize queries and keys over the whole projection width, before splitting heads
WIDE_QK_NORM = " normed by {norm}, an RMSNorm over all heads at once (before the heads are split), then rotated"
