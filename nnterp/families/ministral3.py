"""Ministral 3 (Ministral3ForCausalLM).

Llama's modules and sequential pre-norm block with YaRN rotary. After the rotary the attention
multiplies the queries by Llama 4's position-dependent temperature,
1 + llama_4_scaling_beta * log(1 + floor(position / original_max_position_embeddings)), which is 1
before the original context length; attention_queries are read after it, at the kernel.
"""

from nnterp.family import Checkpoint, Family

from ._llama import tiny

FAMILY = Family(
    name="ministral3",
    model_types=("ministral3",),
    summary="Llama's block with YaRN rotary and Llama 4's position-dependent query temperature.",
    tags=("Sequential block", "RMSNorm", "Grouped keys/values", "Gated MLP"),
    sites={
        "attention_queries": "The queries entering attention: rotated, then scaled by the position-dependent "
                             "temperature 1 + beta * log(1 + floor(position / original_max_position_embeddings))",
    },
    checkpoints=(
        # text_config of mistralai/Ministral-3-8B-Reasoning-2512's config.json (same 8B text tower as the Base;
        # mirrored in hlky/dinoml_v2 agents/plans/transformers/ministral3/)
        Checkpoint("mistralai/Ministral-3-8B-Base-2512", "Ministral-3-8B-Base-2512", {
            "num_hidden_layers": 34, "hidden_size": 4096, "intermediate_size": 14336, "num_attention_heads": 32,
            "num_key_value_heads": 8, "head_dim": 128, "vocab_size": 131072, "max_position_embeddings": 262144,
            "hidden_act": "silu", "rms_norm_eps": 1e-05, "sliding_window": None,
            "rope_parameters": {"rope_type": "yarn", "rope_theta": 1000000.0, "factor": 16.0, "beta_fast": 32.0,
                                "beta_slow": 1.0, "mscale": 1.0, "mscale_all_dim": 1.0,
                                "original_max_position_embeddings": 16384, "llama_4_scaling_beta": 0.1},
            "dtype": "bfloat16",
        }),
    ),
    tiny=tiny("Ministral3Config", head_dim=16),
)
