"""The token mixers that are not softmax attention, declared once: the hybrid blocks' (softmax attention on some
layers, a linear recurrence on the others: gated DeltaNet, Kimi delta attention, Mamba-2, short convolution) and
the pure state-space families' (Mamba, Mamba-2, Falcon-Mamba), with the reason each gives for the values it does
not have.

On a hybrid, ``self_attn`` is the token-mixer slot on every block (aliased from the native name where it differs:
``linear_attn``, ``mamba``, ``conv``), attention_output is what the mixer adds, and the attention interior is served
on the attention layers only (``mixer_interior``); on the others each value is unavailable with the mixer's reason.
Which kind a block holds is read from its module: a softmax attention calls the kernel chosen at run time
(``attention_interface``); the other mixers do not. A pure state-space family declares the ``SSM_*`` preset: the
backbone's names, the mixer in the attention's slot, and no attention interior and no MLP.
"""

from __future__ import annotations

from functools import lru_cache

from nnterp.declare import labels
from nnterp.declare.conventions import COMMON_SITES
from nnterp.declare.readout import Readout
from nnterp.declare.sites import Child, Nowhere, Read, Site

#: the attention's interior: served on softmax-attention blocks only
ATTENTION_INTERIOR = (
    "attention_queries", "attention_keys", "attention_values", "attention_scores", "attention_probabilities",
    "attention_head_outputs", "attention_premix",
)
MLP_VALUES = ("mlp_activation", "mlp_neurons", "mlp_output")
MLP_STREAM = ("layer_mid", "mlp_norm_output", "mlp_input")

DELTANET = ("a gated DeltaNet mixer: no softmax attention; its linear attention keeps a recurrent state updated by the "
            "delta rule, so there are no attention scores, pattern or per-head softmax outputs")
KIMI_DELTA = ("a Kimi delta-attention mixer: no softmax attention; its linear attention keeps a recurrent state "
              "updated by a gated delta rule, so there are no attention scores, pattern or per-head softmax outputs")
MAMBA2 = "a Mamba-2 mixer: no softmax attention, so there are no queries, keys, heads or pattern"
MAMBA = "a Mamba mixer: no softmax attention, so there are no queries, keys, heads or pattern"
MAMBA_NO_MLP = ("a Mamba block has no MLP: the mixer is its only sublayer, so the stream after its add is "
                "layer_output")
SHORT_CONV = ("a gated short-convolution mixer: no softmax attention; each position mixes a few previous positions "
              "through a depthwise convolution, so there are no queries, keys, heads or pattern")


@lru_cache(maxsize=None)
def _calls_kernel(cls) -> bool:
    try:
        forward = labels.compiled_function(cls.forward)
    except Exception:
        return False
    return labels.call_label(forward, "attention_interface") is not None


def is_softmax_attention(module) -> bool:
    """Whether a mixer module is softmax attention (it calls the kernel chosen at run time)."""
    return module is not None and _calls_kernel(type(module))


def per_mixer(attention_site: Site, mixer_site: Site, is_attention=is_softmax_attention):
    """A site chosen by the block's mixer (the attention host's module)."""
    def site(context):
        if context is None or context.module is None:
            return attention_site
        return attention_site if is_attention(context.module) else mixer_site
    return site


def mixer_interior(reason, attention_sites: dict | None = None, is_attention=is_softmax_attention) -> dict:
    """The attention interior per block: the attention layers' sites (common unless given), and
    on the other mixers ``reason`` (one sentence, or a function of the mixer module giving one)."""
    attention_sites = attention_sites or {}
    if callable(reason):
        reasons: dict[str, Nowhere] = {}

        def mixer_site(module):
            text = reason(module)
            return reasons.setdefault(text, Nowhere(text))
    else:
        fixed = Nowhere(reason)
        mixer_site = lambda module: fixed  # noqa: E731

    def choose(name):
        attention = attention_sites.get(name, COMMON_SITES[name])

        def site(context):
            if context is None or context.module is None or is_attention(context.module):
                return attention
            return mixer_site(context.module)
        return site

    sites = {name: choose(name) for name in ATTENTION_INTERIOR}
    common_output = COMMON_SITES["attention_output"]
    mixer_output = Read(common_output.where, common_output.element,
                        description="What the token mixer adds to the residual stream (on this block it is not "
                                    "softmax attention)")
    sites["attention_output"] = per_mixer(attention_sites.get("attention_output", common_output), mixer_output,
                                          is_attention)
    return sites


#: the Jamba-style names: a mamba or self_attn mixer, feed_forward, pre_ff_layernorm, final_layernorm
JAMBA_RENAME = {"mamba": "self_attn", "feed_forward": "mlp", "pre_ff_layernorm": "post_attention_layernorm",
                "model.final_layernorm": "norm"}


# --------------------------------------------------------------------------- pure state-space families


def no_attention(reason: str) -> dict:
    """The attention interior, unavailable for ``reason`` (one sentence)."""
    return {name: Nowhere(reason) for name in ATTENTION_INTERIOR}


def no_mlp(reason: str) -> dict:
    """The MLP's values and the stream around it, unavailable for ``reason``."""
    return {name: Nowhere(reason) for name in (*MLP_STREAM, *MLP_VALUES)}



#: the backbone's names onto the standard ones
SSM_RENAME = {
    "backbone.embeddings": "embed_tokens", "backbone.layers": "layers", "backbone.norm_f": "norm",
    "mixer": "self_attn", "out_proj": "o_proj",
}
#: the block's norm as input_layernorm, where no module inside the mixer is also called ``norm``;
#: keyed before the final norm takes the name ``norm`` on the model
BLOCK_NORM_RENAME = {"norm": "input_layernorm"}

SSM_SITES = {
    "attention_norm_output": Read(Child("norm"), description="The normed stream entering the mixer"),
    "attention_output": "What the mixer adds to the residual stream: its out_proj's output",
    **no_attention(MAMBA),
    **no_mlp(MAMBA_NO_MLP),
}


#: the head runs in the weights' dtype and the model returns its logits in float32
float_logits = Readout(float32=True)


SSM_ACCESSORS = {
    "num_heads": lambda c: getattr(c, "num_heads", None),
    "num_kv_heads": lambda c: getattr(c, "num_heads", None),
    "head_dim": lambda c: getattr(c, "head_dim", None),
    "qk_head_dim": lambda c: getattr(c, "head_dim", None),
    "intermediate_size": lambda c: c.expand * c.hidden_size,
}
