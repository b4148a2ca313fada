"""Qwen2-MoE (Qwen2MoeForCausalLM), the architecture of Qwen1.5-MoE.

Qwen2's block (biased q/k/v, grouped keys and values) with a mixture of experts in the MLP slot:
model.layers[i].mlp is a Qwen2MoeSparseMoeBlock of a router gate (Qwen2MoeTopKRouter), experts
(fused gate_up_proj [num_experts, 2·moe_intermediate_size, hidden_size] and down_proj), a
shared_expert (a gated MLP with gate_proj, up_proj, down_proj, act_fn) and a shared_expert_gate
(Linear to one unit). On the positions flattened to [tokens, hidden_size] the router computes
logits = F.linear(x, weight), a float32 softmax over all experts, the top_k probabilities
(renormalized only when norm_topk_prob); the block returns experts(x) + sigmoid(shared_expert_gate(x))
· shared_expert(x). Blocks listed in mlp_only_layers, or off the decoder_sparse_step grid, hold a
dense Qwen2MoeMLP of width intermediate_size instead, and serve the MLP's neurons.
"""

from nnterp.family import Checkpoint, Family
from nnterp.routers import experts_sentence, moe_accessors, moe_block, router_sites

FAMILY = Family(
    name="qwen2_moe",
    model_types=("qwen2_moe",),
    summary="Qwen2's block with a mixture of experts beside a sigmoid-gated shared expert: a softmax router picks "
            "top_k experts per token, and the shared expert runs on every token.",
    tags=("Sequential block", "RMSNorm", "Grouped keys/values", "Biased q, k, v", "Mixture of experts",
          "Shared experts"),
    sites=moe_block(router_sites(
        "gate", "F.linear",
        logits="The router's score for every expert, before the softmax over all experts",
        weights_description="The chosen experts' softmax probabilities (renormalized over the top_k when "
                            "norm_topk_prob); the shared expert is weighted apart, by sigmoid(shared_expert_gate(x))",
    ), experts_sentence()),
    accessors=moe_accessors("num_experts"),
    checkpoints=(
        Checkpoint("Qwen/Qwen1.5-MoE-A2.7B", "Qwen1.5-MoE-A2.7B", {
            "architectures": ["Qwen2MoeForCausalLM"], "num_hidden_layers": 24, "hidden_size": 2048,
            "intermediate_size": 5632, "moe_intermediate_size": 1408, "shared_expert_intermediate_size": 5632,
            "num_attention_heads": 16, "num_key_value_heads": 16, "vocab_size": 151936, "num_experts": 60,
            "num_experts_per_tok": 4, "decoder_sparse_step": 1, "norm_topk_prob": False,
            "max_position_embeddings": 8192, "hidden_act": "silu", "rms_norm_eps": 1e-06, "rope_theta": 1000000.0,
            "tie_word_embeddings": False, "dtype": "bfloat16",
        }),
        # config.json of Qwen/Qwen2-57B-A14B, as copied into NVIDIA/TensorRT-LLM
        # tests/unittest/_torch/modeling/test_modeling_qwen_moe.py (QWEN2_57B_A14B_CONFIG, at 08b2040c)
        Checkpoint("Qwen/Qwen2-57B-A14B", "Qwen2-57B-A14B", {
            "architectures": ["Qwen2MoeForCausalLM"], "decoder_sparse_step": 1, "hidden_act": "silu",
            "hidden_size": 3584, "intermediate_size": 18944, "max_position_embeddings": 131072,
            "max_window_layers": 28, "moe_intermediate_size": 2560, "norm_topk_prob": False, "num_attention_heads": 28,
            "num_experts": 64, "num_experts_per_tok": 8, "num_hidden_layers": 28, "num_key_value_heads": 4,
            "output_router_logits": False, "rms_norm_eps": 1e-06, "rope_theta": 1000000.0,
            "router_aux_loss_coef": 0.001, "shared_expert_intermediate_size": 20480, "sliding_window": 131072,
            "tie_word_embeddings": False, "dtype": "bfloat16", "use_sliding_window": False, "vocab_size": 151936,
        }),
    ),
    tiny={"config_class": "Qwen2MoeConfig", "overrides": {
        "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
        "intermediate_size": 128, "moe_intermediate_size": 64, "shared_expert_intermediate_size": 64,
        "vocab_size": 300, "num_experts": 4, "num_experts_per_tok": 2}},
)

