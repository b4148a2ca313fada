"""MiniMax-Text-01 (MiniMaxForCausalLM).

model.{embed_tokens, layers[i].{input_layernorm, self_attn, post_attention_layernorm,
mlp.{gate, experts}}, norm} and lm_head. The block keeps its residual on the normed stream, with
DeepNorm-style factors: h = input_layernorm(x)·attn_alpha + self_attn(input_layernorm(x))·attn_beta,
then out = post_attention_layernorm(h)·mlp_alpha + mlp(post_attention_layernorm(h))·mlp_beta
(alpha (2·num_hidden_layers)^(1/4) and beta 1 on the checkpoint). So x itself is not carried: the
block's arithmetic replaces the identity, attention_output and mlp_output include their beta, and
layer_mid is h, the stream after the attention's add (post_attention_layernorm's input, which the
block uses for nothing else), checked against the block's own input_layernorm(layer_input)·attn_alpha
+ attention_output, with the block's attn_alpha_factor (the linear or the full attention's, by the
block's type). By config.layer_types the attention is a softmax attention (MiniMaxAttention, grouped
keys and values, through attention_interface) or a lightning attention (MiniMaxLightningAttention:
qkv_proj with silu, a block-wise linear attention with per-head exponential decay, a norm, a sigmoid
output_gate and out_proj), whose interior has no softmax. Every MLP is a mixture of experts: a
softmax router (gate) over num_local_experts keeping the top-k, renormalized, and fused experts
gate_up_proj / down_proj looped over the chosen experts.
"""

from nnterp.declare.blocks import Block
from nnterp.declare.family import COMMON_SITES, Family
from nnterp.declare.mixers import ATTENTION_INTERIOR
from nnterp.declare.routers import MoE, Router, experts_sentence
from nnterp.declare.sites import Argument, Child, Element, Nowhere, Own, Read
from nnterp.families._llama import tiny

LIGHTNING = ("a lightning attention: a block-wise linear attention with per-head exponential decay, with no softmax, "
             "so there are no scores or pattern to read")


def _lightning(module) -> bool:
    return type(module).__name__ == "MiniMaxLightningAttention"


def _interior(name):
    common, unavailable = COMMON_SITES[name], Nowhere(LIGHTNING)
    return lambda context: unavailable if _lightning(context.module) else common


_SOFTMAX_OUT = Read(Own("output"), Element(0), scale=lambda c: c.full_attn_beta_factor,
                    description="What the attention adds to the block's normed stream: its output times "
                                "full_attn_beta_factor")
_LIGHTNING_OUT = Read(Own("output"), Element(0), scale=lambda c: c.linear_attn_beta_factor,
                      description="What the lightning attention adds to the block's normed stream: its output times "
                                  "linear_attn_beta_factor")


def _mid(layer, x, attn):
    """MiniMaxDecoderLayer's stream after the attention: the normed input times the block's attn_alpha_factor,
    plus the attention's output (which includes its beta)."""
    return layer.input_layernorm(x) * layer.attn_alpha_factor + attn


def _arithmetic(config):
    def block(layer, x, attn, mlp):
        return layer.post_attention_layernorm(_mid(layer, x, attn)) * layer.mlp_alpha_factor + mlp
    return block


FAMILY = Family(
    name="minimax",
    summary="A block whose residual is the normed stream scaled by DeepNorm factors, alternating lightning (linear) "
            "and softmax attention, with a mixture-of-experts MLP on every block.",
    tags=("Residual on the normed stream", "DeepNorm factors", "Hybrid linear/softmax attention",
          "Mixture of experts", "RMSNorm", "Grouped keys/values"),
    block=Block("normed residual", arithmetic=_arithmetic, mid=lambda config: _mid),
    moe=MoE(Router(
        "gate", "F.linear",
        logits="The router's score for every expert, before the softmax over all experts",
        weights_description="The chosen experts' softmax probabilities, renormalized to sum to one over the top_k",
    ), experts_sentence(
        "experts.gate_up_proj [num_local_experts, 2·intermediate_size, hidden_size] and experts.down_proj "
        "[num_local_experts, hidden_size, intermediate_size]"), num_experts="num_local_experts"),
    sites={
        **{name: _interior(name) for name in ATTENTION_INTERIOR},
        "attention_output": lambda context: _LIGHTNING_OUT if _lightning(context.module) else _SOFTMAX_OUT,
        # the sum is post_attention_layernorm's input and nothing else (the block carries the normed stream): an
        # assignment replaces the norm's input, as an in-place edit changes it
        "layer_mid": Read(
            Child("post_attention_layernorm", "input"), Argument(0),
            description="The stream after the attention's add, input_layernorm(layer_input)·attn_alpha_factor + "
                        "attention_output (attn_alpha_factor the linear or the full attention's, by the block's "
                        "type), which post_attention_layernorm normalizes into the stream the MLP reads and the "
                        "block carries"),
        # the normed stream is both the MLP's input and the residual: an assignment is copied into it
        "mlp_input": Read(
            Child("mlp", "input"), Argument(0), shared=True,
            description="What the MLP is called with: post_attention_layernorm's output, which the block also "
                        "carries as the residual (times mlp_alpha_factor)"),
        "mlp_output": Read(Own("output"), Element(0), scale=lambda c: c.mlp_beta_factor,
                           description="What the MoE block adds to the block's normed stream: its output times "
                                       "mlp_beta_factor"),
    },
    tiny=tiny("MiniMaxConfig", head_dim=16, num_local_experts=4, num_experts_per_tok=2),
    # the checkpoint's factors are not 1: alpha scales the carried normed stream, beta the contributions
    variants={"factors": {
        "full_attn_alpha_factor": 2.0, "full_attn_beta_factor": 0.5, "linear_attn_alpha_factor": 1.5,
        "linear_attn_beta_factor": 0.75, "mlp_alpha_factor": 2.5, "mlp_beta_factor": 1.25}},
)
