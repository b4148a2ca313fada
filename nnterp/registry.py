"""The one place where a name, a config or a model becomes a family: the text families of ``nnterp/families/``
(found through their index, importing only the module a model needs), the families registered at run time
(``register``), and the wrappers of ``nnterp/wrappers/`` (image-text-to-text models served through the family of
the language model inside them). ``family_for(config)`` answers for a model, ``by_name(name)`` for a name."""

from __future__ import annotations

import contextlib
import difflib
import importlib
import logging
import pkgutil
from contextlib import contextmanager
from functools import lru_cache

import nnterp.families as families
import nnterp.wrappers as wrappers
from nnterp.declare.errors import RegistrationRefused, UnknownArchitecture
from nnterp.declare.family import Family
from nnterp.families import _declared, _index
from nnterp.wrappers.wrapper import Wrapper, WrapperFamily, family_of

#: The transformers releases nnterp is tested on (pyproject.toml pins the same): the whole suite on the newest,
#: the contract on every family row on the oldest. Each family's first release is in families/_index.py.
TESTED_WINDOW = ("5.18", "5.24")


def _installed_release() -> tuple[int, int]:
    import transformers

    return release(transformers.__version__)


def release(version: str) -> tuple[int, int]:
    """A transformers version as its (major, minor) release: '5.22.2' -> (5, 22)."""
    major, minor = version.split(".")[:2]
    return int(major), int("".join(ch for ch in minor if ch.isdigit()) or 0)


@lru_cache(maxsize=None)
def warn_above_window() -> None:
    """Once per process: the installed transformers is newer than the tested window (pip's cap bypassed)."""
    newest = release(TESTED_WINDOW[1])
    if _installed_release() > newest:
        import warnings

        import transformers

        warnings.warn(f"transformers {transformers.__version__} is newer than the releases nnterp is tested on "
                      f"({TESTED_WINDOW[0]} to {TESTED_WINDOW[1]}): a family whose modeling changed may read the "
                      f"wrong tensors; FAMILIES.md lists what the window serves, and model.check() runs the contract "
                      f"on your model", stacklevel=3)


def first_release(name: str) -> str:
    """The first transformers release that serves the family (its classes and the modeling it reads)."""
    if name in _index.SINCE:
        return _index.SINCE[name]
    import transformers  # a family of _dropped_in(): taken as served here

    return ".".join(transformers.__version__.split(".")[:2])


def served_here(name: str) -> bool:
    """Whether the installed transformers serves the family (its classes exist, its modeling is the one read)."""
    return release(first_release(name)) <= _installed_release()


#: The families registered at run time (``register``), by name, in the order they were registered: they come
#: before the package's, by name and by model type.
_REGISTERED: dict[str, Family] = {}


def _registered_for(model_type) -> Family | None:
    """The latest registered family declaring ``model_type``, if any."""
    return next((f for f in reversed(_REGISTERED.values()) if model_type in f.model_types), None)


def _forget() -> None:
    """Clear what was computed from the registrations."""
    registry.cache_clear()
    family_named.cache_clear()


def register(family: Family, *, override: bool = False) -> Family:
    """Register a family declared outside ``nnterp/families/`` (a user's own module or notebook), for this
    process: ``nnterp.registry.family_for``, ``StandardizedTransformer``, ``nnterp.tiny`` and ``registry()`` then
    find it. The name of a family of the package, or a model type that one (or another registered family) already
    serves, is refused unless ``override=True``, and the registered family then wins; registering a family of the
    same name again (a notebook cell run twice) replaces it. Returns the family."""
    if not isinstance(family, Family):
        raise RegistrationRefused(f"nnterp.register takes a Family(...), not {type(family).__name__}: declare "
                                  f"FAMILY = Family(name=..., model_types=(...), tiny=...) and register that")
    if not family.model_types:
        raise RegistrationRefused(f"the {family.name} family declares no model type, so no model would find it: "
                                  f"give it model_types=(config.model_type,)")
    if not override:
        if family.name in _index.MODULES:
            raise RegistrationRefused(f"{family.name!r} is the name of nnterp's own {family.name} family: name yours "
                                      f"otherwise, or pass override=True to serve it in its place")
        for model_type in family.model_types:
            owner = _index.MODEL_TYPES.get(model_type)
            other = _registered_for(model_type)
            if other is not None and other.name != family.name:
                owner = f"the registered {other.name}"
            elif owner is not None:
                owner = f"nnterp's {owner}"
            else:
                continue
            raise RegistrationRefused(f"model_type {model_type!r} is already served by {owner} family: pass "
                                      f"override=True to serve it with {family.name} instead")
    _REGISTERED.pop(family.name, None)  # the latest registration comes first
    _REGISTERED[family.name] = family
    _forget()
    return family


