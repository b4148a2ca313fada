"""Helium (HeliumForCausalLM).

Llama's modules and sequential pre-norm block. The RMSNorm multiplies by its weight in float32
before casting back, where Llama casts first; the attention and MLP are Llama's. Every value is
read where Llama's is.
"""

from nnterp.family import Checkpoint, Family

from ._llama import tiny

FAMILY = Family(
    name="helium",
    model_types=("helium",),
    summary="Llama's block, with the RMSNorm's weight applied in float32.",
    tags=("Sequential block", "RMSNorm", "Gated MLP"),
    checkpoints=(
        # config.json of kyutai/helium-1-preview-2b
        Checkpoint("kyutai/helium-1-preview-2b", "Helium-1 preview 2B", {
            "architectures": ["HeliumForCausalLM"], "num_hidden_layers": 24, "hidden_size": 2560,
            "intermediate_size": 7040, "num_attention_heads": 20, "num_key_value_heads": 20, "head_dim": 128,
            "vocab_size": 48000, "max_position_embeddings": 4096, "hidden_act": "silu", "rms_norm_eps": 1e-08,
            "tie_word_embeddings": False, "attention_bias": False, "mlp_bias": False,
            "rope_parameters": {"rope_type": "default", "rope_theta": 100000.0}, "dtype": "bfloat16",
        }),
    ),
    tiny=tiny("HeliumConfig", head_dim=16),
)
