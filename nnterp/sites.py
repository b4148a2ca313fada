"""Sites: where a standard value is read, how it is written back, and the sentence that says so.

A site is *where* (the host's own input or output, a child module's, an operation inside the
forward, possibly nested) plus *which element* of what is served there, a *layout* adapter
(heads unflattened, heads moved after positions), and an optional *term* added to it (a sum the
model never materialises). ``Derived`` values are computed from a site; ``Nowhere`` values carry
the reason they do not exist. Every site reads, writes back and describes itself.

In-place edits reach the model by construction: the value is either the live tensor or a view
of it, and where it is neither (a sum, a copy the layout forced) a write-back runs, but only
when the value was edited, so a read alone leaves the forward bit-identical.
"""

from __future__ import annotations

import inspect
import re
import sys
from dataclasses import dataclass, field, replace
from functools import lru_cache, partial
from typing import Any, Callable

import torch
from nnsight.intervention.eproperty import WriteBack
from nnsight.intervention.interleaver import Mediator

from . import labels
from .errors import ConditionedValue, LayoutMismatch, ReadOnlyValue, UnavailableValue
from .vocabulary import ValueSpec


def envoy_memo(envoy, name: str) -> dict:
    """A dict kept on the envoy itself under ``name`` (set past nnsight's attribute handling), for
    what is worked out once per host: its sites, their locations."""
    memo = envoy.__dict__.get(name)
    if memo is None:
        memo = {}
        object.__setattr__(envoy, name, memo)
    return memo


# --------------------------------------------------------------------------- elements
@dataclass(frozen=True)
class Element:
    """Element ``index`` of a tuple the location serves; the whole value when it is not a tuple."""

    index: int = 0

    def get(self, raw):
        return raw[self.index] if isinstance(raw, (tuple, list)) else raw

    def put(self, raw, value):
        if isinstance(raw, (tuple, list)):
            items = list(raw)
            items[self.index] = value
            return type(raw)(items) if isinstance(raw, list) else tuple(items)
        return value


@dataclass(frozen=True)
class Attribute:
    """A field of a ``ModelOutput`` (``logits``)."""

    name: str

    def get(self, raw):
        return getattr(raw, self.name)

    def put(self, raw, value):
        raw[self.name] = value
        return raw


@dataclass(frozen=True)
class Argument:
    """Argument ``index`` (positional) or ``keyword`` of a call, from its ``(args, kwargs)``."""

    index: int | None = 0
    keyword: str | None = None

    def _where(self, raw):
        args, kwargs = raw
        if self.keyword is not None and self.keyword in kwargs:
            return "kw", self.keyword
        if self.index is not None and self.index < len(args):
            return "arg", self.index
        if self.keyword is None and kwargs and self.index == 0:  # first input given by keyword
            return "kw", next(iter(kwargs))
        return None, None

    def get(self, raw):
        kind, at = self._where(raw)
        if kind is None:
            return None
        return raw[0][at] if kind == "arg" else raw[1][at]

    def put(self, raw, value):
        args, kwargs = raw
        kind, at = self._where(raw)
        if kind == "arg":
            args = (*args[:at], value, *args[at + 1:])
        else:
            kwargs = {**kwargs, (at or self.keyword): value}
        return args, kwargs


@dataclass(frozen=True)
class ListItem:
    """Item ``item`` of the list passed as argument ``index`` of a call (``torch.cat([scores, sinks])``)."""

    index: int = 0
    item: int = 0

    def get(self, raw):
        args, kwargs = raw
        return (args[self.index] if self.index < len(args) else kwargs["tensors"])[self.item]

    def put(self, raw, value):
        args, kwargs = raw
        if self.index < len(args):
            items = list(args[self.index])
            items[self.item] = value
            return (*args[:self.index], items, *args[self.index + 1:]), kwargs
        items = list(kwargs["tensors"])
        items[self.item] = value
        return args, {**kwargs, "tensors": items}


@dataclass(frozen=True)
class Whole:
    """The whole value a location serves: a call that returns one tensor, not a tuple."""

    def get(self, raw):
        return raw

    def put(self, raw, value):
        return value


WHOLE = Whole()


# --------------------------------------------------------------------------- layouts
class Same:
    """The native layout is the value's layout."""

    def view(self, native, model):
        return native

    def inverse(self, value, like, model):
        return value


