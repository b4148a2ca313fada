"""Shared pieces of the Cohere parallel block: one norm feeds both sublayers.

h = input_layernorm(x); out = x + self_attn(h) + mlp(h). input_layernorm is a LayerNorm without a
bias (CohereLayerNorm, mean-centred, computed in float32) and the block's only norm, so there is no
layer_mid and mlp_norm_output is input_layernorm's output. The logits are lm_head's output times
logit_scale.
"""

from nnterp.declare.blocks import Parallel
from nnterp.declare.readout import Readout
from nnterp.declare.sites import KERNEL_ARGUMENTS, Argument, Call, Read

#: one input norm feeds both sublayers
COHERE_BLOCK = Parallel()


#: Cohere's readout: lm_head's logits times logit_scale
times_logit_scale = Readout(times="logit_scale")


def rotated_on_sliding_layers(what: str, index: int) -> Read:
    """The queries (1) or keys (2) at the kernel: Cohere 2 rotates them on sliding-window layers only."""
    return Read(Call("attention_interface", "input"), Argument(index), condition=KERNEL_ARGUMENTS,
                description=f"The {what} entering attention, rotated on the sliding-window layers; the "
                            f"full-attention layers are not rotated (NoPE)")
