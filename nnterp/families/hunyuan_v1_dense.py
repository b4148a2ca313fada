"""Hunyuan V1 dense (HunYuanDenseV1ForCausalLM).

Llama's modules and sequential pre-norm block; the attention normalizes each query and key head
with an RMSNorm (self_attn.query_layernorm, key_layernorm) after the rotary, so the queries and
keys the kernel receives (attention_queries, attention_keys) are rotated, then normed.
"""

from nnterp.family import Checkpoint, Family

from ._llama import tiny

FAMILY = Family(
    name="hunyuan_v1_dense",
    model_types=("hunyuan_v1_dense",),
    summary="Llama's block with an RMSNorm on every query and key head, applied after the rotary.",
    tags=("Sequential block", "RMSNorm", "QK-norm", "Gated MLP"),
    sites={
        "attention_queries": "The queries entering attention: rotated, then normed per head by query_layernorm",
        "attention_keys": "The keys entering attention: rotated, then normed per head by key_layernorm",
    },
    checkpoints=(
        Checkpoint("tencent/Hunyuan-7B-Instruct", "Hunyuan-7B-Instruct", {
            "architectures": ["HunYuanDenseV1ForCausalLM"], "num_hidden_layers": 32, "hidden_size": 4096,
            "intermediate_size": 14336, "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 128,
            "vocab_size": 128167, "max_position_embeddings": 32768, "hidden_act": "silu", "rms_norm_eps": 1e-05,
            "tie_word_embeddings": True, "dtype": "bfloat16",
        }),
    ),
    tiny=tiny("HunYuanDenseV1Config", head_dim=16),
)