class SplitHeads(Same):
    """``[batch seq heads*dim]`` seen as ``[batch seq heads dim]``, with the model's head count, or the block's own
    (``SplitHeads(heads)``: heterogeneous configs give each layer its own)."""

    def __init__(self, heads: int | None = None) -> None:
        self.heads = heads

    def view(self, native, model):
        return native.unflatten(-1, (self.heads or model.num_heads, -1))

    def inverse(self, value, like, model):
        return value.flatten(-2)


class HeadsAfterPositions(Same):
    """``[batch heads seq dim]`` seen as ``[batch seq heads dim]``."""

    def view(self, native, model):
        return native.transpose(1, 2)

    def inverse(self, value, like, model):
        return value.transpose(1, 2)


class CallPositions(Same):
    """The call's positions of a value the model computes over more positions, as a view on the positions axis
    ``dim``: the first ones where the model pads the ids after them inside its forward (Reformer), the last ones
    where it prepends positions of its own (``from_end``: CPM-Ant's learned prompt). An assignment keeps the other
    positions as they were; ``then`` is the layout applied to the cut value."""

    def __init__(self, dim: int = 1, then: Same = None, from_end: bool = False):
        self.dim, self.then, self.from_end = dim, then or SAME, from_end

    def _span(self, native, model) -> tuple[int, int]:
        """(start, length) of the call's positions in ``native``."""
        total = native.shape[self.dim]
        length = model._nnterp_state.call_length
        length = total if length is None else min(length, total)
        return (total - length if self.from_end else 0), length

    def view(self, native, model):
        return self.then.view(native.narrow(self.dim, *self._span(native, model)), model)

    def inverse(self, value, like, model):
        start, length = self._span(like, model)
        value = self.then.inverse(value, like.narrow(self.dim, start, length), model)
        before = like.narrow(self.dim, 0, start)
        after = like.narrow(self.dim, start + length, like.shape[self.dim] - start - length)
        return torch.cat([before, value, after], dim=self.dim)


def batch_rows() -> tuple[int, tuple[int, int] | None]:
    """The rows of the run nnsight is interleaving, and (start, size) of the current invoke's rows among them
    (None outside several invokes): the batch of a value the model computes on positions folded into rows."""
    mediator = Mediator.current("the batch size")
    batcher = mediator.interleaver.batcher
    total = batcher.total if batcher is not None and batcher.total else 1
    group = mediator.batch_group if batcher is not None and batcher.batching else None
    return total, group


class TokenRows(Same):
    """``[tokens, ...]`` (the positions folded into rows batch-major: a router's input, OPT's MLP half) seen as
    ``[batch seq ...]``: a view, so in-place edits reach the model. The batch is the rows of the call, which the
    module never sees: it is read from the run nnsight is interleaving. Under several invokes each one sees its own
    rows, as for every other value."""

    def view(self, native, model):
        if native.dim() != 2:
            return native
        total, group = batch_rows()
        if group is None:
            return native.unflatten(0, (total, -1))
        start, size = group
        if getattr(native, "_nnsight_batch", False) or native.shape[0] == size:
            return native.unflatten(0, (size, -1))  # nnsight already narrowed it to this invoke's rows
        return native.unflatten(0, (total, -1)).narrow(0, start, size)

    def inverse(self, value, like, model):
        if like.dim() != 2:
            return value
        rows = value.flatten(0, 1)
        if rows.shape[0] == like.shape[0]:
            return rows
        total, (start, size) = batch_rows()  # this invoke's rows of the whole run's tensor
        whole = like.clone()
        whole.unflatten(0, (total, -1))[start:start + size] = value
        return whole


SAME, SPLIT_HEADS, HEADS_AFTER_POSITIONS, TOKEN_ROWS = Same(), SplitHeads(), HeadsAfterPositions(), TokenRows()


