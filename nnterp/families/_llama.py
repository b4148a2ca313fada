"""Shared pieces of the Llama-wired families: the tiny recipe and the sites that vary between them.

Every family here keeps Llama's module names (model.embed_tokens, model.layers[i].{input_layernorm,
self_attn, post_attention_layernorm, mlp}, model.norm, lm_head) and its sequential pre-norm block;
what differs is a multiplier, a norm's arithmetic or an extra module inside a sublayer.
"""

from nnterp.declare.blocks import ConfigKey
from nnterp.declare.readout import Readout
from nnterp.declare.sites import Child, Read

#: The catalogue's tiny shape: hidden 64, 2 blocks, 4 heads over 2 key/value heads, vocab 300.
TINY = {
    "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
    "intermediate_size": 128, "vocab_size": 300,
}


def tiny(config_class: "str | type", **overrides) -> dict:
    """A tiny recipe: the catalogue's shape plus the family's own overrides (a transformers config class, by
    name, or a config class of one's own)."""
    return {"config_class": config_class, "overrides": {**TINY, **overrides}}


# --------------------------------------------------------------------------- Granite's multipliers
#: the model multiplies the embeddings by embedding_multiplier before the first block (its block multiplies each
#: contribution by residual_multiplier: nnterp.declare.blocks.GRANITE_BLOCK)
EMBEDDINGS_MULTIPLIED = Read(
    Child("embed_tokens"), scale=ConfigKey("embedding_multiplier"),
    description="The embeddings as the first block receives them: embed_tokens' output times embedding_multiplier")


#: Granite's readout: lm_head's logits divided by logits_scaling
logits_divided_by_scaling = Readout(divided_by="logits_scaling")


#: HyperCLOVA X's readout: lm_head's logits multiplied by logits_scaling
logits_times_scaling = Readout(times="logits_scaling")


#: multipliers far from 1 in tiny recipes, so the checks tell a product from its factor
GRANITE_TINY = {"residual_multiplier": 0.5, "embedding_multiplier": 3.0, "logits_scaling": 4.0,
                "attention_multiplier": 0.25}
