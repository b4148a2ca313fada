"""Reads in any order: a trace's code is read before the run, and what it names out of order is captured as
the forward passes it (see ``Captures`` below; the capture workers themselves are nnsight's, in ``bridge``)."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any


from nnterp.compat.names import resolve
from nnterp.declare.engine import module_of
from nnterp.declare.errors import OrderError, ReadOnlyValue
from nnterp.declare.labels import module_calls
from nnterp.declare.locations import Call, Child, block_hosts, envoy_memo
from nnterp.declare.vocabulary import BY_NAME, FORWARD_ORDER
from nnterp.declare.writeback import where_of
from nnterp.runtime import bridge
from nnterp.runtime.status import status, status_of

# =========================================================================== reads in any order
# A trace's code is read once per ``with`` block (nnsight parses it already): the standard values it names, in
# code order, with the block each names where the code fixes it. Where the code names a value after something
# the forward computes later, that value is captured as the forward passes it, by a worker registered ahead of
# the trace's own, and the later read is served the captured tensor: the object an ordered read gets. Code in
# forward order makes no plan and runs exactly as before.

#: nnsight's own reads of a host's boundary, and the standard value they stand at (for ordering only)
_NATIVE_AT = {
    ("layer", "input"): "layer_input", ("layer", "output"): "layer_output",
    ("attention", "input"): "attention_norm_output", ("attention", "inputs"): "attention_norm_output",
    ("attention", "output"): "attention_output",
    ("mlp", "input"): "mlp_input", ("mlp", "inputs"): "mlp_input", ("mlp", "output"): "mlp_output",
}
_HOST_ATTRIBUTES = {"self_attn": "attention", "mlp": "mlp"}


@dataclass(frozen=True)
class Symbol:
    """A block index the code does not fix. ``loop`` numbers one run of a loop whose index only grows (-1: an
    index nothing is known about), ``turn`` the pass over its body (the code is read twice per loop)."""

    name: str
    loop: int = -1
    turn: int = 0


@dataclass(frozen=True)
class Access:
    """One standard value the code names: read or written, on which block (None: a model value)."""

    name: str
    block: Any
    text: str
    write: bool = False
    native: bool = False  # a module's .input/.output: ordered against, never captured
    #: a name given as text (``model.value("blocks.3.hook_resid_post")``), resolved against the model
    literal: str | None = None
    #: the code of an object whose ``latents`` are read (a splice), resolved in the trace's scope
    holder: str | None = None
    #: a call handed the model (a tool): it may read anything, so what the code names after it is captured
    opaque: bool = False
    #: the object a holder names, once resolved
    target: Any = field(default=None, compare=False, hash=False)


class _Reader:
    """Walks a ``with`` body in evaluation order, collecting its accesses."""

    def __init__(self, models=()) -> None:
        self.models = set(models)  # the code of the model, as the trace spells it
        self.found: list[Access] = []
        self.indices: dict[str, Any] = {}  # name -> Symbol, for block indices bound by loops
        self.hosts: dict[str, tuple] = {}  # name -> (block, host) for names bound to a block or its sublayer
        self.loops = 0

    # -- statements
    def body(self, statements) -> None:
        for statement in statements:
            self.statement(statement)

    def statement(self, node) -> None:
        if isinstance(node, (ast.For, ast.AsyncFor)):
            self.expr(node.iter)
            self.loop(node.target, node.iter, lambda: self.body(node.body))
            self.body(node.orelse)
        elif isinstance(node, ast.While):
            for _ in range(2):
                self.expr(node.test)
                self.body(node.body)
            self.body(node.orelse)
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            if any(_is_call(item.context_expr, "backward") for item in node.items):
                # runs after the forward: what it names is read once the forward is over (served what was captured)
                self.found.append(Access("", None, _unparse(node.items[0].context_expr), opaque=True))
                self.body(node.body)
                return
            if any(_own_worker(item.context_expr) for item in node.items):
                return  # an invoke runs as its own worker
            for item in node.items:
                self.expr(item.context_expr)
            self.body(node.body)
        elif isinstance(node, ast.Assign):
            self.expr(node.value)
            for target in node.targets:
                self.target(target, node.value)
        elif isinstance(node, ast.AugAssign):
            self.expr(node.target, load=True)
            self.expr(node.value)
            self.target(node.target, None)
        elif isinstance(node, ast.AnnAssign):
            if node.value is not None:
                self.expr(node.value)
                self.target(node.target, node.value)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            return  # not run here
        elif isinstance(node, ast.If):
            self.expr(node.test)
            self.body(node.body)
            self.body(node.orelse)
        else:
            for child in ast.iter_child_nodes(node):
                (self.statement if isinstance(child, ast.stmt) else self.expr)(child)

    def target(self, target, value) -> None:
        if isinstance(target, ast.Name):
            self.indices.pop(target.id, None)
            located = self.locate(value) if value is not None else None
            if located is not None and located[1] is not None:
                self.hosts[target.id] = located
            else:
                self.hosts.pop(target.id, None)
        elif isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                self.target(element, None)
        else:
            self.expr(target)

    def loop(self, target, iterable, run) -> None:
        """Run ``run`` twice, as two passes of the loop, with its target bound to a growing index where it is one."""
        if _over_steps(iterable):
            run()  # each step of tracer.iter is a forward of its own
            return
        self.loops += 1
        loop = self.loops if _grows(iterable) else -1
        names = [n.id for n in ast.walk(target) if isinstance(n, ast.Name)]
        over = iterable.args[0] if _is_call(iterable, "enumerate") and iterable.args else iterable
        over_layers = _is_layers(over)
        for turn in (0, 1):
            for position, name in enumerate(names):
                self.hosts.pop(name, None)
                self.indices.pop(name, None)
                symbol = Symbol(names[0] if over is not iterable else name, loop, turn)
                if over_layers and (over is iterable or position == len(names) - 1):
                    self.hosts[name] = (symbol, "layer")
                else:
                    self.indices[name] = symbol
            run()

    # -- expressions
    def expr(self, node, load: bool = False) -> None:
        if node is None:
            return
        if isinstance(node, ast.Attribute):
            self.expr(node.value)
            self.attribute(node, write=isinstance(node.ctx, ast.Store) and not load)
        elif isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            self.comprehension(node, node.generators)
        elif isinstance(node, ast.Lambda):
            return
        elif isinstance(node, ast.Call):
            for child in ast.iter_child_nodes(node):
                self.expr(child)
            self.call(node)
        else:
            for child in ast.iter_child_nodes(node):
                self.expr(child)

    def call(self, node) -> None:
        """A value named as text, and a call handed the model, which may read anything."""
        func, args = node.func, node.args
        if isinstance(func, ast.Attribute) and func.attr == "value" and _unparse(func.value) in self.models \
                and args and isinstance(args[0], ast.Constant) and isinstance(args[0].value, str):
            self.found.append(Access("", None, _unparse(node), write=len(args) > 1, literal=args[0].value))
        elif any(_unparse(a) in self.models for a in [*args, *(k.value for k in node.keywords)]):
            self.found.append(Access("", None, _unparse(node), opaque=True))

    def comprehension(self, node, generators) -> None:
        first, rest = generators[0], generators[1:]
        self.expr(first.iter)

        def run():
            for condition in first.ifs:
                self.expr(condition)
            if rest:
                self.comprehension(node, rest)
            elif isinstance(node, ast.DictComp):
                self.expr(node.key)
                self.expr(node.value)
            else:
                self.expr(node.elt)

        self.loop(first.target, first.iter, run)

    def attribute(self, node, write: bool) -> None:
        spec = BY_NAME.get(node.attr)
        text = _unparse(node)
        if spec is not None:
            block = None
            if spec.host != "model":
                located = self.locate(node.value)
                block = located[0] if located is not None else Symbol(text)
            self.found.append(Access(spec.name, block, text, write=write))
        elif node.attr == "latents" and isinstance(node.value, (ast.Name, ast.Attribute)):
            self.found.append(Access("latents", None, text, write=write, holder=_unparse(node.value)))
        elif node.attr in ("input", "inputs", "output"):
            located = self.locate(node.value)
            if located is not None and (located[1], node.attr) in _NATIVE_AT:
                self.found.append(Access(_NATIVE_AT[located[1], node.attr], located[0], text, write, native=True))

    def locate(self, node):
        """(block, host) an expression stands for (host None past a sublayer's own modules), or None."""
        suffix = []
        while True:
            if isinstance(node, ast.Attribute):
                suffix.append(node.attr)
                node = node.value
            elif isinstance(node, ast.Subscript) and _is_layers(node.value):
                return self.index(node.slice), _host_after("layer", reversed(suffix))
            elif isinstance(node, ast.Subscript):
                suffix.append(None)
                node = node.value
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                node = node.func.value
            elif isinstance(node, ast.Name) and node.id in self.hosts:
                block, host = self.hosts[node.id]
                return block, _host_after(host, reversed(suffix))
            else:
                return None

    def index(self, node):
        if isinstance(node, ast.Constant) and isinstance(node.value, int):
            return node.value
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):
            return -node.operand.value
        if isinstance(node, ast.Name) and node.id in self.indices:
            return self.indices[node.id]
        return Symbol(_unparse(node))


