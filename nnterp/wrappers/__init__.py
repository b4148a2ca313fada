"""Wrappers: image-text-to-text models served through the family of the language model inside them.

A wrapper (``Gemma3ForConditionalGeneration``, ``LlavaForConditionalGeneration``, ...) holds a vision tower, a
projector and a decoder-only language model. nnterp serves the language stack with the text family's sites:
``layers`` are the language model's blocks, ``norm`` and ``lm_head`` its readout, and availability is computed
from the text config. Where the image enters the stream is served on the model: ``image_features`` (what the
wrapper places into the stream at the image positions, read where it merges them) and ``image_mask``.

A wrapper is data: a ``Wrapper`` names its model types, its text family, where the language model sits in the
native tree, the module whose forward merges the image features, its image inputs and a tiny recipe.
``family_of`` turns it into a ``Family`` whose renames are the text family's under the language model's path.
"""

from __future__ import annotations

import contextlib
import importlib
import logging
from functools import lru_cache

from ..errors import UnknownArchitecture
from ..families import _index
from ..family import not_served as family_not_served, registry, served_here
from .wrapper import IMAGE_ROWS, TEXT_PREFIX, Wrapper, WrapperFamily, _text_family, family_of, has_image, merge_host

__all__ = ["IMAGE_ROWS", "OwnClass", "TEXT_PREFIX", "Wrapper", "WrapperFamily", "auto_class", "declared",
           "every_family", "family_of", "has_image", "merge_host", "not_served", "quiet_text_pipeline", "wrapper_for",
           "wrapper_registry"]


#: The modules declaring wrappers, with the tuple each declares them in: declarations.py's, then those beside it
#: (which borrow its recipe parts). Their recipes name their text families, so they are imported, as family modules
#: are, only once a wrapper is asked for: a text model's construction imports none of them.
DECLARATIONS = {"declarations": "WRAPPERS", "own_text": "OWN_TEXT", "llava_kin": "LLAVA_KIN", "vq_tokens": "VQ_TOKENS",
                "text_kin": "TEXT_KIN", "stacked": "STACKED",
                "stacked_blocks": "STACKED_BLOCKS",
                "sparse_latent": "SPARSE_LATENT", "cross_attention": "CROSS_ATTENTION",
                "kosmos": "KOSMOS", "ernie_vl": "ERNIE_VL"}


def _declaring(module_name: str):
    return importlib.import_module(f"{__name__}.{module_name}")


def declared() -> tuple[Wrapper, ...]:
    """Every declaration, in the order of ``DECLARATIONS``."""
    return tuple(wrapper for module_name, tuple_name in DECLARATIONS.items()
                 for wrapper in getattr(_declaring(module_name), tuple_name))


@lru_cache(maxsize=None)
def wrapper_registry() -> dict[str, WrapperFamily]:
    """Every served wrapper, by name: those the installed transformers serves (see ``outside_release``)."""
    return {w.name: family_of(w) for w in declared() if w.broken is None and outside_release(w) is None}


def outside_release(wrapper: Wrapper) -> str | None:
    """Why the installed transformers does not serve a declared wrapper (its text family or its own classes come in
    a later release), in one sentence; None when it does."""
    import transformers

    if isinstance(wrapper.text_family, str) and not served_here(wrapper.text_family):
        return family_not_served(wrapper.text_family, f"{wrapper.title}, through the {wrapper.text_family} family,")
    if not hasattr(transformers, wrapper.tiny["config_class"]):
        return (f"{wrapper.title} needs transformers' {wrapper.tiny['config_class']}, which transformers "
                f"{transformers.__version__} has not: upgrade transformers")
    return None


def every_family() -> dict:
    """Every family that names checkpoints and has a page: the text families and the wrappers, by name."""
    return {**registry(), **wrapper_registry()}


def image_text_to_text(family) -> bool:
    """Whether the family's models are built by transformers' image-text-to-text auto class: a wrapper's, and a
    causal LM that class maps and the causal-LM one does not (Mistral4ForCausalLM)."""
    from transformers.models.auto.modeling_auto import MODEL_FOR_CAUSAL_LM_MAPPING_NAMES as CAUSAL
    from transformers.models.auto.modeling_auto import MODEL_FOR_IMAGE_TEXT_TO_TEXT_MAPPING_NAMES as IMAGE_TEXT

    if getattr(family, "wrapper", None) is not None:
        return True
    return not any(t in CAUSAL for t in family.model_types) and any(t in IMAGE_TEXT for t in family.model_types)


