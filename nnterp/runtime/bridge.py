"""nnterp's one bridge to nnsight's internals, written against nnsight 0.8.1.

Everything nnterp needs beyond nnsight's public API (``TransformersModel``, ``Envoy``, ``.source``,
``.save()``) sits here: the worker a trace's code runs in, reads and swaps at a location, the write-back of
a presented value, the capture workers that serve reads in any order, the tracer whose run takes turns,
``with loss.backward():`` in any order, and the operation numbering of an instrumented forward.
``tests/test_bridge.py`` checks each internal this module relies on, so a new nnsight fails there, by
name, rather than deep in a trace.

What nnterp keeps about one worker (its model, its capture plan, what was captured and served) is one
``WorkerState`` on the worker itself: a trace's code runs in greenlets, which do not share context
variables, and the worker is what every read inside the trace can reach.
"""

from __future__ import annotations

import ast
import contextvars
import functools
import sys
import threading
import weakref
from dataclasses import dataclass, field
from functools import lru_cache, partial
from typing import Any, Callable, NamedTuple

import torch
from greenlet import getcurrent
from nnsight.intervention import backward as nnsight_backward
from nnsight.intervention.eproperty import WriteBack
from nnsight.intervention.interleaver import Interleaver, Mediator, OutOfOrderError
from nnsight.intervention.source import BIND, STATE, Instrument, compiled, decorator_chain, module_body
from nnsight.intervention.tracer import InterleavingTracer
from nnsight.tracing.tracer import WithBlockNotFoundError, push_result

from nnterp.declare.errors import OrderError, UnavailableValue

# =========================================================================== the worker running now
def worker(what: str = ""):
    """The worker (nnsight's mediator) whose code runs now; ``ValueError`` naming ``what`` outside a run."""
    return Mediator.current(what)


def worker_or_none():
    """The worker whose code runs now, or None outside a run."""
    mediator = getattr(getcurrent(), "mediator", None)
    return mediator() if mediator is not None else None


def interleaving(envoy) -> bool:
    """Whether the model ``envoy`` belongs to is running a trace now."""
    return envoy.interleaver.interleaving


def value_at(location: str):
    """What the forward holds at ``location`` now (a module's output, a call's ``(args, kwargs)``)."""
    return Mediator.value(location)


def swap(location: str, value) -> None:
    """Hand the forward ``value`` at ``location`` in place of what it holds (an assignment)."""
    Mediator.swap(location, value)


def occurrence(location: str) -> int | None:
    """How many times the forward has reached ``location`` since the running worker started (None outside a run)."""
    mediator = worker_or_none()
    return mediator.occurrence(location) if mediator is not None else None


def forward_state(path: str) -> str:
    """"running" while the forward of the module at ``path`` has been entered and not left in this run, else
    "idle"."""
    entered = occurrence(f"{path}.input")
    if entered is None:
        return "idle"
    return "running" if entered > occurrence(f"{path}.output") else "idle"


def step_pinned() -> bool:
    """Whether the running worker reads a pinned generation step (inside ``tracer.iter``), where nnsight ends an
    open loop by throwing ``OutOfOrderError`` into the worker and recognising the same object when it comes back."""
    mediator = worker_or_none()
    return mediator is not None and mediator.iteration != 0


def batch_rows() -> tuple[int, tuple[int, int] | None]:
    """The rows of the run nnsight is interleaving, and (start, size) of the current invoke's rows among them
    (None outside several invokes): the batch of a value the model computes on positions folded into rows."""
    mediator = Mediator.current("the batch size")
    batcher = mediator.interleaver.batcher
    total = batcher.total if batcher is not None and batcher.total else 1
    group = mediator.batch_group if batcher is not None and batcher.batching else None
    return total, group


def running_greenlet() -> int:
    """The id of the greenlet running now (a trace's worker, or the model side)."""
    return id(getcurrent())


def narrowed_to_invoke(tensor) -> bool:
    """Whether nnsight already narrowed ``tensor`` to the current invoke's rows (its batcher marks such views)."""
    return getattr(tensor, "_nnsight_batch", False)


# --------------------------------------------------------------------------- the envoy tree
def aliases(envoy) -> dict:
    """The aliases bound on ``envoy``: {alias: the native path it resolved from}."""
    return envoy.__dict__.get("_aliases", {})


