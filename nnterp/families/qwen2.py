"""Qwen2 and Qwen2.5 (Qwen2ForCausalLM).

Llama's modules and sequential pre-norm block with a bias on q_proj, k_proj and v_proj (none on
o_proj). The attention passes sliding_window to the kernel; config.layer_types turns the window on
for the layers past max_window_layers when use_sliding_window is set (off on the released
checkpoints). Every value is read where Llama's is.
"""

from nnterp.family import Checkpoint, Family

from ._llama import tiny

FAMILY = Family(
    name="qwen2",
    model_types=("qwen2",),
    summary="Llama's block with biased query, key and value projections.",
    tags=("Sequential block", "RMSNorm", "Grouped keys/values", "Biased q, k, v", "Gated MLP"),
    checkpoints=(
        # rope_theta, max_window_layers and sliding_window added from a copy of its config.json quoted whole on a
        # model page the code search returns (headed "# Qwen/Qwen2.5-0.5B", "## model config", transformers_version
        # 4.40.1), whose repository the index does not name; the other keys were recorded before
        Checkpoint("Qwen/Qwen2.5-0.5B", "Qwen2.5-0.5B", {
            "architectures": ["Qwen2ForCausalLM"], "num_hidden_layers": 24, "hidden_size": 896,
            "intermediate_size": 4864, "num_attention_heads": 14, "num_key_value_heads": 2, "vocab_size": 151936,
            "max_position_embeddings": 32768, "hidden_act": "silu", "rms_norm_eps": 1e-06,
            "tie_word_embeddings": True, "use_sliding_window": False, "dtype": "bfloat16",
            "rope_theta": 1000000.0, "max_window_layers": 24, "sliding_window": 32768,
        }),
        Checkpoint("Qwen/Qwen2-7B", "Qwen2-7B"),
        # config.json of Qwen/Qwen2-0.5B (mirrored in rwth-i6/i6_experiments
        # users/juanola/experiments/e25_11_13_ctc/configurations/qwen2/qwen2_configs.py, "Qwen2-0_5B")
        Checkpoint("Qwen/Qwen2-0.5B", "Qwen2-0.5B", {
            "architectures": ["Qwen2ForCausalLM"], "hidden_act": "silu", "hidden_size": 896, "intermediate_size": 4864,
            "max_position_embeddings": 131072, "max_window_layers": 24, "num_attention_heads": 14,
            "num_hidden_layers": 24, "num_key_value_heads": 2, "rms_norm_eps": 1e-06, "rope_theta": 1000000.0,
            "sliding_window": 131072, "tie_word_embeddings": True, "dtype": "bfloat16", "use_sliding_window": False,
            "vocab_size": 151936,
        }),
    ),
    tiny=tiny("Qwen2Config"),
)

