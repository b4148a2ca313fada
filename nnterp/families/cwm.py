"""CWM (CwmForCausalLM).

Llama's modules and sequential pre-norm block; the attention (Qwen 2's) passes sliding_window to
the kernel, and config.layer_types interleaves sliding-window layers with a full-attention layer
every fourth block (each gets its own mask). Rotary is Llama 3's scaled rotary. Every value is read
where Llama's is; on a sliding layer attention_scores holds the masked scores of the window.
"""

from nnterp.family import Checkpoint, Family

from ._llama import tiny

FAMILY = Family(
    name="cwm",
    model_types=("cwm",),
    summary="Llama's block with sliding-window attention on three layers of four and Llama 3 rotary.",
    tags=("Sequential block", "RMSNorm", "Grouped keys/values", "Sliding window", "Gated MLP"),
    checkpoints=(
        # facebook/cwm's own config.json is gated; these are the config.json of dnakov/cwm-mlx, an MLX conversion of
        # it (copied in hlky/dinoml_v2's cwm snapshots), which names the architecture LlamaForCausalLM but keeps
        # CWM's sizes, its per-layer layer_types (full on every fourth block and on the last) and sliding_window
        Checkpoint("facebook/cwm", "CWM", {
            "num_hidden_layers": 64, "hidden_size": 6144, "intermediate_size": 21504, "num_attention_heads": 48,
            "num_key_value_heads": 8, "head_dim": 128, "vocab_size": 128256, "max_position_embeddings": 131072,
            "hidden_act": "silu", "rms_norm_eps": 1e-05, "mlp_bias": False, "tie_word_embeddings": False,
            "sliding_window": 8192,
            "layer_types": (["full_attention"] + ["sliding_attention"] * 3) * 15
            + ["full_attention", "sliding_attention", "sliding_attention", "full_attention"],
            "bos_token_id": 128000, "eos_token_id": [128001, 128008, 128009],
            "rope_parameters": {"rope_type": "llama3", "rope_theta": 1000000.0, "factor": 16.0, "high_freq_factor": 4.0,
                                "low_freq_factor": 1.0, "original_max_position_embeddings": 8192},
            "dtype": "bfloat16",
        }),
    ),
    tiny=tiny("CwmConfig", head_dim=16, bos_token_id=1),
)
