"""Jais 2 (Jais2ForCausalLM).

Llama's module names on a sequential pre-norm block with LayerNorms (weight and bias) in place of
RMSNorms, a bias on q_proj, k_proj, v_proj and o_proj, and a plain MLP: mlp.{up_proj, act_fn,
down_proj} with ReLU² and no gate_proj, so mlp_activation and mlp_neurons are the same tensor.
"""

from nnterp.family import Checkpoint, Family

from ._llama import tiny

FAMILY = Family(
    name="jais2",
    model_types=("jais2",),
    summary="Llama's block with LayerNorms, biased projections and a plain ReLU² MLP.",
    tags=("Sequential block", "LayerNorm", "Biased q, k, v", "ReLU² MLP"),
    checkpoints=(
        # config.json of Omaratef3221/jais-2-8b-chat-s1-full-aramed, a full fine-tune of Jais-2-8B-Chat with the
        # same architecture (mirrored in hlky/dinoml_v2 agents/plans/transformers/jais2/hf_snapshots/)
        Checkpoint("inceptionai/Jais-2-8B-Chat", "Jais-2-8B-Chat", {
            "architectures": ["Jais2ForCausalLM"], "num_hidden_layers": 32, "hidden_size": 3328,
            "intermediate_size": 26624, "num_attention_heads": 26, "num_key_value_heads": 26, "head_dim": 128,
            "vocab_size": 150272, "max_position_embeddings": 8192, "hidden_act": "relu2", "layer_norm_eps": 1e-05,
            "tie_word_embeddings": False, "attention_bias": True, "mlp_bias": True,
            "rope_parameters": {"rope_type": "default", "rope_theta": 500000.0}, "dtype": "bfloat16",
        }),
    ),
    tiny=tiny("Jais2Config", head_dim=16, eos_token_id=2),
)
