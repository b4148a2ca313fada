"""Zamba2 (Zamba2ForCausalLM).

model.{embed_tokens, layers[i], final_layernorm} and lm_head, tied to the embeddings. The blocks are
of two kinds (config.layers_block_type). A Mamba block, layers[i].{input_layernorm, mamba}: out =
x + mamba(input_layernorm(x)), with a Mamba-2 mixer (n_mamba_heads heads, gated RMSNorm, out_proj).
A hybrid block, layers[i].{shared_transformer.{input_layernorm, self_attn, pre_ff_layernorm,
feed_forward}, linear, mamba_decoder.{input_layernorm, mamba}}: the shared block reads the stream
concatenated with the original embeddings (2·hidden_size wide), normed, runs a softmax attention
(q/k/v_proj from 2·hidden_size, head_dim attention_head_dim = 2·hidden_size / num_heads, scaled by
(head_dim / 2)^-0.5, o_proj back to hidden_size, through attention_interface), pre_ff_layernorm and
a gated MLP (fused gate_up_proj), with no residual; linear projects the result and the Mamba decoder
adds it to the stream before its own norm: out = x + mamba(norm(x + linear(shared(x, emb)))). The
shared block's weights are tied across hybrid blocks (num_mem_blocks sets, each a separate module),
with optional per-use LoRA adapters (use_shared_attention_adapter, the MLP's gate_up_proj adapters).
The standard self_attn is the Mamba mixer on Mamba blocks and the shared attention on hybrid ones;
on both kinds attention_output is the Mamba mixer's output, the only thing the stream receives, so
layer_input + attention_output == layer_output. The shared attention's own output is
layers[i].self_attn.output; the shared MLP has no standard name (nothing of it is added to the
stream) and is read natively.
"""

from nnterp.declare.blocks import Block
from nnterp.declare.family import Family
from nnterp.families._llama import tiny
from nnterp.families._zamba import ZAMBA_ACCESSORS, zamba_rename, zamba_sites

FAMILY = Family(
    name="zamba2",
    summary="Mamba-2 blocks, and hybrid blocks that run a weight-tied attention+MLP block on the stream and the "
            "embeddings and add its projected output to the Mamba mixer's input.",
    tags=("Hybrid SSM/attention", "State-space mixer", "Shared attention block", "RMSNorm", "Tied embeddings"),
    block=Block("hybrid ssm"),
    rename=zamba_rename("shared_transformer"),
    sites=zamba_sites("shared_transformer", "(head_dim / 2)^-0.5"),
    accessors=ZAMBA_ACCESSORS,
    tiny=tiny("Zamba2Config", n_mamba_heads=4, mamba_d_state=16, mamba_ngroups=1, adapter_rank=8,
              layers_block_type=["linear_attention", "hybrid"]),
)
