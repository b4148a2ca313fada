"""The status of a standard value on a model, computed in one place.

A family declares each value served, served under a condition (a load option, such as the softmax that only
runs under eager attention) or unavailable, with the reason. Whether this model, as loaded, serves it follows:
the printout, ``support()``, ``serves()``, the errors, the cache, the contract and the trace planner all ask here.
"""

from __future__ import annotations

from enum import Enum
from typing import NamedTuple

from nnterp.declare.locations import _block_of


class Kind(str, Enum):
    """What a family declares of a value: served on every load, served under a condition, or unavailable."""

    SERVED = "served"
    CONDITIONED = "conditioned"
    UNAVAILABLE = "unavailable"

    # equal, hashed, printed and written as its word: tables keyed by the words find it
    __hash__ = str.__hash__
    __format__ = str.__format__

    def __str__(self) -> str:
        return self.value


SERVED, CONDITIONED, UNAVAILABLE = Kind.SERVED, Kind.CONDITIONED, Kind.UNAVAILABLE


class Status(NamedTuple):
    kind: Kind  # what the family declares
    available: bool  # whether this model, as loaded, serves it (a conditioned value: whether its condition holds)
    note: str  # the reason (unavailable) or the condition (conditioned); "" for a value served on every load


def status(site, model) -> Status:
    """The status of the value a ``site`` serves, on ``model``."""
    if not site.served:
        return Status(UNAVAILABLE, False, site.reason)
    if site.condition is not None:
        return Status(CONDITIONED, site.condition.holds(model), site.condition.text)
    return Status(SERVED, True, "")


def status_of(host, name: str, model) -> Status:
    """The status of the value ``name`` on its host envoy ``host``: inside a call, unavailable where the call skips
    its block."""
    found = status(host._nnterp_site(name), model)
    skipped = skipped_on_call(host, model, name) if found.available else None
    return found if skipped is None else Status(found.kind, False, f"the call skips this block: {skipped}")


def skipped_on_call(host, model, name: str | None = None) -> str | None:
    """Why the running call skips the block holding ``host``, where its family says a call may (a cross-attention
    block on a call without image features) and this call's inputs are such; None otherwise, and outside a call, and
    for the value ``name`` where the block passes the stream through on such a call (Evolla's adapter: its
    layer_input and layer_output exist, and are equal)."""
    given = model._nnterp_state.call_inputs
    if given is None or getattr(host, "_nnterp_host", "model") == "model" or name in model.family.block.passed_through:
        return None
    return skipped_by(model, _block_of(host), given)


def without_image(model, given) -> str | None:
    """Why a call passing the inputs named ``given`` has no image for a wrapper's image values to be read from;
    None where it has one, where the inputs are not known, and on a model that is no wrapper."""
    wrapper = getattr(model.family, "wrapper", None)
    if wrapper is None or given is None or any(name in given for name in wrapper.image_inputs):
        return None
    return f"the call passes no image ({' or '.join(wrapper.image_inputs)}), so nothing places image features"


#: the inputs a text call passes (a prompt, encoded): it runs no block that only a call with an image runs
TEXT_CALL = ("input_ids", "attention_mask")


def skipped_by(model, layer, given) -> str | None:
    """Why a call passing the inputs named ``given`` skips the block ``layer`` (its envoy), where its family says a
    call may (a cross-attention block on a call without image features); None where the call runs it."""
    block = model.family.block
    if not block.may_skip or block.runs_on(given):
        return None
    return block.skips(layer._nnterp_context())
