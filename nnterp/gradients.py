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

import torch

from . import bridge
from .envoys import StandardValue


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
    if not bridge.capturing() or not isinstance(tree, ast.Attribute):
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
    kept = bridge.captured(host, name, name)
    return kept if isinstance(kept, torch.Tensor) else None


def _grad_targets(node, frame) -> list:
    """The tensors whose ``.grad`` a backward block's code names, each found in the trace."""
    found = (_resolved(text, frame) for text in _grad_bases(node))
    return [tensor for tensor in found if tensor is not None]


def install() -> None:
    """``with t.backward():`` inside an nnterp trace serves ``.grad`` in any order (nnsight's tracer elsewhere)."""
    bridge.install_backward(_grad_targets)
