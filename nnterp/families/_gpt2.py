"""Shared by the GPT-2 cluster (GPT-2, GPT-SW3, GPT-BigCode, GPT-Neo): names, sites and sentences."""

from nnterp.declare.family import COMMON_SITES
from nnterp.declare.sites import KERNEL_ARGUMENTS, Argument, Call, Child, Element, Read
from nnterp.declare.vocabulary import EAGER

#: GPT-2's native names onto the standard ones. GPT-2 spells both output projections c_proj: the dotted keys bind
#: each on its own parent.
GPT2_RENAME = {
    "transformer.wte": "embed_tokens", "transformer.h": "layers", "transformer.ln_f": "norm", "attn": "self_attn",
    "ln_1": "input_layernorm", "ln_2": "post_attention_layernorm", "attn.c_proj": "attn.o_proj",
    "mlp.c_proj": "mlp.down_proj", "c_fc": "up_proj", "act": "act_fn",
}

#: the MLP's width: config.n_inner, where it is set, else four times the hidden size (the modeling's own fallback)
GPT2_ACCESSORS = {"intermediate_size": lambda c: c.n_inner or 4 * c.hidden_size}

#: token_embeddings' description where learned positions are added after the embedding
TOKEN_EMBEDDINGS = ("The token embedding wte's output, before the learned positions wpe are added; layers[0].input is "
                    "what enters the first block")

#: GPT-2's eager path with reorder_and_upcast_attn runs the block's own _upcast_and_reordered_attn instead of the
#: kernel: a baddbmm in float32 with the scale folded in, the mask added, softmax, a cast to the values' dtype and
#: attn_dropout (the module)
_REORDERED = "self._upcast_and_reordered_attn"
# q, k and v are views of one split() of c_attn's output, which torch forbids editing in place while autograd
# records: each is served as a copy taken at the call, and an edit is carried back into the call's arguments
REORDERED_SITES = {
    "attention_queries": Read(Call(_REORDERED, "input"), Argument(0), snapshot=True),
    "attention_keys": Read(Call(_REORDERED, "input"), Argument(1), snapshot=True),
    "attention_values": Read(Call(_REORDERED, "input"), Argument(2), snapshot=True),
    "attention_scores": Read(
        Call("nn.functional.softmax", "input", inside=_REORDERED), Argument(0),
        description="The attention scores entering the softmax, masked: computed in float32 whatever the model's "
                    "dtype (reorder_and_upcast_attn), the scale folded into the baddbmm"),
    "attention_probabilities": Read(Child("attn_dropout")),
    "attention_head_outputs": Read(Call(_REORDERED, "output"), Element(0)),
}


KERNEL_SITES = {
    **COMMON_SITES,
    "attention_queries": Read(Call("attention_interface", "input"), Argument(1), condition=KERNEL_ARGUMENTS,
                              snapshot=True),
    "attention_keys": Read(Call("attention_interface", "input"), Argument(2), condition=KERNEL_ARGUMENTS,
                           snapshot=True),
    "attention_values": Read(Call("attention_interface", "input"), Argument(3), condition=KERNEL_ARGUMENTS,
                             snapshot=True),
}


def _reordered(context) -> bool:
    config = context.config
    return bool(getattr(config, "reorder_and_upcast_attn", False)) and config._attn_implementation == EAGER


def interior(name):
    """GPT-2's interior site: the kernel's on the common conventions, the block's own code when the eager load
    runs _upcast_and_reordered_attn."""
    return lambda context: REORDERED_SITES[name] if _reordered(context) else KERNEL_SITES[name]


GPT2_INTERIOR = {name: interior(name) for name in REORDERED_SITES}
