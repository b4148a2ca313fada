"""What the Liquid families (LFM2, LFM2-MoE, LFM3) share: a gated short-convolution mixer or an
attention per block, and the w1/w3/w2 MLP.

The block's mixer is either a short convolution (conv, aliased self_attn: in_proj to B, C and x,
B·x through a causal depthwise Conv1d, times C, out_proj) or an attention (self_attn); the norms are
operator_norm (aliased input_layernorm) and ffn_norm (aliased post_attention_layernorm), the MLP is
feed_forward (aliased mlp) computing w2(silu(w1(x))·w3(x)) with w1, w3, w2 aliased gate_proj,
up_proj, down_proj and the activation an inline F.silu call, and the final norm is embedding_norm.
"""

from __future__ import annotations

from nnterp.declare.sites import Call, Read

LFM_RENAME = {
    "conv": "self_attn", "feed_forward": "mlp", "operator_norm": "input_layernorm",
    "ffn_norm": "post_attention_layernorm", "w1": "gate_proj", "w3": "up_proj", "w2": "down_proj",
    "out_proj": "o_proj", "model.embedding_norm": "norm",
}

def lfm2_intermediate_size(config) -> int:
    """The MLP's width as LFM2 builds it: with block_auto_adjust_ff_dim, 2/3 of intermediate_size, times
    block_ffn_dim_multiplier, rounded up to block_multiple_of."""
    size = config.intermediate_size
    if getattr(config, "block_auto_adjust_ff_dim", False):
        size = int(2 * size / 3)
        if config.block_ffn_dim_multiplier is not None:
            size = int(config.block_ffn_dim_multiplier * size)
            size = config.block_multiple_of * ((size + config.block_multiple_of - 1) // config.block_multiple_of)
    return size


SILU = Read(Call("F.silu"), description="The activation's output: silu(w1(x)), an inline F.silu call in the MLP's "
                                        "forward")