def _unparse(node) -> str:
    try:
        return ast.unparse(node)
    except Exception:  # pragma: no cover - ast.unparse handles every parsed node
        return "?"


def _host_after(host, attributes):
    for attribute in attributes:
        if host == "layer" and attribute in _HOST_ATTRIBUTES:
            host = _HOST_ATTRIBUTES[attribute]
        else:
            return None
    return host


def _is_layers(node) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == "layers" or (
        isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice) and node.slice.step is None
        and _is_layers(node.value))


def _is_call(node, name: str) -> bool:
    return isinstance(node, ast.Call) and (
        isinstance(node.func, ast.Name) and node.func.id == name
        or isinstance(node.func, ast.Attribute) and node.func.attr == name)


def _own_worker(node) -> bool:
    return _is_call(node, "invoke") or _is_call(node, "backward")


def _over_steps(node) -> bool:
    """A loop over generation steps: ``tracer.iter[...]`` or ``tracer.all()``."""
    return (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "iter") \
        or _is_call(node, "all")


def _grows(node) -> bool:
    """Whether a loop's index only grows: range with no negative step, the layers (a slice of them), enumerate of
    either, or a literal list of growing ints."""
    if _is_call(node, "enumerate") and node.args:
        return _grows(node.args[0]) or _is_layers(node.args[0])
    if _is_layers(node):
        return True
    if _is_call(node, "range") and isinstance(node.func, ast.Name):
        step = node.args[2] if len(node.args) > 2 else None
        return step is None or (isinstance(step, ast.Constant) and isinstance(step.value, int) and step.value > 0)
    if isinstance(node, (ast.List, ast.Tuple)):
        values = [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, int)]
        return len(values) == len(node.elts) and values == sorted(set(values))
    return False


