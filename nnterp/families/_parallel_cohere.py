"""Shared pieces of the Cohere parallel block: one norm feeds both sublayers.

h = input_layernorm(x); out = x + self_attn(h) + mlp(h). input_layernorm is a LayerNorm without a
bias (CohereLayerNorm, mean-centred, computed in float32) and the block's only norm, so there is no
layer_mid and mlp_norm_output is input_layernorm's output. The logits are lm_head's output times
logit_scale.
"""

from nnterp.sites import KERNEL_ARGUMENTS, Argument, Call, Child, Nowhere, Read

from ._llama import PARALLEL

PARALLEL_SITES = {
    "layer_mid": Nowhere(PARALLEL),
    "mlp_norm_output": Read(
        Child("input_layernorm"),
        description="The normed stream entering the MLP: the one norm feeds both sublayers"),
}


def times_logit_scale(model, logits):
    """Cohere's readout: lm_head's logits times the model's logit_scale."""
    return logits * model._module.logit_scale


def rotated_on_sliding_layers(what: str, index: int) -> Read:
    """The queries (1) or keys (2) at the kernel: Cohere 2 rotates them on sliding-window layers only."""
    return Read(Call("attention_interface", "input"), Argument(index), condition=KERNEL_ARGUMENTS,
                description=f"The {what} entering attention, rotated on the sliding-window layers; the "
                            f"full-attention layers are not rotated (NoPE)")
