"""Which family serves a model: a wrapper, where the config is an image-text-to-text model's that one declares,
else the text family of its model type."""

from __future__ import annotations

from .errors import UnknownArchitecture
from .family import Family, text_family_for
from .wrappers import wrapper_for


def family_for(config, architecture: str | None = None) -> Family:
    """The family serving a config, or a one-sentence refusal naming how to add one."""
    if getattr(config, "text_config", None) is not None:  # an image-text-to-text model: its language model's family
        wrapper = wrapper_for(config, architecture)
        if wrapper is not None:
            return wrapper
    try:
        return text_family_for(config, architecture)
    except UnknownArchitecture:
        wrapper = wrapper_for(config, architecture)  # a wrapper whose config has no text_config (Chameleon's)
        if wrapper is None:
            raise
        return wrapper
