"""Gemma 3 text (Gemma3ForCausalLM).

The 1B checkpoint and the text half of the larger ones.

Gemma 2's sandwich block: h = x + post_attention_layernorm(self_attn(input_layernorm(x))), then
out = h + post_feedforward_layernorm(mlp(pre_feedforward_layernorm(h))); attention_output and
mlp_output are the post-norms' outputs, layer_mid is pre_feedforward_layernorm's input. RMSNorms
compute x * (1 + weight) and embed_tokens multiplies by sqrt(hidden_size) inside its forward. Gemma 3
drops the attention softcap for a per-head RMSNorm on queries and keys (self_attn.q_norm, k_norm,
before the rotary), with sliding-window layers (local rotary base) and one full-attention layer in
six (global rotary base). final_logit_softcapping is None on the released checkpoints;
project_on_vocab applies it when a config sets it.
"""

from nnterp.declare.blocks import SANDWICH
from nnterp.declare.family import Family
from nnterp.declare.readout import SOFTCAPPED
from nnterp.families._llama import tiny
from nnterp.families._llama_renamed import normed_then_rotated
from nnterp.families._sandwich_gemma2 import SCALED_EMBEDDINGS

FAMILY = Family(
    name="gemma3_text",
    summary="Gemma 2's sandwich block with per-head query and key norms instead of the attention softcap, and "
            "five sliding-window layers for each full one.",
    tags=("Sandwich norms", "RMSNorm (1 + w)", "Scaled embeddings", "QK-norm", "Sliding window", "Tied embeddings"),
    block=SANDWICH,
    sites={
        "token_embeddings": SCALED_EMBEDDINGS,
        "attention_queries": normed_then_rotated("q_norm", "queries"),
        "attention_keys": normed_then_rotated("k_norm", "keys"),
    },
    readout=SOFTCAPPED,
    # one sliding and one full layer, so both kinds are checked
    tiny=tiny("Gemma3TextConfig", head_dim=16, layer_types=["sliding_attention", "full_attention"]),
)

