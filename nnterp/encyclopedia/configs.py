"""A family's config class and the checkpoint its page shows: what the pages, the derived notes and the real-config
run all build from, so it sits below each of them."""

from __future__ import annotations

import re

import transformers
from transformers import AutoConfig


def config_class(family):
    """The transformers config class the family's checkpoints load with."""
    name = (family.tiny or {}).get("config_class")
    if name:
        return getattr(transformers, name)
    return type(AutoConfig.for_model(family.model_types[0]))


def reproduced_checkpoint(config_cls) -> str | None:
    """The checkpoint a config class's docstring says its defaults reproduce."""
    match = re.search(r"similar configuration to that of the\s*\[([^\]]+)\]", config_cls.__doc__ or "")
    return match.group(1) if match else None


def representative(family):
    """The checkpoint the page's printout and config show: the family's first with config facts."""
    return next((checkpoint for checkpoint in family.checkpoints if checkpoint.config), None)
