"""What the pure state-space families (Mamba, Mamba-2, Falcon-Mamba) share, and the reasons every
token-mixer family that is not attention gives for the values it does not have."""

from __future__ import annotations

from nnterp.readout import Readout
from nnterp.sites import Child, Nowhere, Read

#: the attention interior, on a block whose token mixer is not softmax attention
ATTENTION_INTERIOR = (
    "attention_queries", "attention_keys", "attention_values", "attention_scores", "attention_probabilities",
    "attention_head_outputs", "attention_premix",
)
MLP_VALUES = ("mlp_activation", "mlp_neurons", "mlp_output")
MLP_STREAM = ("layer_mid", "mlp_norm_output", "mlp_input")


def no_attention(reason: str) -> dict:
    """The attention interior, unavailable for ``reason`` (one sentence)."""
    return {name: Nowhere(reason) for name in ATTENTION_INTERIOR}


def no_mlp(reason: str) -> dict:
    """The MLP's values and the stream around it, unavailable for ``reason``."""
    return {name: Nowhere(reason) for name in (*MLP_STREAM, *MLP_VALUES)}


MAMBA_MIXER = "a Mamba mixer: no softmax attention, so there are no queries, keys, heads or pattern"
MAMBA_NO_MLP = ("a Mamba block has no MLP: the mixer is its only sublayer, so the stream after its add is "
                "layer_output")

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
    **no_attention(MAMBA_MIXER),
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
