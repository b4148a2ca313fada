"""Beam (BeamForCausalLM).

Gemma 2's sandwich of four norms (input_layernorm, post_attention_layernorm on the attention's
output, pre_feedforward_layernorm before the MLP, post_feedforward_layernorm on its output) with
depth-scaled residual adds: add number k (k = 2(i + 1) for block i's attention, k + 1 for its MLP)
is depth_scaled_residual_add(branch, residual, k) = branch / sqrt(k) + residual * sqrt((k - 1) / k),
so each add also shrinks the stream it adds to. attention_output and mlp_output are what each add
changes in the stream, the add minus its residual (branch / sqrt(k) - (1 - sqrt((k - 1) / k)) *
residual), read at the add's arguments inside the block's forward; an edit is carried back into
the post-normed branch, so that zeroing attention_output leaves the stream as it entered.
layer_mid is the first add's output. The post-normed branches themselves are
post_attention_layernorm's and post_feedforward_layernorm's outputs.

The attention normalizes query and key heads (q_norm, k_norm); sliding-window layers are rotated,
full-attention layers are not (NoPE) and scale the queries by (1 + (position + 1) / 2048) ** 0.1.
The kernel's per-head output is gated, out * sigmoid(gate_proj(x) + gate_bias), before o_proj:
attention_head_outputs is before the gate, attention_premix after it. The MLP is dense on the
first blocks (mlp_layer_types) and an MoE block (BeamMoE) after: a sigmoid router gate with
e_score_correction_bias and group-limited top-k (BeamTopKRouter), fused experts, and the output
times routed_scaling_factor. The logits are soft-capped in float32: cap * tanh(lm_head_output / cap).
"""


from nnterp.declare.blocks import DepthScaled
from nnterp.declare.family import Family
from nnterp.declare.readout import Readout
from nnterp.declare.routers import DEEPSEEK_CHOICES, LOGITS_BEFORE_SIGMOID, MoE, Router, experts_sentence
from nnterp.declare.sites import KERNEL_ARGUMENTS, Argument, Call, Read
from nnterp.declare.vocabulary import FORWARD_ORDER, up_first
from nnterp.families._llama import tiny

def _kernel_argument(index: int, what: str) -> Read:
    scaled = (", and on those the queries are scaled by (1 + (position + 1) / 2048) ** 0.1" if index == 1 else "")
    return Read(Call("attention_interface", "input"), Argument(index), condition=KERNEL_ARGUMENTS,
                description=f"The {what} entering attention: normed per head, then rotated on the sliding-window "
                            f"layers; the full-attention layers are not rotated (NoPE){scaled}")


FAMILY = Family(
    name="beam",
    summary="A sandwich block whose residual adds are depth-scaled (each add shrinks the stream it adds to), with "
            "gated attention heads, NoPE full-attention layers and a sigmoid-routed mixture of experts.",
    tags=("Sandwich norms", "RMSNorm", "Depth-scaled residual", "QK-norm", "Gated attention", "Sliding window",
          "Mixture of experts", "Logit softcap"),
    # the MLP calls up_proj before the activation (gate and up first, then act(gate) · up)
    block=DepthScaled("BeamDecoderLayer", order=up_first(FORWARD_ORDER["block"])),
    moe=MoE(
        Router("gate", "F.linear", logits=LOGITS_BEFORE_SIGMOID, choices_description=DEEPSEEK_CHOICES,
               weights_description="The chosen experts' sigmoid scores (without the correction bias), "
                                   "normalized over the top_k when norm_topk_prob; the block multiplies "
                                   "the mixed output by routed_scaling_factor"),
        experts_sentence()),
    sites={
        "attention_queries": _kernel_argument(1, "queries"),
        "attention_keys": _kernel_argument(2, "keys"),
        "attention_head_outputs": "The per-head outputs of the kernel, before the per-head gate sigmoid(gate_proj(x) + "
                                  "gate_bias)",
        "attention_premix": "What o_proj takes: every head's output times its gate sigmoid(gate_proj(x) + gate_bias)",
    },
    readout=Readout(softcap="final_logit_softcapping", softcap_in_float32=True),
    tiny=tiny("BeamConfig", head_dim=16, moe_intermediate_size=64, num_experts=4, num_experts_per_tok=2, n_group=1,
              topk_group=1, mlp_layer_types=["dense", "sparse"], layer_types=["sliding_attention", "full_attention"]),
)
