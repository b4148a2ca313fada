"""Shared by the fairseq-lineage families (OPT, BioGPT, XGLM): the MLP half of the block sits on the layer itself
(fc1, activation_fn, fc2), with no module of its own. The ``mlp`` host is fc2, the module whose output is what
the MLP half adds, aliased ``mlp`` beside ``down_proj``; its other values are read on its siblings.
"""

from __future__ import annotations

from dataclasses import dataclass

from nnsight.intervention.interleaver import Mediator

from nnterp.sites import Argument, Child, Own, Read, Same, Sibling, Where

#: fairseq's names onto the standard ones (OPT adds its decoder's own on top)
FAIRSEQ_RENAME = {
    "self_attn_layer_norm": "input_layernorm", "out_proj": "o_proj", "fc1": "up_proj", "activation_fn": "act_fn",
    "fc2": ["down_proj", "mlp"],
}

def _batch_rows(native) -> int:
    """The batch of the current run (of this invoke's rows when nnsight narrowed the tensor to them)."""
    mediator = Mediator.current("the batch size")
    batcher = mediator.interleaver.batcher
    if batcher.batching and mediator.batch_group is not None and getattr(native, "_nnsight_batch", False):
        return mediator.batch_group[1]
    return batcher.total


class FlatTokens(Same):
    """``[batch*seq dim]`` (the block folded the positions into the rows) seen as ``[batch seq dim]``: a view, so
    in-place edits reach the model."""

    def view(self, native, model):
        return native.unflatten(0, (_batch_rows(native), -1))

    def inverse(self, value, like, model):
        return value.flatten(0, 1)


FLAT_TOKENS = FlatTokens()


@dataclass(frozen=True)
class Descendant(Where):
    """A module below the host by its dotted native path (``model.decoder.project_in``), input or output."""

    path: str
    key: str = "output"

    def target(self, host):
        envoy = host
        for part in self.path.split("."):
            envoy = getattr(envoy, part)
        return envoy

    def describe(self, module) -> str:
        return f"the module {self.path}'s {self.key}"


#: the MLP half, on the mlp host (fc2)
MLP_SITES = {
    "mlp_activation": Read(Sibling("act_fn")),
    "mlp_neurons": Read(Sibling("down_proj", "input"), Argument(0)),
    "mlp_output": Read(Own("output"), description="What the MLP adds to the residual stream: fc2's output"),
}

#: OPT runs the MLP half on [batch*seq, hidden] rows: the same values, unflattened
FLAT_MLP_SITES = {
    "mlp_activation": Read(Sibling("act_fn"), layout=FLAT_TOKENS),
    "mlp_neurons": Read(Sibling("down_proj", "input"), Argument(0), FLAT_TOKENS),
    "mlp_output": Read(Own("output"), layout=FLAT_TOKENS,
                       description="What the MLP adds to the residual stream: fc2's output"),
}

MLP_INPUT = Read(Child("up_proj", "input"), Argument(0),
                 description="What the MLP half of the block is called with: fc1's input")
