"""ZAYA1 (ZayaForCausalLM).

model.{embed_tokens, layers[i].{input_layernorm, self_attn.{qkv_proj.{q_proj, k_proj, v_proj_current,
v_proj_delayed, conv_qk_depthwise, conv_qk_grouped}, qk_norm, o_proj}, post_attention_residual_scale,
post_attention_layernorm, mlp.{gate.{down_proj, router_mlp.{norm, fc1, fc2, out_proj}}, experts},
post_mlp_residual_scale}, norm, rotary_emb} and lm_head, tied to embed_tokens. Before the first block the embedding
is shifted and scaled per channel, (e + input_hidden_states_bias) · input_hidden_states_scale, and cast to float32:
token_embeddings is embed_tokens' output and layers[0].input that affine form. The residual stream stays in float32
whatever the model's dtype (the norms cast their input to their own dtype), so under bfloat16 the residual values
are float32. A pre-norm block whose adds go through learned per-channel affine modules (ZayaResidualScaling): each
computes (branch + hidden_states_bias) · hidden_states_scale + (residual + residual_bias) · residual_scale, so
h = post_attention_residual_scale(self_attn(input_layernorm(x)), x) and out = post_mlp_residual_scale(mlp(
post_attention_layernorm(h)), h). attention_output and mlp_output are what each module adds, the scaled branch
bound to hidden_states inside its forward; the carried residual is rescaled too, so the block's arithmetic
replaces the identity. layer_mid is h, post_attention_residual_scale's output (the float32 stream the block
carries to its second add; post_attention_layernorm reads it cast to the norm's dtype), checked against
the block's own attention_output + (layer_input + residual_bias) · residual_scale. The attention is
Compressed Convolutional Attention: qkv_proj projects queries and keys (q_proj, k_proj), mixes them over time with
a causal depthwise then grouped Conv1d (kernel cca_time0 and cca_time1) and adds back a residual path of the
projections averaged over each key group; the values are half the current token's projection (v_proj_current) and
half the previous token's (v_proj_delayed); qk_norm scales queries and keys to L2 norm sqrt(head_dim) and the keys
by a learned per-key-head temperature; rotary embeddings turn the first partial_rotary_factor of each head; the
kernel is chosen at run time through attention_interface, num_key_value_heads grouped, scaled by head_dim ** -0.5.
The MLP slot is a mixture of experts with one expert per position (num_experts_per_tok must be 1): the router
(gate) projects to router_hidden_size (down_proj), adds the previous block's router state times router_states_scale
(every block but the first: the router state is carried from block to block beside the stream), and scores
num_experts + 1 classes with a three-layer MLP (router_mlp): the last class is a skip expert that computes nothing.
The softmax of those logits plus fixed balancing_biases picks the top_k; the chosen probability (without the bias)
is the weight, set to 0 where the skip expert was chosen, whose index is then sent to the experts as 0. The experts
are fused gate_up_proj / down_proj, a gated MLP with hidden_act.
"""

from __future__ import annotations


from nnterp.declare.blocks import Block
from nnterp.declare.engine import module_of
from nnterp.declare.family import Family
from nnterp.declare.readout import Readout
from nnterp.declare.routers import InRouter, MoE, RouterRead, RouterValues, every_block, experts_sentence
from nnterp.declare.sites import WHOLE, Assigned, Child, Element, Read
from nnterp.declare.vocabulary import FORWARD_ORDER



def _mid(layer, x, attn):
    """ZayaDecoderLayer's stream after the attention: post_attention_residual_scale adds the (scaled) attention
    to the carried residual shifted by residual_bias and scaled by residual_scale."""
    first = layer.post_attention_residual_scale
    return attn + (x + first.residual_bias) * first.residual_scale


def _arithmetic(config):
    def block(layer, x, attn, mlp):
        second = layer.post_mlp_residual_scale
        return mlp + (_mid(layer, x, attn) + second.residual_bias) * second.residual_scale
    return block