def child_names(envoy) -> list:
    """The names of ``envoy``'s native children, in module order."""
    return list(envoy.__dict__.get("_child_map", {}))


def named_children(envoy):
    """(name, child envoy) of ``envoy``'s native children, as nnsight's repr walks them."""
    return envoy._named_children()


def add_alias(envoy, alias: str, name: str) -> None:
    """Mount ``envoy``'s child ``name`` under ``alias`` too (printed ``alias/name``, as nnsight prints its own)."""
    envoy.__dict__[alias] = getattr(envoy, name)
    envoy._aliases[alias] = name


# --------------------------------------------------------------------------- write-back
class Fetched(NamedTuple):
    """What a read that may carry an edit back starts from (``fetch_to_present``)."""

    raw: Any  # what the forward holds at the location (None where ``held`` answers the read)
    held: Any  # the value an earlier read of the same key handed out there, not carried back yet, else None
    visit: int | None  # which visit of the location ``raw`` is, for ``carry_back_later``


def fetch_to_present(location: str, key) -> Fetched:
    """The first half of a read that may carry an edit back into the forward: what the forward holds at
    ``location``, or, where a read of ``key`` there handed out a value the worker has not moved on from, that value
    (``held``), so that both edits go back. The reader presents ``raw``, then hands its value to
    ``carry_back_later``: nnterp's presenting runs in the reader, never called from here."""
    mediator = Mediator.current(location)
    visit = mediator.wanted(location)
    waiting = mediator.transform
    if waiting is not None and waiting.key == (key, location, visit):
        return Fetched(None, waiting.view, visit)
    return Fetched(Mediator.value(location), None, visit)


def carry_back_later(location: str, key, visit: int | None, value, carry_back: Callable) -> None:
    """The second half: ``value`` (presented from a ``fetch_to_present``) is what the worker holds; when it moves
    on, the forward gets ``carry_back()`` at that visit of ``location`` (nnsight's eproperty write-back, without
    keeping an eproperty: sites must pickle for remote runs)."""
    Mediator.current(location).transform = WriteBack(carry_back, value, key, location, visit)


def waiting_carry_back(location: str, key):
    """The ``partial(carry_back, value, raw)`` a read of ``key`` at ``location`` left to carry back when the worker
    moves on, or None."""
    waiting = Mediator.current(location).transform
    if waiting is not None and waiting.eproperty is key and waiting.location == location:
        return waiting.fn
    return None


def drop_pending(location: str, key):
    """The value a read of ``key`` handed out at ``location`` and has not carried back yet, dropped (an assignment
    right after a read replaces it); None where there is none."""
    mediator = Mediator.current(location)
    waiting = mediator.transform
    if waiting is not None and waiting.key[:2] == (key, location):
        mediator.transform = None
        return waiting.view
    return None


# =========================================================================== what nnterp keeps per worker
@dataclass
class WorkerState:
    model: Any = None  # the nnterp model whose trace the worker's code belongs to
    plan: Any = None  # what its code reads out of order (None: code in forward order)
    captured: dict | None = None  # (id(envoy), name, step) -> Captured, where the plan captures anything
    served: list = field(default_factory=list)  # (path, tensor, version) handed out from the captures
    read_only: list = field(default_factory=list)  # (sentence, tensor, version): tensors no in-place write reaches
    outer: Any = None  # a backward block's worker: the trace's worker, whose captures it reads
    unedited: Any = None  # a trace that edits nothing (a cache's): writeback.Unedited, the copies it skips


_STATE = "_nnterp_worker_state"


def state_of(mediator, create: bool = True) -> WorkerState | None:
    state = getattr(mediator, _STATE, None)
    if state is None and create:
        state = WorkerState()
        setattr(mediator, _STATE, state)
    return state


def fresh_state(mediator, model) -> WorkerState:
    """A new state for a worker about to run in ``model``'s trace (a stored edit's worker runs on every trace:
    nothing of an earlier run's is kept)."""
    state = WorkerState(model=model)
    setattr(mediator, _STATE, state)
    return state


