"""MiniMax-M3, the language model (MiniMaxM3VLForCausalLM).

The text decoder of the MiniMax-M3 vision-language model: Llama's block with (1 + weight) RMSNorms,
per-head RMSNorm q_norm/k_norm before partial rotary (rotary_dim), grouped keys and values, and on
layers with an indexer a block-sparse attention: the indexer scores key blocks from the hidden
states and, under eager and sdpa, its chosen blocks become an additive mask merged into the
attention mask the kernel receives, so the attention values are those of the masked kernel. The
MLP slot holds, per mlp_layer_types, a dense MiniMaxM3VLDenseMLP (fused gate_up_proj Linear, a
clamped SwiGLU written inline, down_proj) or a MiniMaxM3VLSparseMoeBlock of a router gate
(MiniMaxM3VLTopKRouter), experts (fused gate_up_proj [num_local_experts, 2·intermediate_size,
hidden_size] and down_proj) and shared_experts (a dense MLP on every token). The router computes
logits = F.linear(x, weight), chooses the top_k of sigmoid(logits) + e_score_correction_bias and
weights the chosen experts by their sigmoid scores normalized to sum to one; the block returns
routed_scaling_factor · experts(x) + shared_experts(x).
"""

from nnterp.family import Checkpoint, Family
from nnterp.routers import experts_sentence, moe_accessors, moe_block, router_sites
from nnterp.sites import Nowhere

INLINE_SWIGLU = ("a clamped SwiGLU written inline in the dense MLP's forward (gate·sigmoid(swiglu_alpha·gate) on the "
                 "clamped halves of gate_up_proj's output): no activation module or call outputs it")

FAMILY = Family(
    name="minimax_m3_vl_text",
    model_types=("minimax_m3_vl_text",),
    summary="The text decoder of MiniMax-M3: block-sparse indexed attention on some layers, and a sigmoid router with "
            "a load-balancing bias over 128 experts, scaled and added to a shared expert.",
    tags=("Sequential block", "RMSNorm", "Grouped keys/values", "QK-norm", "Partial rotary", "Mixture of experts",
          "Shared experts"),
    sites=moe_block(router_sites(
        "gate", "F.linear",
        logits="The router's score for every expert, before the sigmoid",
        weights_description="The chosen experts' sigmoid scores normalized to sum to one (the choice adds "
                            "e_score_correction_bias; the weights do not); the block then scales the routed sum by "
                            "routed_scaling_factor and adds the shared experts",
        choices_description="The experts each position is sent to: the top_k of sigmoid(logits) + "
                            "e_score_correction_bias; read-only",
    ), experts_sentence(
        "experts.gate_up_proj [num_local_experts, 2·intermediate_size, hidden_size] and experts.down_proj "
        "[num_local_experts, hidden_size, intermediate_size]"),
        dense={"mlp_activation": Nowhere(INLINE_SWIGLU)}),
    accessors={**moe_accessors("num_local_experts"),
               "intermediate_size": lambda c: c.dense_intermediate_size},
    checkpoints=(
        # text_config of nvidia/MiniMax-M3-NVFP4's config.json (NVIDIA's NVFP4 re-upload of these weights),
        # mirrored in ai-dynamo/aiconfigurator aic-core/src/aiconfigurator_core/model_configs/
        # nvidia--MiniMax-M3-NVFP4_config.json,
        # less its architectures and its num_mtp_modules (1 there: the re-upload ships one MTP module, the BF16
        # release 7); every other text key matches aiconfigurator's flattened copy of MiniMaxAI/MiniMax-M3's own
        # config.json (MiniMaxAI--MiniMax-M3_config.json there)
        Checkpoint("MiniMaxAI/MiniMax-M3", "MiniMax-M3 (text decoder)", {
            "architectures": ["MiniMaxM3VLForCausalLM"], "dtype": "bfloat16", "hidden_size": 6144,
            "intermediate_size": 3072, "num_hidden_layers": 60, "num_attention_heads": 64, "num_key_value_heads": 4,
            "head_dim": 128, "vocab_size": 200064, "max_position_embeddings": 1048576, "rms_norm_eps": 1e-06,
            "use_gemma_norm": True, "attention_output_gate": False, "rope_theta": 5000000, "rotary_dim": 64,
            "partial_rotary_factor": 0.5, "hidden_act": "swigluoai", "use_qk_norm": True, "tie_word_embeddings": False,
            "dense_intermediate_size": 12288, "shared_intermediate_size": 3072, "num_local_experts": 128,
            "num_experts_per_tok": 4, "n_shared_experts": 1, "scoring_func": "sigmoid", "use_routing_bias": True,
            "moe_layer_freq": [0] * 3 + [1] * 57,
            "qk_norm_type": "per_head", "swiglu_alpha": 1.702, "swiglu_limit": 7.0, "routed_scaling_factor": 2.0,
            "sparse_attention_config": {
                "use_sparse_attention": True, "sparse_index_dim": 128, "sparse_num_index_heads": 4,
                "sparse_topk_blocks": 16, "sparse_block_size": 128, "sparse_disable_index_value": [0] * 3 + [1] * 57,
                "sparse_score_type": "max", "sparse_init_block": 0, "sparse_local_block": 1,
                "sparse_attention_freq": [0] * 3 + [1] * 57},
        }),
    ),
    tiny={"config_class": "MiniMaxM3VLTextConfig", "overrides": {
        "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
        "intermediate_size": 128, "dense_intermediate_size": 128, "shared_intermediate_size": 64,
        "vocab_size": 300, "head_dim": 16, "num_local_experts": 4, "num_experts_per_tok": 2,
        "index_head_dim": 32, "index_n_heads": 2, "bos_token_id": 1, "eos_token_id": 2}},
)
