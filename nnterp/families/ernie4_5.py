"""ERNIE 4.5 (Ernie4_5ForCausalLM).

The dense ERNIE 4.5 models.

Llama's modules and sequential pre-norm block. The rotary pairs interleaved dimensions (2i, 2i+1)
rather than rotating halves; embed_tokens and lm_head are tied. Every value is read where Llama's is.
"""

from nnterp.family import Checkpoint, Family

from ._llama import tiny

FAMILY = Family(
    name="ernie4_5",
    model_types=("ernie4_5",),
    summary="Llama's block with interleaved rotary and a tied head.",
    tags=("Sequential block", "RMSNorm", "Grouped keys/values", "Gated MLP", "Tied embeddings"),
    checkpoints=(
        # config.json of baidu/ERNIE-4.5-0.3B-PT (a copy of the file, and the transformers-format copy of it)
        Checkpoint("baidu/ERNIE-4.5-0.3B-PT", "ERNIE-4.5-0.3B", {
            "architectures": ["Ernie4_5_ForCausalLM"], "num_hidden_layers": 18, "hidden_size": 1024,
            "intermediate_size": 3072, "num_attention_heads": 16, "num_key_value_heads": 2, "head_dim": 128,
            "vocab_size": 103424, "max_position_embeddings": 131072, "hidden_act": "silu", "rms_norm_eps": 1e-05,
            "rope_theta": 500000.0, "use_bias": False, "tie_word_embeddings": True, "dtype": "bfloat16",
        }),
    ),
    tiny=tiny("Ernie4_5Config", head_dim=16),
)
