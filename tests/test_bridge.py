"""The nnsight internals nnterp's bridge (``nnterp/runtime/bridge.py``) relies on, each checked to exist and behave as the
bridge assumes (written against nnsight 0.8.1): a new nnsight fails here, naming the internal, rather than deep
in a trace."""

import inspect

import pytest
import torch
from nnsight import Envoy
from nnsight.intervention import backward as nnsight_backward
from nnsight.intervention.eproperty import WriteBack
from nnsight.intervention.interleaver import Interleaver, Mediator, OutOfOrderError
from nnsight.intervention.source import BIND, STATE, Instrument, compiled, decorator_chain, module_body
from nnsight.intervention.tracer import InterleavingTracer
from nnsight.tracing.tracer import Tracer, WithBlockNotFoundError, push_result

from nnterp import tiny
from nnterp.declare.writeback import carried_back
from nnterp.runtime import bridge
from nnterp.runtime.bridge import CaptureWorker, TurnTakingTracer


@pytest.fixture(scope="module")
def model():
    return tiny.load("llama", attn_implementation="eager")


def _out(model, index=0) -> str:
    return f"{model.layers[index].path}.output"


def _parameters(function) -> list[str]:
    return list(inspect.signature(function).parameters)


# --------------------------------------------------------------------------- the worker running now
def test_mediator_current_is_the_worker_inside_a_run_and_a_value_error_outside(model, prompt):
    with pytest.raises(ValueError, match="the thing"):
        Mediator.current("the thing")
    assert bridge.worker_or_none() is None and bridge.occurrence("anything") is None
    assert not bridge.interleaving(model)
    seen = []
    with model.trace(prompt):
        seen.append(bridge.interleaving(model))
        seen.append(bridge.worker("x") is bridge.worker_or_none())
        seen.append(type(bridge.worker_or_none()).__mro__)
        seen.append(bridge.occurrence(_out(model)))
        model.layers[0].output
        seen.append(bridge.occurrence(f"{model.layers[0].path}.input"))
        seen = nnsight_save(seen)
    assert seen[0] is True and seen[1] is True and Mediator in seen[2]
    assert seen[3:] == [0, 1]  # Mediator.occurrence counts the visits since the worker started


def nnsight_save(value):
    return value.save()


def test_mediator_value_and_swap_read_and_replace_a_location(model, prompt):
    with model.trace(prompt):
        served = bridge.value_at(_out(model, 0)).clone().save()
        bridge.swap(_out(model, 0), torch.zeros_like(served))
        after = model.layers[1].input.save()
        logits = model.logits.save()
    with model.trace(prompt):
        reference = model.layers[0].output.clone().save()
        plain = model.logits.save()
    assert torch.equal(served, reference)
    assert not torch.equal(logits, plain)  # the swap reached the forward
    assert not after.detach().any()


def test_a_write_back_is_carried_back_when_the_worker_moves_on_and_a_second_read_gets_the_same_view(model, prompt):
    """``Mediator.transform`` holds a ``WriteBack(fn, view, eproperty, location, occurrence)``, whose ``key`` is
    ``(eproperty, location, occurrence)``; ``Mediator.flush`` swaps ``fn()`` in when the worker moves on."""
    assert list(WriteBack._fields) == ["fn", "view", "eproperty", "location", "occurrence"]
    assert "transform" in inspect.getsource(Mediator.__init__) and "wanted" in dir(Mediator)
    key = object()
    with model.trace(prompt):
        location = _out(model, 0)
        first = carried_back(location, key, lambda raw: raw * 2, lambda value, raw: value * 0)
        second = carried_back(location, key, lambda raw: raw * 3, lambda value, raw: value)
        same = nnsight_save(first is second)
        carry = nnsight_save(bridge.waiting_carry_back(location, key) is not None)
        after = model.layers[1].input.save()
    assert same and carry
    assert not after.detach().any()  # the carry-back of the first read went to the forward

    with model.trace(prompt):
        location = _out(model, 0)
        carried_back(location, key, lambda raw: raw * 2, lambda value, raw: value * 0)
        dropped = nnsight_save(bridge.drop_pending(location, key) is not None)
        none_left = nnsight_save(bridge.waiting_carry_back(location, key) is None)
        reference = bridge.value_at(location).clone().save()
        after = model.layers[1].input.save()
    assert dropped and none_left
    assert torch.equal(after, reference)  # a dropped write-back is not carried back


def test_the_batch_rows_come_from_the_batcher_and_the_workers_batch_group(model):
    with model.trace() as tracer:
        with tracer.invoke("one two three"):
            first = nnsight_save(bridge.batch_rows())
        with tracer.invoke(["four five six", "seven eight nine"]):
            second = nnsight_save(bridge.batch_rows())
    assert first[0] == second[0] == 3
    assert first[1] == [0, 1] or tuple(first[1]) == (0, 1)
    assert tuple(second[1]) == (1, 2)


