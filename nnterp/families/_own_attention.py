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
    """The value the ``occurrence``-th assignment to ``callee`` (a local name) binds in the host's forward.

    nnsight instruments an assignment as an operation whose output is the assigned value, so an edit of it
    is what the rest of the forward reads under that name.
    """

    def _label(self, compiled_source, callee):
        prefix = callee.replace(".", "_") + "_"
        calls = _call_labels(compiled_source.source, compiled_source.names)
        found = [name for name in compiled_source.names
                 if name not in calls and name.startswith(prefix) and name[len(prefix):].isdigit()]
        if self.occurrence >= len(found):
            raise UnavailableValue(f"this forward assigns {callee} fewer than {self.occurrence + 1} times; "
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
