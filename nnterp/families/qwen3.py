"""Qwen3 (Qwen3ForCausalLM).

The dense Qwen3 models.

Llama's modules and sequential pre-norm block; the attention normalizes each query and key head
with an RMSNorm (self_attn.q_norm, k_norm) before the rotary, so attention_queries and
attention_keys, read at the kernel, are normed, then rotated. No bias on the projections.
"""

from nnterp.family import Checkpoint, Family

from ._llama import tiny

FAMILY = Family(
    name="qwen3",
    model_types=("qwen3",),
    summary="Llama's block with an RMSNorm on every query and key head before the rotary.",
    tags=("Sequential block", "RMSNorm", "QK-norm", "Grouped keys/values", "Gated MLP"),
    sites={
        "attention_queries": "The queries entering attention: normed per head by q_norm, then rotated",
        "attention_keys": "The keys entering attention: normed per head by k_norm, then rotated",
    },
    checkpoints=(
        # attention_bias, max_window_layers, rope_scaling, rope_theta and sliding_window added from two copies of its
        # config.json the code search returns, whose repositories the index does not name: a model page ("# Qwen/
        # Qwen3-0.6B", "## model config", transformers_version 4.51.0) and a constants file quoting
        # huggingface.co/Qwen/Qwen3-0.6B/raw/main/config.json; the other keys were recorded before
        Checkpoint("Qwen/Qwen3-0.6B", "Qwen3-0.6B", {
            "architectures": ["Qwen3ForCausalLM"], "num_hidden_layers": 28, "hidden_size": 1024,
            "intermediate_size": 3072, "num_attention_heads": 16, "num_key_value_heads": 8, "head_dim": 128,
            "vocab_size": 151936, "max_position_embeddings": 40960, "hidden_act": "silu", "rms_norm_eps": 1e-06,
            "tie_word_embeddings": True, "dtype": "bfloat16", "attention_bias": False, "max_window_layers": 28,
            "rope_scaling": None, "rope_theta": 1000000, "sliding_window": None,
        }),
        # config.json of Qwen/Qwen3-8B (mirrored in hlky/dinoml_v2
        # agents/plans/transformers/qwen3/_sources/Qwen__Qwen3-8B.config.json)
        Checkpoint("Qwen/Qwen3-8B", "Qwen3-8B", {
            "architectures": ["Qwen3ForCausalLM"], "attention_bias": False, "head_dim": 128, "hidden_act": "silu",
            "hidden_size": 4096, "intermediate_size": 12288, "max_position_embeddings": 40960, "max_window_layers": 36,
            "num_attention_heads": 32, "num_hidden_layers": 36, "num_key_value_heads": 8, "rms_norm_eps": 1e-06,
            "rope_scaling": None, "rope_theta": 1000000, "sliding_window": None, "tie_word_embeddings": False,
            "dtype": "bfloat16", "use_sliding_window": False, "vocab_size": 151936,
        }),
    ),
    tiny=tiny("Qwen3Config", head_dim=16),
)