def test_a_pinned_step_is_the_mediators_iteration(model, prompt):
    with model.generate(prompt, max_new_tokens=2, do_sample=False) as tracer:
        outside = nnsight_save(bridge.step_pinned())
        pinned = nnsight_save([])
        for _ in tracer.iter[1:2]:
            model.layers[0].output
            pinned.append(bridge.step_pinned())
    assert outside is False
    assert pinned and all(isinstance(p, bool) for p in pinned)


def test_out_of_order_reads_raise_out_of_order_error(model, prompt):
    assert bridge.OutOfOrderError is OutOfOrderError
    with pytest.raises(OutOfOrderError, match="ran past"):
        with model.trace(prompt):
            bridge.value_at(_out(model, 1))
            bridge.value_at(_out(model, 0))


def test_a_value_narrowed_to_an_invoke_is_marked_and_the_greenlet_is_the_workers(model, prompt):
    with model.trace() as tracer:
        with tracer.invoke(prompt):
            alone = nnsight_save(bridge.narrowed_to_invoke(model.layers[0].output))
            inside = nnsight_save(bridge.running_greenlet())
        with tracer.invoke([prompt, prompt]):
            narrowed = nnsight_save(bridge.narrowed_to_invoke(model.layers[0].output))
    assert alone is True and narrowed is True and inside != bridge.running_greenlet()
    with model.trace(prompt):
        whole = nnsight_save(bridge.narrowed_to_invoke(model.layers[0].output))
    assert whole is False


# --------------------------------------------------------------------------- the envoy tree
def test_aliases_and_children_are_as_the_printout_reads_them(model):
    assert bridge.aliases(model)["layers"].endswith("layers") and "layers" not in bridge.child_names(model)
    layer = model.layers[0]
    assert {"self_attn", "mlp"} <= set(bridge.child_names(layer))
    assert [name for name, _ in bridge.named_children(layer)] == bridge.child_names(layer)
    wrapped = Envoy(torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.ReLU()))
    bridge.add_alias(wrapped, "first", "0")
    assert wrapped.first is getattr(wrapped, "0") and bridge.aliases(wrapped) == {"first": "0"}
    assert "(first/0)" in repr(wrapped)


# --------------------------------------------------------------------------- capture workers
def test_a_worker_added_ahead_of_the_trace_runs_in_step_with_the_forward(model, prompt):
    """``Interleaver.mediators`` is the list of workers a run starts, in order; a ``Mediator`` subclass built as
    ``Mediator(None, {}, {})`` with its own ``_run`` reads values there; the end of the run throws OutOfOrderError
    into a worker still waiting; ``pending.provider`` is where a worker is being served."""
    assert _parameters(Mediator.__init__)[:4] == ["self", "code", "glbls", "lcls"]
    with model.trace(prompt):
        workers = bridge.trace_workers(model)
        node, scope = bridge.code_of(workers[-1])  # the trace's own, behind the capture of what follows this call
        first = nnsight_save((type(workers[-1]), type(node).__name__, scope is not None))
        model.logits.save()
    assert first == (Mediator, "With", True)

    # CaptureWorker, as tracing.Captures uses it: ahead of the trace's worker, reading a later block's value
    with model.trace(prompt):
        late = model.layers[1].layer_output.save()
        early = model.layers[0].layer_output.save()  # out of order: served what the capture worker kept
    with model.trace(prompt):
        reference = model.layers[0].layer_output.save()
    assert torch.equal(early, reference) and late.shape == early.shape
    assert issubclass(CaptureWorker, Mediator) and "_run" in CaptureWorker.__dict__


def test_the_state_of_a_worker_is_kept_on_the_worker(model, prompt):
    with model.trace(prompt):
        state = bridge.state_of(bridge.worker())
        same = nnsight_save(bridge.running_state() is state and bridge.state_of(bridge.worker()) is state)
        model.logits.save()
    assert same
    assert bridge.running_state() is None and bridge.plan_of_current() is None and not bridge.capturing()
    stored = Mediator(None, {}, {})  # a stored edit's worker runs on every trace: each run starts a fresh state
    first = bridge.fresh_state(stored, model)
    first.read_only.append("from an earlier run")
    second = bridge.fresh_state(stored, model)
    assert bridge.state_of(stored) is second and second.model is model and second.read_only == []


def test_the_visit_counts_are_a_dict_the_interleaver_writes_once_per_visit(model, prompt):
    assert isinstance(model.interleaver.counts, dict)
    with bridge.logging_visits(model) as log:
        with model.trace(prompt):
            model.logits.save()
    assert type(model.interleaver.counts) is dict  # put back
    assert _out(model, 0) in log and log.index(f"{model.layers[0].path}.input") < log.index(_out(model, 0))


