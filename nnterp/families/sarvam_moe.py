"""Sarvam-MoE (its config, SarvamMoEConfig, builds Glm4MoeForCausalLM).

GLM-4-MoE's modules under another model type: Llama's block with partial rotary and per-head
RMSNorm q_norm/k_norm (use_qk_norm on), grouped keys and values, dense first_k_dense_replace
blocks, then Glm4MoeMoE blocks: a sigmoid router gate (logits = F.linear(x, weight) in float32,
group-limited top_k of sigmoid + e_score_correction_bias, weights the normalized sigmoid scores
times routed_scaling_factor), fused experts and shared_experts added on every token.
"""

from nnterp.families.glm4_moe import FAMILY as GLM4_MOE

FAMILY = GLM4_MOE.but(
    name="sarvam_moe",
    summary="GLM-4-MoE's architecture with query/key norms: a dense first block, then a sigmoid router over 128 "
            "experts beside a shared expert.",
    tags=("Sequential block", "RMSNorm", "Grouped keys/values", "QK-norm", "Partial rotary", "Mixture of experts",
          "Shared experts"),
    tiny=GLM4_MOE.tiny_for("SarvamMoEConfig", head_dim=16),
)
