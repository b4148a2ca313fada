"""Gemma 4 text (Gemma4ForCausalLM).

Gemma 2's sandwich block with two more terms: h = x + post_attention_layernorm(self_attn(
input_layernorm(x))), then h2 = h + post_feedforward_layernorm(mlp(pre_feedforward_layernorm(h))),
then, on checkpoints with per-layer inputs (hidden_size_per_layer_input, the E2B/E4B models), a
third branch adds post_per_layer_input_norm(per_layer_projection(act_fn(per_layer_input_gate(h2))
* per_layer_input)), where per_layer_input is this block's slice of the per-layer embeddings the
model computes from the tokens; finally the block multiplies the stream by its layer_scalar
(a buffer) in place. attention_output is post_attention_layernorm's output and layer_mid
pre_feedforward_layernorm's input; mlp_output is everything the block adds after the attention:
post_feedforward_layernorm's output plus, where it exists, the per-layer input's branch (read at
post_per_layer_input_norm, an edit carried back minus the MLP's part). layer_output is the block's
output, layer_scalar * (layer_input + attention_output + mlp_output), the arithmetic the contract
checks.

RMSNorms compute x * weight here (Gemma4RMSNorm), embed_tokens multiplies by sqrt(hidden_size). The
attention norms queries and keys per head (q_norm, k_norm) and values without weight (v_norm), then
rotates queries and keys, with a kernel scale of 1. Sliding-window layers (head_dim, default
rotary) alternate with full-attention layers that have wider heads (global_head_dim) and
proportional rotary on a quarter of each head; model.head_dim is the sliding layers' and the
contract reads each block's own. From the first KV-shared layer (num_kv_shared_layers) on, keys
and values are those of an earlier layer of the same type. With enable_moe_block the layer also
holds router, experts and three more norms: the dense MLP's post-normed output and the experts'
(routed from the stream itself) are summed before post_feedforward_layernorm, so mlp_output covers
both; the router values are read at the block's router. The logits are soft-capped when
final_logit_softcapping is set.
"""

from nnterp.declare.blocks import SANDWICH
from nnterp.declare.family import COMMON_SITES, Family, HostContext
from nnterp.declare.readout import SOFTCAPPED
from nnterp.declare.routers import InRouter, MoE, RouterRead, RouterValues
from nnterp.declare.sites import Element, PlusEarlier, Read, Sibling
from nnterp.declare.vocabulary import FORWARD_ORDER
from nnterp.families._llama import tiny
from nnterp.families._sandwich_gemma2 import (
    GEMMA4_ACCESSORS, SCALED_EMBEDDINGS, gemma4_attention_sites, gemma4_block_dims, layer_scalar_arithmetic,
)

_MLP_ONLY = Read(
    Sibling("post_feedforward_layernorm"),
    description="What the MLP adds to the residual stream: its output after the block's post-norm "
                "post_feedforward_layernorm (before the block's layer_scalar)")
_MLP_AND_PER_LAYER_INPUT = PlusEarlier(
    Sibling("post_per_layer_input_norm"), earlier=Sibling("post_feedforward_layernorm"),
    description="What the block adds after the attention: the MLP's output after post_feedforward_layernorm plus "
                "the per-layer input's branch after post_per_layer_input_norm (before the block's layer_scalar)")


def _mlp_output(context: HostContext):
    has_per_layer_input = context is not None and getattr(context.layer, "hidden_size_per_layer_input", 0)
    return _MLP_AND_PER_LAYER_INPUT if has_per_layer_input else _MLP_ONLY


NO_EXPERTS = "a dense block: enable_moe_block is false on this checkpoint, so the block has no router and no experts"
_ROUTER = {
    "router_logits": RouterRead(
        InRouter("router.proj", from_block=True),
        description="The router's score for every expert (router.proj on the RMS-normed, rescaled stream), before "
                    "the softmax over all experts"),
    "router_choices": RouterRead(InRouter("router", from_block=True), Element(2)),
    "router_weights": RouterRead(
        InRouter("router", from_block=True), Element(1),
        description="The chosen experts' softmax probabilities, renormalized over the top_k and times "
                    "per_expert_scale"),
}
_DENSE_NEURONS = {
    name: Read(COMMON_SITES[name].where, COMMON_SITES[name].element,
               description=f"The dense MLP's {what}; the experts' neurons are inside the fused experts call "
                           f"(experts.gate_up_proj, experts.down_proj), whose output the block adds to the MLP's")
    for name, what in (("mlp_activation", "activation"), ("mlp_neurons", "down_proj input, act(gate)·up"))}

#: the experts sit beside the dense MLP, on the checkpoints whose config enables them (enable_moe_block)
MOE = MoE(RouterValues("router", _ROUTER), num_experts="num_experts", top_k="top_k_experts",
          is_moe=lambda context: getattr(context.config, "enable_moe_block", False), dense_reason=NO_EXPERTS,
          neurons=_DENSE_NEURONS)


# The block runs its dense MLP, then the router and the experts it holds beside the MLP: the order the
# contract reads a block's values in, ("mlp", "output") marking where the MLP returns.
def _router_after_mlp(order):
    order = [pair for pair in order if not pair[1].startswith("router_")]
    at = order.index(("mlp", "mlp_output"))
    router = [("mlp", "output"), ("mlp", "router_logits"), ("mlp", "router_weights"), ("mlp", "router_choices")]
    return tuple(order[:at] + router + order[at:])


FAMILY = Family(
    name="gemma4_text",
    summary="Gemma 2's sandwich block with per-layer input embeddings added after the MLP, a learned scalar on the "
            "stream at the end of every block, wider full-attention heads, and optional experts beside the MLP.",
    tags=("Sandwich norms", "RMSNorm", "Scaled embeddings", "QK-norm", "Sliding window", "Per-layer inputs",
          "Layer scalar", "Mixture of experts"),
    block=SANDWICH.but(arithmetic=lambda config: layer_scalar_arithmetic, dims=gemma4_block_dims,
                       order=_router_after_mlp(FORWARD_ORDER["block"])),
    moe=MOE,
    sites={
        "mlp_output": _mlp_output,
        "token_embeddings": SCALED_EMBEDDINGS,
        **gemma4_attention_sites(),
    },
    accessors={
        **GEMMA4_ACCESSORS,
        "num_experts": lambda config: getattr(config, "num_experts", None) or 0,
        "num_experts_per_token": lambda config: getattr(config, "top_k_experts", None) or 0,
    },
    readout=SOFTCAPPED,
    variants={
        "moe": {"enable_moe_block": True, "num_experts": 4, "top_k_experts": 2, "moe_intermediate_size": 64},
        # the 31B's layout: no per-layer inputs, full-attention layers with fewer key heads whose keys are the values
        "k_eq_v": {"attention_k_eq_v": True, "num_global_key_value_heads": 1, "hidden_size_per_layer_input": 0},
    },
    # full-attention heads wider than the sliding ones, as on the real checkpoints
    tiny=tiny("Gemma4TextConfig", vocab_size_per_layer_input=300, head_dim=16, global_head_dim=32,
              hidden_size_per_layer_input=16),
)
