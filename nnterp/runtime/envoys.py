"""The envoys that carry the standard values: one class per host, generated from the vocabulary.

Each standard value is a data descriptor on its host's envoy class; reading or writing it asks
the family's site. The classes are defined here, statically, so they pickle by reference (a
remote run ships the envoy tree).
"""

from __future__ import annotations

from functools import partial
from typing import Any, NamedTuple

import torch
from nnsight import Envoy

from nnterp.compat import names
from nnterp.declare import labels
from nnterp.declare.errors import BadIndex, NnterpError, OrderError, ReadOnlyValue, UnavailableValue, UnknownName
from nnterp.declare.locations import Call, HostContext, Own, envoy_memo
from nnterp.declare.vocabulary import HOST_PATHS, ValueSpec, forward_order_sentence, values_of
from nnterp.declare.writeback import conditioned_error, read_only_sentence, read_where, where_of
from nnterp.runtime import bridge, tracing
from nnterp.runtime.bridge import OutOfOrderError
from nnterp.runtime.status import skipped_on_call, without_image

def _block_of(envoy):
    """The block (layers[i]) a host belongs to: its nearest ancestor that is a block host (the parent,
    or higher where a standard name aliases a module nested in the block: Zamba, DBRX)."""
    while envoy is not None and getattr(type(envoy), "_nnterp_host", None) != "layer":
        envoy = envoy.parent
    return envoy


def block_index(layer) -> int:
    """A block's index in ``model.layers``: its place in the view of interleaved blocks where the family has one
    (``Blocks``), else its index in the stack's module list, the last part of its path."""
    index = layer.__dict__.get("_nnterp_index")
    return index if index is not None else int(layer.path.rsplit(".", 1)[-1])


def absent_host_reason(model, layer, host: str) -> str:
    """Why a block has no ``host`` (the family's reason where it declares one)."""
    spec = values_of(host, model.family.groups)[0]
    site = model.family.site(spec.name, layer._nnterp_context())
    module_name = HOST_PATHS[host].rsplit(".", 1)[-1]
    return site.reason if not site.served else f"this block has no {module_name} module"


def standard_path(envoy) -> str:
    """``model.layers[3].self_attn`` for an envoy whose native path is ``model.model.layers.3.self_attn``."""
    host = envoy._nnterp_host
    if host == "model":
        return "model"
    layer = envoy if host == "layer" else _block_of(envoy)
    return f"model.layers[{block_index(layer)}]" + {"layer": "", "attention": ".self_attn", "mlp": ".mlp"}[host]


class Reading(NamedTuple):
    """One standard value on one host, resolved from its family's site at the host's first read or write: what every
    read and write checks, here, before asking the site once (the site reads through the runtime's operations)."""

    spec: ValueSpec
    site: Any
    path: str  # the value's standard path, ``model.layers[3].self_attn.attention_output``
    where: Any  # the site's location (``where_of``)
    #: a condition the site declares (an attention implementation), asked on every read: it is the loaded model's
    condition: Any
    #: whether a read instruments the host first (``_instrument_first``): where any of the host's values is read at an
    #: operation of its forward, but not for its own output, after which nothing of its forward runs
    instruments: bool
    #: what a call's inputs may make unavailable, asked only where the model declares it: a wrapper's image values on
    #: a call without an image, a block kind's block (cross-attention) on a call that skips it
    on_call: tuple


def _reading(envoy, spec: ValueSpec) -> Reading:
    """The host's ``Reading`` of ``spec``: all of the host's values are resolved at its first read or write."""
    readings = envoy.__dict__.get("_nnterp_readings")
    if readings is None:
        readings = _resolved(envoy, None, None)
        object.__setattr__(envoy, "_nnterp_readings", readings)
    reading = readings.get(spec.name)
    if reading is None:  # a value of a group the family does not list: its site says why it is unavailable
        operations = any(isinstance(held.where, Call) for held in readings.values())
        reading = readings[spec.name] = _resolved(envoy, [spec], operations)[spec.name]
    return reading


def _resolved(envoy, specs, operations: bool | None) -> dict:
    """The readings of ``specs`` on a host (None: all of its values), from its family's sites; ``operations``:
    whether the host reads inside its forward (None: worked out from these, all of the host's values)."""
    specs = envoy._nnterp_specs() if specs is None else specs
    sites = [envoy._nnterp_site(spec.name) for spec in specs]
    wheres = [where_of(site) for site in sites]
    if operations is None:
        operations = any(isinstance(where, Call) for where in wheres)
    path, family = standard_path(envoy), envoy.root._nnterp_state.family
    readings = {}
    for spec, site, where in zip(specs, sites, wheres):
        named = f"{path}.{spec.name}"
        on_call = tuple(check for check, applies in (
            (_imageless, spec.name == "image_features" and getattr(family, "wrapper", None) is not None),
            (partial(_skipped, named, spec.name), family.block.may_skip)) if applies)
        readings[spec.name] = Reading(spec, site, named, where, site.condition if site.served else None,
                                      operations and not (isinstance(where, Own) and where.key == "output"), on_call)
    return readings