def _choices_before_weights(order):
    """The router picks its experts (torch.topk inside its forward) before it returns their weights."""
    order = list(order)
    weights, choices = order.index(("mlp", "router_weights")), order.index(("mlp", "router_choices"))
    order[weights], order[choices] = order[choices], order[weights]
    return tuple(order)


NEURONS = experts_sentence(
    "experts.gate_up_proj [num_experts, 2·moe_intermediate_size, hidden_size] and experts.down_proj "
    "[num_experts, hidden_size, moe_intermediate_size]")

# every block's MLP is the mixture; what it adds passes through post_mlp_residual_scale
MOE = MoE(RouterValues("gate", {
    "router_logits": RouterRead(
        InRouter("gate", "self.router_mlp"), WHOLE,
        description="The router MLP's score for every expert and, last, the skip expert (num_experts + 1 "
                    "classes), before the softmax"),
    "router_choices": RouterRead(
        InRouter("gate", "torch.topk"), Element(1),
        description="The classes the router picks from its softmax plus balancing_biases: an expert, or "
                    "num_experts for the skip expert (which the experts receive as expert 0 with weight 0)"),
    "router_weights": RouterRead(
        InRouter("gate"), Element(1),
        description="The chosen class's softmax probability, without the balancing bias; 0 where the skip "
                    "expert was chosen"),
}), NEURONS, is_moe=every_block, output=Read(
    Assigned("hidden_states", child="post_mlp_residual_scale", from_block=True, forward_of="ZayaResidualScaling"), WHOLE,
    description="What the MoE block adds to the residual stream: its output plus hidden_states_bias, times "
                "hidden_states_scale, inside post_mlp_residual_scale"))


def _unembed(model, hidden):
    """The model's own readout: the float32 stream cast to the final norm's dtype, the norm, lm_head."""
    norm = module_of(model.norm)
    return model.lm_head(model.norm(hidden.to(norm.weight.dtype)))


FAMILY = Family(
    name="zaya",
    readout=Readout(unembed=_unembed),
    summary="Zyphra's ZAYA1: a pre-norm block whose adds go through learned affine residual scalings, convolutional "
            "compressed attention, and a mixture of experts whose MLP router carries a state across blocks and may "
            "skip.",
    tags=("Sequential block", "Residual scaling", "Mixture of experts", "Convolutional attention", "QK-norm",
          "Partial rotary", "Grouped keys/values", "RMSNorm", "Float32 residual"),
    block=Block("scaled residual", arithmetic=_arithmetic, mid=lambda config: _mid, order=_choices_before_weights(FORWARD_ORDER["block"])),
    rename={"qkv_proj.q_proj": "q_proj", "qkv_proj.k_proj": "k_proj"},
    moe=MOE,
    sites={
        "token_embeddings": "embed_tokens' output; layers[0].input is (token_embeddings + input_hidden_states_bias) · "
                            "input_hidden_states_scale, in float32",
        # the module's output is the block's residual from here on: both post_attention_layernorm (through a cast)
        # and post_mlp_residual_scale take it, so a replaced output reaches both as an in-place edit does
        "layer_mid": Read(
            Child("post_attention_residual_scale"),
            description="The residual stream after the attention's add, attention_output + (layer_input + "
                        "residual_bias) · residual_scale, post_attention_residual_scale's output, which "
                        "post_attention_layernorm normalizes for the MLP and the block carries to its second add"),
        "attention_output": Read(
            Assigned("hidden_states", child="post_attention_residual_scale", from_block=True, forward_of="ZayaResidualScaling"), WHOLE,
            description="What the attention adds to the residual stream: its output plus hidden_states_bias, times "
                        "hidden_states_scale, inside post_attention_residual_scale"),
    },
    accessors={
        "intermediate_size": lambda c: c.moe_intermediate_size,
        # the router scores the skip expert as a class of its own, after the real ones
        "num_experts": lambda c: c.num_experts + 1,
    },
    tiny={"config_class": "ZayaConfig", "overrides": {
        "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
        "moe_intermediate_size": 64, "vocab_size": 300, "head_dim": 16, "num_experts": 4, "router_hidden_size": 8}},
)
