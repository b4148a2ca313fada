"""Solar Open (SolarOpenForCausalLM).

Llama's attention and block (grouped keys and values, no query/key norm) with DeepSeek-V3's
mixture of experts in every MLP slot: model.layers[i].mlp is a SolarOpenMoE of a router gate
(SolarOpenTopkRouter), experts (fused gate_up_proj [n_routed_experts, 2·moe_intermediate_size,
hidden_size] and down_proj) and shared_experts, a gated MLP on every token. The router computes
logits = F.linear(x, weight) in float32, scores = sigmoid(logits), chooses among the topk_group
best of n_group groups the top_k of scores + e_score_correction_bias, and weights the chosen
experts by their scores (normalized when norm_topk_prob, times routed_scaling_factor); the block
returns experts(x) + shared_experts(x).
"""

from nnterp.declare.family import Family
from nnterp.declare.routers import DEEPSEEK_V3

FAMILY = Family(
    name="solar_open",
    summary="Upstage's open MoE: Llama's attention with DeepSeek-V3's sigmoid router choosing 8 of 128 experts "
            "per token beside a shared expert, on every block.",
    tags=("Sequential block", "RMSNorm", "Grouped keys/values", "Mixture of experts", "Shared experts"),
    moe=DEEPSEEK_V3,
    accessors={"intermediate_size": lambda c: c.moe_intermediate_size},
    tiny={"config_class": "SolarOpenConfig", "overrides": {
        "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
        "moe_intermediate_size": 64, "vocab_size": 300, "head_dim": 16, "n_routed_experts": 4,
        "num_experts_per_tok": 2, "n_group": 1, "topk_group": 1}},
)
