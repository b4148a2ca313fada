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
    tiny=DEEPSEEK_V32.tiny_for("GlmMoeDsaConfig"),
)
