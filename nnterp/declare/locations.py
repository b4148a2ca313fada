"""Locations: where in a forward a standard value is found, and which element of what is there.

A location is the host's own input or output, a child module's, or an operation inside the forward (a call or an
assignment, possibly nested in a call), named by its callee and resolved to nnsight's label at run time. An element
picks the tensor out of what is found there (an output's first item, a call's argument, an item of a list argument).
A condition says under which attention implementation a location exists.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, replace
from typing import Any

import torch

from nnterp.declare import labels
from nnterp.declare.engine import engine, module_of
from nnterp.declare.errors import UnavailableValue
from nnterp.declare.vocabulary import EAGER, SDPA


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


@dataclass(frozen=True)
class ChildInside(Child):
    """A child module the host's forward calls inside one of the host's own methods (``inside``: Evolla's adapter
    calls attention_norm inside self.cross_attention). Read inside a trace, it first drills into that call, as a
    value nested in it would, so that the values nested in the call can still be read after this one."""

    inside: str = ""

    def target(self, host):
        found = super().target(host)
        if engine.interleaving(host):
            source = host.source
            getattr(source, Call(self.inside)._label(source.compiled, self.inside)).source  # parks until called
        return found


def Sibling(name: str, key: str = "output") -> Child:  # noqa: N802 - reads as the location it builds
    """A module of the host's block, beside the host."""
    return Child(name, key, from_block=True)


def _block_of(host):
    """The block a host belongs to (the host itself on a block)."""
    node = host
    while getattr(node, "_nnterp_host", None) != "layer":
        node = node.parent
    return node


def block_hosts(layer) -> dict:
    """The hosts of one block, ``{"layer": ..., "attention": ..., "mlp": ...}`` in forward order, a host the block
    lacks left out (a Mamba block has no MLP; ``absent_host_reason`` says why)."""
    hosts = {"layer": layer, "attention": getattr(layer, "self_attn", None), "mlp": getattr(layer, "mlp", None)}
    return {host: envoy for host, envoy in hosts.items() if envoy is not None and hasattr(envoy, "_nnterp_site")}


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
        outer = getattr(source, Call._label(self, source.compiled, self.inside))  # a call, of any site kind
        inner = outer.source  # parks until the enclosing call runs, then drills into what it runs
        return getattr(inner, self._label(inner.compiled, self.callee))

    def instrument(self, host) -> None:
        self._module_of(host).source

    def labels_for(self, module) -> tuple[str, str | None]:
        if self.from_block:  # a module does not know its block: its forward is named by class
            block = getattr(sys.modules[type(module).__module__], self.forward_of)
            forward = labels.compiled_function(block.forward)
            if self.inside is None:
                return self._label(forward, self.callee), None
            called = self.eager or self.inside  # a method of the block (Evolla's self.cross_attention)
            function = getattr(block, called[len("self."):]) if called.startswith("self.") else \
                sys.modules[block.__module__].__dict__.get(called)
            return self._label(labels.compiled_function(function), self.callee), Call._label(self, forward, self.inside)
        module = _walk(module, self.child)
        forward = labels.compiled_forward(module)
        if self.inside is None:
            return self._label(forward, self.callee), None
        outer = Call._label(self, forward, self.inside)
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
        calls = engine.call_labels(compiled_source.source, tuple(compiled_source.names))
        found = [name for name in compiled_source.names
                 if name not in calls and name.startswith(prefix) and name[len(prefix):].isdigit()]
        if not -len(found) <= self.occurrence < len(found):
            raise UnavailableValue(f"this forward does not make assignment {self.occurrence} of {callee}; "
                                   f"the family module's site is out of date")
        return found[self.occurrence]

    def describe(self, module) -> str:
        label, outer = self.labels_for(module)
        within = f" inside {outer}" if outer is not None else ""
        return f"{self._forward_words(module)}: the value assigned to {self.callee} ({label}){within}"


@dataclass(frozen=True)
class ByDtype(Call):
    """A call made on one of two branches chosen by the model's dtype (XGLM takes its softmax in float32 on one
    branch for float16 and directly on the other): ``occurrence`` under float16, ``otherwise`` under the rest."""

    otherwise: int = 0

    def _chosen(self, module):
        half = next(module.parameters()).dtype == torch.float16
        return replace(self, occurrence=self.occurrence if half else self.otherwise)

    def target(self, host):
        return Call.target(self._chosen(module_of(host)), host)

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
        return getattr(module_of(model).config, "_attn_implementation", None) in self.attn_implementations


#: The interior of kernels chosen at run time through ``ALL_ATTENTION_FUNCTIONS``.
EAGER_ONLY = Condition(
    (EAGER,),
    'needs attn_implementation="eager": other kernels (sdpa, flash) compute the softmax inside one fused call',
)
KERNEL_ARGUMENTS = Condition(
    (EAGER, SDPA),
    'read at the attention kernel chosen at run time: served under attn_implementation="eager" or "sdpa", '
    "whose arguments and output are laid out heads-first as read; other kernels are not verified",
)


def eager_only(family: str, fused: str) -> Condition:
    """The softmax of a family's own attention code runs only on its eager branch."""
    return Condition(("eager",), f'needs attn_implementation="eager": under sdpa {family} calls {fused}, '
                                 f"which computes the softmax inside one fused call")


@dataclass(frozen=True)
class HostContext:
    """What a site that varies per checkpoint or per block is chosen from."""

    config: Any
    module: Any          # the host's native module
    layer: Any = None    # the block's native module (None on the model)
    index: int | None = None
    family: Any = None   # the family serving the model (a wrapper's, whose config is its text config)
