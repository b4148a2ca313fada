"""nnterp's errors: one sentence each, naming the fix.

They derive from ``Exception`` (never ``AttributeError``, which an envoy's attribute lookup
would swallow and reword) except ``UnknownName``, which must stay an ``AttributeError`` so
``hasattr`` keeps working.
"""

from __future__ import annotations

import difflib


class NnterpError(Exception):
    """Base of every error nnterp raises on purpose."""


class UnknownArchitecture(NnterpError):
    """The model's class belongs to no family module."""


class UnavailableValue(NnterpError):
    """The value does not exist on this checkpoint; the message says why."""


class ConditionedValue(NnterpError):
    """The value exists only under another load; the message names it."""


class ReadOnlyValue(NnterpError):
    """A derived or call-describing value was written."""


class LayoutMismatch(NnterpError, ValueError):
    """A written tensor does not have the value's layout."""


class LoadOptionRefused(NnterpError, ValueError):
    """A load option cannot be honoured for a model built in memory."""


class EmptyPrompt(NnterpError, ValueError):
    """A trace was asked to run on no tokens."""


class BatchRefused(NnterpError, ValueError):
    """The batch needs something the model cannot take (position_ids for a left-padded batch)."""


class OrderError(NnterpError):
    """A value was read after the forward had passed it, or its site never ran."""


class UnknownName(AttributeError):
    """A misspelled value or module name; the message offers the nearest standard one.

    The suggestion is computed when the message is read: nnsight probes many absent names while
    it builds the tree, and those probes must stay cheap.
    """

    def __init__(self, name: str, path: str, candidates, missing: str | None = None) -> None:
        super().__init__(name)
        self.name, self.path, self.candidates, self.missing = name, path, list(candidates), missing

    def __str__(self) -> str:
        if self.missing:
            return f"{self.path} has no {self.name!r}: {self.missing}"
        guess = nearest(self.name, self.candidates)
        hint = f"; did you mean {guess!r}?" if guess else f"; its standard values are {', '.join(self.candidates[:8])}, ..."
        return f"{self.name!r} is neither a standard value nor a module of {self.path}{hint}"


def nearest(name: str, candidates) -> str | None:
    """The candidate closest to ``name``, if any is close."""
    match = difflib.get_close_matches(name, list(candidates), n=1, cutoff=0.6)
    return match[0] if match else None
