"""What Zamba and Zamba2 share: Mamba blocks, and hybrid blocks that run a weight-tied attention+MLP
block ahead of their Mamba mixer and add its projected output to the mixer's input.

On a hybrid block the standard self_attn is the shared block's softmax attention (its interior is
served), but its output does not enter the residual stream: the shared block has no residual of its
own, linear projects its MLP's output, and that is added to the stream *inside* the Mamba decoder,
before its norm. The stream receives one thing, the Mamba mixer's output, so attention_output is
that on every block, read after the shared block has run, and the identity is
layer_input + attention_output == layer_output. The shared MLP keeps its native path and no
standard mlp: nothing of it is added to the stream, and its values would come after the
attention's in the forward, before attention_output.
"""

from __future__ import annotations


from nnterp.declare.family import COMMON_SITES
from nnterp.declare.mixers import ATTENTION_INTERIOR, MAMBA, MAMBA_NO_MLP, MLP_STREAM, MLP_VALUES
from nnterp.declare.sites import Child, Element, Nowhere, Read


def _hybrid(layer) -> bool:
    return type(layer).__name__.endswith("HybridLayer")


def _per_block(mamba_site, hybrid_site):
    def site(context):
        return hybrid_site if context.layer is not None and _hybrid(context.layer) else mamba_site
    return site


def zamba_sites(shared: str, scale: str) -> dict:
    """The sites of a Zamba family whose shared block is the hybrid block's child ``shared``."""
    hybrid_reason = (
        f"a Zamba hybrid block: the shared block ({shared}: attention, pre_ff_layernorm, MLP) has no residual, and "
        f"its output reaches the stream only through linear, added to the Mamba mixer's input; the stream receives "
        f"the mixer's output alone (attention_output), and the shared MLP is {shared}.feed_forward")
    mixer_output = Read(
        Child("mamba_decoder.mamba", from_block=True), Element(0),
        description="What the block adds to the residual stream: the Mamba mixer's output, whose input is the stream "
                    "plus linear(the shared attention+MLP block's output)")
    sites = {
        "attention_output": _per_block(
            Read(COMMON_SITES["attention_output"].where, Element(0),
                 description="What the Mamba mixer adds to the residual stream"),
            mixer_output),
        "attention_norm_output": _per_block(
            Read(COMMON_SITES["attention_norm_output"].where, description="The normed stream entering the Mamba mixer"),
            Nowhere(f"a Zamba hybrid block: the shared attention reads the stream concatenated with the embeddings "
                    f"(2·hidden_size wide), normed by {shared}.input_layernorm, which is layers[i].self_attn.input")),
        "layer_mid": _per_block(Nowhere(MAMBA_NO_MLP), Nowhere(hybrid_reason)),
        "mlp_norm_output": _per_block(Nowhere(MAMBA_NO_MLP), Nowhere(hybrid_reason)),
        "mlp_input": _per_block(Nowhere(MAMBA_NO_MLP), Nowhere(hybrid_reason)),
        **{name: Nowhere(hybrid_reason) for name in MLP_VALUES},
    }
    scores = COMMON_SITES["attention_scores"]
    for name in ATTENTION_INTERIOR:
        common = COMMON_SITES[name]
        if name == "attention_scores":
            common = Read(scores.where, scores.element, condition=scores.condition,
                          description=f"The attention scores entering the softmax, masked: q·k scaled by {scale}")
        sites[name] = _per_block(Nowhere(MAMBA), common)
    assert set(MLP_STREAM) <= set(sites)
    return sites


#: the shared attention reads the stream joined to the embeddings (2·hidden_size wide): its heads are
#: attention_head_dim wide, not hidden_size / num_attention_heads
ZAMBA_ACCESSORS = {"head_dim": lambda c: c.attention_head_dim, "qk_head_dim": lambda c: c.attention_head_dim}


def zamba_rename(shared: str) -> dict:
    return {
        "model.final_layernorm": "norm", "mamba": "self_attn",
        f"{shared}.self_attn": "self_attn",
    }
