"""GLM-4.5 / GLM-4-MoE (Glm4MoeForCausalLM).

Llama's block with partial rotary (half of each head, partial_rotary_factor 0.5), biased q/k/v
projections, optional per-head RMSNorm q_norm/k_norm (use_qk_norm), and DeepSeek-V3's mixture of
experts. The first first_k_dense_replace blocks hold a dense gated MLP (Glm4MoeMLP) of width
intermediate_size; the others a Glm4MoeMoE of a router gate (Glm4MoeTopkRouter), experts (fused
gate_up_proj [n_routed_experts, 2·moe_intermediate_size, hidden_size] and down_proj) and
shared_experts (a gated MLP on every token). The router computes logits = F.linear(x, weight) in
float32, scores = sigmoid(logits); it chooses among the topk_group best of n_group expert groups
the top_k of scores + e_score_correction_bias, and weights the chosen experts by their scores
(normalized when norm_topk_prob, times routed_scaling_factor). The block returns
experts(x) + shared_experts(x).
"""

from nnterp.family import Checkpoint, Family
from nnterp.routers import DEEPSEEK_V3

FAMILY = Family(
    name="glm4_moe",
    model_types=("glm4_moe",),
    summary="GLM-4.5: partial rotary attention with biased projections, a dense first block, then DeepSeek-V3's "
            "sigmoid router with group-limited choice over fine-grained experts beside a shared expert.",
    tags=("Sequential block", "RMSNorm", "Grouped keys/values", "Partial rotary", "Biased q, k, v",
          "Mixture of experts", "Shared experts"),
    moe=DEEPSEEK_V3,
    checkpoints=(
        Checkpoint("zai-org/GLM-4.5-Air", "GLM-4.5-Air", {
            "architectures": ["Glm4MoeForCausalLM"], "num_hidden_layers": 46, "hidden_size": 4096,
            "intermediate_size": 10944, "moe_intermediate_size": 1408, "num_attention_heads": 96,
            "num_key_value_heads": 8, "head_dim": 128, "vocab_size": 151552, "n_routed_experts": 128,
            "num_experts_per_tok": 8, "n_shared_experts": 1, "first_k_dense_replace": 1, "n_group": 1,
            "topk_group": 1, "norm_topk_prob": True, "routed_scaling_factor": 1.0, "partial_rotary_factor": 0.5,
            "use_qk_norm": False, "attention_bias": True, "max_position_embeddings": 131072, "hidden_act": "silu",
            "rms_norm_eps": 1e-05, "rope_theta": 1000000.0, "tie_word_embeddings": False, "dtype": "bfloat16",
        }),
        # config.json of zai-org/GLM-4.5 (mirrored in hlky/dinoml_v2
        # agents/plans/transformers/glm4_moe/_sources/zai-org__GLM-4.5.config.json)
        Checkpoint("zai-org/GLM-4.5", "GLM-4.5", {
            "architectures": ["Glm4MoeForCausalLM"], "attention_bias": True, "head_dim": 128, "hidden_act": "silu",
            "hidden_size": 5120, "partial_rotary_factor": 0.5, "intermediate_size": 12288,
            "max_position_embeddings": 131072, "moe_intermediate_size": 1536, "norm_topk_prob": True,
            "num_attention_heads": 96, "n_group": 1, "topk_group": 1, "n_routed_experts": 160, "n_shared_experts": 1,
            "routed_scaling_factor": 2.5, "num_experts_per_tok": 8, "first_k_dense_replace": 3, "num_hidden_layers": 92,
            "num_key_value_heads": 8, "rms_norm_eps": 1e-05, "rope_scaling": None, "rope_theta": 1000000,
            "num_nextn_predict_layers": 1, "tie_word_embeddings": False, "dtype": "bfloat16", "use_qk_norm": True,
            "vocab_size": 151552,
        }),
    ),
    tiny={"config_class": "Glm4MoeConfig", "overrides": {
        "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
        "intermediate_size": 128, "moe_intermediate_size": 64, "vocab_size": 300, "n_routed_experts": 4,
        "num_experts_per_tok": 2, "n_group": 1, "topk_group": 1, "first_k_dense_replace": 1}},
)
