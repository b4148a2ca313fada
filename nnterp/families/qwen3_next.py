"""Qwen3-Next (Qwen3NextForCausalLM).

Llama's names on a hybrid block: three of every four layers mix tokens with a gated DeltaNet
(linear_attn, aliased self_attn: in_proj_qkvz and in_proj_ba projections, a causal short
convolution, the gated delta rule over a recurrent state, a gated RMSNorm and out_proj), the
fourth with softmax attention (self_attn): q_proj emits each head's query and an output gate side
by side, queries and keys get per-head RMSNorms (q_norm, k_norm) and partial rotary, and the
kernel's output is multiplied by sigmoid(gate) before o_proj, so attention_head_outputs (the
kernel's output) is before the gate and attention_premix (o_proj's input) after it. RMSNorms
compute x·(1 + weight). The MLP slot is, as in Qwen2-MoE, a Qwen3NextSparseMoeBlock: a softmax
router gate (logits = F.linear(x, weight), top_k probabilities renormalized when norm_topk_prob),
fused experts (gate_up_proj [num_experts, 2·moe_intermediate_size, hidden_size], down_proj) and a
shared_expert weighted by sigmoid(shared_expert_gate(x)); blocks in mlp_only_layers hold a dense
MLP.
"""

from nnterp.declare.family import Family
from nnterp.declare.mixers import DELTANET, mixer_interior
from nnterp.declare.routers import LOGITS_BEFORE_SOFTMAX, SOFTMAX_THEN_TOPK_OPTIONAL, MoE, Router, experts_sentence
from nnterp.families._llama import tiny
from nnterp.families._mla import gated_outputs

FAMILY = Family(
    name="qwen3_next",
    summary="Qwen3-Next: gated DeltaNet linear attention on three of every four layers, gated softmax attention on "
            "the fourth, and an ultra-sparse mixture of 512 experts beside a gated shared expert.",
    tags=("Sequential block", "RMSNorm", "Hybrid mixers", "Linear attention", "Gated attention", "QK-norm",
          "Partial rotary", "Mixture of experts", "Shared experts"),
    rename={"linear_attn": "self_attn"},
    moe=MoE(Router(
        "gate", "F.linear", logits=LOGITS_BEFORE_SOFTMAX,
        weights_description=SOFTMAX_THEN_TOPK_OPTIONAL + "; the shared expert is weighted apart, by "
                                                         "sigmoid(shared_expert_gate(x))",
    ), experts_sentence()),
    sites=mixer_interior(DELTANET, gated_outputs(
        "sigmoid(gate), the gate being the second half of each head's q_proj output")),
    tiny=tiny("Qwen3NextConfig", moe_intermediate_size=64, shared_expert_intermediate_size=64, head_dim=16,
              num_experts=4, num_experts_per_tok=2, linear_key_head_dim=16, linear_value_head_dim=16,
              linear_num_key_heads=2, linear_num_value_heads=4, layer_types=["linear_attention", "full_attention"]),
)