def unregister(family: "Family | str") -> None:
    """Forget a family registered with ``register`` (by the family or its name); what it overrode is served again."""
    name = family if isinstance(family, str) else family.name
    if name not in _REGISTERED:
        raise RegistrationRefused(f"{name!r} is not a registered family; the registered ones are "
                                  f"{', '.join(_REGISTERED) or 'none'}")
    del _REGISTERED[name]
    _forget()


@contextmanager
def registered(family: Family, *, override: bool = False):
    """``register`` for the length of a ``with`` block (a test): afterwards the registrations are as they were."""
    before = dict(_REGISTERED)
    register(family, override=override)
    try:
        yield family
    finally:
        _REGISTERED.clear()
        _REGISTERED.update(before)
        _forget()


@lru_cache(maxsize=None)
def registry() -> dict[str, Family]:
    """Every family the installed transformers serves, by family name (each module imported), with those
    registered at run time."""
    found = {name: family for name, family in _scan().items() if served_here(name)}
    return dict(sorted({**found, **_REGISTERED}.items()))


def known_names() -> list[str]:
    """The family names, without importing a family module: the index's, a later release's included, and the
    registered ones."""
    return sorted({*_index.MODULES, *_REGISTERED})


@lru_cache(maxsize=None)
def family_named(name: str) -> Family:
    """One family by name, importing its module alone."""
    if name in _REGISTERED:
        return _REGISTERED[name]
    if name not in _index.MODULES:
        if name not in _dropped_in():
            raise UnknownArchitecture(unknown_family(name))
        return _dropped_in()[name]
    if not served_here(name):
        raise UnknownArchitecture(not_served(name))
    return _declared.declared(name)


def unknown_family(name: str, others=()) -> str:
    """Why ``name`` names no family, in one sentence: the nearest names, and how to add one."""
    names = [*known_names(), *others]
    near = difflib.get_close_matches(name, names, n=3, cutoff=0.6)
    hint = f"did you mean {', '.join(near)}? " if near else ""
    return (f"{name!r} is no family ({hint}FAMILIES.md lists all {len(names)}); a family of your own is found once "
            f"registered with nnterp.register(Family(...)) (docs/families.md)")


def unavailable() -> dict[str, str]:
    """The families the installed transformers does not serve, with the first release that does."""
    return {name: first_release(name) for name in sorted(_index.MODULES) if not served_here(name)}


def not_served(name: str, what: str | None = None) -> str:
    """Why the installed release does not serve the family, in one sentence naming the release that does."""
    import transformers

    since = first_release(name)
    what = what or f"the {name} family"
    return (f"{what} is served from transformers {since} on (installed: {transformers.__version__}): "
            f"pip install 'transformers>={since}'")


def _family_of_model_type(model_type, architecture=None) -> Family | None:
    """The family declaring ``model_type``: the index names its module, so only that module is imported."""
    own = _registered_for(model_type)
    if own is not None:
        return own
    name = _index.MODEL_TYPES.get(model_type)
    if name is None:
        return next((f for f in _dropped_in().values() if model_type in f.model_types), None)
    if not served_here(name):
        raise UnknownArchitecture(not_served(name, f"{architecture} (model_type {model_type!r}, nnterp's {name} family)"))
    return family_named(name)


@lru_cache(maxsize=None)
def _scan() -> dict[str, Family]:
    """Every family module in the folder the installed release can import: what the index is written from."""
    later = {_index.MODULES[name] for name in _index.MODULES if not served_here(name)}
    found = {}
    for info in pkgutil.iter_modules(families.__path__):
        if info.name == "_index" or info.name in later:  # a family of a later release may import what is not here
            continue
        module = importlib.import_module(f"{families.__name__}.{info.name}")
        family = getattr(module, "FAMILY", None)
        if family is not None:
            found[family.name] = _declared.with_checkpoints(family, module, info.name)
    return dict(sorted(found.items()))


def _dropped_in() -> dict[str, Family]:
    """The families of modules dropped into nnterp/families/ since the index was written (the test suite says to
    rewrite it with ``python -m nnterp.cli.catalogue --write``): found by the scan, taken as served here."""
    return {name: family for name, family in _scan().items() if name not in _index.MODULES}


