"""Write-back: how a site reads its value and carries an edit back into the forward.

A site is a location plus an element, a layout and an optional term added to it (a sum the model never
materialises). In-place edits reach the model by construction: the value is either the live tensor or a view of
it, and where it is neither (a sum, a copy the layout forced) a write-back runs, but only when the value was
edited, so a read alone leaves the forward bit-identical. ``Derived`` values are computed from a site; ``Nowhere``
values carry the reason they do not exist.
"""

from __future__ import annotations

import copy
import dataclasses
import os
import sys
import weakref
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Callable

import torch

from nnterp.declare.engine import engine, module_of
from nnterp.declare.errors import ConditionedValue, LayoutMismatch, ReadOnlyValue, UnavailableValue
from nnterp.declare.layouts import SAME, Same
from nnterp.declare.locations import Argument, Call, Condition, Element, Where, envoy_memo
from nnterp.declare.vocabulary import ValueSpec


# --------------------------------------------------------------------------- safety copies
@dataclass
class Unedited:
    """What a trace that edits nothing (a cache's) serves without its safety copy: a site copies a value only so
    that a later in-place edit, the user's or the forward's, does not reach what was read; with no edit to come, the
    forward's tensor is served and its version kept, so the caller can tell whether the forward changed it in place
    (then it reruns with the copies of ``copy_anyway``'s sites)."""

    #: (site, a weak reference to the tensor, its version): a tensor the caller did not keep (it kept a copy of
    #: some positions) is freed as before and needs no check
    served: list = field(default_factory=list)
    copy_anyway: frozenset = frozenset()

    def changed(self) -> set:
        """The sites whose served tensor, still held, the forward changed in place after they were read."""
        return {site for site, held, version in self.served
                if (tensor := held()) is not None and tensor._version != version}


def _edits_nothing():
    """The running trace's ``Unedited`` where it edits nothing (a cache's), else None."""
    state = engine.running_state()
    return state.unedited if state is not None else None


def carried_back(location: str, key, present: Callable, carry_back: Callable):
    """The value ``present(raw)`` makes from what the forward holds at ``location``, and, when the worker moves on,
    ``carry_back(value, raw)`` in its place: the runtime fetches and later carries back, the site presents here, so
    a read goes from the site to the runtime and never back. A second read of ``key`` before the worker moves on
    gets the same value, so both edits go back."""
    fetched = engine.fetch_to_present(location, key)
    if fetched.held is not None:
        return fetched.held
    value = present(fetched.raw)
    engine.carry_back_later(location, key, fetched.visit, value, partial(carry_back, value, fetched.raw))
    return value


def safety_copy(site, value):
    """``value`` copied, so that a later in-place edit does not reach it; in a trace that edits nothing, the tensor
    itself, kept with its version (an inference tensor, which keeps no version, is copied)."""
    unedited = _edits_nothing()
    if unedited is None or site in unedited.copy_anyway or value.is_inference():
        return value.clone()
    unedited.served.append((site, weakref.ref(value), value._version))
    return value


# --------------------------------------------------------------------------- sites
_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
#: the files whose frames build a site on another's behalf (the site classes, dataclasses' replace, copies)
_BUILDERS = {os.path.abspath(path) for path in (__file__, dataclasses.__file__, copy.__file__)} | {
    os.path.join(_ROOT, "nnterp", "declare", name) for name in ("companions.py", "locations.py", "layouts.py", "routers.py")}
#: helpers that restate a site in a family's words: the family's call is the declaration
_RESTATERS = ("described", "but", "replace", "_replace")


def declaration_site() -> str:
    """``path:line`` (and the function, where it is not a module's top level) of the code that declared the site
    being built: the first frame outside the site machinery, relative to the project."""
    frame = sys._getframe(2)
    while frame is not None and (os.path.abspath(frame.f_code.co_filename) in _BUILDERS
                                 or frame.f_code.co_name in _RESTATERS):
        frame = frame.f_back
    if frame is None:
        return "unknown"
    path = os.path.abspath(frame.f_code.co_filename)
    shown = os.path.relpath(path, _ROOT) if path.startswith(_ROOT + os.sep) else path
    where = f"{shown}:{frame.f_lineno}"
    return where if frame.f_code.co_name == "<module>" else f"{where} ({frame.f_code.co_name})"