def running_state(outer: bool = False) -> WorkerState | None:
    """The state of the worker running now (with ``outer``, the trace's worker's inside a backward block)."""
    mediator = worker_or_none()
    state = state_of(mediator, create=False) if mediator is not None else None
    if outer and state is not None and state.outer is not None:
        return state_of(state.outer, create=False)
    return state


def keep_read_only(sentence: str, value, name: str) -> None:
    """Remember a tensor handed out that an in-place write would not carry into the model (a read-only value, a
    tensor computed from the model's), so that such a write fails the trace with ``sentence`` instead of being
    lost."""
    state_of(Mediator.current(name)).read_only.append((sentence, value, value._version))


def edits_nothing(unedited) -> None:
    """Mark the running worker's trace as one that edits nothing (a cache's), keeping ``unedited`` on it."""
    state_of(worker("a trace that edits nothing")).unedited = unedited


def plan_of_current():
    """The plan of the worker running now (None for code in forward order)."""
    state = running_state()
    return state.plan if state is not None else None


# =========================================================================== reads in any order: capture workers
def trace_workers(model) -> list:
    """The workers of the run about to start on ``model``, in the order nnsight serves them."""
    return list(model.interleaver.mediators)


def code_of(mediator) -> tuple[Any, Any]:
    """(the ``with`` block's AST node, the scope its code runs in) of one worker (node None: no code to read)."""
    return getattr(mediator, "node", None), getattr(mediator, "lcls", None)


def set_trace_workers(model, workers: list) -> None:
    model.interleaver.mediators = workers


@dataclass
class Captured:
    value: Any
    location: str


class CaptureWorker(Mediator):
    """Reads, on every step of the run, one value a worker's code names out of order, for that worker's rows;
    the worker's later reads are served what it kept. One worker per value: a value whose site does not run in
    this forward then holds up no other."""

    def __init__(self, envoy, name: str, store: dict, batch_group) -> None:
        super().__init__(None, {}, {})
        self.envoy, self.name, self.store, self.batch_group = envoy, name, store, batch_group

    def _run(self) -> None:
        step = 0
        try:
            while True:
                self.iteration = step  # pinned: nnsight would read the next step's value otherwise
                value = getattr(self.envoy, self.name)
                # the worker is still being served at the location it read: that is where the value was
                self.store[(id(self.envoy), self.name, step)] = Captured(value, self.pending.provider)
                step += 1
        except (OutOfOrderError, OrderError, UnavailableValue):
            return  # the run ended (or never reached the value, or skips its block): nothing further to capture


def capture_workers(mediator, reads) -> list:
    """One capture worker per (envoy, name) in ``reads``, for ``mediator``'s rows, keeping into its state."""
    store = state_of(mediator).captured
    return [CaptureWorker(envoy, name, store, mediator.batch_group) for envoy, name in reads]


NOTHING = object()


def _passed_entry(envoy, name: str):
    """(state, what was captured for this value) when the forward has passed the value's point on this step;
    (state, None) when it was not captured or is not passed yet (reached now: the ordinary read serves it)."""
    mediator = worker_or_none()
    if mediator is None:
        return None, None
    state = state_of(mediator, create=False)
    if state is not None and state.outer is not None:  # inside a backward: the trace's worker
        mediator = state.outer
        state = state_of(mediator, create=False)
    if state is None or state.captured is None:
        return state, None
    step = mediator.iteration
    if step is None:  # relaxed inside tracer.iter: the step of the visit this worker is being served at
        step = mediator.pending.iteration if mediator.pending is not None else 0
    entry = state.captured.get((id(envoy), name, step))
    if entry is None or mediator.occurrence(entry.location) <= step:
        return state, None
    return state, entry


def captured(envoy, name: str, path: str):
    """The value a capture worker kept for this read, if the forward has passed it; else NOTHING."""
    state, entry = _passed_entry(envoy, name)
    if entry is None:
        return NOTHING
    if isinstance(entry.value, torch.Tensor):
        state.served.append((path, entry.value, entry.value._version))
    return entry.value


def passed(envoy, name: str) -> bool:
    """Whether the forward is past a captured value's point (a write there comes too late)."""
    return _passed_entry(envoy, name)[1] is not None


def capturing() -> bool:
    """Whether the trace's worker running now (the trace's own inside a backward block) captures anything."""
    state = running_state(outer=True)
    return state is not None and state.captured is not None


