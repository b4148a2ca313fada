"""Step 3.5 / 3.7, the language model (Step3p7TextModel, model type step3p5).

Laguna's blocks: Llama's sequential pre-norm block with (1 + weight) RMSNorms, an attention that
normalizes queries and keys per head (q_norm, k_norm, (1 + weight) RMSNorms) before a rotary that
may be partial (partial_rotary_factor), runs the kernel, then multiplies each head's output by
sigmoid(g_proj(x)) (one gate per head) before o_proj. The rotary is Gemma 3's per layer type:
rotary_emb computes one cos/sin per type in layer_types, each with its own rope_theta and partial
factor, and each block gets its type's. Sliding-window layers may have another head count
(num_sliding_attention_heads, applied through config.per_layer_config), so the heads are read from
each block's attention. The MLP slot holds, per mlp_layer_types, a dense Step3p7MLP or a
Step3p7SparseMoeBlock of a router gate (Step3p7TopKRouter: logits = F.linear(x, weight), the top_k
of sigmoid(logits) + e_score_correction_bias, weighted by their sigmoid scores normalized to sum to
one), experts (fused gate_up_proj [n_routed_experts, 2·moe_intermediate_size, hidden_size] and
down_proj, run by their own loop over the chosen experts) and shared_experts (a Step3p7MLP of width
share_expert_dim on every token); the block returns moe_router_scaling_factor · experts(x) +
shared_experts(x). Every SwiGLU clamps inline where the layer's limit is set (swiglu_limits for the
routed experts, swiglu_limits_shared for the dense and shared MLPs): act(gate).clamp(max=limit) ·
up.clamp(-limit, limit), so on a clamped block no module outputs the activation or the up that
multiply. A config with use_bidirectional_attention attends both ways and is refused.
"""

import math

from nnterp.declare.family import COMMON_SITES
from nnterp.declare.sites import Child, Nowhere, Read
from nnterp.families._mla import premix_per_block
from nnterp.families.laguna import FAMILY as LAGUNA
from nnterp.wrappers.stacks import like

CLAMPED = Nowhere(
    "the dense MLP clamps inline on this block (swiglu_limits_shared): down_proj receives "
    "act(gate_proj(x)).clamp(max=limit) · up_proj(x).clamp(-limit, limit), computed in its forward, so the activation "
    "and the up that multiply are no module's or call's output; mlp_neurons is their product")
GATE_PROJ = Read(Child("gate_proj"), description="What the activation reads: gate_proj's output, before the activation "
                                                 "and its clamp")


def _clamps(context) -> bool:
    return not hasattr(context.module, "experts") and math.isfinite(context.module.limit)


def _unless_clamped(context):
    return CLAMPED if _clamps(context) else COMMON_SITES["mlp_activation"]


def _preactivation(context):
    # the activation is not served on a clamped block, so its input is read at gate_proj itself
    return GATE_PROJ if context.module is not None and _clamps(context) else COMMON_SITES["mlp_preactivation"]


FAMILY = like(
    LAGUNA, __name__,
    model_types=("step3p5",),
    summary="Laguna's blocks with a sigmoid output gate per attention head, Gemma 3's rotary per layer type, "
            "sliding layers with their own head count, and SwiGLUs clamped inline on chosen layers.",
    tags=("Sequential block", "RMSNorm (1 + w)", "Grouped keys/values", "QK-norm", "Gated attention",
          "Partial rotary", "Sliding window", "Mixture of experts", "Shared experts"),
    moe=LAGUNA.moe.but(
        logits="The router's score for every expert, before the sigmoid",
        weights_description="The chosen experts' sigmoid scores normalized to sum to one (the choice adds "
                            "e_score_correction_bias; the weights do not); the block then scales the routed sum "
                            "by moe_router_scaling_factor and adds the shared experts",
        experts=("a mixture of experts: each position's neurons are those of its top-k experts, computed inside "
                 "Step3p7Experts' own loop over the chosen experts from the fused experts.gate_up_proj "
                 "[n_routed_experts, 2·moe_intermediate_size, hidden_size] and experts.down_proj on each expert's "
                 "rows, so no [batch seq intermediate_size] tensor of them exists"),
        num_experts="n_routed_experts",
        dense={"mlp_activation": _unless_clamped}),
    # model-wide, the first block's heads (each block's attention gives its own); head_dim is one for all blocks
    accessors={"num_heads": lambda c: c.per_layer_config[0].num_attention_heads, "head_dim": lambda c: c.head_dim,
               "qk_head_dim": lambda c: c.head_dim},
    sites={
        "mlp_preactivation": _preactivation,
        "attention_head_outputs": "The per-head outputs of the attention kernel, before the output gate: the "
                                  "attention then multiplies them by sigmoid(g_proj(x)) and attention_premix is after "
                                  "it",
        "attention_premix": premix_per_block(
            "Every head's gated output side by side, as o_proj takes it: the kernel's output times "
            "sigmoid(g_proj(x))"),
    },
)