def _imageless(envoy) -> str | None:
    model = envoy.root
    imageless = without_image(model, model._nnterp_state.call_inputs)
    return None if imageless is None else f"model.image_features is read on a call with an image: {imageless}"


def _skipped(path: str, name: str, envoy) -> str | None:
    skipped = skipped_on_call(envoy, envoy.root, name)
    return None if skipped is None else f"{path} does not run on this call: {skipped}"


class StandardValue:
    """A standard value on its host: reads and writes go through the family's site, resolved once per host."""

    def __init__(self, spec: ValueSpec) -> None:
        self.spec = spec
        self.__doc__ = f"{spec.layout}: {spec.description}"

    def _reading(self, envoy) -> Reading:
        """The value's reading on this host, once its checks pass: served on this load and this call, in a trace."""
        reading = _reading(envoy, self.spec)
        if reading.condition is not None and not reading.condition.holds(envoy.root):
            raise conditioned_error(self.spec, reading.site, envoy.root, reading.site.describe(envoy._module)) from None
        if not bridge.interleaving(envoy):
            raise NnterpError(
                f"{self.spec.name} is served inside a trace: read it as "
                f"`with model.trace(prompt): {HOST_PATHS[self.spec.host]}.{self.spec.name}.save()`"
            )
        for unavailable in reading.on_call:
            sentence = unavailable(envoy)
            if sentence is not None:
                raise UnavailableValue(sentence)
        return reading

    def __get__(self, envoy, owner=None):
        if envoy is None:
            return self
        reading = self._reading(envoy)
        if reading.instruments and not envoy.__dict__.get("_nnterp_instrumented"):
            _instrument_first(envoy)
        # an out-of-order read of this trace's code: served what the forward passed
        kept = bridge.captured(envoy, self.spec.name, reading.path)
        if kept is not bridge.NOTHING:
            return kept
        try:
            value = reading.site.read(envoy, self.spec)
        except OutOfOrderError:
            _reraise_inside_loops()
            raise self._order_error(envoy, reading) from None
        if self.spec.read_only:
            if isinstance(value, torch.Tensor):
                bridge.keep_read_only(read_only_sentence(self.spec), value, self.spec.name)
            elif isinstance(value, tuple):
                value = ReadOnlyTuple(value, self.spec)
        return value

    def __set__(self, envoy, value) -> None:
        if isinstance(value, Envoy):  # nnsight wiring a native child of this name: kept as E_<name>, as nnsight does
            object.__setattr__(envoy, f"E_{self.spec.name}", value)
            return
        if self.spec.read_only:
            raise ReadOnlyValue(read_only_sentence(self.spec))
        reading = self._reading(envoy)
        if bridge.passed(envoy, self.spec.name):
            raise self._order_error(envoy, reading, writing=True)
        if reading.instruments and not envoy.__dict__.get("_nnterp_instrumented"):
            _instrument_first(envoy)
        try:
            reading.site.write(envoy, self.spec, value)
        except OutOfOrderError:
            _reraise_inside_loops()
            raise self._order_error(envoy, reading, writing=True) from None

    def _order_error(self, envoy, reading: Reading, writing: bool = False) -> OrderError:
        path, site = reading.path, reading.site
        plan = bridge.plan_of_current()
        first = plan.first(*tracing.path_key(path)) if plan is not None else None
        if writing and first:
            return OrderError(
                f"{path} is written after the forward computed it: the trace asked for {first} first, which the "
                f"forward computes later; edits follow the forward's order: write it before that read"
            )
        never_ran = _never_ran(envoy, reading.where)
        if never_ran:
            return OrderError(
                f"{path} is read {read_where(site.describe(envoy._module))}, which did not run in this forward "
                f"(a branch not taken, a skipped module, or a generation that stopped early)"
            )
        installed = envoy.__dict__.get("_nnterp_installed_by")
        if installed is not None and installed[0] == bridge.running_greenlet() and installed[1] == "running":
            return OrderError(
                f"{path} is read inside a forward the trace had already entered through one of its native modules "
                f"before asking for it, and operations inside a forward are instrumented on first use: call "
                f"model.instrument() once before tracing"
            )
        unsure = "" if never_ran is False else ", or its site never ran in this forward"
        verb = "written" if writing else "asked for"
        return OrderError(
            f"{path} was {verb} after the forward had passed it{unsure}, where nnterp could not see it coming (the "
            f"trace's own code is read before the run, and what it names out of order is captured; a helper "
            f"function's or a getattr's reads are not): write it in the with block, or in forward order "
            f"({forward_order_sentence()})"
        )


