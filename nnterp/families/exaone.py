"""EXAONE 3 (LlamaForCausalLM under ExaoneConfig).

transformers builds EXAONE 3.0 and 3.5 as LlamaForCausalLM: its own config class (model_type
exaone, with EXAONE's names num_layers, layer_norm_epsilon and activation_function mapped onto
Llama's) and Llama's modules, block and kernel call, so every value is read where Llama's is.
"""

from nnterp.family import Checkpoint, Family

from ._llama import tiny

FAMILY = Family(
    name="exaone",
    model_types=("exaone",),
    summary="EXAONE 3's config on Llama's model class: every value where Llama's is.",
    tags=("Sequential block", "RMSNorm", "Grouped keys/values", "Gated MLP"),
    checkpoints=(
        # config of LGAI-EXAONE/EXAONE-3.0-7.8B-Instruct as printed from its config.json (its original keys:
        # num_layers, layer_norm_epsilon and activation_function, which ExaoneConfig maps)
        Checkpoint("LGAI-EXAONE/EXAONE-3.0-7.8B-Instruct", "EXAONE-3.0-7.8B-Instruct", {
            "architectures": ["ExaoneForCausalLM"], "num_layers": 32, "hidden_size": 4096,
            "intermediate_size": 14336, "num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": 102400,
            "max_position_embeddings": 4096, "activation_function": "silu", "layer_norm_epsilon": 1e-05,
            "rope_theta": 500000.0, "tie_word_embeddings": False, "dtype": "bfloat16",
        }),
    ),
    tiny=tiny("ExaoneConfig", head_dim=16, eos_token_id=2),
)