class Site:
    """Base: a value's location, element, layout and how it reads, writes and describes itself, and
    ``declared_at``, the code that declared it (``nnterp/families/dbrx.py:47``), which support(), the contract's
    failures and the errors name."""

    description: str | None = None
    condition: Condition | None = None
    served = True

    def __new__(cls, *args, **kwargs):
        made = super().__new__(cls)
        made.__dict__["declared_at"] = declaration_site()  # a copy's __dict__ brings its original's back
        return made

    def read(self, host, spec: ValueSpec):
        raise NotImplementedError

    def write(self, host, spec: ValueSpec, value) -> None:
        raise ReadOnlyValue(f"{spec.name} is read-only ({spec.description}); edit the value it is derived from instead")

    def describe(self, module) -> str:
        raise NotImplementedError


@dataclass(frozen=True)
class _Context:
    """What a write-back needs: the host envoy and the model."""

    host: Any
    model: Any


def _version(tensor) -> int | None:
    return tensor._version if isinstance(tensor, torch.Tensor) else None


def _grad_of_copy(value_id, site, context, grad):
    """A hook on the tensor the forward consumes, serving its gradient, in the value's layout and scale, to
    a ``with loss.backward():`` block that asks for the value's ``.grad`` (and taking back what it writes)."""
    if not engine.backward_running():
        return None
    factor = site._factor(context.host)
    model = context.model
    value_grad = site.layout.view(grad, model)
    if factor is not None:
        value_grad = value_grad / factor
    served = engine.serve_gradient(value_id, value_grad)
    if served is value_grad:
        return None
    if factor is not None:
        served = served * factor
    return site.layout.inverse(served, grad, model)




def _tracks_grad(tensor) -> bool:
    return isinstance(tensor, torch.Tensor) and tensor.requires_grad and torch.is_grad_enabled()


