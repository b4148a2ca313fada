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
    tiny=QWEN3_MOE.tiny_for("MellumConfig", head_dim=16),
)
