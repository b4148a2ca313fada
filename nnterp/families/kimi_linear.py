"""Kimi Linear (KimiLinearForCausalLM).

A hybrid whose self_attn slot holds, per layer_types, either Kimi Delta Attention
(KimiLinearDeltaAttention: short convolutions on q, k and v, a gated delta rule with per-channel
decay over a recurrent state, a gated output norm; no softmax) or Multi-head Latent Attention
(KimiLinearAttention, see _mla) without any positional encoding: the model has no rotary at all,
and the keys' "rotary" part is passed through unrotated. The MLP slot holds, per mlp_layer_types,
a dense gated MLP or a DeepSeek-V3 mixture (router gate: logits = F.linear(x, weight) in float32,
group-limited top_k of sigmoid + e_score_correction_bias, weights the normalized sigmoid scores
times routed_scaling_factor; fused experts; shared_experts on every token).
"""

from nnterp.declare.family import Family
from nnterp.declare.mixers import KIMI_DELTA, mixer_interior
from nnterp.declare.routers import DEEPSEEK_V3
from nnterp.families._llama import tiny
from nnterp.families._mla import MLA_ACCESSORS, mla_sites

FAMILY = Family(
    name="kimi_linear",
    summary="Moonshot's Kimi Linear: Kimi delta attention on three of every four layers, position-free latent "
            "attention on the fourth, and a DeepSeek-V3 mixture of experts.",
    tags=("Sequential block", "RMSNorm", "Hybrid mixers", "Linear attention", "Latent attention (MLA)", "NoPE layers",
          "Mixture of experts", "Shared experts"),
    moe=DEEPSEEK_V3.but(num_experts=("num_local_experts", "num_experts")),
    sites={**mixer_interior(KIMI_DELTA, mla_sites())},
    accessors=MLA_ACCESSORS,
    tiny=tiny("KimiLinearConfig", num_key_value_heads=4, moe_intermediate_size=64, num_local_experts=4,
              num_experts_per_tok=2, n_group=1, topk_group=1, kv_lora_rank=32, qk_rope_head_dim=16,
              qk_nope_head_dim=16, v_head_dim=16, linear_head_dim=16, linear_num_heads=4, pad_token_id=0,
              bos_token_id=1, eos_token_id=2, layer_types=["linear_attention", "full_attention"],
              mlp_layer_types=["dense", "sparse"]),
)
