"""Hunyuan-MoE (HunYuanMoEV1ForCausalLM).

Llama's block whose attention normalizes queries and keys after rotary (per-head RMSNorms named
query_layernorm and key_layernorm), and a mixture of experts in every MLP slot:
model.layers[i].mlp is a HunYuanMoEV1Moe of a router gate (HunYuanMoEV1Gate, whose logits are its
child Linear wg), experts (fused gate_up_proj [num_experts, 2·intermediate_size, hidden_size] and
down_proj) and shared_mlp, a gated MLP on every token. The router softmaxes the logits over all
experts in float32, keeps the top_k (moe_topk) and renormalizes them; the block returns
experts(x) + shared_mlp(x).
"""

from nnterp.declare.family import Family
from nnterp.declare.routers import LOGITS_BEFORE_SOFTMAX, SOFTMAX_THEN_TOPK, MoE, Router, experts_sentence
from nnterp.families._llama import tiny

FAMILY = Family(
    name="hunyuan_v1_moe",
    summary="Tencent's Hunyuan MoE: query/key norms after rotary, and a softmax router over experts beside a "
            "shared MLP on every block.",
    tags=("Sequential block", "RMSNorm", "Grouped keys/values", "QK-norm", "Mixture of experts", "Shared experts"),
    moe=MoE(Router(
        "gate", logits_module="gate.wg", logits=LOGITS_BEFORE_SOFTMAX + ": the output of the router's Linear wg",
        weights_description=SOFTMAX_THEN_TOPK + "; the shared MLP runs on every token unweighted",
    ), experts_sentence(
        "experts.gate_up_proj [num_experts, 2·intermediate_size, hidden_size] and experts.down_proj "
        "[num_experts, hidden_size, intermediate_size]"), top_k="moe_topk"),
    tiny=tiny("HunYuanMoEV1Config", head_dim=16, num_experts=4, moe_topk=2),
)
