"""Sarvam-MLA (its config builds DeepseekV3ForCausalLM).

DeepSeek-V3's modules under another model type: Multi-head Latent Attention (see _mla), dense
first_k_dense_replace blocks, then DeepseekV3MoE blocks: a sigmoid router gate (logits =
F.linear(x, weight) in float32, group-limited top_k of sigmoid + e_score_correction_bias, weights
the normalized sigmoid scores times routed_scaling_factor), fused experts and shared_experts added
on every token.
"""

from nnterp.families.deepseek_v3 import FAMILY as DEEPSEEK_V3

FAMILY = DEEPSEEK_V3.but(
    name="sarvam_mla",
    summary="DeepSeek-V3's architecture under Sarvam's name: latent attention, dense first blocks, then a sigmoid "
            "router beside a shared expert.",
    tags=("Sequential block", "RMSNorm", "Latent attention (MLA)", "Mixture of experts", "Shared experts"),
    tiny={"config_class": "SarvamMLAConfig", "overrides": {
        "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 4,
        "intermediate_size": 128, "moe_intermediate_size": 64, "vocab_size": 300, "n_routed_experts": 4,
        "num_experts_per_tok": 2, "n_group": 1, "topk_group": 1, "first_k_dense_replace": 1, "kv_lora_rank": 32,
        "qk_rope_head_dim": 16, "qk_nope_head_dim": 16, "v_head_dim": 16}},
)
