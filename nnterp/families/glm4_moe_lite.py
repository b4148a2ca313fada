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
    tiny=DEEPSEEK_V3.tiny_for("Glm4MoeLiteConfig", without=("first_k_dense_replace",)),
)
