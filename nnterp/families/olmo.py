"""OLMo (OlmoForCausalLM).

The first generation.

Llama's modules and sequential pre-norm block with non-parametric LayerNorms (OlmoLayerNorm: no
weight, no bias, computed in float32) for input_layernorm, post_attention_layernorm and the final
norm. When config.clip_qkv is set, the attention clamps the q_proj, k_proj and v_proj outputs to
[-clip_qkv, clip_qkv] in place before the rotary: attention_queries, attention_keys and
attention_values, read at the kernel, are clamped.
"""

from nnterp.family import Checkpoint, Family

from ._llama import tiny

FAMILY = Family(
    name="olmo",
    model_types=("olmo",),
    summary="Llama's block with LayerNorms that have no weight and no bias, and optional clamping of "
            "queries, keys and values.",
    tags=("Sequential block", "LayerNorm (no affine)", "Gated MLP"),
    checkpoints=(
        Checkpoint("allenai/OLMo-1B-hf", "OLMo-1B", {
            "architectures": ["OlmoForCausalLM"], "num_hidden_layers": 16, "hidden_size": 2048,
            "intermediate_size": 8192, "num_attention_heads": 16, "num_key_value_heads": 16, "vocab_size": 50304,
            "max_position_embeddings": 2048, "hidden_act": "silu", "clip_qkv": None, "tie_word_embeddings": True,
            "dtype": "float32",
        }),
        # config.json of allenai/OLMo-7B-hf (mirrored in hlky/dinoml_v2
        # agents/plans/transformers/olmo/_sources/allenai__OLMo-7B-hf.config.json)
        Checkpoint("allenai/OLMo-7B-hf", "OLMo-7B", {
            "architectures": ["OlmoForCausalLM"], "attention_bias": False, "clip_qkv": None, "hidden_act": "silu",
            "hidden_size": 4096, "intermediate_size": 11008, "max_position_embeddings": 2048, "num_attention_heads": 32,
            "num_hidden_layers": 32, "num_key_value_heads": 32, "pretraining_tp": 1, "rope_scaling": None,
            "rope_theta": 10000.0, "tie_word_embeddings": False, "dtype": "float32", "vocab_size": 50304,
        }),
    ),
    tiny=tiny("OlmoConfig", eos_token_id=2),
)
