"""Granite's mixtures of experts (GraniteMoe, GraniteMoeShared, GraniteMoeHybrid): both contributions scaled by
residual_multiplier (their block is nnterp.blocks.GRANITE_BLOCK), and the layer's shared_mlp, when the checkpoint
has one, part of mlp_output."""

from __future__ import annotations

from nnterp.sites import Argument, Child, Element, Own, PlusEarlier, Read, Sibling
from nnterp.blocks import ConfigKey
from nnterp.routers import moe_block

#: the multiplier the block gives each contribution
RESIDUAL_MULTIPLIER = ConfigKey("residual_multiplier")


def granite_sites(routed: dict, neurons_reason: str) -> dict:
    """Granite's MoE blocks: both contributions scaled by residual_multiplier; the layer's
    shared_mlp (GraniteMoeShared, GraniteMoeSWA), when the checkpoint has one, is part of mlp_output."""
    scaled = Read(Own("output"), Element(0), scale=RESIDUAL_MULTIPLIER,
                  description="What the MoE block adds to the residual stream: its output times residual_multiplier")
    with_shared = PlusEarlier(
        Sibling("shared_mlp"), Element(0), scale=RESIDUAL_MULTIPLIER, earlier=Own("output"),
        earlier_scale=RESIDUAL_MULTIPLIER, words=", times residual_multiplier",
        description="What the MLP adds to the residual stream: the MoE block's output plus the block's shared_mlp "
                    "output (a sibling module run on every token), times residual_multiplier")

    def mlp_output(context):
        shared = getattr(context.layer, "shared_mlp", None) if context is not None else None
        return scaled if shared is None else with_shared

    return {
        # the MoE block and the shared_mlp read one tensor: an assignment is copied into it, so it reaches both
        "mlp_input": Read(Child("mlp", "input"), Argument(0), shared=True),
        "mlp_output": mlp_output,
        **moe_block(routed, neurons_reason),
    }
