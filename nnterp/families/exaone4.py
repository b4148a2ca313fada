"""EXAONE 4 (Exaone4ForCausalLM).

OLMo 2's post-norm block (the catalogue finds the same layer forward): no norm before either
sublayer, h = x + post_attention_layernorm(self_attn(x)), out = h + post_feedforward_layernorm(mlp(h));
attention_output and mlp_output are the post-norms' outputs, layer_mid is the MLP's input.
Queries and keys are normed per head (self_attn.q_norm, k_norm). With sliding-window layers in the
config (EXAONE 4.0 32B: three sliding to one full), only the sliding layers are rotated and the
full-attention layers carry no position (NoPE); without a window every layer is rotated. Which
applies is read per block.
"""

from nnterp.blocks import OLMO2_POSTNORMS
from nnterp.family import Checkpoint, Family

from ._llama import tiny
from ._llama_renamed import normed_then_rotated_on_sliding_layers

FAMILY = Family(
    name="exaone4",
    model_types=("exaone4",),
    summary="OLMo 2's post-norm block with per-head query and key norms, and no rotary on the full-attention "
            "layers of sliding-window checkpoints.",
    tags=("Post-norm block", "RMSNorm", "QK-norm", "Sliding window", "NoPE layers", "Gated MLP"),
    block=OLMO2_POSTNORMS,
    sites={
        "attention_queries": normed_then_rotated_on_sliding_layers("q_norm", "queries"),
        "attention_keys": normed_then_rotated_on_sliding_layers("k_norm", "keys"),
    },
    checkpoints=(
        # config.json of LGAI-EXAONE/EXAONE-4.0-32B (transformers 4.54.0.dev0) as NVIDIA/TensorRT-LLM's
        # tests/unittest/_torch/modeling/test_modeling_exaone4.py copies it (EXAONE4_SINGLE_LAYER_CONFIG), with its
        # two test edits undone as its own NOTE comments give them: num_hidden_layers 64 (the test uses 32 or 4) and
        # sliding_window 4096 (the test uses 4); no layer_types there, so the class derives them from
        # sliding_window_pattern 4 (three sliding layers, then one full)
        Checkpoint("LGAI-EXAONE/EXAONE-4.0-32B", "EXAONE-4.0-32B", {
            "architectures": ["Exaone4ForCausalLM"], "head_dim": 128, "hidden_act": "silu", "hidden_size": 5120,
            "intermediate_size": 27392, "max_position_embeddings": 131072, "num_attention_heads": 40,
            "num_hidden_layers": 64, "num_key_value_heads": 8, "rms_norm_eps": 1e-05,
            "rope_scaling": {"factor": 16.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0,
                             "original_max_position_embeddings": 8192, "rope_type": "llama3"},
            "rope_theta": 1000000, "sliding_window": 4096, "sliding_window_pattern": 4, "tie_word_embeddings": False,
            "dtype": "bfloat16", "vocab_size": 102400,
        }),
    ),
    tiny=tiny("Exaone4Config", layer_types=["sliding_attention", "full_attention"]),
)
