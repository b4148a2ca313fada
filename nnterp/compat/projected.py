"""What an attention does to its queries, keys and values between their projection and the point nnterp reads them.

TransformerLens hooks ``hook_q``, ``hook_k`` and ``hook_v`` on its own projections' outputs, split by head, before
anything else its attention applies (a q/k norm, a clip, a scale, the rotary). nnterp reads the queries and keys
where they enter the rotary (``attention_queries_unrotated``), the values where they enter the kernel. The two are
one tensor only where the forward applies nothing but reshapes between the projection and that point, which
``applied_between`` reads from the attention's own forward (its syntax tree), on this model, under its config."""

from __future__ import annotations

import ast
import weakref

import torch

from nnterp.declare import labels
from nnterp.declare.engine import module_of
from nnterp.declare.locations import block_hosts

#: calls that move, cut or cast a tensor without changing its entries' values
RESHAPES = frozenset({
    "view", "reshape", "transpose", "contiguous", "permute", "unflatten", "flatten", "split", "chunk", "unsqueeze",
    "squeeze", "expand", "to", "type_as", "float", "unbind", "narrow", "view_as", "reshape_as", "tensor_split",
})
#: the kernel's argument each value enters as, where the attention applies no rotary to it
KERNEL_ARGUMENT = {"queries": 1, "keys": 2, "values": 3}
_ROTARY = "apply_rotary_pos_emb"
_KERNEL = "attention_interface"

#: what a call's arguments are named where a plain forward (no cache, no encoder input) does not have them
_CALL_ONLY = ("past", "cache", "encoder", "cross")

_SYMBOLS = {ast.Mult: "*", ast.Div: "/", ast.Add: "+", ast.Sub: "-", ast.MatMult: "@", ast.Pow: "**"}

#: per attention module and value: (what is applied, or None where unfollowed; the projection's child name)
_FOUND: "weakref.WeakKeyDictionary[torch.nn.Module, dict]" = weakref.WeakKeyDictionary()


def refusal(model, path) -> str | None:
    """Why the TransformerLens name ``path`` came from is not nnterp's value on this model's block, or None: the
    block's attention applies something between the projection TransformerLens hooks and where nnterp reads."""
    which = path.via.projected if path.via is not None else None
    if which is None or path.layer is None:
        return None
    host = block_hosts(model.layers[path.layer]).get("attention")
    applied, projection = _followed(module_of(host), which) if host is not None else (None, None)
    if not applied:
        return None
    instead = (f"; read its projection's output, model.layers[{path.layer}].self_attn.{projection}.output, and split "
               f"it by head" if projection else "")
    return (f"{path.via.name!r} is TransformerLens's {which} as the projection leaves them, split by head, and block "
            f"{path.layer}'s attention applies {' then '.join(reversed(applied))} before nnterp reads its {which} "
            f"({path.value}), so nnterp has no value of that tensor{instead}")


class Unfollowed(Exception):
    """The forward is written in a way this reading does not follow."""


def applied_between(module: torch.nn.Module, which: str) -> list[str] | None:
    """What ``module``'s forward applies to its ``which`` ("queries", "keys", "values") between their projection
    (a child with a 2-D weight) and the rotary's input (the kernel's, for values or without a rotary), as source
    text (``["self.q_norm(...)"]``); [] where only reshapes; None where the forward cannot be followed."""
    return _followed(module, which)[0]


def _followed(module: torch.nn.Module, which: str) -> tuple[list[str] | None, str | None]:
    """(applied_between's answer, the name of the projection it was followed back to), read once per module."""
    found = _FOUND.setdefault(module, {})
    if which not in found:
        try:
            reader = _Reader(module)
            found[which] = (reader.between(which), reader.projection)
        except (Unfollowed, SyntaxError, RecursionError):
            found[which] = (None, None)
    return found[which]


