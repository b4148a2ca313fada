"""Shared pieces of the OLMo 2 post-norm block: norms on the branch outputs, none before them.

h = x + post_attention_layernorm(self_attn(x)), out = h + post_feedforward_layernorm(mlp(h)). The
attention and the MLP read the raw stream; what the stream receives is each post-norm's output, a
module of the block beside the attention and the MLP (nnterp.declare.blocks.OLMO2_POSTNORMS). layer_mid is the MLP's input.
"""

#: OLMo 2 and 3 normalize queries and keys over the whole projection width, before splitting heads
WIDE_QK_NORM = " normed by {norm}, an RMSNorm over all heads at once (before the heads are split), then rotated"
