"""Zamba (ZambaForCausalLM).

model.{embed_tokens, layers[i], final_layernorm} and lm_head, tied to the embeddings. The blocks are
of two kinds (config.layers_block_type). A Mamba block, layers[i].{input_layernorm, mamba}: out =
x + mamba(input_layernorm(x)), with a Mamba mixer of n_mamba_heads heads. A hybrid block,
layers[i].{shared_transf.{input_layernorm, self_attn, pre_ff_layernorm, feed_forward}, linear,
mamba_decoder.{input_layernorm, mamba}}: the shared block reads the stream concatenated with the
original embeddings (2·hidden_size wide), normed, runs a softmax attention (head_dim
attention_head_dim, scaled by (head_dim / 2)^-0.5, through attention_interface), pre_ff_layernorm
and a gated MLP, with no residual; linear projects the result and the Mamba decoder adds it to the
stream before its own norm: out = x + mamba(norm(x + linear(shared(x, emb)))). The shared block's
weights are tied across hybrid blocks (each block holds its own module). The standard self_attn is
the Mamba mixer on Mamba blocks and the shared attention on hybrid ones, mlp the shared MLP; on both
kinds attention_output is the Mamba mixer's output, the only thing the stream receives, so
layer_input + attention_output == layer_output, and the shared block's outputs are read at
layers[i].self_attn.output and layers[i].mlp.output.
"""

from nnterp.declare.blocks import Block
from nnterp.declare.family import Family
from nnterp.families._llama import tiny
from nnterp.families._zamba import ZAMBA_ACCESSORS, zamba_rename, zamba_sites

FAMILY = Family(
    name="zamba",
    summary="Mamba blocks, and hybrid blocks that run a weight-tied attention+MLP block on the stream and the "
            "embeddings and add its projected output to the Mamba mixer's input.",
    tags=("Hybrid SSM/attention", "State-space mixer", "Shared attention block", "RMSNorm", "Tied embeddings"),
    block=Block("hybrid ssm"),
    rename=zamba_rename("shared_transf"),
    sites=zamba_sites("shared_transf", "(head_dim / 2)^-0.5"),
    accessors=ZAMBA_ACCESSORS,
    tiny=tiny("ZambaConfig", num_hidden_layers=3, n_mamba_heads=4, mamba_d_state=16,
              layers_block_type=["linear_attention", "hybrid", "hybrid"]),
)