# =========================================================================== one trace per model at a time
_LOCKS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()
_GUARD = threading.Lock()


def model_lock(module) -> threading.RLock:
    """The lock of one wrapped model (re-entrant: a session's traces run inside one another)."""
    with _GUARD:
        lock = _LOCKS.get(module)
        if lock is None:
            lock = _LOCKS[module] = threading.RLock()
        return lock


class TurnTakingTracer(InterleavingTracer):
    """An ``InterleavingTracer`` whose run holds its model's lock.

    nnsight runs a trace's body in greenlets in lockstep with the forward, on the model's one interleaver, so two
    threads tracing the same model at once corrupt each other (saves lost, greenlet errors). The whole run happens
    in the tracer's ``__exit__``; the lock around it makes concurrent traces from several threads take turns."""

    def __exit__(self, exc_type, exc_value, traceback):
        # looked up here, not kept on the tracer: a remote run pickles the tracer, and a lock does not pickle
        with model_lock(self.envoy._module):
            return super().__exit__(exc_type, exc_value, traceback)


class _Visits(dict):
    """The interleaver's count of visits per location, logging each visit in the order the forward makes it."""

    def __init__(self, counts, log) -> None:
        super().__init__(counts)
        self.log = log

    def __setitem__(self, location, count) -> None:
        self.log.append(location)
        super().__setitem__(location, count)


class logging_visits:
    """Around a trace: ``log`` lists every location the forward reaches, in the order it reaches them."""

    def __init__(self, model) -> None:
        self.interleaver, self.log = model.interleaver, []

    def __enter__(self) -> list:
        self.interleaver.counts = _Visits(self.interleaver.counts, self.log)
        return self.log

    def __exit__(self, *exc) -> None:
        self.interleaver.counts = dict(self.interleaver.counts)


# =========================================================================== gradients in any order
#: the interleaver of the ``with loss.backward():`` block running now, in this thread
_BACKWARD: contextvars.ContextVar = contextvars.ContextVar("nnterp_backward", default=None)


def backward_running() -> bool:
    """Whether a ``with loss.backward():`` block runs now, in this thread."""
    return _BACKWARD.get() is not None


def serve_gradient(value_id: int, grad):
    """Hand the running backward block the gradient of the value whose id is ``value_id``: what the block gives
    back (``grad`` itself unless it assigned one)."""
    return _BACKWARD.get().handle(f"{value_id}.grad", grad)


class _KeepingInterleaver(Interleaver):
    """The backward's interleaver, keeping every gradient handed to it (nnterp's hooks on the tensors a value is
    a copy or a product of hand theirs here)."""

    def __init__(self, kept: dict) -> None:
        super().__init__()
        self.kept = kept

    def handle(self, provider, value):
        served = super().handle(provider, value)
        if provider.endswith(".grad"):
            self.kept.setdefault(provider, served)
        return served


def _keep(kept: dict, location: str, grad):
    kept.setdefault(location, grad)
    return None


class AnyOrderBackward(nnsight_backward.BackwardTracer):
    """nnsight's backward tracer, serving a ``.grad`` asked for after its gradient flowed from what was kept; in an
    nnterp trace, the tensors its code names keep their gradients as they flow."""

    @staticmethod
    def grad_targets(node, frame) -> list:
        """The tensors of an nnterp trace whose gradients a backward block's code reads (``install_backward``)."""
        return []

    def execute(self, code) -> None:
        if not self.tensor.requires_grad:
            return super().execute(code)  # nnsight's refusal
        outer = worker_or_none()
        outer_state = state_of(outer, create=False) if outer is not None else None
        in_nnterp = outer_state is not None and outer_state.model is not None and self.node is not None
        frame = self.info.frame
        kept: dict = {}
        interleaver = _KeepingInterleaver(kept)
        mediator = Mediator(code, frame.f_globals, dict(frame.f_locals))
        if in_nnterp:
            state_of(mediator).outer = outer  # standard values read inside the block are the trace's captures
        interleaver.mediators.append(mediator)
        hooks: list = []
        for tensor in (self.grad_targets(self.node, frame) if in_nnterp else ()):
            if tensor.requires_grad:
                hooks.append(tensor.register_hook(partial(_keep, kept, f"{id(tensor)}.grad")))
        seen: set = set()
        served: list = []
        original = torch.Tensor.grad
        nnsight_grad = nnsight_backward._grad_property(interleaver, seen, hooks)

        def getter(tensor):
            location = f"{id(tensor)}.grad"
            if location in kept and id(tensor) not in seen:  # flowed past before the block asked for it
                value = kept[location]
                served.append((location, value, value._version))
                return value
            return nnsight_grad.fget(tensor)

        torch.Tensor.grad = property(getter, nnsight_grad.fset)
        token = _BACKWARD.set(interleaver)
        try:
            with interleaver, torch.autograd.set_multithreading_enabled(False):
                self.fn(self.tensor, *self.args, **self.kwargs)
            interleaver.check_dangling_mediators()
            for location, value, version in served:
                if value._version != version:
                    raise OrderError(
                        "a gradient read after the backward had passed it was edited in place: the edit came too "
                        "late to reach the backward; edit gradients in reverse forward order (the last value first)")
            push_result(frame, mediator.lcls)
        finally:
            _BACKWARD.reset(token)
            torch.Tensor.grad = original
            for handle in hooks:
                handle.remove()