def _reraise_inside_loops() -> None:
    """Inside ``tracer.iter`` nnsight ends an open loop by throwing OutOfOrderError into the worker and
    recognising the same object when it comes back: keep it when a step is pinned."""
    if bridge.step_pinned():
        raise


def _instrument_first(envoy) -> None:
    """Instrument a host whose values include operations of its forward before reading any of them (``Reading``
    says which reads do): once its forward has started, operations installed later never fire in that run. A model
    read only at module boundaries keeps its uninstrumented forwards (each instrumented operation costs a few
    handoffs per call)."""
    if bridge.is_instrumented(envoy._module):  # by an earlier read or model.instrument(): nothing left to do
        object.__setattr__(envoy, "_nnterp_instrumented", True)
        return
    # remembered for the error message: installed by this trace's worker, too late if the module's forward was
    # running (a read of one of its native children came first)
    object.__setattr__(envoy, "_nnterp_installed_by", (bridge.running_greenlet(), bridge.forward_state(envoy.path)))
    envoy.source  # do not pickle: an id


class ReadOnlyTuple(tuple):
    """A read-only value that is a tuple (input_size): an item write is refused in the sentence of the others."""

    def __new__(cls, items, spec):
        made = super().__new__(cls, items)
        made._spec = spec
        return made

    def __setitem__(self, key, value):
        raise ReadOnlyValue(read_only_sentence(self._spec))

    def __reduce__(self):
        return tuple, (tuple(self),)


def _never_ran(envoy, where) -> bool | None:
    """Whether the location ``where`` (a site's) was not visited at all in this run (None: cannot tell)."""
    if where is None or isinstance(where, Call):
        return None
    try:
        location = f"{where.target(envoy).path}.{where.key}"
    except Exception:
        return None
    visits = bridge.occurrence(location)
    return None if visits is None else visits == 0


class StandardHost:
    """Mixin for every envoy that hosts standard values."""

    _nnterp_host = "model"

    def _nnterp_site(self, name: str):
        sites = envoy_memo(self, "_nnterp_sites")
        site = sites.get(name)
        if site is None:
            site = sites[name] = self.root._nnterp_state.family.site(name, self._nnterp_context())
        return site

    def _nnterp_context(self):
        config = self.root._nnterp_state.config
        if self._nnterp_host == "model":
            return HostContext(config, self._module, family=self.root._nnterp_state.family)
        layer = self if self._nnterp_host == "layer" else _block_of(self)
        return HostContext(config, self._module, layer._module, block_index(layer),
                           self.root._nnterp_state.family)

    def _nnterp_specs(self):
        return values_of(self._nnterp_host, self.root._nnterp_state.family.groups)

    def _nnterp_sites_names(self) -> list[str]:
        return [spec.name for spec in self._nnterp_specs()]

    def _nnterp_value_lines(self) -> list[str]:
        state = self.root._nnterp_state
        specs = {spec.name: spec for spec in self._nnterp_specs()}
        lines = []
        for name in state.family.declared_first(specs):
            spec, site = specs[name], self._nnterp_site(name)
            if not site.served:
                lines.append(f"({name}): Unavailable: {site.reason}")
                continue
            description = site.description or spec.description
            arrow = f" -> {spec.layout}" if spec.layout.dims else ""
            lines.append(f"({name}){arrow}: {description}")
        return lines

    def __getattr__(self, name: str):
        try:
            return super().__getattr__(name)
        except AttributeError:
            if name.startswith("_"):
                raise
            if self._nnterp_host == "layer" and name in ("self_attn", "mlp"):
                family = self.root._nnterp_state.family.name
                raise UnknownName(name, self.path, [], missing=f"this {family} block has no {name} module, so "
                                  f"its {'attention' if name == 'self_attn' else 'MLP'} values are unavailable "
                                  f"(model.support() says why)") from None
            # the host's own values, and the modules this envoy has (its children and their standard aliases)
            values = [spec.name for spec in self._nnterp_specs()]
            modules = [*bridge.child_names(self), *bridge.aliases(self)]
            raise UnknownName(name, self.path, values + modules, values=values, where=partial(_where_for_error, self),
                              advice=names.advice) from None


def _where_for_error(envoy) -> tuple:
    """(standard path, host, block index, block kind) of an envoy, for an UnknownName's message."""
    layer = None if envoy._nnterp_host == "model" else block_index(_block_of(envoy))
    state = envoy.root._nnterp_state
    return standard_path(envoy), envoy._nnterp_host, layer, state.family.block.kind(state.config)


def _addindent(text: str, spaces: int) -> str:
    first, *rest = text.split("\n")
    return "\n".join([first, *[" " * spaces + line for line in rest]])