@dataclass(eq=False)
class Read(Site):
    """A value read where the model computes it.

    ``shared`` marks a tensor the forward keeps under two names, written by copying into it.
    ``plus`` names a parameter of the host module added to the value when the module has one
    (GPT-NeoX-Japanese's last ``dense_bias``): the value is the sum and an edit is carried back
    minus the term.
    """

    where: Where
    element: Any = field(default_factory=Element)
    layout: Same = SAME
    plus: str | None = None
    description: str | None = None
    condition: Condition | None = None
    #: the forward holds this tensor under two names (Llama's residual after the attention add is
    #: both the norm's input and the residual the MLP is added to): an assignment is copied into
    #: it, so it reaches every holder as an in-place edit does
    shared: bool = False
    #: a multiplier the block applies to this value before adding it (Granite's residual_multiplier):
    #: config -> number; the value is the product and an edit is carried back divided by it
    scale: Callable | None = None
    #: the model mutates this tensor in place after handing it over (Falcon adds the attention into
    #: the MLP's output): the value is a copy taken at the handoff, and an edit is carried back
    snapshot: bool = False

    # -- read
    @property
    def factored(self) -> bool:
        """Whether the value is the location's tensor times a factor (``scale``; a gate, in a subclass)."""
        return self.scale is not None

    def _term(self, host):
        return getattr(module_of(host), self.plus, None) if self.plus else None

    def _factor(self, host):
        return self.scale(host.root._nnterp_state.config) if self.scale is not None else None

    def _present(self, context, raw):
        host, model = context.host, context.model
        native = self.element.get(raw)
        value = self.layout.view(native, model)
        if self.snapshot:
            value = safety_copy(self, value)
        factor = self._factor(host)
        if factor is not None:
            value = value * factor
        term = self._term(host)
        if term is not None:
            value = value + term
        if isinstance(value, torch.Tensor):
            value._nnterp_version = value._version
        return value

    def _carry_back(self, context, value, raw):
        host, model = context.host, context.model
        if self.layout is not SAME and self._is_live(host) and _tracks_grad(value):
            # a view the forward does not consume has no gradient: hand the forward the view's inverse, the same
            # values in the same storage, so value.grad flows through it
            return self.element.put(raw, self.layout.inverse(value, self.element.get(raw), model))
        if _version(value) == getattr(value, "_nnterp_version", None):
            return raw  # not edited: hand the model its own object back, bit for bit
        if self._is_live(host):
            return raw  # a view of the live tensor: the edit is already there
        return self._put(context, raw, value)

    def _is_live(self, host) -> bool:
        """Whether the value handed out is the model's tensor (or a view of it), so edits are already there."""
        return self._term(host) is None and self._factor(host) is None and not self.snapshot

    def _unapply(self, host, value):
        """The edited value without the term and the multiplier; None when it is the live tensor."""
        if self._is_live(host):
            return None
        term, factor = self._term(host), self._factor(host)
        if term is not None:
            value = value - term
        if factor is not None:
            value = value / factor
        return value.clone() if self.snapshot and term is None and factor is None else value

    def _current(self, context, raw):
        """The value as it stands in ``raw``, in the value's layout (what an assignment must match)."""
        return self.layout.view(self.element.get(raw), context.model)

    def _put(self, context, raw, value):
        """``raw`` with ``value`` (an edit of what ``_present`` handed out) in place of the native value."""
        unapplied = self._unapply(context.host, value)
        value = value if unapplied is None else unapplied
        return self.element.put(raw, self.layout.inverse(value, self.element.get(raw), context.model))

    def _location(self, host) -> str:
        """The location's full name (``model.layers.3.self_attn.source.attention_interface_1.input``),
        made once per host: only an operation nested in a call is drilled into on every run."""
        if getattr(self.where, "inside", None) is not None:
            return f"{self.where.target(host).path}.{self.where.key}"
        made = envoy_memo(host, "_nnterp_locations")
        location = made.get(self)
        if location is None:
            location = made[self] = f"{self.where.target(host).path}.{self.where.key}"
        return location

    def read(self, host, spec):
        if self.plus is None and self.layout is SAME and self.scale is None and not self.snapshot:
            return self.element.get(engine.value_at(self._location(host)))
        return self._read_written_back(host)

    def _read_written_back(self, host):
        """The value at this site presented by ``_present`` and carried back by ``_carry_back``."""
        location = self._location(host)
        return self._read_with_writeback(location, _Context(host, host.root))

    def _read_with_writeback(self, location, context):
        """The value ``_present`` makes at ``location``, carried back by ``_carry_back`` when edited."""
        def present(raw):
            value = self._present(context, raw)
            native = self.element.get(raw)
            if _tracks_grad(native) and not self._is_live(context.host):
                # a copy or a product the forward never consumes: its gradient is the native tensor's, carried over
                native.register_hook(partial(_grad_of_copy, id(value), self, context))
            return value

        if _edits_nothing():
            return present(engine.value_at(location))  # nothing to carry back
        return carried_back(location, self, present, partial(self._carry_back, context))

    # -- write
    def write(self, host, spec, value) -> None:
        location = self._location(host)
        raw = engine.value_at(location)
        context = _Context(host, host.root)
        current = self._current(context, raw)
        check_layout(spec, current, value, host.root)
        if self.shared:
            current.copy_(value)
            return
        engine.swap(location, self._put(context, raw, value))

    def describe(self, module) -> str:
        sentence = self.where.describe(module)
        if isinstance(self.where, Call) and self.where.inside is None:
            index = self.element.index if isinstance(self.element, (Element, Argument)) else None
            if index is not None:
                sentence += f", element {index}"
        return sentence


@dataclass(eq=False)
class PlusEarlier(Read):
    """A sum of two outputs the block adds together, each times its multiplier, served where the
    second one is produced (``where``); the first (``earlier``, relative to the same host) is read
    before it. An edit is carried back into the second minus the first's part: Granite's shared_mlp
    beside the MoE block, Falcon-H1's attention beside its Mamba mixer, Gemma 4's MLP and per-layer input."""

    earlier: Where | None = None
    earlier_scale: Callable | None = None
    words: str = ""

    def _earlier(self, host):
        target = self.earlier.target(host)
        location = f"{target.path}.{self.earlier.key}"
        mediator = engine.worker(location)
        held = envoy_memo(host, "_nnterp_earlier_outputs")
        if self in held and held[self][0] is mediator:
            return  # read before in this run (an assignment after a read): the worker is past it now
        value = engine.value_at(location)
        held[self] = (mediator, value[0] if isinstance(value, (tuple, list)) else value)

    def _term(self, host):
        value = envoy_memo(host, "_nnterp_earlier_outputs")[self][1]
        factor = self.earlier_scale(host.root._nnterp_state.config) if self.earlier_scale else None
        return value if factor is None else value * factor

    def read(self, host, spec):
        self._earlier(host)
        return self._read_written_back(host)

    def write(self, host, spec, value) -> None:
        self._earlier(host)
        super().write(host, spec, value)

    def describe(self, module) -> str:
        return f"{self.where.describe(module)} plus {self.earlier.describe(module)}{self.words}"