_ACCESSES: dict[int, tuple] = {}


def _model_code(node) -> set[str]:
    """How a ``with`` block spells the model: what it traces (``model.trace(...)``) and what it reads layers of."""
    found = set()
    for item in getattr(node, "items", ()):
        call = item.context_expr
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr in (
                "trace", "generate", "session"):
            found.add(_unparse(call.func.value))
    for child in ast.walk(node):
        if isinstance(child, ast.Attribute) and child.attr == "layers":
            found.add(_unparse(child.value))
    return found


def accesses(node) -> tuple[Access, ...]:
    """The standard values a ``with`` block's body names, in evaluation order (memoized per block: nnsight keeps
    each block's node for the life of the process)."""
    memo = _ACCESSES.get(id(node))
    if memo is not None and memo[0] is node:
        return memo[1]
    reader = _Reader(_model_code(node))
    try:
        reader.body(node.body)
        found = tuple(reader.found)
    except Exception:  # code this reading does not follow runs as it always did
        found = ()
    _ACCESSES[id(node)] = (node, found)
    return found


# --------------------------------------------------------------------------- the plan
@dataclass
class Plan:
    """What one worker's code needs: the values to capture ({(block or None for every block, name)}; block
    "model" for a model value) and, for each value named after something the forward computes later, that thing."""

    captures: set = field(default_factory=set)
    came_first: dict = field(default_factory=dict)  # (block or None, name) -> the code that came first
    objects: list = field(default_factory=list)  # splices whose latents the code reads out of order

    def first(self, block, name) -> str | None:
        return self.came_first.get((block, name)) or self.came_first.get((None, name))


