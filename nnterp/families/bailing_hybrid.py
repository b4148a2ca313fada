"""Ling hybrid (BailingHybridForCausalLM).

A hybrid whose self_attn slot holds, per layer_types, either a gated delta-rule linear attention
(BailingHybridDeltaAttention: no softmax, a recurrent state, a gated output norm) or Multi-head
Latent Attention (BailingHybridAttention, see _mla: keys and values expanded per head from a normed
latent, interleaved rotary on the shared key) whose kernel output is multiplied per head by
sigmoid(g_proj(x)) before o_proj, so attention_head_outputs is before that gate and
attention_premix after it. The MLP slot holds, per mlp_layer_types, a dense gated MLP or a
DeepSeek-V3 mixture (router gate: logits = F.linear(x, weight) in float32, group-limited top_k of
sigmoid + e_score_correction_bias, weights the normalized sigmoid scores times
routed_scaling_factor; fused experts; shared_experts on every token).
"""

from nnterp.declare.family import Family
from nnterp.declare.mixers import mixer_interior
from nnterp.declare.routers import DEEPSEEK_V3
from nnterp.families._llama import tiny
from nnterp.families._mla import MLA_ACCESSORS, gated_outputs, mla_sites

DELTA = ("a gated delta-rule linear-attention mixer: no softmax attention; it keeps a recurrent state, so there are no "
         "attention scores, pattern or per-head softmax outputs")

FAMILY = Family(
    name="bailing_hybrid",
    summary="inclusionAI's Ling hybrid: delta-rule linear attention on most layers, gated latent attention on the "
            "others, and a DeepSeek-V3 mixture of experts.",
    tags=("Sequential block", "RMSNorm", "Hybrid mixers", "Linear attention", "Latent attention (MLA)",
          "Gated attention", "Mixture of experts", "Shared experts"),
    moe=DEEPSEEK_V3.but(num_experts=("num_local_experts", "num_experts")),
    sites={
        **mixer_interior(DELTA, {**mla_sites(), **gated_outputs("sigmoid(g_proj(x)), one gate per head")}),
    },
    accessors=MLA_ACCESSORS,
    tiny=tiny("BailingHybridConfig", num_key_value_heads=4, moe_intermediate_size=64, head_dim=16,
              num_local_experts=4, num_experts_per_tok=2, n_group=1, topk_group=1, first_k_dense_replace=1,
              kv_lora_rank=32, qk_rope_head_dim=16, qk_nope_head_dim=16, v_head_dim=16, pad_token_id=0,
              eos_token_id=2, layer_types=["linear_attention", "full_attention"],
              mlp_layer_types=["dense", "sparse"]),
)