class EarlierFirst(Site):
    """A site of a host whose PlusEarlier value needs an earlier module's output (Falcon-H1's Mamba
    mixer runs before its attention): reading any value of the host reads that output first, while it
    is still ahead of the forward, so attention_output can be read after the attention's interior."""

    def __init__(self, inner: Site, plus: PlusEarlier) -> None:
        self.inner, self.plus = inner, plus

    served = property(lambda self: self.inner.served)
    condition = property(lambda self: self.inner.condition)
    description = property(lambda self: self.inner.description)

    def __getattr__(self, name):
        if name in ("inner", "plus") or name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.inner, name)

    def read(self, host, spec):
        self.plus._earlier(host)
        return self.inner.read(host, spec)

    def write(self, host, spec, value) -> None:
        self.plus._earlier(host)
        self.inner.write(host, spec, value)

    def describe(self, module) -> str:
        return self.inner.describe(module)


@dataclass(eq=False)
class Derived(Site):
    """A read-only value computed from what a site serves (``next_token_probs``, ``input_size``)."""

    source: Read
    compute: Callable[[Any], Any]
    description: str | None = None
    condition: Condition | None = None

    def read(self, host, spec):
        return self.compute(self.source.read(host, spec))

    def describe(self, module) -> str:
        return self.source.describe(module)


def where_of(site) -> Where | None:
    """The location a site reads at (a derived value's source's), None for a value that is nowhere."""
    site = site.source if isinstance(site, Derived) else site
    return getattr(site, "where", None)


@dataclass(eq=False)
class Nowhere(Site):
    """A value this checkpoint does not have, with the reason in words."""

    reason: str
    served = False
    description: str | None = None
    condition: Condition | None = None

    def read(self, host, spec):
        raise UnavailableValue(f"{spec.name} is unavailable on {type(module_of(host)).__name__}: {self.reason}")

    def write(self, host, spec, value):
        self.read(host, spec)

    def describe(self, module) -> str:
        return "nowhere: the family does not serve it"


def check_layout(spec: ValueSpec, current, value, model) -> None:
    """Refuse a written value whose shape or dtype differs from the value it replaces."""
    if not isinstance(value, torch.Tensor):
        raise LayoutMismatch(
            f"{spec.name} takes a tensor laid out {spec.layout} = {list(current.shape)}; got {type(value).__name__}"
        )
    if tuple(value.shape) != tuple(current.shape):
        raise LayoutMismatch(
            f"{spec.name} takes {spec.layout} = {list(current.shape)}; got {list(value.shape)}: "
            f"build the replacement from the value you read (e.g. torch.zeros_like)"
        )
    if value.dtype != current.dtype:
        raise LayoutMismatch(
            f"{spec.name} takes {current.dtype} ({spec.layout}); got {value.dtype}: cast it with .to({current.dtype})"
        )


def read_only_sentence(spec) -> str:
    return (f"{spec.name} is read-only ({spec.description}): a write, slice writes included, would not reach the "
            f"model; edit the value it is derived from instead")


def read_where(description: str) -> str:
    """A site's description as the end of "it is read ...": "inside the forward, at the output of X" or "at the
    module's own output"."""
    inside = "inside the forward: "
    if description.startswith(inside):
        return "inside the forward, at " + description[len(inside):]
    return "at " + description


def conditioned_error(spec: ValueSpec, site: Site, model, where: str) -> ConditionedValue:
    return ConditionedValue(
        f"{spec.name} is not served under attn_implementation={model.attn_implementation!r}: it is read "
        f"{read_where(where)}, "
        f"and it {site.condition.text}; load with attn_implementation={site.condition.attn_implementations[0]!r} to read it"
    )