def text_family_for(config, architecture: str | None = None) -> Family:
    """The text family serving a config, or a one-sentence refusal naming how to add one (``nnterp.registry.family_for``
    looks for a wrapper first)."""
    model_type = getattr(config, "model_type", None)
    architecture = architecture or (getattr(config, "architectures", None) or [type(config).__name__])[0]
    family = _family_of_model_type(model_type, architecture)
    if family is not None:
        return family
    names = list(registry())
    raise UnknownArchitecture(
        f"{architecture} (model_type {model_type!r}) belongs to no nnterp family; {len(names)} are supported "
        f"({', '.join(names[:6])}, ...: see nnterp.registry.registry() or FAMILIES.md); "
        f"to add one, declare FAMILY = Family(...) (see nnterp/families/llama.py) in nnterp/families/{model_type}.py, "
        f"or in your own code and call nnterp.register(FAMILY) (docs/families.md)"
    )


#: The modules declaring wrappers, with the tuple each declares them in: declarations.py's, then those beside it
#: (which borrow its recipe parts). Their recipes name their text families, so they are imported, as family modules
#: are, only once a wrapper is asked for: a text model's construction imports none of them.
DECLARATIONS = {"declarations": "WRAPPERS", "own_text": "OWN_TEXT", "llava_kin": "LLAVA_KIN", "vq_tokens": "VQ_TOKENS",
                "text_kin": "TEXT_KIN", "stacked": "STACKED",
                "stacked_blocks": "STACKED_BLOCKS",
                "sparse_latent": "SPARSE_LATENT", "cross_attention": "CROSS_ATTENTION",
                "kosmos": "KOSMOS", "ernie_vl": "ERNIE_VL"}


def _declaring(module_name: str):
    return importlib.import_module(f"{wrappers.__name__}.{module_name}")


def declared_wrappers() -> tuple[Wrapper, ...]:
    """Every declaration, in the order of ``DECLARATIONS``."""
    return tuple(wrapper for module_name, tuple_name in DECLARATIONS.items()
                 for wrapper in getattr(_declaring(module_name), tuple_name))


@lru_cache(maxsize=None)
def wrapper_registry() -> dict[str, WrapperFamily]:
    """Every served wrapper, by name: those the installed transformers serves (see ``outside_release``)."""
    return {w.name: family_of(w, text_family_of(w)) for w in declared_wrappers() if w.broken is None and outside_release(w) is None}


def outside_release(wrapper: Wrapper) -> str | None:
    """Why the installed transformers does not serve a declared wrapper (its text family or its own classes come in
    a later release), in one sentence; None when it does."""
    import transformers

    if isinstance(wrapper.text_family, str) and not served_here(wrapper.text_family):
        return not_served(wrapper.text_family, f"{wrapper.title}, through the {wrapper.text_family} family,")
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

    for wrapper in declared_wrappers():
        if ours(wrapper) and wrapper.broken is None:
            if (why := outside_release(wrapper)) is not None:
                raise UnknownArchitecture(why)
            _check_text_type(wrapper, config, architecture)
            return wrapper_registry()[wrapper.name]
        if ours(wrapper):
            raise UnknownArchitecture(f"{architecture or model_type} (model_type {model_type!r}) is not served: "
                                      f"{wrapper.broken}")
    reason = wrappers_not_served().get(model_type)
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
            f"through the {text_family_of(wrapper).name} family" + (
                f"; load its language model alone, which the {alone} family serves" if alone else ""))


def _wrapper_class(model_type: str) -> str | None:
    from transformers.models.auto.modeling_auto import MODEL_FOR_IMAGE_TEXT_TO_TEXT_MAPPING_NAMES

    return MODEL_FOR_IMAGE_TEXT_TO_TEXT_MAPPING_NAMES.get(model_type)


def wrappers_not_served() -> dict[str, str]:
    """Every image-text-to-text type not served, with its reason: the listed ones and the declared but broken."""
    broken = {t: w.broken for w in declared_wrappers() if w.broken for t in w.model_types}
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

def text_family_of(wrapper: Wrapper) -> Family:
    """The text family a wrapper serves its language model with (a registered one in place of the package's)."""
    return wrapper.text_family if isinstance(wrapper.text_family, Family) else family_named(wrapper.text_family)


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


def by_name(name: str):
    """A family (one registered at run time too) or a wrapper (a broken one too: its recipe builds the model that
    shows it), by name."""
    if name in known_names() or name in _dropped_in():
        return family_named(name)
    wrapper = next((w for w in declared_wrappers() if w.name == name), None)
    if wrapper is not None:
        return wrapper_registry().get(name) or family_of(wrapper, text_family_of(wrapper))
    raise UnknownArchitecture(unknown_family(name, [w.name for w in declared_wrappers()]))
