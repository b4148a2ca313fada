"""Gradients in any order: ``with loss.backward():`` inside an nnterp trace.

nnsight serves ``t.grad`` in step with the backward pass, so a block asking for an earlier value's gradient
first waits while the later ones flow past and fails. nnterp reads the block's code before the backward runs:
each tensor whose ``.grad`` it names (a name bound in the trace, or a standard value, captured as the forward
passed it) gets a hook that keeps its gradient as it flows, and a ``.grad`` asked for after its gradient has
flowed is served what was kept: the tensor an ordered read gets. An edit of a kept gradient comes too late to
reach the backward and fails the trace. A plain ``loss.backward()`` in a trace runs the whole backward at once: the
tensors whose ``.grad`` the trace's code reads retain their gradients, to be read after it.
"""

from __future__ import annotations

import ast

import torch

from nnterp.runtime import bridge
from nnterp.runtime.envoys import StandardValue


def _grad_bases(node) -> list[str]:
    """The code of every expression whose ``.grad`` a backward block reads, in code order."""
    found = []
    for child in ast.walk(node):
        if isinstance(child, ast.Attribute) and child.attr == "grad" and isinstance(child.ctx, ast.Load):
            text = ast.unparse(child.value)
            if text not in found:
                found.append(text)
    return found


class _Names(dict):
    """The names a trace's code reaches: the frame's locals, then its globals by subscript (nnsight's block scope
    reaches the module's globals only through ``__missing__``, which ``get`` and ``eval``'s own lookup skip: a
    trace written inside a function names its model as a global)."""

    def __init__(self, frame):
        super().__init__(frame.f_locals)
        self.frame = frame

    def __missing__(self, key):
        return self.frame.f_globals[key]

    def get(self, key, default=None):
        try:
            return self[key]
        except KeyError:
            return default


def _resolved(text: str, frame):
    """The tensor ``text`` stands for in the trace, where it is a name bound there or a standard value the
    trace captured; None otherwise (its gradient is served in step with the backward, as nnsight does)."""
    try:
        tree = ast.parse(text, mode="eval").body
    except SyntaxError:
        return None
    names = _Names(frame)
    if isinstance(tree, ast.Name):
        value = names.get(tree.id)
        return value if isinstance(value, torch.Tensor) else None
    if not bridge.capturing() or not isinstance(tree, ast.Attribute):
        return None
    try:
        host = eval(compile(ast.Expression(tree.value), "<grad base>", "eval"), frame.f_globals, names)
    except Exception:
        return None
    name = tree.attr
    if not hasattr(type(host), "_nnterp_host") or not hasattr(type(host), name):
        return None

    if not isinstance(type(host).__dict__.get(name) or getattr(type(host), name, None), StandardValue):
        return None
    kept = bridge.captured(host, name, name)
    return kept if isinstance(kept, torch.Tensor) else None


def _bound_in(node) -> dict[str, str]:
    """The names the backward block binds to one expression (``out = model.layers[3].layer_output``), each with
    that expression's code: a ``.grad`` of such a name is the gradient of what the expression reads."""
    bound = {}
    for child in ast.walk(node):
        if isinstance(child, ast.Assign) and len(child.targets) == 1 and isinstance(child.targets[0], ast.Name):
            bound.setdefault(child.targets[0].id, ast.unparse(child.value))
    return bound


def _opens_backward(node) -> bool:
    """Whether ``node`` is a ``with loss.backward():`` block (else a trace, whose plain ``loss.backward()`` runs
    after the names its code reads ``.grad`` of are bound)."""
    return isinstance(node, ast.With) and any(
        isinstance(item.context_expr, ast.Call) and isinstance(item.context_expr.func, ast.Attribute)
        and item.context_expr.func.attr == "backward" for item in node.items)


def _grad_targets(node, frame) -> list:
    """The tensors whose ``.grad`` a backward block's code names (or a trace's, around a plain ``loss.backward()``),
    each found in the trace."""
    bound = _bound_in(node) if _opens_backward(node) else {}
    found = (_resolved(bound.get(text, text), frame) for text in _grad_bases(node))
    return [tensor for tensor in found if tensor is not None]


def install() -> None:
    """``with t.backward():`` inside an nnterp trace serves ``.grad`` in any order (nnsight's tracer elsewhere)."""
    bridge.install_backward(_grad_targets)
