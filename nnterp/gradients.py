"""Gradients in any order: ``with loss.backward():`` inside an nnterp trace.

nnsight serves ``t.grad`` in step with the backward pass, so a block asking for an earlier value's gradient
first waits while the later ones flow past and fails. nnterp reads the block's code before the backward runs:
each tensor whose ``.grad`` it names (a name bound in the trace, or a standard value, captured as the forward
passed it) gets a hook that keeps its gradient as it flows, and a ``.grad`` asked for after its gradient has
flowed is served what was kept: the tensor an ordered read gets. An edit of a kept gradient comes too late to
reach the backward and fails the trace.
"""

from __future__ import annotations

import ast
import functools

import torch
from nnsight.intervention import backward as nnsight_backward
from nnsight.intervention.interleaver import Interleaver, Mediator
from nnsight.tracing.tracer import WithBlockNotFoundError, push_result

from . import tracing
from .envoys import StandardValue
from .errors import OrderError


def _grad_bases(node) -> list[str]:
    """The code of every expression whose ``.grad`` a backward block reads, in code order."""
    found = []
    for child in ast.walk(node):
        if isinstance(child, ast.Attribute) and child.attr == "grad" and isinstance(child.ctx, ast.Load):
            text = ast.unparse(child.value)
            if text not in found:
                found.append(text)
    return found


def _resolved(text: str, frame):
    """The tensor ``text`` stands for in the trace, where it is a name bound there or a standard value the
    trace captured; None otherwise (its gradient is served in step with the backward, as nnsight does)."""
    try:
        tree = ast.parse(text, mode="eval").body
    except SyntaxError:
        return None
    if isinstance(tree, ast.Name):
        value = frame.f_locals.get(tree.id, frame.f_globals.get(tree.id))
        return value if isinstance(value, torch.Tensor) else None
    if not tracing.CAPTURING[0] or not isinstance(tree, ast.Attribute):
        return None
    try:
        host = eval(compile(ast.Expression(tree.value), "<grad base>", "eval"), frame.f_globals, dict(frame.f_locals))
    except Exception:
        return None
    name = tree.attr
    if not hasattr(type(host), "_nnterp_host") or not hasattr(type(host), name):
        return None

    if not isinstance(type(host).__dict__.get(name) or getattr(type(host), name, None), StandardValue):
        return None
    kept = tracing.captured(host, name, name)
    return kept if isinstance(kept, torch.Tensor) else None


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


class AnyOrderBackward(nnsight_backward.BackwardTracer):
    """nnsight's backward tracer, serving a ``.grad`` asked for after its gradient flowed from what was kept."""

    def execute(self, code) -> None:
        try:
            outer = Mediator.current("the trace")
        except ValueError:
            outer = None
        if outer is None or getattr(outer, "_nnterp_model", None) is None or self.node is None:
            return super().execute(code)
        frame = self.info.frame
        if not self.tensor.requires_grad:
            return super().execute(code)
        kept: dict = {}
        interleaver = _KeepingInterleaver(kept)
        mediator = Mediator(code, frame.f_globals, dict(frame.f_locals))
        mediator._nnterp_outer = outer  # standard values read inside the block are the trace's captures
        interleaver.mediators.append(mediator)
        hooks: list = []
        for text in _grad_bases(self.node):
            tensor = _resolved(text, frame)
            if tensor is not None and tensor.requires_grad:
                location = f"{id(tensor)}.grad"
                hooks.append(tensor.register_hook(functools.partial(_keep, kept, location)))
        seen: set = set()
        served: list = []
        original = torch.Tensor.grad
        nnsight_grad = nnsight_backward._grad_property(interleaver, seen, hooks)

        def getter(tensor):
            assert interleaver is not None  # closed over: nnterp's hooks on copies find the backward's interleaver
            location = f"{id(tensor)}.grad"
            if location in kept and id(tensor) not in seen:  # flowed past before the block asked for it
                value = kept[location]
                served.append((location, value, value._version))
                return value
            return nnsight_grad.fget(tensor)

        torch.Tensor.grad = property(getter, nnsight_grad.fset)
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
            torch.Tensor.grad = original
            for handle in hooks:
                handle.remove()


def _keep(kept: dict, location: str, grad):
    kept.setdefault(location, grad)
    return None


@functools.wraps(nnsight_backward._original_backward)
def _backward(tensor, *args, **kwargs):
    tracer = AnyOrderBackward(tensor, nnsight_backward._original_backward, *args, **kwargs)
    try:
        tracer.capture()
    except WithBlockNotFoundError:
        return nnsight_backward._original_backward(tensor, *args, **kwargs)
    return tracer


def install() -> None:
    """``with t.backward():`` enters AnyOrderBackward, which is nnsight's tracer outside an nnterp trace."""
    torch.Tensor.backward = _backward
