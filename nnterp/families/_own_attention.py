"""Sites inside attention code a family writes itself (Falcon, Bloom, MPT, GPT-Neo, XGLM, ...), shared by the
clusters of those families: the value an assignment binds, and keys and values kept at num_kv_heads when the
model repeats them before the kernel.
"""

from __future__ import annotations

from dataclasses import dataclass

from nnterp.labels import _call_labels
from nnterp.sites import Call, Condition, Same
from nnterp.errors import UnavailableValue


@dataclass(frozen=True)
class Assigned(Call):
    """The value the ``occurrence``-th assignment to ``callee`` (a local name) binds in the host's forward
    (``-1``: the last one written).

    nnsight instruments an assignment as an operation whose output is the assigned value, so an edit of it
    is what the rest of the forward reads under that name.
    """

    def _label(self, compiled_source, callee):
        prefix = callee.replace(".", "_") + "_"
        calls = _call_labels(compiled_source.source, compiled_source.names)
        found = [name for name in compiled_source.names
                 if name not in calls and name.startswith(prefix) and name[len(prefix):].isdigit()]
        if not -len(found) <= self.occurrence < len(found):
            raise UnavailableValue(f"this forward does not make assignment {self.occurrence} of {callee}; "
                                   f"the family module's site is out of date")
        return found[self.occurrence]

    def describe(self, module) -> str:
        label, _ = self.labels_for(module)
        return f"inside the forward: the value assigned to {self.callee} ({label})"


class KeyValueGroups(Same):
    """``[batch num_heads seq dim]`` in which each key or value head is repeated for its group of query heads,
    seen as ``[batch num_kv_heads seq dim]`` (the first head of each group); an edit is repeated back over the
    group. Serve it with ``snapshot=True``, so that an in-place edit reaches every copy."""

    def view(self, native, model):
        return native[:, :: model.num_heads // model.num_kv_heads]

    def inverse(self, value, like, model):
        return value.repeat_interleave(model.num_heads // model.num_kv_heads, dim=1)


KEY_VALUE_GROUPS = KeyValueGroups()


def eager_only(family: str, fused: str) -> Condition:
    """The softmax of a family's own attention code runs only on its eager branch."""
    return Condition(("eager",), f'needs attn_implementation="eager": under sdpa {family} calls {fused}, '
                                 f"which computes the softmax inside one fused call")


class BatchHeads(Same):
    """``[batch*num_heads seq dim]`` (heads folded into the batch for a bmm) seen as ``[batch seq num_heads dim]``;
    a view, so in-place edits reach the model."""

    def view(self, native, model):
        return native.unflatten(0, (-1, model.num_heads)).transpose(1, 2)

    def inverse(self, value, like, model):
        return value.transpose(1, 2).flatten(0, 1)


BATCH_HEADS = BatchHeads()


class FoldedHeads(Same):
    """``[batch*num_heads ...]`` (heads folded into the batch for a bmm) seen heads-first as
    ``[batch num_heads ...]``; a view."""

    def view(self, native, model):
        return native.unflatten(0, (-1, model.num_heads))

    def inverse(self, value, like, model):
        return value.flatten(0, 1)


FOLDED_HEADS = FoldedHeads()


@dataclass(frozen=True)
class Whole:
    """The whole value a location serves: a call that returns one tensor, not a tuple."""

    def get(self, raw):
        return raw

    def put(self, raw, value):
        return value


WHOLE = Whole()


@dataclass(frozen=True)
class ByDtype(Call):
    """A call made on one of two branches chosen by the model's dtype (XGLM takes its softmax in float32 on one
    branch for float16 and directly on the other): ``occurrence`` under float16, ``otherwise`` under the rest."""

    otherwise: int = 0

    def _chosen(self, module):
        import dataclasses

        import torch

        half = next(module.parameters()).dtype == torch.float16
        return dataclasses.replace(self, occurrence=self.occurrence if half else self.otherwise)

    def target(self, host):
        return Call.target(self._chosen(host._module), host)

    def labels_for(self, module):
        return Call.labels_for(self._chosen(module), module)


class KeysLast(Same):
    """Keys handed over transposed, ``[batch num_heads head_dim seq]``, seen as ``[batch num_heads seq head_dim]``;
    a view."""

    def view(self, native, model):
        return native.transpose(-1, -2)

    def inverse(self, value, like, model):
        return value.transpose(-1, -2)


KEYS_LAST = KeysLast()
