"""GLM-5 / GLM-MoE-DSA (GlmMoeDsaForCausalLM).

DeepSeek-V3.2's block under GLM's name: Multi-head Latent Attention with q-LoRA and interleaved
rotary (see _mla) and DeepSeek Sparse Attention. Layers with an indexer score every key and keep
index_topk per query; layers without one reuse the previous indexer layer's choice, which each
block returns beside its output ((hidden_states, topk_indices); layer_output is element 0). Under
eager and sdpa the choice becomes part of the mask the kernel receives. Dense first_k_dense_replace
blocks, then GlmMoeDsaMoE blocks of a sigmoid, group-limited router gate with
e_score_correction_bias, fused experts and shared_experts.
"""

from nnterp.families.deepseek_v32 import FAMILY as DEEPSEEK_V32

FAMILY = DEEPSEEK_V32.but(
    name="glm_moe_dsa",
    summary="GLM-5: latent attention made sparse by an indexer whose key choice later layers share, and a sigmoid "
            "router over experts beside a shared expert.",
    tags=("Sequential block", "RMSNorm", "Latent attention (MLA)", "Sparse attention", "Mixture of experts",
          "Shared experts"),
    tiny={"config_class": "GlmMoeDsaConfig", "overrides": {
        "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 4,
        "intermediate_size": 128, "moe_intermediate_size": 64, "vocab_size": 300, "head_dim": 16,
        "n_routed_experts": 4, "num_experts_per_tok": 2, "n_group": 1, "topk_group": 1, "first_k_dense_replace": 1,
        "kv_lora_rank": 32, "q_lora_rank": 32, "qk_rope_head_dim": 16, "qk_nope_head_dim": 16, "v_head_dim": 16,
        "index_head_dim": 32, "index_n_heads": 2, "index_topk": 4}},
)
