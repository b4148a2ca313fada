"""Gemma 4 unified text (Gemma4UnifiedForCausalLM).

The language half of the unified vision-language Gemma 4 checkpoints.

Gemma 2's sandwich block with Gemma 4's layer scalar: h = x + post_attention_layernorm(self_attn(
input_layernorm(x))), then h + post_feedforward_layernorm(mlp(pre_feedforward_layernorm(h))), the
result multiplied in place by the block's layer_scalar (a buffer). attention_output and mlp_output
are the post-norms' outputs and layer_mid pre_feedforward_layernorm's input; layer_output is
layer_scalar * (layer_input + attention_output + mlp_output), the arithmetic the contract checks.
No per-layer inputs and no experts. RMSNorms compute x * weight, embed_tokens multiplies by
sqrt(hidden_size). The attention norms queries and keys per head (q_norm, k_norm) and values without
weight (v_norm) and rotates queries and keys, with a kernel scale of 1; full-attention layers have
wider heads (global_head_dim) than the sliding-window ones (model.head_dim is the sliding layers';
the contract reads each block's own), and KV-shared layers (num_kv_shared_layers) reuse an earlier
layer's keys and values. use_bidirectional_attention lets vision tokens attend both ways.
"""

from nnterp.declare.blocks import SANDWICH
from nnterp.declare.family import Family
from nnterp.declare.readout import SOFTCAPPED
from nnterp.families._llama import tiny
from nnterp.families._sandwich_gemma2 import (
    GEMMA4_ACCESSORS, SCALED_EMBEDDINGS, gemma4_attention_sites, gemma4_block_dims, layer_scalar_arithmetic,
)

FAMILY = Family(
    name="gemma4_unified_text",
    summary="Gemma 4's sandwich block with a learned scalar on the stream at the end of every block and wider "
            "full-attention heads, as the text model of a vision-language model.",
    tags=("Sandwich norms", "RMSNorm", "Scaled embeddings", "QK-norm", "Sliding window", "Layer scalar"),
    block=SANDWICH.but(arithmetic=lambda config: layer_scalar_arithmetic, dims=gemma4_block_dims),
    sites={
        "token_embeddings": SCALED_EMBEDDINGS,
        **gemma4_attention_sites(),
    },
    accessors=GEMMA4_ACCESSORS,
    readout=SOFTCAPPED,
    tiny=tiny("Gemma4UnifiedTextConfig", head_dim=16, global_head_dim=32),
)