def _positions(block_order, layers: int):
    ranks = {name: rank for rank, (_, name) in enumerate(block_order)}
    model = {name: rank for rank, name in enumerate(FORWARD_ORDER["model"])}
    readout = {name: rank for rank, name in enumerate(FORWARD_ORDER["readout"])}

    def position(access):
        if access.opaque:
            return layers + 1, 0  # a tool may read up to the end of the forward
        if access.name in model:
            return -1, model[access.name]
        if access.name in readout:
            return layers, readout[access.name]
        rank = ranks.get(access.name)
        if rank is None:
            return None
        block = access.block
        if isinstance(block, int):
            block = block + layers if block < 0 else block
        return block, rank

    return position


def _may_follow(earlier, later, layers: int) -> bool:
    """Whether the forward may compute position ``earlier`` after position ``later``."""
    (b1, r1), (b2, r2) = earlier, later
    if isinstance(b1, Symbol) and isinstance(b2, Symbol) and b1.loop >= 0 and (b1.name, b1.loop) == (b2.name, b2.loop):
        return b1.turn == b2.turn and r1 > r2  # a later pass of a growing loop is a later block
    highest = (layers - 1 if isinstance(b1, Symbol) else b1, r1)
    lowest = (0 if isinstance(b2, Symbol) else b2, r2)
    return highest > lowest


def plan(code_accesses, block_order, layers: int) -> Plan | None:
    """The captures that make ``code_accesses`` read as written; None when they are in forward order."""
    position = _positions(block_order, layers)
    placed = [(access, position(access)) for access in code_accesses]
    placed = [(access, where) for access, where in placed if where is not None]
    result = Plan()
    for j, (access, where) in enumerate(placed):
        culprit = next((earlier.text for earlier, at in reversed(placed[:j]) if _may_follow(at, where, layers)), None)
        if culprit is None:
            continue
        block = "model" if access.block is None else (None if isinstance(where[0], Symbol) else where[0])
        result.came_first.setdefault((block, access.name), culprit)
        if access.target is not None:
            if not access.write:
                result.objects.append(access.target)
        elif not access.write and not access.native and not access.opaque:
            result.captures.add((block, access.name))
    return result if result.came_first else None


_PLANS: dict = {}


def block_order(model) -> tuple:
    """The order this model's blocks compute their values in: the family's own, else FORWARD_ORDER's with the MLP
    norm's values moved beside the attention norm's where the block's forward calls the module they are read at
    before its attention (a parallel block's one norm, or a second norm run first); without a rotary, the unrotated
    queries and keys beside the rotated ones they are. The contract checks it against the order the forward
    reaches the values."""
    memo = envoy_memo(model, "_nnterp_block_order")
    declared = model.family.block.order
    if memo.get("from") is not declared or "order" not in memo:
        memo["from"], memo["order"] = declared, _derived_block_order(model, declared)
    return memo["order"]


