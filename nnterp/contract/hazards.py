"""Numerical hazards: where a trace first goes non-finite."""

from __future__ import annotations

from dataclasses import dataclass

import torch

from nnterp.declare.locations import block_hosts
from nnterp.runtime.status import status_of

#: Per block, in forward order: the values checked, the attention's interior first where served.
BLOCK_VALUES = (
    ("layer", "layer_input"), ("attention", "attention_scores"), ("attention", "attention_probabilities"),
    ("attention", "attention_output"), ("mlp", "mlp_output"), ("layer", "layer_output"),
)


@dataclass(frozen=True)
class NonFinite:
    """The first value of a run that holds an inf or a NaN."""

    block: int | None
    host: str
    value: str
    count: int
    largest_finite: float

    def __str__(self) -> str:
        where = "model" if self.block is None else f"model.layers[{self.block}]"
        where += {"attention": ".self_attn", "mlp": ".mlp"}.get(self.host, "")
        return (f"{where}.{self.value} is the first non-finite value ({self.count} entries inf or NaN; "
                f"largest finite magnitude {self.largest_finite:.3g})")


def first_nonfinite(model, prompt) -> NonFinite | None:
    """Trace ``prompt`` once and name the first value, in forward order, that is not finite."""
    reads = []  # (block, host, name)
    saved = []
    with model.trace(prompt):
        for index, layer in enumerate(model.layers):
            hosts = block_hosts(layer)
            for host, name in BLOCK_VALUES:
                if host in hosts and status_of(hosts[host], name, model).available:
                    saved.append(getattr(hosts[host], name).save())
                    reads.append((index, host, name))
        saved.append(model.logits.save())
        reads.append((None, "model", "logits"))
    for (block, host, name), value in zip(reads, saved):
        value = value.detach()
        bad = ~torch.isfinite(value)
        if name == "attention_scores":  # a causally masked score may be -inf (GPT-Neo's mask): no hazard
            queries, keys = value.shape[-2:]
            future = torch.ones(queries, keys, dtype=torch.bool, device=value.device).triu(keys - queries + 1)
            bad &= ~(future & (value == float("-inf")))
        if bad.any():
            finite = value[~bad]
            largest = float(finite.abs().max()) if finite.numel() else float("nan")
            return NonFinite(block, host, name, int(bad.sum()), largest)
    return None
