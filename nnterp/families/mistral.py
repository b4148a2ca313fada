"""Mistral (MistralForCausalLM).

Llama's modules and sequential pre-norm block; the attention passes config.sliding_window to the
kernel (4096 on Mistral-7B-v0.1, None from v0.2 on). Every value is read where Llama's is; with a
window, attention_scores holds the masked scores of the window.
"""

from nnterp.family import Checkpoint, Family

from ._llama import tiny

FAMILY = Family(
    name="mistral",
    model_types=("mistral",),
    summary="Llama's block with an optional sliding attention window.",
    tags=("Sequential block", "RMSNorm", "Grouped keys/values", "Sliding window", "Gated MLP"),
    checkpoints=(
        Checkpoint("mistralai/Mistral-7B-v0.1", "Mistral-7B-v0.1", {
            "architectures": ["MistralForCausalLM"], "num_hidden_layers": 32, "hidden_size": 4096,
            "intermediate_size": 14336, "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 128,
            "vocab_size": 32000, "max_position_embeddings": 32768, "hidden_act": "silu", "rms_norm_eps": 1e-05,
            "sliding_window": 4096, "tie_word_embeddings": False, "dtype": "bfloat16",
        }),
        Checkpoint("mistralai/Mistral-7B-Instruct-v0.3", "Mistral-7B-Instruct-v0.3"),
        # config.json of mistralai/Mistral-Nemo-Base-2407 (mirrored in kevinstephano/thunder_model_blocks
        # thunder_model_blocks/mistral/mistral_config.py, mistral_cfg_str)
        Checkpoint("mistralai/Mistral-Nemo-Base-2407", "Mistral-Nemo-Base-2407", {
            "architectures": ["MistralForCausalLM"], "head_dim": 128, "hidden_act": "silu", "hidden_size": 5120,
            "intermediate_size": 14336, "max_position_embeddings": 128000, "num_attention_heads": 32,
            "num_hidden_layers": 40, "num_key_value_heads": 8, "rms_norm_eps": 1e-05, "rope_theta": 1000000.0,
            "sliding_window": None, "tie_word_embeddings": False, "dtype": "bfloat16", "vocab_size": 131072,
        }),
    ),
    tiny=tiny("MistralConfig", head_dim=16),
)

