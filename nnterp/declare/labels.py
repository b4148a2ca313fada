"""Operation labels inside a forward, resolved at run time.

nnsight names every call and assignment of an instrumented forward ``{dotted}_{n}``, one
counter per name shared by calls and assignments (Llama's ``attention_interface_0`` is the
assignment, ``attention_interface_1`` the call). Labels change with nnsight and transformers
versions, so nnterp never stores them: a site names the *callee* (``attention_interface``,
``self._attn``, ``nn.functional.softmax``) and the label is looked up in the compiled source,
once per code object.
"""

from __future__ import annotations

import ast
from functools import lru_cache

from nnterp.declare.engine import engine

__all__ = ["branch_taken", "call_label", "compiled_forward", "compiled_function", "module_calls"]


def compiled_forward(module):
    """The module's forward as nnsight compiles it (its source and the names it calls)."""
    return engine.compiled_forward(module)


def compiled_function(fn):
    """A function as nnsight compiles it."""
    return engine.compiled_function(fn)


def call_label(compiled_source, callee: str, occurrence: int = 0) -> str | None:
    """The label of the ``occurrence``-th call of ``callee`` (dotted, as written), or None."""
    return _label(compiled_source.source, tuple(compiled_source.names), callee, occurrence)


@lru_cache(maxsize=None)
def _label(source: str, names: tuple[str, ...], callee: str, occurrence: int) -> str | None:
    """Once per forward's source, callee and occurrence: a read looks its label up on every trace."""
    prefix = callee.replace(".", "_") + "_"
    calls = engine.call_labels(source, names)
    found = [name for name in names if name in calls and name.startswith(prefix) and name[len(prefix):].isdigit()]
    return found[occurrence] if occurrence < len(found) else None


def branch_taken(test, module) -> bool | None:
    """Whether an ``if`` test (an AST node) that reads only the module's attributes holds; None where it reads
    anything else (the branch depends on the call)."""
    names = {n.id for n in ast.walk(test) if isinstance(n, ast.Name)}
    if names - {"self", "None", "True", "False"}:
        return None
    try:
        return bool(eval(compile(ast.Expression(test), "<condition>", "eval"), {"self": module}))
    except Exception:  # noqa: BLE001 (a test that does not evaluate leaves both branches open)
        return None


def module_calls(module) -> tuple[str, ...]:
    """The names of the submodules a module's forward calls (``self.<name>(...)``), each once, in the order the
    forward evaluates the calls (a call's arguments before the call); of an ``if`` whose test reads only the
    module's attributes (``self.do_layer_norm_before``), the branch the module takes, else both in turn."""
    found: list[str] = []

    def visit(node) -> None:
        if isinstance(node, ast.If):
            visit(node.test)
            holds = branch_taken(node.test, module)
            for statement in (node.body if holds is not False else []) + (node.orelse if holds is not True else []):
                visit(statement)
            return
        if isinstance(node, ast.Call):
            visit(node.func)
            for child in (*node.args, *node.keywords):
                visit(child)
            func = node.func
            if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self" \
                    and func.attr not in found:
                found.append(func.attr)
            return
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):  # the value before the targets
            visit(node.value) if node.value is not None else None
            for target in getattr(node, "targets", [getattr(node, "target", None)]):
                visit(target) if target is not None else None
            return
        for child in ast.iter_child_nodes(node):
            visit(child)

    tree = ast.parse(compiled_forward(module).source)
    for statement in tree.body[0].body:
        visit(statement)
    return tuple(found)