def auto_class(family, config):
    """The transformers auto class that builds a family's models from ``config`` (a wrapper's own, vision side
    included); where that auto class does not take the config, the wrapper's own class (transformers 5.24 maps
    EvollaConfig back to the name EvollaModel, no model type of its auto classes)."""
    import transformers
    from transformers import AutoModelForCausalLM, AutoModelForImageTextToText

    auto = AutoModelForImageTextToText if image_text_to_text(family) else AutoModelForCausalLM
    wrapper = getattr(family, "wrapper", None)
    if wrapper is None or type(config) in auto._model_mapping:
        return auto
    return OwnClass(getattr(transformers, wrapper.classes[0]))


class OwnClass:
    """A model class standing in for an auto class that does not take its config: ``from_config`` and
    ``from_pretrained`` alike; ``__name__`` and ``builds`` spell it in a snippet (a model class builds from a config
    with ``_from_config``)."""

    builds = "_from_config"

    def __init__(self, cls) -> None:
        self.cls, self.__name__ = cls, cls.__name__

    def from_config(self, config, **kwargs):
        return self.cls._from_config(config, **kwargs)

    def from_pretrained(self, *args, **kwargs):
        return self.cls.from_pretrained(*args, **kwargs)


def wrapper_for(config, architecture: str | None = None) -> WrapperFamily | None:
    """The wrapper serving a config, or None; a model type a text family also claims (mllama) is the wrapper's
    only when the class is the wrapper's."""
    model_type = getattr(config, "model_type", None)
    architecture = architecture or next(iter(getattr(config, "architectures", None) or []), None)

    claimed = model_type in _index.MODEL_TYPES

    def ours(wrapper):  # the class decides where it is known; a type no text family claims is the wrapper's
        return model_type in wrapper.model_types and (
            architecture in wrapper.classes if architecture is not None else not claimed)

    for wrapper in declared():
        if ours(wrapper) and wrapper.broken is None:
            if (why := outside_release(wrapper)) is not None:
                raise UnknownArchitecture(why)
            _check_text_type(wrapper, config, architecture)
            return wrapper_registry()[wrapper.name]
        if ours(wrapper):
            raise UnknownArchitecture(f"{architecture or model_type} (model_type {model_type!r}) is not served: "
                                      f"{wrapper.broken}")
    reason = not_served().get(model_type)
    if reason is not None and (architecture == _wrapper_class(model_type) or (architecture is None and not claimed)):
        raise UnknownArchitecture(
            f"{architecture or model_type} (model_type {model_type!r}) is an image-text-to-text model nnterp does not "
            f"serve: {reason} (FAMILIES.md lists every such type with its reason)")
    return None


def _check_text_type(wrapper: Wrapper, config, architecture: str | None) -> None:
    reason = wrapper.refuses(config) if wrapper.refuses is not None else None
    if reason is not None:
        raise UnknownArchitecture(f"{architecture or wrapper.classes[0]} is not served with this config: {reason}")
    text_type = getattr(config.get_text_config(), "model_type", None)
    if wrapper.text_types and text_type not in wrapper.text_types:
        # a language model of a type a text family serves is served alone (Mistral Small 4's mistral4)
        alone = _index.MODEL_TYPES.get(text_type)
        raise UnknownArchitecture(
            f"{architecture or wrapper.classes[0]} is not served with a language model of type {text_type!r}: nnterp "
            f"serves {wrapper.title} with language models of type {' or '.join(map(repr, wrapper.text_types))} only, "
            f"through the {_text_family(wrapper).name} family" + (
                f"; load its language model alone, which the {alone} family serves" if alone else ""))


def _wrapper_class(model_type: str) -> str | None:
    from transformers.models.auto.modeling_auto import MODEL_FOR_IMAGE_TEXT_TO_TEXT_MAPPING_NAMES

    return MODEL_FOR_IMAGE_TEXT_TO_TEXT_MAPPING_NAMES.get(model_type)


def not_served() -> dict[str, str]:
    """Every image-text-to-text type not served, with its reason: the listed ones and the declared but broken."""
    broken = {t: w.broken for w in declared() if w.broken for t in w.model_types}
    return {**_declaring("declarations").NOT_SERVED, **broken}


class _NotACausalLM:
    """Drops the text-generation pipeline's 'is not supported for text-generation' record."""

    def filter(self, record) -> bool:
        return "is not supported for text-generation" not in record.getMessage()


@contextlib.contextmanager
def quiet_text_pipeline():
    logger = logging.getLogger("transformers.pipelines.base")
    quiet = _NotACausalLM()
    logger.addFilter(quiet)
    try:
        yield
    finally:
        logger.removeFilter(quiet)
