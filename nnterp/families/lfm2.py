"""LFM2 (Lfm2ForCausalLM).

Liquid's hybrid (see _lfm): per layer_types a gated short-convolution mixer (conv, aliased
self_attn) or an attention with per-head RMSNorms q_layernorm/k_layernorm and rotary, whose output
projection out_proj is aliased o_proj. The block is pre-norm: operator_norm -> mixer -> add;
ffn_norm -> feed_forward (w2(silu(w1(x))·w3(x))) -> add. The final norm is embedding_norm;
embeddings are tied to lm_head. The attention interior is served on attention blocks only.
"""

from nnterp.family import Checkpoint, Family
from nnterp.families._hybrid import SHORT_CONV, mixer_interior
from nnterp.families._lfm import LFM_RENAME, SILU, lfm2_intermediate_size

FAMILY = Family(
    name="lfm2",
    model_types=("lfm2",),
    summary="Liquid's LFM2: gated short convolutions on most blocks and grouped-query attention with query/key norms "
            "on the others, each followed by a SwiGLU MLP.",
    tags=("Sequential block", "RMSNorm", "Hybrid mixers", "Short convolution", "QK-norm", "Gated MLP",
          "Tied embeddings"),
    rename=LFM_RENAME,
    sites={**mixer_interior(SHORT_CONV), "mlp_activation": SILU},
    accessors={"intermediate_size": lfm2_intermediate_size},
    checkpoints=(
        # partial: config.json of LiquidAI/LFM2-1.2B, the keys a Rust LFM2 port's test lists as the Hub's config.json
        # "trimmed only of keys this port does not model (tokenizer ids, init scales, dtype)"; the same values and
        # torch_dtype bfloat16 in LM Studio's MLX bf16 re-upload vendored in Cmerrill1713/neuroforge-ai-platform
        # mlx_models/lfm2-1.2b-mlx-official/config.json (whose architectures/model_type were rewritten to Llama, so
        # not used verbatim)
        Checkpoint("LiquidAI/LFM2-1.2B", "LFM2-1.2B", {
            "architectures": ["Lfm2ForCausalLM"], "block_auto_adjust_ff_dim": True, "block_dim": 2048,
            "block_ff_dim": 12288, "block_multiple_of": 256, "block_norm_eps": 1e-05, "block_use_swiglu": True,
            "conv_L_cache": 3, "conv_bias": False, "conv_dim": 2048, "full_attn_idxs": [2, 5, 8, 10, 12, 14],
            "hidden_size": 2048, "max_position_embeddings": 128000, "norm_eps": 1e-05, "num_attention_heads": 32,
            "num_heads": 32, "num_hidden_layers": 16, "num_key_value_heads": 8, "rope_theta": 1000000.0,
            "vocab_size": 65536, "dtype": "bfloat16",
        }),
    ),
    tiny={"config_class": "Lfm2Config", "overrides": {
        "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
        "intermediate_size": 128, "vocab_size": 300, "layer_types": ["conv", "full_attention"]}},
)
