"""Reformer's model-level values at the call's length: the model pads the ids on the right to a multiple of its
chunk length inside its forward, so the embeddings are computed at a longer length than the call's."""

from __future__ import annotations

from dataclasses import dataclass

import torch
from nnsight.intervention.interleaver import Mediator

from nnterp.sites import Argument, Child, Read, Same, Site


@dataclass(frozen=True)
class FirstPositions(Same):
    """The first ``n`` positions of ``[batch positions ...]`` (a view); an assignment keeps the padding's positions."""

    n: int

    def view(self, native, model):
        return native[:, :self.n]

    def inverse(self, value, like, model):
        return torch.cat([value, like[:, self.n:]], dim=1)


_IDS = Argument(0, "input_ids")
_EMBEDS = Argument(None, "inputs_embeds")


@dataclass(eq=False)
class AtCallLength(Site):
    """A value the model computes at its padded length, served at the call's: the model's own input is read first
    (the call's ids, or inputs_embeds), then the value's location, cut to the call's positions.

    The model's input is the forward's first location, so the first read of the value in a forward is in order
    wherever it comes before anything past the embeddings; a later read or an assignment in the same forward
    reuses the length that read found."""

    where: Child
    description: str | None = None
    condition: None = None

    def _length(self, host) -> int:
        """The call's length: read at the model's input when the forward has not passed it, else remembered from
        this forward's earlier read (an assignment reads the value first, then writes)."""
        inputs = f"{host.path}.input"
        mediator = Mediator.current(inputs)
        here = f"{self.where.target(host).path}.{self.where.key}"
        seen = mediator.occurrence(inputs)
        remembered = getattr(mediator, "_nnterp_call_length", None)
        if seen > mediator.occurrence(here) and remembered is not None and remembered[0] == seen:
            return remembered[1]  # between the model's input and the value, in the forward that read it
        args_kwargs = Mediator.value(inputs)
        given = _IDS.get(args_kwargs)
        if given is None:
            given = _EMBEDS.get(args_kwargs)
        length = int(given.shape[1])
        # the visit being served is counted once the model moves on: remember it under that count
        mediator._nnterp_call_length = (mediator.occurrence(inputs) + 1, length)
        return length

    def _site(self, host):
        return Read(self.where, layout=FirstPositions(self._length(host)))

    def read(self, host, spec):
        return self._site(host).read(host, spec)

    def write(self, host, spec, value) -> None:
        self._site(host).write(host, spec, value)

    def describe(self, module) -> str:
        return self.where.describe(module) + ", its first positions (the call's)"
