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
        # config.json of google/gemma-3-1b-it (transformers 4.52.4), as quoted in Liwink/gemma-jax models/README.md
        Checkpoint("google/gemma-3-1b-it", "Gemma-3-1B-IT", {
            "architectures": ["Gemma3ForCausalLM"], "attention_bias": False, "attn_logit_softcapping": None,
            "bos_token_id": 2, "cache_implementation": "hybrid", "eos_token_id": [1, 106],
            "final_logit_softcapping": None, "head_dim": 256, "hidden_activation": "gelu_pytorch_tanh",
            "hidden_size": 1152, "intermediate_size": 6912, "max_position_embeddings": 32768, "num_attention_heads": 4,
            "num_hidden_layers": 26, "num_key_value_heads": 1, "pad_token_id": 0, "query_pre_attn_scalar": 256,
            "rms_norm_eps": 1e-06, "rope_local_base_freq": 10000, "rope_scaling": None, "rope_theta": 1000000,
            "sliding_window": 512, "sliding_window_pattern": 6, "dtype": "bfloat16", "vocab_size": 262144,
        }),
    ),
    # one sliding and one full layer, so both kinds are checked
    tiny=tiny("Gemma3TextConfig", head_dim=16, layer_types=["sliding_attention", "full_attention"]),
)

