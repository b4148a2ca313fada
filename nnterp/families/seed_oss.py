"""Seed-OSS (SeedOssForCausalLM).

Llama's modules and sequential pre-norm block with a bias on q_proj, k_proj and v_proj
(attention_out_bias, off by default, adds one on o_proj). The attention and the MLP each end with a
residual dropout inside their own forward (inert in eval), so attention_output and mlp_output, the
modules' own outputs, are what the block adds.
"""

from nnterp.family import Checkpoint, Family

from ._llama import tiny

FAMILY = Family(
    name="seed_oss",
    model_types=("seed_oss",),
    summary="Llama's block with biased query, key and value projections and a residual dropout inside each sublayer.",
    tags=("Sequential block", "RMSNorm", "Grouped keys/values", "Biased q, k, v", "Gated MLP"),
    checkpoints=(
        # the model card's Model Summary table of ByteDance-Seed/Seed-OSS-36B-Instruct (64 layers, 80 / 8 / 8
        # QKV heads, head size 128, hidden size 5120, RoPE base 1e7; its MODEL_CARD.md gives the context as
        # 524,288); the config.json itself was not found, so its other sizes are left to the class defaults
        Checkpoint("ByteDance-Seed/Seed-OSS-36B-Instruct", "Seed-OSS-36B-Instruct", {
            "architectures": ["SeedOssForCausalLM"], "num_hidden_layers": 64, "hidden_size": 5120,
            "num_attention_heads": 80, "num_key_value_heads": 8, "head_dim": 128,
            "max_position_embeddings": 524288,
            "rope_parameters": {"rope_type": "default", "rope_theta": 10000000.0},
        }),
    ),
    tiny=tiny("SeedOssConfig", head_dim=16),
)
