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

from nnterp.family import Checkpoint, Family
from nnterp.families._hybrid import mixer_interior
from nnterp.families._mla import MLA_ACCESSORS, gated_outputs, mla_sites
from nnterp.routers import moe_accessors
from nnterp.routers import DEEPSEEK_V3

DELTA = ("a gated delta-rule linear-attention mixer: no softmax attention; it keeps a recurrent state, so there are no "
         "attention scores, pattern or per-head softmax outputs")

FAMILY = Family(
    name="bailing_hybrid",
    model_types=("bailing_hybrid",),
    summary="inclusionAI's Ling hybrid: delta-rule linear attention on most layers, gated latent attention on the "
            "others, and a DeepSeek-V3 mixture of experts.",
    tags=("Sequential block", "RMSNorm", "Hybrid mixers", "Linear attention", "Latent attention (MLA)",
          "Gated attention", "Mixture of experts", "Shared experts"),
    moe=DEEPSEEK_V3,
    sites={
        **mixer_interior(DELTA, {**mla_sites(), **gated_outputs("sigmoid(g_proj(x)), one gate per head")}),
    },
    accessors={**MLA_ACCESSORS, **moe_accessors(("num_local_experts", "num_experts"))},
    checkpoints=(
        # partial config.json of inclusionAI/Ling-3.0-Flash: the subset of its INT4 re-upload's (Ling-3.0-flash-int4,
        # compressed-tensors experts, same architecture) config facts that ericcurtin/vllm-vulkan's src/ling.rs pins
        # in its real_config() test, read from the real config.json; the release names the remote-code class
        # BailingMoeV3ForCausalLM (model_type bailing_hybrid, which transformers maps to BailingHybridForCausalLM),
        # and gated_attention_proj_granularity_type, rotary_dim, rope_interleave, no_kda_lora and
        # moe_shared_expert_intermediate_size are remote-code keys the port does not read
        Checkpoint("inclusionAI/Ling-3.0-Flash", "Ling-3.0-Flash", {
            "architectures": ["BailingMoeV3ForCausalLM"], "num_hidden_layers": 42, "hidden_size": 2560,
            "vocab_size": 157184, "rms_norm_eps": 1e-06, "tie_word_embeddings": False, "first_k_dense_replace": 2,
            "intermediate_size": 6144, "num_attention_heads": 32, "num_key_value_heads": 32, "kv_lora_rank": 512,
            "q_lora_rank": None, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128, "head_dim": 128,
            "gated_attention_proj_granularity_type": "head_wise", "rope_theta": 6000000, "rotary_dim": 64,
            "rope_interleave": True, "short_conv_kernel_size": 4, "no_kda_lora": True, "kda_safe_gate": True,
            "kda_lower_bound": -5.0, "num_experts": 512, "num_experts_per_tok": 8, "num_shared_experts": 1,
            "moe_intermediate_size": 768, "moe_shared_expert_intermediate_size": 768, "routed_scaling_factor": 2.5,
            "norm_topk_prob": True, "n_group": 8, "topk_group": 4, "layer_group_size": 6,
        }),
    ),
    tiny={"config_class": "BailingHybridConfig", "overrides": {
        "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 4,
        "intermediate_size": 128, "moe_intermediate_size": 64, "vocab_size": 300, "head_dim": 16,
        "num_local_experts": 4, "num_experts_per_tok": 2, "n_group": 1, "topk_group": 1, "first_k_dense_replace": 1,
        "kv_lora_rank": 32, "qk_rope_head_dim": 16, "qk_nope_head_dim": 16, "v_head_dim": 16, "pad_token_id": 0,
        "eos_token_id": 2, "layer_types": ["linear_attention", "full_attention"],
        "mlp_layer_types": ["dense", "sparse"]}},
)