_MLP_NORM = (("layer", "mlp_norm_scale"), ("layer", "mlp_norm_output"))


_UNROTATED = {("attention", "attention_queries_unrotated"): ("attention", "attention_queries"),
              ("attention", "attention_keys_unrotated"): ("attention", "attention_keys")}


def _derived_block_order(model, declared) -> tuple:
    order = list(declared or FORWARD_ORDER["block"])
    if not declared and any(_mlp_norm_runs_first(model, layer) for layer in model.layers):
        order = [item for item in order if item not in _MLP_NORM]
        at = order.index(("layer", "attention_norm_output")) + 1
        order[at:at] = _MLP_NORM
    if _without_rotary(model):  # each unrotated value is the rotated one: read where it is, beside it
        order = [item for item in order if item not in _UNROTATED]
        for unrotated, rotated in _UNROTATED.items():
            order.insert(order.index(rotated), unrotated)
    return tuple(order)


def _without_rotary(model) -> bool:
    """Whether every block's unrotated queries and keys are read at the rotated ones' sites (no rotary)."""
    attentions = [hosts["attention"] for hosts in map(block_hosts, model.layers) if "attention" in hosts]
    return bool(attentions) and all(
        attention._nnterp_site(unrotated[1]) is attention._nnterp_site(rotated[1])
        for attention in attentions for unrotated, rotated in _UNROTATED.items())


def _mlp_norm_runs_first(model, layer) -> bool:
    """Whether the block's forward calls the module its mlp_norm_output is read at before its attention."""
    attention = block_hosts(layer).get("attention")
    site = layer._nnterp_site("mlp_norm_output")
    where = where_of(site) if site.served else None
    if attention is None or not isinstance(where, Child):
        return False
    block = module_of(layer)
    try:
        calls = module_calls(block)
        norm = _child_name(block, module_of(where.target(layer)))
        mixer = _child_name(block, module_of(attention))
    except Exception:  # a forward nnterp cannot read: the common order, which the contract checks
        return False
    return norm in calls and mixer in calls and calls.index(norm) < calls.index(mixer)


def _child_name(block, module) -> str | None:
    """The name of the block's child that is, or holds, ``module``."""
    for name, child in block._modules.items():
        if child is module or (child is not None and any(m is module for m in child.modules())):
            return name
    return None


def plan_for(model, node, scope=None) -> Plan | None:
    found = accesses(node)
    holders = any(access.holder is not None for access in found)
    key = (id(node), id(model), model.family.name, model.num_layers)
    if holders:  # the objects a name stands for change from run to run
        return plan(resolved(model, found, scope), block_order(model), model.num_layers)
    if key not in _PLANS:
        _PLANS[key] = plan(resolved(model, found, scope), block_order(model), model.num_layers)
    return _PLANS[key]


def resolved(model, found, scope=None) -> tuple[Access, ...]:
    """The accesses with the names given as text resolved against the model and the splices named looked up in
    the trace's scope; what does not resolve is left out (its read runs as it always did)."""
    from dataclasses import replace

    out = []
    for access in found:
        if access.literal is not None:
            try:
                path = resolve(access.literal, model.num_layers, model.family.block.kind(model._nnterp_state.config))
            except Exception:
                continue
            if path.in_vocabulary:
                out.append(replace(access, name=path.value, block=path.layer, literal=None))
        elif access.holder is not None:
            target = _looked_up(scope, access.holder)
            host = getattr(target, "host_of", None)
            if host is None or getattr(target, "model", None) is not model:
                continue
            out.append(replace(access, name=target.name, block=None if host is model else target.layer, target=target))
        else:
            out.append(access)
    return tuple(out)


def _looked_up(scope, code: str):
    """The object ``code`` (a name, or dotted attributes of one) stands for in a trace's scope, else None."""
    if scope is None:
        return None
    first, *rest = code.split(".")
    try:
        value = scope[first]
        for name in rest:
            value = getattr(value, name)
    except Exception:
        return None
    return value


