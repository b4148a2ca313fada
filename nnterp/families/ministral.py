"""Ministral (MinistralForCausalLM).

Mistral's modules (Llama's names) and sequential pre-norm block; the attention passes
sliding_window to the kernel, and config.layer_types marks which blocks attend within the window
(all of them by default). Every value is read where Llama's is; on a sliding layer
attention_scores holds the masked scores of the window.
"""

from nnterp.family import Checkpoint, Family

from ._llama import tiny

FAMILY = Family(
    name="ministral",
    model_types=("ministral",),
    summary="Llama's block with sliding-window attention chosen per layer.",
    tags=("Sequential block", "RMSNorm", "Grouped keys/values", "Sliding window", "Gated MLP"),
    checkpoints=(
        Checkpoint("mistralai/Ministral-8B-Instruct-2410", "Ministral-8B-Instruct-2410", {
            "architectures": ["MinistralForCausalLM"], "num_hidden_layers": 36, "hidden_size": 4096,
            "intermediate_size": 12288, "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 128,
            "vocab_size": 131072, "max_position_embeddings": 32768, "hidden_act": "silu", "rms_norm_eps": 1e-05,
            "sliding_window": 32768, "tie_word_embeddings": False, "dtype": "bfloat16",
        }),
    ),
    tiny=tiny("MinistralConfig", head_dim=16),
)
