"""Apertus (ApertusForCausalLM).

Llama's sequential pre-norm block with other names for its norms: attention_layernorm before the
attention (input_layernorm) and feedforward_layernorm before the MLP (post_attention_layernorm).
The attention normalizes each query and key head with an RMSNorm (self_attn.q_norm, k_norm) before
the rotary (Llama 3's). The MLP is plain, mlp.{up_proj, act_fn, down_proj} with the xIELU
activation and no gate_proj, so mlp_activation and mlp_neurons are the same tensor.
"""

from nnterp.family import Checkpoint, Family

from ._llama import tiny
from ._llama_renamed import normed_then_rotated

FAMILY = Family(
    name="apertus",
    model_types=("apertus",),
    summary="Llama's block with renamed norms, per-head query and key norms and a plain xIELU MLP.",
    tags=("Sequential block", "RMSNorm", "QK-norm", "Grouped keys/values", "xIELU MLP"),
    rename={"attention_layernorm": "input_layernorm", "feedforward_layernorm": "post_attention_layernorm"},
    sites={
        "attention_queries": normed_then_rotated("q_norm", "queries"),
        "attention_keys": normed_then_rotated("k_norm", "keys"),
    },
    checkpoints=(
        # config.json of swiss-ai/Apertus-8B (the 8B's architecture, shared by the Instruct-2509 release), as
        # reproduced in ollama's apertus config test (TestParseConfigApertus8B)
        Checkpoint("swiss-ai/Apertus-8B-Instruct-2509", "Apertus-8B-Instruct", {
            "architectures": ["ApertusForCausalLM"], "num_hidden_layers": 32, "hidden_size": 4096,
            "intermediate_size": 21504, "num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": 131072,
            "max_position_embeddings": 65536, "hidden_act": "xielu", "rms_norm_eps": 1e-05, "qk_norm": True,
            "post_norm": False, "attention_bias": False, "mlp_bias": False, "tie_word_embeddings": False,
            "rope_theta": 12000000, "rope_scaling": {
                "factor": 8.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0,
                "original_max_position_embeddings": 8192, "rope_type": "llama3"},
            "dtype": "bfloat16",
        }),
    ),
    tiny=tiny("ApertusConfig"),
)