class _Reader:
    def __init__(self, module: torch.nn.Module) -> None:
        self.module, self.projection = module, None
        self.tree = ast.parse(labels.compiled_forward(module).source)
        self.parents = {child: node for node in ast.walk(self.tree) for child in ast.iter_child_nodes(node)}
        self.arguments = {a.arg for a in ast.walk(self.tree) if isinstance(a, ast.arg)}

    def _runs(self, node, parents, module) -> bool | None:
        """Whether a plain call (no cache, no cross-attention input) runs ``node``: the ifs around it that read
        only the module's attributes are evaluated, those that ask for a cache are false; None for any other."""
        runs = True
        while node in parents:
            parent = parents[node]
            if isinstance(parent, ast.If):
                names = _names(parent.test) - {"self", "None", "True", "False"}
                if any(not any(word in name for word in _CALL_ONLY) for name in names):
                    return None  # the test reads another argument of the call
                scope = {"self": module, **{name: None for name in names}}  # absent from a plain call
                try:
                    holds = bool(eval(compile(ast.Expression(parent.test), "<test>", "eval"), {}, scope))
                except Exception:
                    return None
                runs = runs and (holds if node in parent.body else not holds)
            node = parent
        return runs

    def _calls(self, name: str) -> list[ast.Call]:
        calls = [node for node in ast.walk(self.tree) if isinstance(node, ast.Call)
                 and (isinstance(node.func, ast.Name) and node.func.id == name
                      or isinstance(node.func, ast.Attribute) and node.func.attr == name)]
        return [c for c in sorted(calls, key=_position) if self._runs(c, self.parents, self.module) is not False]

    def between(self, which: str) -> list[str]:
        start = self._start(which)
        applied: list[str] = []
        if not self._follow(start[0], start[1], applied, set()):
            raise Unfollowed  # no projection reached
        return applied

    def _start(self, which: str) -> tuple[ast.expr, ast.AST]:
        """The expression the value is read at, and the statement it is read in."""
        if which != "values":
            rotary = self._calls(_ROTARY)
            if rotary:
                call = rotary[0]
                paired = len(call.args) >= 4
                if not paired and len(rotary) < 2:
                    raise Unfollowed
                call = call if paired else rotary[0 if which == "queries" else 1]
                argument = call.args[(0 if which == "queries" else 1) if paired else 0]
                return argument, _statement(call, self.parents)
        kernel = self._calls(_KERNEL)
        if not kernel or len(kernel[0].args) <= KERNEL_ARGUMENT[which]:
            raise Unfollowed
        return kernel[0].args[KERNEL_ARGUMENT[which]], _statement(kernel[0], self.parents)

    def _follow(self, expression: ast.expr, before: ast.AST, applied: list[str], seen: set) -> bool:
        """Walks ``expression`` back to the projection; True where it reached one."""
        if isinstance(expression, ast.Name):
            if expression.id in self.arguments:
                return False
            key = (expression.id, _position(before))
            if key in seen:
                return True
            seen.add(key)
            assignment = self._assignment(expression.id, before)
            for statement in self._in_place(expression.id, assignment, before):
                applied.append(ast.unparse(statement).strip())
            return self._follow(assignment.value, assignment, applied, seen)
        if isinstance(expression, ast.Call):
            func = expression.func
            if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self":
                child = getattr(self.module, func.attr, None)
                if isinstance(child, torch.nn.Module):
                    weight = getattr(child, "weight", None)
                    if isinstance(weight, torch.Tensor) and weight.dim() == 2:
                        self.projection = func.attr
                        return True
                    applied.append(f"self.{func.attr}(...)")
                    return any([self._follow(a, before, applied, seen) for a in expression.args])
            if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self":
                raise Unfollowed  # a method of the attention: what it does is not read here
            if isinstance(func, ast.Attribute) and func.attr in RESHAPES:
                reached = self._follow(func.value, before, applied, seen)
                if isinstance(func.value, ast.Name) and func.value.id == "torch":
                    reached = any([self._follow(a, before, applied, seen) for a in expression.args[:1]])
                return reached
            applied.append(ast.unparse(expression))
            return any([self._follow(a, before, applied, seen) for a in expression.args])
        if isinstance(expression, ast.Subscript):
            return self._follow(expression.value, before, applied, seen)
        if isinstance(expression, (ast.Tuple, ast.List)):
            return any([self._follow(e, before, applied, seen) for e in expression.elts])
        if isinstance(expression, ast.Starred):
            return self._follow(expression.value, before, applied, seen)
        if isinstance(expression, ast.BinOp):
            marker = len(applied)
            left = self._follow(expression.left, before, applied, seen)
            right = self._follow(expression.right, before, applied, seen)
            other = expression.right if left else expression.left
            applied.insert(marker, f"{_SYMBOLS.get(type(expression.op), type(expression.op).__name__)} "
                                   f"{ast.unparse(other)}")
            return left or right
        if isinstance(expression, (ast.Constant, ast.Attribute)):
            return False
        raise Unfollowed

    def _assignment(self, name: str, before: ast.AST) -> ast.Assign:
        """The last assignment of ``name`` that runs before ``before`` (tuple targets included)."""
        chosen = None
        for node in ast.walk(self.tree):
            if not isinstance(node, ast.Assign) or _position(node) >= _position(before):
                continue
            if not any(name in _names(target) for target in node.targets):
                continue
            runs = self._runs(node, self.parents, self.module)
            if runs is None:
                raise Unfollowed  # which assignment runs depends on the call
            if runs and (chosen is None or _position(node) > _position(chosen)):
                chosen = node
        if chosen is None:
            raise Unfollowed
        if any(isinstance(t, ast.Tuple) and name in _names(t) for t in chosen.targets) \
                and not isinstance(chosen.value, (ast.Tuple, ast.Call)):
            raise Unfollowed
        return chosen

    def _in_place(self, name: str, after: ast.AST, before: ast.AST) -> list[ast.stmt]:
        """Statements between the two that edit ``name`` in place (``query_states.clamp_(...)``)."""
        found = []
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) \
                    and isinstance(node.value.func, ast.Attribute) and node.value.func.attr.endswith("_") \
                    and name in _names(node.value.func.value) \
                    and _position(after) < _position(node) < _position(before) \
                    and self._runs(node, self.parents, self.module) is not False:
                found.append(node)
        return sorted(found, key=_position)


def _names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _position(node: ast.AST) -> tuple[int, int]:
    return getattr(node, "lineno", 0), getattr(node, "col_offset", 0)


def _statement(node: ast.AST, parents: dict) -> ast.AST:
    while node in parents and not isinstance(node, ast.stmt):
        node = parents[node]
    return node