# --------------------------------------------------------------------------- the tracer
def test_trace_builds_the_tracer_class_asked_for_and_runs_in_its_exit(model, prompt):
    assert "tracer_cls" in _parameters(Envoy.trace)
    assert issubclass(TurnTakingTracer, InterleavingTracer) and "__exit__" in InterleavingTracer.__dict__
    entered = []
    original = TurnTakingTracer.__exit__

    def spy(self, *args):
        entered.append(bridge.model_lock(self.envoy._module)._is_owned())
        return original(self, *args)

    TurnTakingTracer.__exit__ = spy
    try:
        with model.trace(prompt):
            model.logits.save()
    finally:
        TurnTakingTracer.__exit__ = original
    assert entered == [False]  # the lock is taken inside nnsight's __exit__, around the run
    assert bridge.model_lock(model._module) is bridge.model_lock(model._module)


# --------------------------------------------------------------------------- gradients
def test_the_backward_tracer_and_the_grad_property_are_as_the_bridge_builds_on():
    assert issubclass(bridge.AnyOrderBackward, nnsight_backward.BackwardTracer)
    assert issubclass(nnsight_backward.BackwardTracer, Tracer)
    assert _parameters(nnsight_backward.BackwardTracer.__init__)[:3] == ["self", "tensor", "fn"]
    assert _parameters(nnsight_backward._grad_property) == ["interleaver", "seen", "hooks"]
    assert callable(nnsight_backward._original_backward) and callable(push_result)
    assert _parameters(Interleaver.handle)[:3] == ["self", "provider", "value"]
    assert callable(Interleaver.check_dangling_mediators)
    prop = nnsight_backward._grad_property(Interleaver(), set(), [])
    assert isinstance(prop, property) and prop.fget is not None and prop.fset is not None
    assert torch.Tensor.backward is bridge._backward  # installed by nnterp.model


def test_a_bare_backward_is_torchs_and_a_with_block_serves_grad(model, prompt):
    x = torch.ones(3, requires_grad=True)
    (x * 2).sum().backward()  # WithBlockNotFoundError inside: the real backward ran
    assert torch.equal(x.grad, torch.full((3,), 2.0))
    assert issubclass(WithBlockNotFoundError, Exception)
    assert not bridge.backward_running()
    running = []  # autograd's hooks run in the greenlet that runs the backward: the bridge's context is there
    with model.trace(prompt):
        hidden = model.layers[0].output
        hidden.register_hook(lambda grad: running.append(bridge.backward_running()))
        loss = model.logits.sum()
        with loss.backward():
            grad = hidden.grad.save()
        shape = nnsight_save(hidden.shape)
    assert running == [True] and grad.shape == shape and not bridge.backward_running()


def test_a_standard_values_gradient_reaches_the_block_through_the_running_backward(model, prompt):
    """nnterp serves a value's gradient from a hook on the tensor the forward consumes (``serve_gradient``), through
    the interleaver the running backward block registered."""
    with model.trace(prompt):
        queries = model.layers[0].self_attn.attention_queries  # a view the forward does not consume as is
        loss = model.logits.sum()
        with loss.backward():
            grad = queries.grad.save()
        shape = nnsight_save(queries.shape)
    assert grad.shape == shape and float(grad.abs().sum()) > 0


# --------------------------------------------------------------------------- operation numbering
def test_the_source_state_and_compiled_forwards_are_as_labels_read_them(model):
    attention = model.layers[0].self_attn
    assert STATE == "__nnsight__"
    forward = bridge.compiled_forward(attention._module)
    assert isinstance(forward.source, str) and "def forward(" in forward.source
    assert any(name.startswith("attention_interface_") for name in forward.names)
    inner, chain = decorator_chain(type(attention._module).forward)
    assert compiled(inner) is not None and callable(module_body(attention._module))
    calls = bridge.call_labels(forward.source, tuple(forward.names))
    interfaces = sorted(n for n in forward.names if n.startswith("attention_interface_"))
    # Llama: the assignment attention_interface = ... is _0, the call is _1
    assert [n in calls for n in interfaces] == [False, True]
    assert isinstance(BIND, str) and issubclass(bridge._KindRecorder, Instrument)
    attention.source  # instrumented: the module keeps its own forward on its state
    state = attention._module.__dict__[STATE]
    assert state.sourced and bridge.is_instrumented(attention._module) and state.original is not None
    assert bridge.compiled_forward(attention._module).source == forward.source


def test_a_numbering_nnterp_cannot_reproduce_is_refused():
    with pytest.raises(RuntimeError, match="numbering"):
        bridge.call_labels("def forward(self, x):\n    return self.f(x)\n", ("something_else_0",))