# --------------------------------------------------------------------------- the run
def _instrument_named(model, node) -> None:
    """Instrument, before the run, every forward whose operations a value the code names is read at: a read of
    a native module inside that forward may come first, and operations instrumented once it runs never fire."""
    done = envoy_memo(model, "_nnterp_instrumented_for")  # the blocks of code whose values are instrumented
    if id(node) in done:
        return
    for access in resolved(model, accesses(node)):
        spec = BY_NAME.get(access.name)
        if spec is None or spec.host == "model" or access.native:
            continue
        blocks = [access.block] if isinstance(access.block, int) and -model.num_layers <= access.block < \
            model.num_layers else range(model.num_layers)
        for index in blocks:
            host = block_hosts(model.layers[index]).get(spec.host)
            site = host._nnterp_site(access.name) if host is not None else None
            if site is None or not status(site, model).available:
                continue
            where = where_of(site)
            if isinstance(where, Call):
                where.instrument(host)
    done[id(node)] = node


def _capture_reads(model, captures) -> list:
    """The (host envoy, name) pairs to capture, in forward order."""
    def served(envoy, name):
        return status_of(envoy, name, model).available

    reads = [(model, name) for name in FORWARD_ORDER["model"] if ("model", name) in captures and served(model, name)]
    order = block_order(model)
    for index, layer in enumerate(model.layers):
        hosts = block_hosts(layer)
        for host, name in order:
            if ((index, name) in captures or (None, name) in captures) and host in hosts \
                    and served(hosts[host], name):
                reads.append((hosts[host], name))
    reads += [(model, name) for name in FORWARD_ORDER["readout"]
              if ("model", name) in captures and served(model, name)]
    return reads


class Captures:
    """Around one run: capture workers ahead of each worker whose code reads out of order; after the run, a
    captured value edited in place (too late for the forward) or a read-only value edited in place (never
    reaching it) fails the trace."""

    def __init__(self, model) -> None:
        self.model, self.capturing, self.all = model, [], []  # capturing: the states of the workers that capture

    def __enter__(self) -> "Captures":
        self.all = bridge.trace_workers(self.model)
        workers = []
        for worker in self.all:
            state = bridge.fresh_state(worker, self.model)  # with the model: a backward in it serves any order
            node, scope = bridge.code_of(worker)
            if node is not None:
                _instrument_named(self.model, node)
            found = plan_for(self.model, node, scope) if node is not None else None
            if found is not None:
                state.plan = found
                reads = _capture_reads(self.model, found.captures) if found.captures else []
                reads += [(target, "latents") for target in found.objects]
                if reads:
                    state.captured, state.served = {}, []
                    workers += bridge.capture_workers(worker, reads)
                    self.capturing.append(state)
            workers.append(worker)
        if self.capturing:
            bridge.set_trace_workers(self.model, workers)
        return self

    def __exit__(self, exc_type, exc_value, traceback) -> None:
        if exc_type is not None:
            return
        for worker in self.all:
            for sentence, value, version in bridge.state_of(worker).read_only:
                if value._version != version:
                    raise ReadOnlyValue(sentence)
        for state in self.capturing:
            for text, value, version in state.served:
                if value._version != version:
                    raise _late_edit(text, state.plan)


def _late_edit(path: str, plan_: Plan | None):
    block, name = path_key(path)
    first = plan_.first(block, name) if plan_ is not None else None
    why = f" (the trace asked for {first} first)" if first else ""
    return OrderError(
        f"{path} was edited after the forward had passed it{why}: the edit came too late to reach the model; "
        f"edits follow the forward's order: make it before reading anything the forward computes later")


def path_key(path: str):
    """(block, name) of ``model.layers[3].self_attn.attention_output``; block "model" for a model value."""
    name = path.rsplit(".", 1)[-1]
    if path.startswith("model.layers["):
        return int(path[len("model.layers["):].split("]", 1)[0]), name
    return "model", name
