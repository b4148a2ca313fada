"""Nemotron-H (NemotronHForCausalLM).

model.{embeddings, layers[i].{norm, mixer}, norm_f} and lm_head. Every block is one pre-norm
sublayer, out = x + mixer(norm(x)), a bare tensor, and config.layers_block_type says what the mixer
is: a Mamba-2 mixer (linear_attention: in_proj, conv1d, SSD scan over mamba_num_heads heads, gated
RMSNorm, out_proj), a softmax attention with no positional encoding (full_attention: q/k/v/o_proj,
grouped keys and values, through attention_interface), a dense MLP (mlp: up_proj, relu², down_proj,
no gate) or a mixture of experts (moe: a sigmoid top-k router with group selection, experts of
fused up_proj [n_routed_experts, moe_intermediate_size, hidden_size] and down_proj, no gate,
looped over the chosen experts, plus a shared expert). A transformer layer of the usual kind spans
several blocks. The mixer is the standard self_attn on Mamba and attention blocks and the standard
mlp on MLP and MoE blocks (by its class): a block serves either attention_output or mlp_output, and
the identity is layer_input + (attention_output or mlp_output) == layer_output. No block has a
stream between two sublayers. The block's norm keeps its native name (the Mamba mixer's gated norm
is also called norm). The model returns float32 logits.
"""


from nnterp.declare.blocks import Block
from nnterp.declare.family import COMMON_SITES, Family, NativeClass
from nnterp.declare.mixers import ATTENTION_INTERIOR, MAMBA, float_logits
from nnterp.declare.routers import MoE, Router
from nnterp.declare.sites import Child, Nowhere, Read, Site


def _native(name: str) -> NativeClass:
    return NativeClass("transformers.models.nemotron_h.modeling_nemotron_h", name)


_MOE, _BLOCK, _MAMBA_MIXER = _native("NemotronHMoE"), _native("NemotronHBlock"), _native("NemotronHMamba2Mixer")

SINGLE = ("a Nemotron-H block has one sublayer (a Mamba-2 mixer, an attention, an MLP or a mixture of experts), so "
          "there is no stream between an attention and an MLP: the stream after the add is layer_output")
NEURONS = ("a mixture of experts: each position's neurons are those of its top-k experts, computed expert by expert "
           "on the rows routed to it with the fused weights experts.up_proj [n_routed_experts, moe_intermediate_size, "
           "hidden_size] and experts.down_proj [n_routed_experts, hidden_size, moe_intermediate_size] (relu², no "
           "gate), so no [batch seq intermediate_size] tensor exists; the shared expert is mixer.shared_experts, and "
           "the routing is router_logits, router_choices and router_weights")
DENSE = "a dense MLP block: its MLP has no router and no experts"

_MAMBA = Nowhere(MAMBA)
MOE = MoE(
    Router("gate", "F.linear",
           logits="The router's score for every expert, in float32, before the sigmoid and the grouped top-k choice",
           weights_description="The chosen experts' sigmoid scores, renormalized to sum to one (norm_topk_prob) and "
                               "multiplied by routed_scaling_factor"),
    NEURONS, num_experts="n_routed_experts", dense_reason=DENSE,
    is_moe=lambda context: _MOE.matches(context.module))


_MIXER_KINDS = {"linear_attention": "a Mamba-2 mixer", "full_attention": "an attention", "mlp": "a dense MLP",
                "moe": "a mixture of experts"}


def _absent_host(host):
    """The reason a block's attention or MLP values are unavailable where the block's one sublayer is the other."""
    def reason(layer):
        kind = _MIXER_KINDS.get(getattr(layer, "block_type", None), "another sublayer")
        return Nowhere(f"a Nemotron-H block has one sublayer, and this block's is {kind}, so it has no {host}")
    return reason


_NO_ATTENTION, _NO_MLP = _absent_host("token mixer (self_attn)"), _absent_host("MLP")


def _hosted(host_reason, site):
    """``site`` (a site or a function of the context) on blocks that hold the host; the reason on blocks that do not
    (support() asks with the block's own context)."""
    def choose(context):
        if _BLOCK.matches(context.module):
            return host_reason(context.module)
        return site if isinstance(site, Site) else site(context)
    return choose


def _on_mamba(name):
    common = COMMON_SITES[name]
    return lambda context: _MAMBA if _MAMBA_MIXER.matches(context.module) else common


ATTENTION_SITES = {
    **{name: _on_mamba(name) for name in ATTENTION_INTERIOR},
    "attention_output": Read(
        COMMON_SITES["attention_output"].where, COMMON_SITES["attention_output"].element,
        description="What the block's mixer (a Mamba-2 mixer or an attention) adds to the residual stream"),
}
# the mixture's sites, on the blocks whose one sublayer is an MLP
MLP_SITES = {
    **MOE.sites(),
    "mlp_output": Read(
        COMMON_SITES["mlp_output"].where, COMMON_SITES["mlp_output"].element,
        description="What the block's MLP (dense, or the routed experts plus the shared expert) adds to the "
                    "residual stream"),
}


FAMILY = Family(
    name="nemotron_h",
    summary="Single-sublayer blocks whose mixer is, block by block, a Mamba-2 mixer, an attention without "
            "positional encoding, a squared-ReLU MLP or a mixture of experts.",
    tags=("Hybrid SSM/attention", "State-space mixer", "Single-sublayer blocks", "Mixture of experts", "No rotary",
          "Squared ReLU", "RMSNorm"),
    block=Block("single-sublayer hybrid"),
    rename={
        "model.embeddings": "embed_tokens", "model.norm_f": "norm",
        _MAMBA_MIXER: "self_attn", _native("NemotronHAttention"): "self_attn", _native("NemotronHMLP"): "mlp",
        _MOE: "mlp",
    },
    sites={
        **{name: _hosted(_NO_ATTENTION, site) for name, site in ATTENTION_SITES.items()},
        "attention_norm_output": Read(Child("norm"), description="The normed stream entering the mixer"),
        "layer_mid": Nowhere(SINGLE),
        "mlp_norm_output": Nowhere(SINGLE),
        "mlp_input": Nowhere(SINGLE),
        **{name: _hosted(_NO_MLP, site) for name, site in MLP_SITES.items()},
    },
    moe=MOE,
    readout=float_logits,
    tiny={"config_class": "NemotronHConfig", "overrides": {
        "hidden_size": 64, "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 128,
        "moe_intermediate_size": 64, "moe_shared_expert_intermediate_size": 64, "vocab_size": 300, "head_dim": 16,
        "n_routed_experts": 4, "num_experts_per_tok": 2, "n_group": 1, "topk_group": 1, "mamba_num_heads": 4,
        "mamba_head_dim": 32, "ssm_state_size": 16, "n_groups": 1}},
)