def _with_values(envoy, text: str) -> str:
    lines = envoy._nnterp_value_lines()
    if not lines:
        return text
    body = "\n  ".join(lines)
    if text.endswith("\n)"):
        return text[:-2] + "\n  " + body + "\n)"
    head = text[:-1] if text.endswith("()") else text.rsplit("(", 1)[0] + "("
    return head + "\n  " + body + "\n)"


class _HostEnvoy(StandardHost, Envoy):
    def __repr__(self) -> str:
        if isinstance(self._module, torch.nn.ModuleList):  # a container of hosts: its member prints the values
            return super().__repr__()
        return _with_values(self, super().__repr__())


class LayerEnvoy(_HostEnvoy):
    """A block: ``layers[i]``."""

    _nnterp_host = "layer"


class AttentionEnvoy(_HostEnvoy):
    """A block's attention (or token mixer): ``layers[i].self_attn``."""

    _nnterp_host = "attention"


class MLPEnvoy(_HostEnvoy):
    """A block's MLP: ``layers[i].mlp``."""

    _nnterp_host = "mlp"


class MethodAttention(StandardHost):
    """A block's attention where it is no module but a method of the block (Evolla's adapter calls its own
    ``cross_attention``): ``layers[i].self_attn`` hosts its values all the same, every one located from the block;
    its input and output are that call's in the block's forward. Nothing is added to the model: this is nnterp's
    object, kept on the block's envoy."""

    _nnterp_host = "attention"

    def __init__(self, block, method: str) -> None:
        self.parent, self._method = block, method

    # the block's: its module, the model, the run, and the operations of its forward
    _module = property(lambda self: self.parent._module)
    root = property(lambda self: self.parent.root)
    interleaver = property(lambda self: self.parent.interleaver)
    source = property(lambda self: self.parent.source)

    def _label(self) -> str:
        callee = f"self.{self._method}"
        return Call(callee)._label(labels.compiled_forward(self._module), callee)

    @property
    def path(self) -> str:
        return f"{self.parent.path}.source.{self._label()}"

    def _call(self):
        return getattr(self.parent.source, self._label())

    @property
    def output(self):
        return self._call().output

    @property
    def inputs(self):
        return self._call().inputs

    def __repr__(self) -> str:
        return _with_values(self, f"{type(self._module).__name__}.{self._method}()")


for _cls in (LayerEnvoy, AttentionEnvoy, MLPEnvoy, MethodAttention):
    for _spec in values_of(_cls._nnterp_host, ("core", "moe", "gate")):
        setattr(_cls, _spec.name, StandardValue(_spec))


class ModulesEnvoy(Envoy):
    """A list of modules (``model.layers``): an index past its end says the range, as a list would."""

    def __getitem__(self, key):
        if isinstance(key, int) and not isinstance(key, bool) and not -len(self) <= key < len(self):
            n = len(self)

            blocks = getattr(self.root, "layers", None)
            path, what = ("model.layers", "blocks") if getattr(blocks, "_module", None) is self._module else \
                (self.path, "modules")
            raise BadIndex(f"{path}[{key}] is out of range: it holds {n} {what}, index 0 to {n - 1} (or -{n} to -1)")
        return super().__getitem__(key)


class Blocks:
    """``model.layers`` where the forward runs blocks that are no members of the stack's module list among its
    members (``blocks.Interleaved``): nnterp's view of the block envoys nnsight already has, in forward order, so
    ``layers[i]`` is the i-th block the stream passes through; nothing is registered on the model."""

    def __init__(self, blocks: list) -> None:
        self._blocks = list(blocks)
        for index, block in enumerate(self._blocks):
            object.__setattr__(block, "_nnterp_index", index)

    def __len__(self) -> int:
        return len(self._blocks)

    def __iter__(self):
        return iter(self._blocks)

    def __getitem__(self, key):
        if isinstance(key, slice):
            return self._blocks[key]
        n = len(self._blocks)
        if isinstance(key, bool) or not isinstance(key, int):
            raise BadIndex(f"model.layers[{key!r}] is no block: index the blocks with an int, 0 to {n - 1} "
                           f"(or -{n} to -1), or a slice")
        if not -n <= key < n:
            raise BadIndex(f"model.layers[{key}] is out of range: it holds {n} blocks, index 0 to {n - 1} "
                           f"(or -{n} to -1)")
        return self._blocks[key]

    def __repr__(self) -> str:
        # each block under its place in layers and its native path
        lines = [f"({i} = {block.path}): {_addindent(repr(block), 2)}" for i, block in enumerate(self._blocks)]
        return "Blocks(\n  " + "\n  ".join(lines) + "\n)"


ENVOYS = {torch.nn.ModuleList: ModulesEnvoy, "layers.*": LayerEnvoy, "layers.*.self_attn": AttentionEnvoy,
          "layers.*.mlp": MLPEnvoy}
