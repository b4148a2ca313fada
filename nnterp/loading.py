"""A model as a command names it: a family (its tiny model), an embedded real model, a local directory or a repo
id. The command line and the toolkit's commands load through ``load_model``."""

from __future__ import annotations

import sys

from nnterp import real, tiny
from nnterp.hub import REAL_NAMES, CommandRefused, refusal
from nnterp.model import StandardizedTransformer
from nnterp.registry import not_served, registry, unavailable, wrapper_registry


def load_model(name: str, attn_implementation: str | None = None):
    """A family name (its tiny model), ``smollm2`` (the embedded real model), or a repo id or path."""
    why = refusal(name)  # before the families' modules are imported
    if why is not None:
        raise CommandRefused(why)
    if name in unavailable():
        sys.exit(f"nnterp: {not_served(name)}")
    if name in REAL_NAMES:
        return real.load(attn_implementation=attn_implementation)
    if name in registry() or name in wrapper_registry():  # a family or a wrapper (gemma3): its tiny model
        return tiny.load(name, attn_implementation=attn_implementation)
    return StandardizedTransformer(name, dispatch=True, attn_implementation=attn_implementation)
