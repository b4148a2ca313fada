"""Apertus 1.5 text (Apertus1p5TextForCausalLM).

Apertus' block: Llama's sequential pre-norm block with attention_layernorm before the attention
(input_layernorm) and feedforward_layernorm before the MLP (post_attention_layernorm), per-head
RMSNorms on queries and keys (self_attn.q_norm, k_norm) before the rotary, and a plain MLP,
mlp.{up_proj, act_fn, down_proj} with xIELU, so mlp_activation and mlp_neurons are the same tensor.
"""

from nnterp.family import Checkpoint, Family

from ._llama import tiny
from ._llama_renamed import normed_then_rotated

FAMILY = Family(
    name="apertus1p5_text",
    model_types=("apertus1p5_text",),
    summary="Apertus' block (renamed norms, per-head query and key norms, a plain xIELU MLP) in the text model "
            "of Apertus 1.5.",
    tags=("Sequential block", "RMSNorm", "QK-norm", "Grouped keys/values", "xIELU MLP"),
    rename={"attention_layernorm": "input_layernorm", "feedforward_layernorm": "post_attention_layernorm"},
    sites={
        "attention_queries": normed_then_rotated("q_norm", "queries"),
        "attention_keys": normed_then_rotated("k_norm", "keys"),
    },
    # lm_head is output_vocab_size wide where the checkpoint prunes its head (Apertus-v1.5-8B: 131072 of 266752)
    accessors={"vocab_size": lambda c: c.output_vocab_size or c.vocab_size},
    checkpoints=(
        # text_config of swiss-ai/Apertus-v1.5-8B's config.json, as reproduced in ollama's apertus config test
        # (TestParseConfigApertus1p5Exact8B)
        Checkpoint("swiss-ai/Apertus-v1.5-8B", "Apertus-v1.5-8B", {
            "num_hidden_layers": 32, "hidden_size": 4096, "intermediate_size": 21504, "num_attention_heads": 32,
            "num_key_value_heads": 8, "vocab_size": 266752, "output_vocab_size": 131072,
            "max_position_embeddings": 262144, "hidden_act": "xielu", "rms_norm_eps": 1e-05, "qk_norm": True,
            "post_norm": False, "attention_bias": False, "mlp_bias": False, "tie_word_embeddings": False,
            "rope_parameters": {
                "factor": 32.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0,
                "original_max_position_embeddings": 8192, "rope_theta": 4000000, "rope_type": "llama3"},
            "dtype": "bfloat16",
        }),
    ),
    tiny=tiny("Apertus1p5TextConfig"),
)
