"""Muse Spark, the language model (MuseSparkTextModel).

Muse Glimmer's sandwich block (input_layernorm, post_attention_layernorm, pre_feedforward_layernorm,
post_feedforward_layernorm) whose residual adds are mixes with learned per-channel gates: each of
post_attention_residual_gate and post_feedforward_residual_gate (MuseSparkResidualGate, float32)
computes w = gate / residual_gate_temperature, beta = sigmoid(w), alpha = sqrt(max(sigmoid(-w)·(1 +
beta), 1e-3)) and returns (alpha·residual + beta·output).to(residual.dtype). So layer_mid =
mix_1(layer_input, attention_output) and layer_output = mix_2(layer_mid, mlp_output), the block's
own arithmetic the contract checks in place of the sum; attention_output and mlp_output are the
post-norms' outputs, what each gate mixes in. post_attention_layernorm is a weightless RMSNorm,
post_feedforward_layernorm scales by (1 + weight) before normalizing. The attention is Muse
Glimmer's (a weightless qk_norm, queries times qk_scale_factor, rotary on the layers whose
layer_rope_theta is not 0, the output gate sigmoid(gate_proj(x))) with a weightless RMSNorm o_norm
on every head's output before the gate. The MLP slot holds, per mlp_layer_types, Muse Glimmer's
gated MLP ("dense") or a MuseSparkMoE ("sparse"): the router gate computes F.linear(x, weight) in
float32, multiplies it by output_multiplier, chooses the top_k of sigmoid(logits) +
e_score_correction_bias and weights them by their sigmoid scores normalized to sum to one times
routed_scaling_factor; the experts run at moe_hidden_size: pre_expert_proj and pre_expert_norm take
the block's stream down to that width, each expert's SwiGLU output is normed by post_expert_norm
before its weight, and post_expert_proj brings the weighted sum back to hidden_size.
"""

from nnterp.declare.blocks import SANDWICH, ResidualGates
from nnterp.declare.family import described
from nnterp.declare.routers import MoE, Router, experts_sentence
from nnterp.declare.sites import Child, Read
from nnterp.wrappers.stacks import like
from nnterp.wrappers.stacks.muse_glimmer_text import FAMILY as MUSE_GLIMMER_TEXT


def _gates(gate):
    """MuseSparkResidualGate's (alpha, beta), from its parameter as its forward computes them."""
    w = gate.gate / gate.temperature
    beta = w.sigmoid()
    return (((-w).sigmoid() * (1.0 + beta)).clamp(min=gate.eps).sqrt(), beta)


GATES = ResidualGates(attention=lambda layer: _gates(layer.post_attention_residual_gate),
                      mlp=lambda layer: _gates(layer.post_feedforward_residual_gate))


def _mixed_in(norm: str, gate: str, what: str) -> Read:
    return Read(Child(norm, from_block=True),
                description=f"What the {what} gives the residual stream: its output after the block's post-norm "
                            f"{norm}, which {gate} mixes in as beta·this + alpha·residual (per-channel gates)")


FAMILY = like(
    MUSE_GLIMMER_TEXT, __name__,
    summary="Muse Glimmer's sandwich block with learned per-channel gates mixing the residual and each sublayer's "
            "normed output, a norm on the attention heads' outputs, and a sigmoid router over experts that run in a "
            "projected width.",
    tags=("Sandwich norms", "Gated residual", "RMSNorm (1 + w)", "QK-norm", "Gated attention", "Sliding window",
          "Mixture of experts", "Logit softcap"),
    block=GATES.on(SANDWICH),
    moe=MoE(Router(
        "gate", "F.linear",
        logits="The router's score for every expert, before the output_multiplier scale and the sigmoid (float32)",
        weights_description="The chosen experts' sigmoid scores (of the logits times output_multiplier) normalized "
                            "to sum to one, times routed_scaling_factor (the choice adds e_score_correction_bias; "
                            "the weights do not); each expert's output is normed by post_expert_norm before its "
                            "weight, at moe_hidden_size",
        choices_description="The experts each position is sent to: the top_k of sigmoid(output_multiplier·logits) "
                            "+ e_score_correction_bias; read-only",
    ), experts_sentence(
        "experts.gate_up_proj [num_local_experts, 2·moe_intermediate_size, moe_hidden_size] and experts.down_proj "
        "[num_local_experts, moe_hidden_size, moe_intermediate_size] (at moe_hidden_size, between pre_expert_proj and "
        "post_expert_proj)"),
        num_experts="num_local_experts"),
    sites={
        "attention_output": _mixed_in("post_attention_layernorm", "post_attention_residual_gate", "attention"),
        "mlp_output": _mixed_in("post_feedforward_layernorm", "post_feedforward_residual_gate", "MLP"),
        "layer_mid": described(
            SANDWICH.sites()["layer_mid"],
            "The residual stream after the attention's gated mix, alpha·layer_input + beta·attention_output: "
            "pre_feedforward_layernorm's input, which the MLP's gate mixes from"),
        "attention_head_outputs": "The per-head outputs of the kernel, before the weightless per-head o_norm and the "
                                  "output gate sigmoid(gate_proj(x))",
        "attention_premix": "What o_proj takes: the heads' outputs normed per head by the weightless o_norm, times the "
                            "output gate sigmoid(gate_proj(x))",
    },
)