def _retain_named_grads(frame) -> None:
    """A plain ``loss.backward()`` (no ``with``) in an nnterp trace: the tensors whose ``.grad`` the trace's code
    reads retain their gradients, so a read after it gets the gradient rather than torch's None for a non-leaf."""
    worker = worker_or_none()
    state = state_of(worker, create=False) if worker is not None else None
    node = code_of(worker)[0] if state is not None and state.model is not None else None
    for tensor in AnyOrderBackward.grad_targets(node, frame) if node is not None else ():
        if tensor.requires_grad:
            tensor.retain_grad()


@functools.wraps(nnsight_backward._original_backward)
def _backward(tensor, *args, **kwargs):
    tracer = AnyOrderBackward(tensor, nnsight_backward._original_backward, *args, **kwargs)
    try:
        tracer.capture()
    except WithBlockNotFoundError:
        _retain_named_grads(sys._getframe(1))
        return nnsight_backward._original_backward(tensor, *args, **kwargs)
    return tracer


def install_backward(grad_targets: Callable) -> None:
    """``with t.backward():`` enters AnyOrderBackward (nnsight's tracer, outside an nnterp trace);
    ``grad_targets(node, frame)`` names the tensors of an nnterp trace whose gradients are kept as they flow."""
    AnyOrderBackward.grad_targets = staticmethod(grad_targets)
    torch.Tensor.backward = _backward


# =========================================================================== operation numbering
class _KindRecorder(Instrument):
    """nnsight's own numbering, recording whether each label is a call or an assignment."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: set[str] = set()

    def wrap(self, name, fn, args, keywords, node):
        wrapped = super().wrap(name, fn, args, keywords, node)
        if not (isinstance(fn, ast.Name) and fn.id == BIND):
            self.calls.add(self.names[-1])
        return wrapped


@lru_cache(maxsize=None)
def call_labels(source: str, names: tuple[str, ...]) -> frozenset[str]:
    """The labels among ``names`` (nnsight's, for the forward whose source is ``source``) that name a call, not an
    assignment."""
    tree = ast.parse(source)
    tree.body[0].decorator_list = []
    recorder = _KindRecorder()
    recorder.visit(tree)
    if tuple(recorder.names) != tuple(names):  # nnsight changed its numbering: refuse to guess
        raise RuntimeError("nnterp cannot reproduce nnsight's operation numbering for this forward")
    return frozenset(recorder.calls)


def compiled_function(fn: Callable):
    """The compiled source of a function or bound method, decorators peeled (cached by nnsight)."""
    fn = getattr(fn, "__func__", fn)
    inner, _ = decorator_chain(fn)
    return compiled(inner)


def compiled_forward(module):
    """The compiled source of the forward a module runs, without instrumenting the module."""
    state = module.__dict__.get(STATE)  # a wrapped module keeps its own forward on its state
    return compiled_function(state.original if state is not None else module_body(module))


def is_instrumented(module) -> bool:
    """Whether the module runs nnsight's instrumented forward (``.source`` was installed)."""
    state = module.__dict__.get(STATE)
    return state is not None and state.sourced
