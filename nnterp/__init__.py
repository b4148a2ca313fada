"""nnterp: one standard, checked interface to the insides of every decoder-only transformers model."""

from .errors import (
    BatchRefused, ConditionedValue, EmptyPrompt, LayoutMismatch, LoadOptionRefused, NnterpError, NotCached, OrderError,
    ReadOnlyValue, RegistrationRefused, UnavailableValue, UnknownArchitecture, UnknownName,
)
from .family import register, registered, unregister
from .model import StandardizedTransformer
from .vocabulary import DIMENSIONS, FORWARD_ORDER, VALUES

__all__ = [
    "StandardizedTransformer", "VALUES", "FORWARD_ORDER", "DIMENSIONS", "NnterpError", "UnknownArchitecture", "UnknownName",
    "UnavailableValue", "ConditionedValue", "EmptyPrompt", "BatchRefused", "ReadOnlyValue", "LayoutMismatch",
    "LoadOptionRefused", "OrderError", "NotCached", "RegistrationRefused", "register", "registered", "unregister",
]
__version__ = "0.1.0"
