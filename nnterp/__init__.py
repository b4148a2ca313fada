"""nnterp: one standard, checked interface to the insides of every decoder-only transformers model."""

from .errors import (
    BadIndex, BadPrompt, BatchRefused, ConditionedValue, EmptyPrompt, HubUnreachable, LayoutMismatch, LoadOptionRefused,
    NnterpError, NotCached, OrderError, ReadOnlyValue, RegistrationRefused, UnavailableValue, UnknownArchitecture,
    UnknownName,
)
from .vocabulary import DIMENSIONS, FORWARD_ORDER, VALUES

__all__ = [
    "StandardizedTransformer", "VALUES", "FORWARD_ORDER", "DIMENSIONS", "NnterpError", "UnknownArchitecture", "UnknownName",
    "UnavailableValue", "ConditionedValue", "EmptyPrompt", "BatchRefused", "ReadOnlyValue", "LayoutMismatch",
    "LoadOptionRefused", "OrderError", "NotCached", "BadIndex", "BadPrompt", "HubUnreachable", "RegistrationRefused",
    "register", "registered", "unregister",
]
__version__ = "0.1.0"


def __getattr__(name: str):
    # torch and nnsight load with the model class, not with the package: `nnterp --help` answers without them
    if name == "StandardizedTransformer":
        from .model import StandardizedTransformer

        return StandardizedTransformer
    if name in ("register", "registered", "unregister"):
        from . import family

        return getattr(family, name)
    import importlib
    import importlib.util

    if not name.startswith("_") and importlib.util.find_spec(f"{__name__}.{name}") is not None:  # nnterp.tiny, ...
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module 'nnterp' has no attribute {name!r}")
