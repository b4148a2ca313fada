"""Qwen3-MoE (Qwen3MoeForCausalLM).

Qwen3's block (per-head RMSNorm q_norm/k_norm on queries and keys before rotary, grouped keys and
values, no projection biases) with a mixture of experts in the MLP slot: model.layers[i].mlp is a
Qwen3MoeSparseMoeBlock of a router gate (Qwen3MoeTopKRouter) and experts (fused gate_up_proj
[num_experts, 2·moe_intermediate_size, hidden_size] and down_proj). On the positions flattened to
[tokens, hidden_size] the router computes logits = F.linear(x, weight), a float32 softmax over all
experts and keeps the top_k probabilities, renormalized when norm_topk_prob (on in the released
checkpoints). No shared expert. Blocks in mlp_only_layers, or off the decoder_sparse_step grid,
hold a dense Qwen3MoeMLP and serve its neurons.
"""

from nnterp.family import Checkpoint, Family
from nnterp.routers import (
    LOGITS_BEFORE_SOFTMAX, SOFTMAX_THEN_TOPK_OPTIONAL, experts_sentence, moe_accessors, moe_block, router_sites,
)

FAMILY = Family(
    name="qwen3_moe",
    model_types=("qwen3_moe",),
    summary="Qwen3's block with per-head query/key norms and a fine-grained mixture of experts: a softmax router "
            "picks 8 of 128 small experts per token, with no shared expert.",
    tags=("Sequential block", "RMSNorm", "Grouped keys/values", "QK-norm", "Mixture of experts"),
    sites=moe_block(router_sites("gate", "F.linear", logits=LOGITS_BEFORE_SOFTMAX,
                                 weights_description=SOFTMAX_THEN_TOPK_OPTIONAL), experts_sentence()),
    accessors=moe_accessors("num_experts"),
    checkpoints=(
        Checkpoint("Qwen/Qwen3-30B-A3B", "Qwen3-30B-A3B", {
            "architectures": ["Qwen3MoeForCausalLM"], "num_hidden_layers": 48, "hidden_size": 2048,
            "intermediate_size": 6144, "moe_intermediate_size": 768, "num_attention_heads": 32,
            "num_key_value_heads": 4, "head_dim": 128, "vocab_size": 151936, "num_experts": 128,
            "num_experts_per_tok": 8, "norm_topk_prob": True, "decoder_sparse_step": 1, "mlp_only_layers": [],
            "max_position_embeddings": 40960, "hidden_act": "silu", "rms_norm_eps": 1e-06, "rope_theta": 1000000.0,
            "tie_word_embeddings": False, "dtype": "bfloat16",
        }),
        # config.json of Qwen/Qwen3-235B-A22B (mirrored in ai-dynamo/aiconfigurator
        # aic-core/src/aiconfigurator_core/model_configs/Qwen--Qwen3-235B-A22B_config.json)
        Checkpoint("Qwen/Qwen3-235B-A22B", "Qwen3-235B-A22B", {
            "architectures": ["Qwen3MoeForCausalLM"], "attention_bias": False, "decoder_sparse_step": 1,
            "head_dim": 128, "hidden_act": "silu", "hidden_size": 4096, "intermediate_size": 12288,
            "max_position_embeddings": 40960, "max_window_layers": 94, "mlp_only_layers": [],
            "moe_intermediate_size": 1536, "norm_topk_prob": True, "num_attention_heads": 64, "num_experts": 128,
            "num_experts_per_tok": 8, "num_hidden_layers": 94, "num_key_value_heads": 4, "output_router_logits": False,
            "rms_norm_eps": 1e-06, "rope_scaling": None, "rope_theta": 1000000.0, "router_aux_loss_coef": 0.001,
            "sliding_window": None, "tie_word_embeddings": False, "dtype": "bfloat16", "use_sliding_window": False,
            "vocab_size": 151936,
        }),
    ),
    tiny={"config_class": "Qwen3MoeConfig", "overrides": {
        "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
        "intermediate_size": 128, "moe_intermediate_size": 64, "vocab_size": 300, "num_experts": 4,
        "num_experts_per_tok": 2}},
)

