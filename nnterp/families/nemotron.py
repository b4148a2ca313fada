"""Nemotron (NemotronForCausalLM).

The Nemotron-3 and Minitron dense models.

Llama's module names on a sequential pre-norm block whose norms are LayerNorm1P: a LayerNorm with
a bias that multiplies by (1 + weight). The MLP is plain: mlp.{up_proj, act_fn, down_proj} with
ReLU² and no gate_proj, so mlp_activation and mlp_neurons are the same tensor. Rotary turns
partial_rotary_factor (0.5) of each head.
"""

from nnterp.family import Checkpoint, Family

from ._llama import tiny

FAMILY = Family(
    name="nemotron",
    model_types=("nemotron",),
    summary="Llama's block with LayerNorm1P norms (1 + weight), a plain ReLU² MLP and rotary on half of each head.",
    tags=("Sequential block", "LayerNorm (1 + w)", "ReLU² MLP", "Partial rotary"),
    checkpoints=(
        Checkpoint("nvidia/Minitron-4B-Base", "Minitron-4B-Base", {
            "architectures": ["NemotronForCausalLM"], "num_hidden_layers": 32, "hidden_size": 3072,
            "intermediate_size": 9216, "num_attention_heads": 24, "num_key_value_heads": 8, "head_dim": 128,
            "vocab_size": 256000, "max_position_embeddings": 4096, "hidden_act": "relu2", "norm_eps": 1e-05,
            "partial_rotary_factor": 0.5, "tie_word_embeddings": False, "dtype": "bfloat16",
        }),
        # config.json of thhaus/nemotron3-8b (mirrored in hlky/dinoml_v2
        # agents/plans/transformers/nemotron/config_thhaus_nemotron3_8b.json)
        Checkpoint("thhaus/nemotron3-8b", "Nemotron-3-8B", {
            "architectures": ["NemotronForCausalLM"], "attention_bias": False, "head_dim": 128, "hidden_act": "relu2",
            "hidden_size": 4096, "intermediate_size": 16384, "max_position_embeddings": 4096, "mlp_bias": False,
            "norm_eps": 1e-05, "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 32,
            "partial_rotary_factor": 0.5, "rope_theta": 10000, "tie_word_embeddings": False, "dtype": "bfloat16",
            "vocab_size": 256000,
        }),
    ),
    tiny=tiny("NemotronConfig", head_dim=16),
)
