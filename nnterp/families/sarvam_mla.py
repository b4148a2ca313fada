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
    tiny=DEEPSEEK_V3.tiny_for("SarvamMLAConfig", without=("q_lora_rank",)),
)
