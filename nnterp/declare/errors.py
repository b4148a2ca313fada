"""nnterp's errors: one sentence each, naming the fix.

They derive from ``Exception`` (never ``AttributeError``, which an envoy's attribute lookup
would swallow and reword) except ``UnknownName``, which must stay an ``AttributeError`` so
``hasattr`` keeps working.
"""

from __future__ import annotations

from nnterp.declare.vocabulary import nearest


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


class RegistrationRefused(NnterpError, ValueError):
    """A family registered at run time would take a name or a model type another family serves."""


class EmptyPrompt(NnterpError, ValueError):
    """A trace was asked to run on no tokens."""


class BatchRefused(NnterpError, ValueError):
    """The batch needs something the model cannot take (position_ids for a left-padded batch)."""


class NotCached(NnterpError, KeyError):
    """A cache was asked for a value it does not hold; the message says why (not asked for, unavailable,
    conditioned on another load)."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class HubUnreachable(NnterpError, OSError):
    """A hub repo id was named where the hub cannot be reached and the repo is not cached."""


class BadIndex(NnterpError, IndexError):
    """An index past the end of a list of modules (``model.layers[30]`` on 30 blocks)."""


class BadPrompt(NnterpError, TypeError):
    """A trace was given something that is not a prompt, a list of prompts or token ids."""


class NestedTrace(NnterpError, RuntimeError):
    """A trace of a model was opened while another trace of the same model was running."""


class OrderError(NnterpError):
    """A value was read after the forward had passed it, or its site never ran."""


class UnknownName(AttributeError):
    """A misspelled value or module name; the message offers the nearest standard one.

    A name researchers come with (a TransformerLens hook, an nnterp 1.x accessor, ``resid_post``) is answered with
    the standard path it means (``nnterp.compat.names``); any other with the closest value or module of the host. The
    suggestion is computed when the message is read: nnsight probes many absent names while it builds the tree,
    and those probes must stay cheap.
    """

    def __init__(self, name: str, path: str, candidates, missing: str | None = None, values=None,
                 where=None, advice=None) -> None:
        super().__init__(name)
        self.name, self.path, self.candidates, self.missing = name, path, list(candidates), missing
        self.values = list(values) if values is not None else self.candidates
        #: () -> (standard path, host, block index, block kind), asked only when the message is read
        self._where = where
        #: (error) -> the message for a name ``nnterp.compat.names`` knows, else None (``nnterp.compat.names.advice``)
        self._advice = advice
        self.host = self.layer = self.block_kind = None

    @property
    def head(self) -> str:
        return f"{self.name!r} is neither a standard value nor a module of {self.path}"

    def __str__(self) -> str:
        if self._where is not None:
            self.path, self.host, self.layer, self.block_kind = self._where()
            self._where = None
        if self.missing:
            return f"{self.path} has no {self.name!r}: {self.missing}"
        advised = self._advice(self) if self._advice is not None else None
        if advised is not None:
            return advised
        head = self.head
        guess = nearest(self.name, self.candidates)
        if guess:
            return f"{head}; did you mean {guess!r}?"
        return f"{head}; its standard values are {', '.join(self.values[:10])}{', ...' if len(self.values) > 10 else ''}"
