"""Shared pieces of the Llama-wired families: the tiny recipe and the sites that vary between them.

Every family here keeps Llama's module names (model.embed_tokens, model.layers[i].{input_layernorm,
self_attn, post_attention_layernorm, mlp}, model.norm, lm_head) and its sequential pre-norm block;
what differs is a multiplier, a norm's arithmetic or an extra module inside a sublayer.
"""

from nnterp.family import COMMON_SITES, HostContext
from nnterp.sites import Child, Nowhere, Read

#: The catalogue's tiny shape: hidden 64, 2 blocks, 4 heads over 2 key/value heads, vocab 300.
TINY = {
    "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
    "intermediate_size": 128, "vocab_size": 300,
}


def tiny(config_class: str, **overrides) -> dict:
    """A tiny recipe: the catalogue's shape plus the family's own overrides."""
    return {"config_class": config_class, "overrides": {**TINY, **overrides}}


PARALLEL = "a parallel block: the attention and the MLP read the same input, so there is no stream between them"


def parallel_when(flag: str):
    """Sites for a block that is parallel when ``config.<flag>`` is true (one input norm feeds both
    sublayers, no layer_mid) and sequential otherwise: chosen per checkpoint."""

    def is_parallel(config) -> bool:
        return bool(getattr(config, flag, False))

    # built once, so that blocks of one kind share their sites (support() groups blocks by them)
    no_mid = Nowhere(PARALLEL)
    shared_norm = Read(Child("input_layernorm"),
                       description="The normed stream entering the MLP: on a parallel block the one input norm "
                                   "feeds both sublayers")

    def layer_mid(context: HostContext):
        return no_mid if is_parallel(context.config) else COMMON_SITES["layer_mid"]

    def mlp_norm_output(context: HostContext):
        return shared_norm if is_parallel(context.config) else COMMON_SITES["mlp_norm_output"]

    sites = {"layer_mid": layer_mid, "mlp_norm_output": mlp_norm_output}
    return sites, (lambda config: "parallel" if is_parallel(config) else "sequential")


# --------------------------------------------------------------------------- Granite's multipliers
def residual_multiplier(config) -> float:
    return config.residual_multiplier


def granite_sites() -> dict:
    """Granite's multipliers as sites: the block adds each sublayer's output times
    residual_multiplier, and the model multiplies the embeddings by embedding_multiplier before the
    first block; the values are the products the stream receives, edits carried back divided."""
    from nnterp.sites import Element, Own

    return {
        "token_embeddings": Read(
            Child("embed_tokens"), scale=lambda config: config.embedding_multiplier,
            description="The embeddings as the first block receives them: embed_tokens' output times "
                        "embedding_multiplier"),
        "attention_output": Read(
            Own("output"), Element(0), scale=residual_multiplier,
            description="What the attention adds to the residual stream: its output times residual_multiplier"),
        "mlp_output": Read(
            Own("output"), Element(0), scale=residual_multiplier,
            description="What the MLP adds to the residual stream: its output times residual_multiplier"),
    }


def logits_divided_by_scaling(model, logits):
    """Granite's readout: lm_head's logits divided by logits_scaling."""
    return logits / model._nnterp_state.config.logits_scaling


def logits_times_scaling(model, logits):
    """HyperCLOVA X's readout: lm_head's logits multiplied by logits_scaling."""
    return logits * model._nnterp_state.config.logits_scaling


#: multipliers far from 1 in tiny recipes, so the checks tell a product from its factor
GRANITE_TINY = {"residual_multiplier": 0.5, "embedding_multiplier": 3.0, "logits_scaling": 4.0,
                "attention_multiplier": 0.25}