class KeyValueGroups(Same):
    """``[batch num_heads seq dim]`` in which each key or value head is repeated for its group of query heads,
    seen as ``[batch num_kv_heads seq dim]`` (the first head of each group); an edit is repeated back over the
    group. Serve it with ``snapshot=True``, so that an in-place edit reaches every copy."""

    def view(self, native, model):
        return native[:, :: model.num_heads // model.num_kv_heads]

    def inverse(self, value, like, model):
        return value.repeat_interleave(model.num_heads // model.num_kv_heads, dim=1)


KEY_VALUE_GROUPS = KeyValueGroups()


class BatchHeads(Same):
    """``[batch*num_heads seq dim]`` (heads folded into the batch for a bmm) seen as ``[batch seq num_heads dim]``;
    a view, so in-place edits reach the model."""

    def view(self, native, model):
        return native.unflatten(0, (-1, model.num_heads)).transpose(1, 2)

    def inverse(self, value, like, model):
        return value.transpose(1, 2).flatten(0, 1)


BATCH_HEADS = BatchHeads()


class FoldedHeads(Same):
    """``[batch*num_heads ...]`` (heads folded into the batch for a bmm) seen heads-first as
    ``[batch num_heads ...]``; a view."""

    def view(self, native, model):
        return native.unflatten(0, (-1, model.num_heads))

    def inverse(self, value, like, model):
        return value.flatten(0, 1)


FOLDED_HEADS = FoldedHeads()


class KeysLast(Same):
    """Keys handed over transposed, ``[batch num_heads head_dim seq]``, seen as ``[batch num_heads seq head_dim]``;
    a view."""

    def view(self, native, model):
        return native.transpose(-1, -2)

    def inverse(self, value, like, model):
        return value.transpose(-1, -2)


KEYS_LAST = KeysLast()


# --------------------------------------------------------------------------- where
class Where:
    """A location relative to a host envoy; ``key`` is ``"input"`` or ``"output"``."""

    key = "output"

    def target(self, host):
        """The nnsight object whose ``path`` the location hangs off (inside a trace)."""
        raise NotImplementedError

    def instrument(self, host) -> None:
        """Install now what reading here needs inside a forward (``model.instrument()``); nothing at a module's
        boundary."""

    def describe(self, module) -> str:
        raise NotImplementedError


@dataclass(frozen=True)
class Own(Where):
    """The host's own input or output."""

    key: str = "output"

    def target(self, host):
        return host

    def describe(self, module) -> str:
        return f"the module's own {self.key}"


@dataclass(frozen=True)
class Child(Where):
    """A module below the host by its path of standard or native names, dotted where it is deeper than a child
    (``"decoder.project_in"``, ``"input_layernorm.0"``), input or output. ``from_block`` starts the path at the
    host's block instead (Gemma 2's post-norms sit on the block, beside the attention and the MLP they
    normalize)."""

    name: str
    key: str = "output"
    from_block: bool = False

    def target(self, host):
        return _walk(_block_of(host) if self.from_block else host, self.name)

    def describe(self, module) -> str:
        if self.from_block:
            return f"the block's {'module' if '.' in self.name else 'child module'} {self.name}'s {self.key}"
        if "." in self.name:
            return f"the module {self.name}'s {self.key}"
        return f"the child module {self.name}'s {self.key}"


def Sibling(name: str, key: str = "output") -> Child:  # noqa: N802 - reads as the location it builds
    """A module of the host's block, beside the host."""
    return Child(name, key, from_block=True)


def _block_of(host):
    """The block a host belongs to (the host itself on a block)."""
    node = host
    while getattr(node, "_nnterp_host", None) != "layer":
        node = node.parent
    return node


def _walk(node, path: str | None):
    """The envoy or module ``path`` (dotted) below ``node``."""
    for part in path.split(".") if path else ():
        node = getattr(node, part)
    return node


def _resolve_callable(module, callee: str):
    """The function a callee spelled in a forward names, for labelling outside a trace."""
    if callee.startswith("self."):
        return _walk(module, callee[len("self."):])
    namespace = sys.modules[type(module).__module__].__dict__
    return namespace.get(callee)


@dataclass(frozen=True)
class Call(Where):
    """An operation inside the host's forward: the call of ``callee`` (dotted, as written).

    ``inside`` names an enclosing call whose function is drilled into at run time (the
    softmax inside the attention kernel); ``eager`` is the function that call runs under an
    eager load, used to name the operation before any trace. ``key="input"`` serves the call's
    ``(args, kwargs)``.
    """

    callee: str
    key: str = "output"
    inside: str | None = None
    eager: str | None = None
    occurrence: int = 0
    #: the call is made in the forward of this module below the host (GPT-Neo's attention wrapper holds the
    #: module that does the arithmetic), not the host's own
    child: str | None = None
    #: the call is made in the forward of the host's block (or of ``child`` below the block): the residual add
    #: the block applies to a sublayer's output, read from that sublayer; ``forward_of`` names the class whose
    #: forward that is, in the host's modeling module, to name the operation outside a trace
    from_block: bool = False
    forward_of: str | None = None

    def _label(self, compiled_source, callee):
        label = labels.call_label(compiled_source, callee, self.occurrence if callee == self.callee else 0)
        if label is None:
            raise UnavailableValue(f"this forward makes no call of {callee}; the family module's site is out of date")
        return label

    def _module_of(self, host):
        return _walk(_block_of(host) if self.from_block else host, self.child)

    def target(self, host):
        source = self._module_of(host).source
        if self.inside is None:
            return getattr(source, self._label(source.compiled, self.callee))
        outer = getattr(source, self._label(source.compiled, self.inside))
        inner = outer.source  # parks until the enclosing call runs, then drills into what it runs
        return getattr(inner, self._label(inner.compiled, self.callee))

    def instrument(self, host) -> None:
        self._module_of(host).source

    def labels_for(self, module) -> tuple[str, str | None]:
        if self.from_block:  # a module does not know its block: its forward is named by class
            forward = labels.compiled_function(getattr(sys.modules[type(module).__module__], self.forward_of).forward)
            return self._label(forward, self.callee), None
        module = _walk(module, self.child)
        forward = labels.compiled_forward(module)
        if self.inside is None:
            return self._label(forward, self.callee), None
        outer = self._label(forward, self.inside)
        function = _resolve_callable(module, self.eager or self.inside)
        return self._label(labels.compiled_function(function), self.callee), outer

    def _forward_words(self, module=None) -> str:
        if self.from_block:
            return f"inside the block's {self.child} forward" if self.child else "inside the block's forward"
        if self.child and module is not None:
            return f"inside {type(_walk(module, self.child)).__name__}'s forward ({self.child})"
        return f"inside {self.child}'s forward" if self.child else "inside the forward"

    def describe(self, module) -> str:
        label, outer = self.labels_for(module)
        what = "the arguments of" if self.key == "input" else "the output of"
        if outer is not None:
            what = "the input of" if self.key == "input" else "the output of"
            return f"{self._forward_words(module)}: {what} {label} inside {outer}"
        return f"{self._forward_words(module)}: {what} {label}"


@dataclass(frozen=True)
class Assigned(Call):
    """The value the ``occurrence``-th assignment to ``callee`` (a local name) binds in the host's forward
    (``-1``: the last one written).

    nnsight instruments an assignment as an operation whose output is the assigned value, so an edit of it
    is what the rest of the forward reads under that name.
    """

    def _label(self, compiled_source, callee):
        prefix = callee.replace(".", "_") + "_"
        calls = labels._call_labels(compiled_source.source, compiled_source.names)
        found = [name for name in compiled_source.names
                 if name not in calls and name.startswith(prefix) and name[len(prefix):].isdigit()]
        if not -len(found) <= self.occurrence < len(found):
            raise UnavailableValue(f"this forward does not make assignment {self.occurrence} of {callee}; "
                                   f"the family module's site is out of date")
        return found[self.occurrence]

    def describe(self, module) -> str:
        label, _ = self.labels_for(module)
        return f"{self._forward_words(module)}: the value assigned to {self.callee} ({label})"


@dataclass(frozen=True)
class ByDtype(Call):
    """A call made on one of two branches chosen by the model's dtype (XGLM takes its softmax in float32 on one
    branch for float16 and directly on the other): ``occurrence`` under float16, ``otherwise`` under the rest."""

    otherwise: int = 0

    def _chosen(self, module):
        half = next(module.parameters()).dtype == torch.float16
        return replace(self, occurrence=self.occurrence if half else self.otherwise)

    def target(self, host):
        return Call.target(self._chosen(host._module), host)

    def labels_for(self, module):
        return Call.labels_for(self._chosen(module), module)


# --------------------------------------------------------------------------- conditions
@dataclass(frozen=True)
class Condition:
    """A value served only under some loads, with the condition in words."""

    attn_implementations: tuple[str, ...]
    text: str

    def holds(self, model) -> bool:
        # the config's field, as nnsight's attn_implementation property reads it, without the envoy lookup
        return getattr(model._module.config, "_attn_implementation", None) in self.attn_implementations


#: The interior of kernels chosen at run time through ``ALL_ATTENTION_FUNCTIONS``.
EAGER_ONLY = Condition(
    ("eager",),
    'needs attn_implementation="eager": other kernels (sdpa, flash) compute the softmax inside one fused call',
)
KERNEL_ARGUMENTS = Condition(
    ("eager", "sdpa"),
    'read at the attention kernel chosen at run time: served under attn_implementation="eager" or "sdpa", '
    "whose arguments and output are laid out heads-first as read; other kernels are not verified",
)


def eager_only(family: str, fused: str) -> Condition:
    """The softmax of a family's own attention code runs only on its eager branch."""
    return Condition(("eager",), f'needs attn_implementation="eager": under sdpa {family} calls {fused}, '
                                 f"which computes the softmax inside one fused call")


# --------------------------------------------------------------------------- write-back
def written_back(location: str, key, present: Callable, carry_back: Callable):
    """The one place nnterp hands nnsight a value to carry back into the forward (nnsight's eproperty read with a
    transform, without keeping an eproperty: sites must pickle for remote runs). ``present(raw)`` makes the value
    from what the forward holds at ``location``; when the worker moves on, ``carry_back(value, raw)`` gives what
    the forward gets instead. A second read before the worker moves on gets the same value (``key`` tells reads
    apart), so both edits go back."""
    mediator = Mediator.current(location)
    occurrence = mediator.wanted(location)
    waiting = mediator.transform
    if waiting is not None and waiting.key == (key, location, occurrence):
        return waiting.view
    raw = Mediator.value(location)
    value = present(raw)
    mediator.transform = WriteBack(partial(carry_back, value, raw), value, key, location, occurrence)
    return value


def drop_pending(location: str, key):
    """The value a read of ``key`` handed out at ``location`` and has not carried back yet, dropped (an assignment
    right after a read replaces it); None where there is none."""
    mediator = Mediator.current(location)
    waiting = mediator.transform
    if waiting is not None and waiting.key[:2] == (key, location):
        mediator.transform = None
        return waiting.view
    return None


def value_at(location: str):
    """What the forward holds at ``location`` now (a module's output, a call's ``(args, kwargs)``)."""
    return Mediator.value(location)


def swap(location: str, value) -> None:
    """Hand the forward ``value`` at ``location`` in place of what it holds (an assignment)."""
    Mediator.swap(location, value)


# --------------------------------------------------------------------------- sites
class Site:
    """Base: a value's location, element, layout and how it reads, writes and describes itself."""

    description: str | None = None
    condition: Condition | None = None
    served = True

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
    interleaver = _backward_interleaver()
    if interleaver is None:
        return None
    factor = site._factor(context.host)
    model = context.model
    value_grad = site.layout.view(grad, model)
    if factor is not None:
        value_grad = value_grad / factor
    served = interleaver.handle(f"{value_id}.grad", value_grad)
    if served is value_grad:
        return None
    if factor is not None:
        served = served * factor
    return site.layout.inverse(served, grad, model)


def _backward_interleaver():
    """The interleaver of the ``with loss.backward():`` block running now: nnsight's Tensor.grad property then
    closes over it."""
    from nnsight.intervention.interleaver import Interleaver

    grad = torch.Tensor.__dict__.get("grad")
    functions = [getattr(grad, "fget", None)]
    for function in functions:  # the getter, and the functions it closes over (nnsight's hook installer)
        for cell in getattr(function, "__closure__", None) or ():
            contents = cell.cell_contents
            if isinstance(contents, Interleaver):
                return contents
            if callable(contents) and len(functions) < 8:
                functions.append(contents)
    return None


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
    def _term(self, host):
        return getattr(host._module, self.plus, None) if self.plus else None

    def _factor(self, host):
        return self.scale(host.root._nnterp_state.config) if self.scale is not None else None

    def _present(self, context, raw):
        host, model = context.host, context.model
        native = self.element.get(raw)
        value = self.layout.view(native, model)
        if self.snapshot:
            value = value.clone()
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
            return self.element.get(Mediator.value(self._location(host)))
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

        return written_back(location, self, present, partial(self._carry_back, context))

    # -- write
    def write(self, host, spec, value) -> None:
        location = self._location(host)
        raw = Mediator.value(location)
        context = _Context(host, host.root)
        current = self._current(context, raw)
        check_layout(spec, current, value, host.root)
        if self.shared:
            current.copy_(value)
            return
        Mediator.swap(location, self._put(context, raw, value))

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
        mediator = Mediator.current(location)
        held = envoy_memo(host, "_nnterp_earlier_outputs")
        if self in held and held[self][0] is mediator:
            return  # read before in this run (an assignment after a read): the worker is past it now
        value = Mediator.value(location)
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
        raise UnavailableValue(f"{spec.name} is unavailable on {type(host._module).__name__}: {self.reason}")

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


# --------------------------------------------------------------------------- values that follow from another's site
@dataclass(eq=False)
class Companion(Site):
    """A value whose site follows from the family's site of another value (``of``): what the activation function
    reads is the input of wherever mlp_activation is read, a norm's scale sits on the module its output is read at.
    ``Family.site`` resolves it, so a family that moves the other value moves this one with it."""

    of: str
    #: (the other value's site, the native module it names or None) -> this value's site
    make: Callable[[Site, Any], Site]
    #: made once per site of the other value, so blocks that share that site share this one
    made: dict = field(default_factory=dict, repr=False)

    def resolve(self, site: Site, context=None) -> Site:
        module = _native_of(site, context)
        key = (id(site), type(module))  # blocks whose modules are of one class share the site made
        found = self.made.get(key)
        if found is None or found[0] is not site:
            found = self.made[key] = (site, self.make(site, module))
        return found[1]


def _native_of(site, context):
    """The native module a Child site names, from the host's context (None where it cannot tell)."""
    where = getattr(site, "where", None)
    if context is None or not isinstance(where, Child):
        return None
    root = context.layer if where.from_block else context.module
    if root is None:
        return None
    from .family import _family_of

    rename = _family_of(context).all_rename
    # a native path renamed to this name, as dotted from the root (a wrapper's language model's) or as its last name
    renamed = [key for key, alias in rename.items()
               if isinstance(key, str) and isinstance(alias, str) and alias.rsplit(".", 1)[-1] == where.name]
    names = [where.name, *renamed, *(key.rsplit(".", 1)[-1] for key in renamed)]
    for name in names:
        try:
            found = _walk(root, name) if "." in name else root._modules.get(name)
        except AttributeError:
            found = None
        if found is not None:
            return found
    return None


def _keyed(where) -> bool:
    return hasattr(where, "key") and hasattr(where, "__dataclass_fields__")


def input_of(site: Site, module, value: str) -> Site:
    """The first argument where ``site`` reads an output (a module's or an operation's), in the same layout."""
    if not site.served:
        return Nowhere(site.reason)
    if not (isinstance(site, Read) and _keyed(site.where) and site.where.key == "output" and site.plus is None
            and site.scale is None and isinstance(site.element, Element)):
        return Nowhere(f"{value} is not read at a call's output here, so there is no call whose input to read")
    from dataclasses import replace

    # a copy taken at the call: a gate split off a fused projection by chunk() is a view torch forbids editing in
    # place; an edit is carried back into the call's argument
    return Read(replace(site.where, key="input"), Argument(0), site.layout, condition=site.condition, snapshot=True)


@dataclass(eq=False)
class RotaryInput(Read):
    """Queries or keys read where they enter the rotary embedding; ``normed_after`` names the norm module the
    attention applies to them after the rotary (RoPE then norm), which the contract applies before comparing them
    with the rotated ones."""

    normed_after: str | None = None


@dataclass(eq=False)
class WholeBeforeSplit(Read):
    """Queries or keys read whole before a partial rotary splits each head: ``rotary_last`` where the rotary dims
    are the head's last (MLA's) rather than its first, ``interleaved`` where the rotary takes them in adjacent pairs
    and returns each pair's first members, then their second (DeepSeek's)."""

    rotary_last: bool = False
    interleaved: bool = False


# --------------------------------------------------------------------------- norm scales
def norm_centres(module) -> bool:
    """Whether a norm subtracts the mean before scaling (a LayerNorm) rather than only dividing by the root mean
    square (an RMSNorm), from its class."""
    name = type(module).__name__.lower()
    return isinstance(module, torch.nn.LayerNorm) or ("layernorm" in name and "rms" not in name)


def norm_eps(module) -> float | None:
    """The eps a norm adds to the mean square: its attribute, or the literal its forward passes (OLMo's
    F.layer_norm(..., eps=1e-5)); None where it has neither."""
    for name in ("variance_epsilon", "eps", "epsilon"):
        value = getattr(module, name, None)
        if isinstance(value, (int, float)):
            return float(value)
    try:
        found = re.search(r"eps=([0-9.eE+-]+)\)", labels.compiled_forward(module).source)
    except Exception:
        found = None
    return float(found.group(1)) if found else None


def not_a_norm(module, value: str) -> str | None:
    """Why a module ``value`` is read at has no scale of the form gain · (input · scale) + bias, else None."""
    if isinstance(module, torch.nn.Identity):
        return f"{value} is read at an Identity: nothing is normed there, so there is no scale"
    if norm_eps(module) is None:
        return (f"{value} is read at {type(module).__name__}, whose output is not one norm's gain · (input · scale) + "
                f"bias (it keeps no eps of its own: a norm wrapped in more, such as a gate)")
    return None


def norm_sums(module) -> bool:
    """Whether a norm divides by the root of the sum of squares (an L2 norm: nGPT's) rather than of their mean."""
    return _class_sums_squares(type(module))


@lru_cache(maxsize=None)
def _class_sums_squares(cls) -> bool:
    # once per class: reading a class's source parses its whole module file (a third of a cache's cost, read per norm)
    try:
        source = inspect.getsource(cls).replace(" ", "")
    except (OSError, TypeError):
        return False
    return ".pow(2).sum(-1" in source and ".pow(2).mean(-1" not in source


def norm_scale(module, x: torch.Tensor) -> torch.Tensor:
    """1 / sqrt(mean square + eps) of ``x`` over its last axis (centred first under a LayerNorm; the sum of
    squares under an L2 norm), in float32."""
    x = x.float()
    if norm_centres(module):
        x = x - x.mean(-1, keepdim=True)
    squares = x.pow(2)
    return torch.rsqrt((squares.sum(-1) if norm_sums(module) else squares.mean(-1)) + norm_eps(module))


def rescaled(module, output: torch.Tensor, old: torch.Tensor, new: torch.Tensor) -> torch.Tensor:
    """A norm's output with its scale ``old`` replaced by ``new``: bias + (output - bias) · new / old, which holds
    whatever the gain (weight, 1 + weight, none), since the gain multiplies the scaled input."""
    bias = getattr(module, "bias", None)
    bias = bias if isinstance(bias, torch.Tensor) else None
    ratio = (new.float() / old.float()).unsqueeze(-1)
    centred = output.float() if bias is None else output.float() - bias.float()
    out = centred * ratio
    return (out if bias is None else out + bias.float()).to(output.dtype)


@dataclass
class _NormContext:
    host: Any
    model: Any
    x: Any
    module: Any


@dataclass(eq=False)
class NormScale(Read):
    """A norm's scale, computed from the norm module's input and served at its output: an edit (in place or an
    assignment) rescales the norm's output to the edited scale, as if the norm had computed it."""

    def _input_location(self, host) -> str:
        return f"{self.where.target(host).path}.input"

    def _norm_input(self, host):
        return Argument(0).get(Mediator.value(self._input_location(host)))

    def read(self, host, spec):
        x = self._norm_input(host)
        context = _NormContext(host, host.root, x, self.where.target(host)._module)
        return self._read_with_writeback(self._location(host), context)

    def _present(self, context, raw):
        scale = norm_scale(context.module, context.x)
        context.original = scale.clone()
        scale._nnterp_version = scale._version
        return scale

    def _carry_back(self, context, value, raw):
        if _version(value) == getattr(value, "_nnterp_version", None):
            return raw
        output = self.element.get(raw)
        return self.element.put(raw, rescaled(context.module, output, context.original, value))

    def write(self, host, spec, value) -> None:
        location = self._location(host)
        waiting = Mediator.current(location).transform
        if waiting is not None and waiting.eproperty is self and waiting.location == location:
            context = waiting.fn.args[0]  # just read here (``x.scale = f(x.scale)``): the norm's input has passed
        else:
            context = _NormContext(host, host.root, self._norm_input(host), self.where.target(host)._module)
            context.original = norm_scale(context.module, context.x)
        raw = Mediator.value(location)
        check_layout(spec, context.original, value, host.root)
        output = rescaled(context.module, self.element.get(raw), context.original, value)
        Mediator.swap(location, self.element.put(raw, output))

    def describe(self, module) -> str:
        return f"computed from {self.where.describe(module).replace('output', 'input')}, applied at its output"


def scale_of(site: Site, module, value: str) -> Site:
    """The scale of the norm whose output ``value`` is read at, where that is a norm module's own output
    (``module``, the native module, None where it is not found)."""
    if not site.served:
        return Nowhere(site.reason)
    if not (isinstance(site, Read) and isinstance(site.where, Child) and site.where.key == "output"
            and type(site) is Read and site.layout is SAME and site.plus is None and site.scale is None):
        return Nowhere(f"{value} is not read at a norm module's own output here, so no norm module's input to scale")
    reason = not_a_norm(module, value) if module is not None else None
    if reason:
        return Nowhere(reason)
    l2 = module is not None and norm_sums(module)
    return NormScale(site.where, site.element, condition=site.condition, description=None if not l2 else (
        "The factor the L2 norm multiplies its input by: 1 / sqrt(sum of squares + eps), in float32"))


# --------------------------------------------------------------------------- per-head contributions
def projection_of(site: Site, host):
    """The native output projection a premix site is read at (its child's or sibling's input), else None."""
    where = getattr(site, "where", None)
    if isinstance(where, Child) and where.key == "input":
        return where.target(host)._module
    return None


def per_head(projection, premix: torch.Tensor) -> torch.Tensor:
    """Each head's slot of ``premix`` [batch seq heads dim] through ``projection``, without its bias:
    [batch seq heads out]. A Linear's (or Conv1D's) weight is split by head; any other projection is called on
    each head's slot alone, less its output on zeros."""
    heads, width = premix.shape[-2], premix.shape[-1]
    weight = getattr(projection, "weight", None)
    if isinstance(projection, torch.nn.Linear) and type(projection).forward is torch.nn.Linear.forward:
        return torch.einsum("bshd,ohd->bsho", premix, weight.view(weight.shape[0], heads, width).to(premix.dtype))
    if type(projection).__name__ == "Conv1D":  # GPT-2's [in, out] weight
        return torch.einsum("bshd,hdo->bsho", premix, weight.view(heads, width, -1).to(premix.dtype))
    eye = torch.eye(heads, dtype=premix.dtype, device=premix.device)
    alone = (premix.unsqueeze(-3) * eye[:, :, None]).flatten(-2)  # [batch seq heads(alone) heads*dim]
    forward = partial(type(projection).forward, projection)  # the module's own arithmetic, outside any hook
    return forward(alone) - forward(torch.zeros_like(alone[..., :1, :]))


@dataclass(eq=False)
class HeadContributions(Site):
    """Every head's contribution through the output projection, derived from attention_premix; read-only."""

    source: Site
    description: str | None = None
    condition: Condition | None = None

    def read(self, host, spec):
        return per_head(projection_of(self.source, host), self.source.read(host, spec))

    def describe(self, module) -> str:
        return f"derived from attention_premix ({self.source.describe(module)}) through that projection"


def contributions_of(site: Site, module, value: str) -> Site:
    if not site.served:
        return Nowhere(site.reason)
    where = getattr(site, "where", None)
    if not (isinstance(where, Child) and where.key == "input"):
        return Nowhere(f"{value} is not read at an output projection module's input here, so there is no "
                       "projection to split by head")
    return HeadContributions(site, condition=site.condition)


# --------------------------------------------------------------------------- attention sinks
SINKS = (
    "; the softmax also takes one learned sink logit per head (self_attn.sinks), appended as a last key column and "
    "dropped after it, so attention_probabilities = softmax([scores, sink])[..., :-1] and each row sums to less "
    "than one"
)


@dataclass(eq=False)
class SinkScores(Read):
    """Attention scores that the model softmaxes together with a per-head sink logit."""

    def softmax(self, scores, module):
        """The probabilities the model computes from these scores: the sink column in, then out."""
        sinks = module.sinks.reshape(1, -1, 1, 1).expand(*scores.shape[:-1], 1).to(scores.dtype)
        return torch.cat([scores, sinks], dim=-1).float().softmax(-1)[..., :-1]


def sink_scores(description: str = "The attention scores, masked, before the sink column is appended" + SINKS):
    """attention_scores read as the first tensor ``torch.cat`` joins inside the eager kernel."""
    return SinkScores(
        Call("torch.cat", "input", inside="attention_interface", eager="eager_attention_forward"), ListItem(0, 0),
        description=description, condition=EAGER_ONLY)
