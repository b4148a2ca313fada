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

from nnterp.blocks import SANDWICH
from nnterp.readout import SOFTCAPPED
from nnterp.family import Checkpoint, Family

from ._llama import tiny
from ._llama_renamed import normed_then_rotated
from ._sandwich_gemma2 import SCALED_EMBEDDINGS

FAMILY = Family(
    name="gemma3_text",
    model_types=("gemma3_text",),
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
    checkpoints=(
        Checkpoint("google/gemma-3-1b-pt", "Gemma-3-1B", {
            "architectures": ["Gemma3ForCausalLM"], "num_hidden_layers": 26, "hidden_size": 1152,
            "intermediate_size": 6912, "num_attention_heads": 4, "num_key_value_heads": 1, "head_dim": 256,
            "vocab_size": 262144, "max_position_embeddings": 32768, "hidden_activation": "gelu_pytorch_tanh",
            "rms_norm_eps": 1e-06, "query_pre_attn_scalar": 256, "sliding_window": 512,
            "tie_word_embeddings": True, "dtype": "bfloat16",
        }),
    ),
    # one sliding and one full layer, so both kinds are checked
    tiny=tiny("Gemma3TextConfig", head_dim=16, layer_types=["sliding_attention", "full_attention"]),
)


#: What the catalogue of transformers' decoder-only families found for this family's model type: [obs] observed
#: on a tiny model, [src] read in the modeling source, [cfg] a config default, [inf] inferred and not verified;
#: caveats say what a standard value meets here. The page lists them under its traps.
TRAPS = {'gemma3_text': {'caveats': [],
                 'quirks': ['qk-norm (replaces softcapping) [obs]',
                            '5:1 sliding/full with separate local rope [cfg/src]',
                            'embed * sqrt(hidden); RMSNorm (1+w) [src]']}}
