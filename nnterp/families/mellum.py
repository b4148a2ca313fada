"""Mellum 2 (MellumForCausalLM).

Qwen3-MoE's block: per-head RMSNorm q_norm/k_norm on queries and keys before rotary, grouped keys
and values, optional sliding-window layers (layer_types), and a mixture of experts in the MLP
slot. model.layers[i].mlp is a MellumSparseMoeBlock of a router gate (MellumTopKRouter) and experts
(fused gate_up_proj [num_experts, 2·moe_intermediate_size, hidden_size] and down_proj). The router
computes logits = F.linear(x, weight) on the flattened positions, a float32 softmax over all
experts, and keeps the top_k probabilities (renormalized when norm_topk_prob). Blocks marked
"dense" in mlp_layer_types hold a plain gated MLP instead. The config's multi-token-prediction
layers are not built by the causal-LM class.
"""

from nnterp.families.qwen3_moe import FAMILY as QWEN3_MOE

FAMILY = QWEN3_MOE.but(
    name="mellum",
    summary="JetBrains' code model: Qwen3-MoE's block, with per-head query/key norms and a softmax router choosing "
            "8 of 64 experts per token.",
    tags=("Sequential block", "RMSNorm", "Grouped keys/values", "QK-norm", "Mixture of experts"),
    tiny={"config_class": "MellumConfig", "overrides": {
        "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
        "intermediate_size": 128, "moe_intermediate_size": 64, "vocab_size": 300, "head_dim": 16,
        "num_experts": 4, "num_experts_per_tok": 2}},
)
