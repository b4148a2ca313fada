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
        Checkpoint("Qwen/Qwen2.5-0.5B", "Qwen2.5-0.5B", {
            "architectures": ["Qwen2ForCausalLM"], "num_hidden_layers": 24, "hidden_size": 896,
            "intermediate_size": 4864, "num_attention_heads": 14, "num_key_value_heads": 2, "vocab_size": 151936,
            "max_position_embeddings": 32768, "hidden_act": "silu", "rms_norm_eps": 1e-06,
            "tie_word_embeddings": True, "use_sliding_window": False, "dtype": "bfloat16",
        }),
        Checkpoint("Qwen/Qwen2-7B", "Qwen2-7B"),
    ),
    tiny=tiny("Qwen2Config"),
)


#: What the catalogue of transformers' decoder-only families found for this family's model type: [obs] observed
#: on a tiny model, [src] read in the modeling source, [cfg] a config default, [inf] inferred and not verified;
#: caveats say what a standard value meets here. The page lists them under its traps.
TRAPS = {'qwen2': {'caveats': [],
           'quirks': ['q/k/v bias, no o_proj bias [obs]',
                      'optional sliding window on top layers (use_sliding_window/max_window_layers) [src]']}}
