"""GLM (GlmForCausalLM).

GLM-4-9B, the predecessor of GLM-4-0414.

Llama's sequential pre-norm block with a bias on q_proj, k_proj and v_proj, rotary on half of each
head, and a fused MLP: mlp.gate_up_proj computes gate and up in one Linear, split in halves,
mlp.activation_fn (SiLU, act_fn) applies to the gate, and down_proj takes act(gate) * up.
mlp_activation is act_fn's output, act(gate); mlp_neurons is down_proj's input. There is no
separate gate_proj or up_proj module.
"""

from nnterp.family import Checkpoint, Family

from ._llama import tiny

FAMILY = Family(
    name="glm",
    model_types=("glm",),
    summary="Llama's block with biased query, key and value projections, half-head rotary and a fused "
            "gate_up_proj.",
    tags=("Sequential block", "RMSNorm", "Biased q, k, v", "Partial rotary", "Fused gate/up"),
    rename={"activation_fn": "act_fn"},
    checkpoints=(
        # config.json of THUDM/glm-4-9b-chat (ChatGLM names: num_layers 40, ffn_hidden_size 13696,
        # multi_query_group_num 2, kv_channels 128, padded_vocab_size 151552, seq_length 131072,
        # layernorm_epsilon 1.5625e-07, add_qkv_bias true) under GlmConfig's names, as the converted
        # THUDM/glm-4-9b-chat-hf config.json has them, with its partial_rotary_factor 0.5 and rope_theta 10000.0
        Checkpoint("THUDM/glm-4-9b-chat", "GLM-4-9B-Chat", {
            "architectures": ["GlmForCausalLM"], "num_hidden_layers": 40, "hidden_size": 4096,
            "intermediate_size": 13696, "num_attention_heads": 32, "num_key_value_heads": 2, "head_dim": 128,
            "vocab_size": 151552, "max_position_embeddings": 131072, "hidden_act": "silu",
            "rms_norm_eps": 1.5625e-07, "attention_bias": True, "tie_word_embeddings": False,
            "rope_parameters": {"rope_type": "default", "rope_theta": 10000.0, "partial_rotary_factor": 0.5},
            "dtype": "bfloat16",
        }),
    ),
    tiny=tiny("GlmConfig", head_dim=16, pad_token_id=0),
)
