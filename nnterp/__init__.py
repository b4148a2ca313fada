"""nnterp: one standard, checked interface to the insides of every decoder-only transformers model."""

import importlib
import importlib.util

from nnterp.declare.errors import (
    BadIndex, BadPrompt, BatchRefused, ConditionedValue, EmptyPrompt, HubUnreachable, LayoutMismatch, LoadOptionRefused,
    NestedTrace, NnterpError, NotCached, OrderError, ReadOnlyValue, RegistrationRefused, UnavailableValue,
    UnknownArchitecture, UnknownName,
)
from nnterp.declare.vocabulary import DIMENSIONS, FORWARD_ORDER, VALUES

__all__ = [
    "StandardizedTransformer", "VALUES", "FORWARD_ORDER", "DIMENSIONS", "NnterpError", "UnknownArchitecture", "UnknownName",
    "UnavailableValue", "ConditionedValue", "EmptyPrompt", "BatchRefused", "ReadOnlyValue", "LayoutMismatch",
    "LoadOptionRefused", "OrderError", "NotCached", "BadIndex", "BadPrompt", "NestedTrace", "HubUnreachable",
    "RegistrationRefused",
    "register", "registered", "unregister",
]
__version__ = "0.1.0"


#: names that load with their module, not with the package: torch and nnsight come with the model class, so
#: `nnterp --help` answers without them
LAZY = {"StandardizedTransformer": "model", "register": "registry", "registered": "registry", "unregister": "registry"}


def __getattr__(name: str):
    if name in LAZY:
        return getattr(importlib.import_module(f"{__name__}.{LAZY[name]}"), name)
    if not name.startswith("_") and importlib.util.find_spec(f"{__name__}.{name}") is not None:  # nnterp.tiny, ...
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module 'nnterp' has no attribute {name!r}")
