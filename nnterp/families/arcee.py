"""Arcee AFM (ArceeForCausalLM).

Llama's modules and sequential pre-norm block, with a plain MLP: mlp.{up_proj, act_fn, down_proj}
and no gate_proj, the activation ReLU² (relu(x)²). mlp_activation and mlp_neurons are then the same
tensor, act_fn's output and down_proj's input. Keys and values are grouped; the attention calls the
kernel through attention_interface like Llama's.
"""

from nnterp.family import Checkpoint, Family

from ._llama import tiny

FAMILY = Family(
    name="arcee",
    model_types=("arcee",),
    summary="Llama's block with a plain ReLU² MLP (up_proj, relu², down_proj) and no gate.",
    tags=("Sequential block", "RMSNorm", "Grouped keys/values", "ReLU² MLP"),
    checkpoints=(
        # config.json of arcee-ai/AFM-4.5B (mirrored in hlky/dinoml_v2 agents/plans/transformers/arcee/)
        Checkpoint("arcee-ai/AFM-4.5B", "AFM-4.5B", {
            "architectures": ["ArceeForCausalLM"], "num_hidden_layers": 36, "hidden_size": 2560,
            "intermediate_size": 18432, "num_attention_heads": 20, "num_key_value_heads": 4, "head_dim": 128,
            "vocab_size": 128005, "max_position_embeddings": 65536, "hidden_act": "relu2", "rms_norm_eps": 1e-05,
            "tie_word_embeddings": False, "attention_bias": False, "mlp_bias": False,
            "rope_parameters": {"rope_type": "yarn", "rope_theta": 10000.0, "factor": 20.0, "beta_fast": 32.0,
                                "beta_slow": 1.0, "mscale": 1.0, "original_max_position_embeddings": 4096},
            "dtype": "bfloat16",
        }),
    ),
    tiny=tiny("ArceeConfig", head_dim=16, bos_token_id=1, eos_token_id=2),
)
