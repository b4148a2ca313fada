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


class OrderError(NnterpError):
    """A value was read after the forward had passed it, or its site never ran."""


class UnknownName(AttributeError):
    """A misspelled value or module name; the message offers the nearest standard one.

    A name researchers come with (a TransformerLens hook, an nnterp 1.x accessor, ``resid_post``) is answered with
    the standard path it means (``nnterp.names``); any other with the closest value or module of the host. The
    suggestion is computed when the message is read: nnsight probes many absent names while it builds the tree,
    and those probes must stay cheap.
    """

    def __init__(self, name: str, path: str, candidates, missing: str | None = None, values=None,
                 where=None) -> None:
        super().__init__(name)
        self.name, self.path, self.candidates, self.missing = name, path, list(candidates), missing
        self.values = list(values) if values is not None else self.candidates
        #: () -> (standard path, host, block index, block kind), asked only when the message is read
        self._where = where
        self.host = self.layer = self.block_kind = None

    def __str__(self) -> str:
        if self._where is not None:
            self.path, self.host, self.layer, self.block_kind = self._where()
            self._where = None
        if self.missing:
            return f"{self.path} has no {self.name!r}: {self.missing}"
        elsewhere = _elsewhere(self)
        if elsewhere is not None:
            return elsewhere
        head = f"{self.name!r} is neither a standard value nor a module of {self.path}"
        meant = _meant(self)
        if meant is not None:
            return f"{head}; {meant}"
        guess = nearest(self.name, self.candidates)
        if guess:
            return f"{head}; did you mean {guess!r}?"
        return f"{head}; its standard values are {', '.join(self.values[:10])}{', ...' if len(self.values) > 10 else ''}"


def _elsewhere(error: UnknownName) -> str | None:
    """For a standard value asked of another host than its own (``layers[0].attention_output``): its path."""
    from .vocabulary import BY_NAME, HOST_PATHS

    spec = BY_NAME.get(error.name)
    if error.host is None or spec is None or spec.host == error.host:
        return None
    from .names import Path

    layer = None if spec.host == "model" else ("i" if error.layer is None else error.layer)
    return (f"{error.path} has no {error.name!r}: it is a value of {HOST_PATHS[spec.host]}; did you mean "
            f"{Path(error.name, layer).attribute}?")


def _meant(error: UnknownName) -> str | None:
    """``did you mean model.layers[0].layer_output?`` for a name that ``nnterp.names`` knows, else None."""
    if error.host is None:
        return None
    from .names import MODULE_WORDS, suggestion


    module = MODULE_WORDS.get(error.host, {}).get(error.name)
    if module is not None and module in error.candidates:
        return f"did you mean the module {error.path}.{module}?"
    path = suggestion(error.name, error.host, error.layer, error.block_kind)
    if path is None:
        return None
    if not path.in_vocabulary:
        return f"it means {path}, which this version of nnterp does not serve yet"
    return f"did you mean {path}?"


def nearest(name: str, candidates) -> str | None:
    """The candidate closest to ``name``, if any is close."""
    match = difflib.get_close_matches(name, list(candidates), n=1, cutoff=0.6)
    return match[0] if match else None
