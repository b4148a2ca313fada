"""GLM-4.7-Flash / GLM-4-MoE-Lite (Glm4MoeLiteForCausalLM).

DeepSeek-V3's block under GLM's name: Multi-head Latent Attention with q-LoRA (see _mla), dense
first_k_dense_replace blocks, then Glm4MoeLiteMoE blocks of a sigmoid router gate (logits =
F.linear(x, weight) in float32, group-limited top_k of sigmoid + e_score_correction_bias, weights
the normalized sigmoid scores times routed_scaling_factor), fused experts and shared_experts added
on every token.
"""

from nnterp.families.deepseek_v3 import FAMILY as DEEPSEEK_V3

FAMILY = DEEPSEEK_V3.but(
    name="glm4_moe_lite",
    summary="GLM's small MoE on DeepSeek-V3's architecture: latent attention, a dense first block, then a sigmoid "
            "router beside a shared expert.",
    tags=("Sequential block", "RMSNorm", "Latent attention (MLA)", "Mixture of experts", "Shared experts"),
    tiny={"config_class": "Glm4MoeLiteConfig", "overrides": {
        "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 4,
        "intermediate_size": 128, "moe_intermediate_size": 64, "vocab_size": 300, "n_routed_experts": 4,
        "num_experts_per_tok": 2, "n_group": 1, "topk_group": 1, "kv_lora_rank": 32, "q_lora_rank": 32,
        "qk_rope_head_dim": 16, "qk_nope_head_dim": 16, "v_head_dim": 16}},
)
