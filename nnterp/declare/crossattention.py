"""The cross-attention block kind: blocks whose attention takes its queries from the stream and its keys and values
from the image, each sublayer's output added through a learned tanh gate (Llama 3.2 Vision's
MllamaCrossAttentionDecoderLayer, Idefics's IdeficsGatedCrossAttentionLayer), between the stack's self-attention
blocks.

``CrossAttentionBlocks`` is a ``Block`` preset: on a block of its class the values are the cross-attention's own
(``attention_output`` and ``mlp_output`` are what the stream receives, the gate included; ``attention_keys`` and
``attention_values`` span the image's positions; ``attention_gate`` and ``mlp_gate`` are the gates), on every other
block the common ones. Whether such a block runs may depend on the call (Llama 3.2 Vision's text-only call skips
it): ``skipped`` says why and ``given`` names the inputs that make a call run it, and ``status.skipped_on_call``
makes its values unavailable, with that sentence, on a call without them. The blocks may be no members of the
stack's module list (Idefics's gated_cross_attn_layers, Evolla's adapters inside its blocks): ``interleaved``
places them among its blocks (``blocks.Interleaved``); a cross-attention that is no module but a method of its block
(Evolla's ``cross_attention``) is hosted all the same (``method``, ``envoys.MethodAttention``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import torch

from nnterp.declare.blocks import Block
from nnterp.declare.conventions import COMMON_SITES, described
from nnterp.declare.engine import module_of
from nnterp.declare.errors import UnavailableValue
from nnterp.declare.layouts import FLAT
from nnterp.declare.locations import Call, Child, Element, Own, Where, _block_of
from nnterp.declare.writeback import Nowhere, Read

#: why a block of the stack's other kind has no gate, by gate value
UNGATED = {name: Nowhere(f"a self-attention block: it adds the {what}'s output as it is, through no gate")
           for name, what in (("attention_gate", "attention"), ("mlp_gate", "MLP"))}


@dataclass(eq=False)
class Gated(Read):
    """A sublayer's output times its block's gate, tanh(``gate``), a parameter of the block: what the stream
    receives. An edit is carried back divided by the gate, which a gate at zero cannot take."""

    gate: str = ""
    factored = True

    def _factor(self, host):
        return torch.tanh(getattr(module_of(_block_of(host)), self.gate).detach())

    def read(self, host, spec):
        return self._read_written_back(host)  # a product: never the live tensor

    def _unapply(self, host, value):
        factor = self._factor(host)
        if not bool(factor.ne(0).all()):
            raise UnavailableValue(f"the block's gate {self.gate} is tanh(0) = 0, so nothing the sublayer computes "
                                   f"reaches the stream: edit layer_mid or layer_output to change the stream there")
        return value / factor


class CrossAttentionBlocks(Block):
    """Blocks of class ``layer`` are cross-attention blocks: ``attention`` and ``mlp`` name the block's gate
    parameters, ``attention_at`` and ``mlp_at`` the locations holding the cross-attention's and the MLP's outputs as
    the block adds them (after any row mask), ``image_states`` the attention's argument holding the image features
    its keys and values are made from, ``activations`` the block's modules applying tanh to each gate (None: the
    gate's own ``.tanh()`` in the forward), ``skipped`` says when the forward skips such a block (None: it never
    does) and ``given`` names the call's inputs (any one) under which it runs. Every other block is the common
    sequential one."""

    def __init__(self, layer: str, attention: str, mlp: str, mlp_at: Where, image_states: str,
                 skipped: str | None = None, given: tuple[str, ...] = (), notes: dict | None = None,
                 attention_at: Where = Own("output"), activations: tuple = (None, None), method: str | None = None,
                 on_cross: dict | None = None, holding: dict | None = None, cross_dims: Callable | None = None,
                 passes_through: bool = False, **block) -> None:
        super().__init__(kind="sequential, with gated cross-attention blocks", dims=self._gate_dims, **block)
        self.layer, self.gate_names, self.image_states, self.skipped = layer, (attention, mlp), image_states, skipped
        self.given, self.may_skip = tuple(given), skipped is not None
        if passes_through:  # entered on every call, it hands its input on as it is where it is skipped
            self.passed_through = ("layer_input", "layer_output")
        # the cross-attention as a method of the block, its other sites, those of a block holding one, and its
        # dimensions that differ from the stack's (config -> {dimension: size})
        self.attention_method, self.holding, self.cross_dims = method, dict(holding or {}), cross_dims
        image = (f"from the image features (the {image_states} it reads), over the image's positions, not the call's: "
                 f"[batch num_kv_heads image_keys head_dim]")
        notes = notes or {}
        self._cross = {
            "attention_output": Gated(attention_at, Element(0), gate=attention, description=(
                f"What the cross-attention adds to the residual stream: its output{notes.get('attention', '')} times "
                f"tanh({attention})")),
            "mlp_output": Gated(mlp_at, gate=mlp, description=(
                f"What the MLP adds to the residual stream: its output as the block adds it"
                f"{notes.get('mlp', '')}, times tanh({mlp})")),
            "attention_keys": described("attention_keys", f"The keys the cross-attention makes {image}"),
            "attention_values": described("attention_values", f"The values the cross-attention makes {image}"),
            "attention_gate": self._gate(attention, activations[0], "the cross-attention's output"),
            "mlp_gate": self._gate(mlp, activations[1], "the MLP's output"),
            **(on_cross or {}),
        }

    def _gate(self, gate: str, activation: "str | Where | None", what: str) -> Read:
        said = f"the factor the block multiplies {what} by before adding it"
        if isinstance(activation, Where):  # the forward's own tanh call
            return Read(activation, layout=FLAT, description=f"tanh({gate}), {said}")
        if activation is None:
            return Read(Call(f"self.{gate}.tanh", "output", from_block=True, forward_of=self.layer), layout=FLAT,
                        description=f"tanh({gate}), {said}")
        # a gate per channel is a [1 1 hidden_size] parameter: its entries, in order
        return Read(Child(activation, from_block=True), layout=FLAT,
                    description=f"tanh({gate}) as the block's {activation} (an nn.Tanh) computes it, {said}")

    def is_cross(self, context) -> bool:
        return context.layer is not None and type(context.layer).__name__ == self.layer

    crosses = is_cross

    def skips(self, context) -> str | None:
        return self.skipped if self.skipped is not None and self.is_cross(context) else None

    def runs_on(self, given) -> bool:
        return any(name in given for name in self.given)

    def holds_cross(self, context) -> bool:
        """Whether this block holds a cross-attention block among its children (Evolla's adapter)."""
        return context.layer is not None and any(
            type(child).__name__ == self.layer for child in context.layer.children())

    def _gate_dims(self, context) -> dict:
        gate = getattr(context.layer, self.gate_names[0], None) if self.is_cross(context) else None
        dims = {"gate_size": gate.numel()} if isinstance(gate, torch.Tensor) else {}
        if self.cross_dims is not None and self.is_cross(context):
            dims.update(self.cross_dims(context.config))
        return dims

    def _shape(self) -> str:
        return (f"sequential; {self.layer} blocks cross-attend to the image ({self.image_states}) and add each "
                f"sublayer's output through a tanh gate ({' and '.join(self.gate_names)})")

    def sites(self) -> dict:
        def chosen(name):
            fallback = UNGATED.get(name) or COMMON_SITES[name]
            held = self.holding.get(name)
            return lambda context: (self._cross[name] if name in self._cross and self.is_cross(context) else
                                    held if held is not None and self.holds_cross(context) else fallback)
        return {name: chosen(name) for name in {**self._cross, **self.holding}}

    def image_positions(self, model, i, inputs) -> int | None:
        """How many image positions block ``i``'s keys span on a call (its attention's ``image_states``), or None
        where the block is no cross-attention block or does not run on it."""
        layer = model.layers[i]
        if type(module_of(layer)).__name__ != self.layer:
            return None
        with model.trace(inputs):
            states = layer.self_attn.inputs.save()
        given = states[1].get(self.image_states)
        return int(given.shape[-2]) if isinstance(given, torch.Tensor) else None

