"""What the Inkling families share: short causal convolutions on each sublayer's output before the
add, muP scaling of the head, unpadded vocabularies."""

from __future__ import annotations


from nnterp.declare.family import COMMON_SITES
from nnterp.declare.readout import Readout
from nnterp.declare.routers import unrouted_neurons
from nnterp.declare.sites import Argument, Child, Nowhere, Read

#: what lm_head reads is the final norm's output divided by the muP multiplier
HEAD_INPUT = Read(
    Child("lm_head", "input"), Argument(0),
    description="The residual stream after the final norm, divided by logits_mup_width_multiplier: what lm_head reads")


#: the model drops the padded vocabulary rows (unpadded_vocab_size), soft-caps where configured, and divides the
#: final norm's output by logits_mup_width_multiplier before lm_head (muP)
MUP_UNPADDED = Readout(unpad_to="unpadded_vocab_size", softcap="final_logit_softcapping",
                       normed_divided_by="logits_mup_width_multiplier")
#: the model casts the logits to float32 and soft-caps them (Inkling2Softcap); its depth attention mixes the block
#: states into the final norm's input, so project_on_vocab is a lens
FLOAT_SOFT_CAP = Readout(float32=True, softcap="final_logit_softcapping", exact_lens=False)


# --------------------------------------------------------------------------- Inkling 2: block attention residuals
from nnterp.declare.sites import Call, Own, SPLIT_HEADS, Sibling  # noqa: E402

SINK = ("the softmax runs over these scores and one sink logit per query computed from the input (sink_proj), "
        "concatenated as an extra key, so the scores alone do not give the pattern; attention_probabilities is the "
        "pattern over the keys, without the sink's share")
DEPTH = ("a block attention residual: the MLP reads mlp_input's softmax mix over the earlier blocks' states and "
         "the stream, not the stream after the attention")


def block_residual_arithmetic(config):
    """At a block boundary the block's input moves to block_states and the stream restarts from the attention."""
    def block(layer, x, attn, mlp):
        residual = attn.float() if layer.is_block_boundary else x.float() + attn.float()
        return (residual + mlp).to(x.dtype)
    return block


def inkling2_sites() -> dict:
    full_norm = Read(
        Child("q_input_layernorm"),
        description="The normed query input of a full block (its keys and values read inputs of their own, each "
                    "mixed from the earlier blocks' states and normed)")
    sliding_norm = COMMON_SITES["attention_norm_output"]
    return {
        # the block's input is also stacked into block_states at a boundary: an assignment is copied into it
        "layer_input": Read(Own("input"), Argument(0, "hidden_states"), shared=True),
        "attention_norm_output": lambda context: (
            full_norm if hasattr(context.layer, "q_input_layernorm") else sliding_norm),
        "attention_scores": Nowhere(SINK),
        "attention_premix": Read(
            Call("self.o_proj", "input"), Argument(0), SPLIT_HEADS,
            description="Every head's output side by side, as the gated output projection takes it (before its "
                        "sigmoid gate)"),
        "attention_output": Read(
            Sibling("post_attention_convolution"),
            description="What the attention adds to the stream: its output after the short convolution; at a block "
                        "boundary the stream restarts from it"),
        "layer_mid": Nowhere(DEPTH),
        "mlp_output": Read(
            Sibling("post_mlp_convolution"),
            description="What the MLP adds to the stream: its output after the short convolution"),
        **unrouted_neurons(),
    }
