"""Families: what a model family declares (it starts from the common conventions, ``nnterp.conventions``), and the
registry that finds it.

A family module under ``nnterp/families/`` holds one ``FAMILY = Family(...)``: its model types,
the renames onto the standard module names, the sites that differ from the common ones, the
checkpoints it covers and a tiny recipe. Its docstring is the encyclopedia's "from the family
module" section. Dropping the file into the folder registers it; ``python -m nnterp.catalogue --write``
then adds it to the index (families/_index.py), from which ``text_family_for`` imports only the module a
model needs, and records the first transformers release serving it. A family declared anywhere else
(a user's module, a notebook) is registered at run time with ``register``.
"""

from __future__ import annotations

import copy
import difflib
import importlib
import json
import pkgutil
from contextlib import contextmanager
from dataclasses import dataclass, field, fields, replace
from functools import lru_cache
from types import ModuleType
from typing import Any, Callable

from . import families
from .blocks import Block
from .companions import Companion
from .conventions import COMMON_ACCESSORS, COMMON_RENAME, COMMON_SITES, _same_site, described
from .errors import RegistrationRefused, UnavailableValue, UnknownArchitecture
from .families import _index
from .locations import HostContext
from .readout import IDENTITY, Readout
from .routers import MoE
from .writeback import Nowhere, Site


@dataclass(frozen=True)
class Checkpoint:
    """A real checkpoint the family covers, with the config facts its page is printed from."""

    repo: str
    label: str
    config: dict = field(default_factory=dict)
    #: why its printout cannot be built from the facts known here (the page then shows the tiny model)
    not_buildable: str | None = None
    #: where the facts were read: the repository and path of the config.json copy, in words
    source: str | None = None
    #: only some of the file's keys are known: a key the facts lack is not the checkpoint's
    partial: bool = False
    #: the whole config.json as read at ``source`` (nested keys and quantization_config included), where a copy was
    #: found; ``config`` holds the facts of it that shape the model
    released: dict | None = None
    #: why no copy of its config.json was found: then no note states a number of it
    not_found: str | None = None

    def as_data(self) -> dict:
        """The checkpoint as its family's data file (``families/checkpoints/<module>.json``) holds it."""
        data = {"repo": self.repo, "label": self.label, "source": self.source, "partial": self.partial,
                "config": self.config}
        if self.not_buildable:
            data["not_buildable"] = self.not_buildable
        if self.released is not None:
            data["released"] = self.released
        if self.not_found:
            data["not_found"] = self.not_found
        return data

    def facts(self) -> dict:
        """A deep copy of the config facts: a config class built from them writes into nested dicts (rope_scaling)."""
        return copy.deepcopy(self.config)


#: the folder of the checkpoints' config facts, one JSON file per family module
CHECKPOINT_DATA = "checkpoints"


def checkpoint_data(module_name: str) -> tuple[Checkpoint, ...]:
    """The checkpoints the family module's data file records, in its order (none where it has no file)."""
    from importlib import resources

    found = resources.files("nnterp.families").joinpath(CHECKPOINT_DATA, f"{module_name}.json")
    if not found.is_file():
        return ()
    entries = json.loads(found.read_text())["checkpoints"]
    return tuple(Checkpoint(e["repo"], e["label"], e.get("config") or {}, e.get("not_buildable"), e.get("source"),
                            bool(e.get("partial")), e.get("released"), e.get("not_found")) for e in entries)


def merged_checkpoints(recorded: tuple[Checkpoint, ...], declared: tuple[Checkpoint, ...]) -> tuple[Checkpoint, ...]:
    """The data file's checkpoints with those a family module still declares in Python: a declared one replaces
    the recorded one of its repository (keeping the recorded source where it names none), in the module's order;
    the recorded ones it does not name follow."""
    by_repo = {c.repo: c for c in recorded}
    merged = [replace(c, source=c.source or by_repo[c.repo].source, released=c.released or by_repo[c.repo].released,
                      not_found=c.not_found or by_repo[c.repo].not_found) if c.repo in by_repo else c
              for c in declared]
    named = {c.repo for c in declared}
    return tuple(merged + [c for c in recorded if c.repo not in named])


@dataclass(frozen=True)
class Positions:
    """A model's positions where they are not the call's own: ``refused`` says why its forward cannot take
    position_ids (Reformer computes and pads its own), which a left-padded batch of prompts of different lengths
    needs; ``ahead`` counts positions the blocks compute ahead of the call's, which every call position attends to
    (CPM-Ant's prompt_length learned prompt tokens): (config) -> count, so keys, values and the pattern's key axis
    span them."""

    refused: str | None = None
    ahead: Callable = lambda config: 0


@dataclass
class Family:
    """What a family declares; everything left out follows the common conventions. A family that is another plus a
    change is declared from it, ``PARENT.but(name=..., ...)``, and keeps the rest of its declaration."""

    name: str
    #: the config model types it serves; left out, its name alone (most families are named after their model type)
    model_types: tuple[str, ...] | None = None
    summary: str = ""
    tags: tuple[str, ...] = ()
    rename: dict = field(default_factory=dict)
    sites: dict[str, Site] = field(default_factory=dict)
    accessors: dict[str, Callable] = field(default_factory=dict)
    #: the block where it is not the common sequential pre-norm one (nnterp.blocks: Block, Parallel, PostNorms): its
    #: kind, its own arithmetic and order, per-block dimensions, its mixers, and the sites a preset implies
    block: Block | None = None
    #: a mixture-of-experts preset (nnterp.routers.MoE): the router's and the experts' sites and accessors
    moe: MoE | None = None
    #: the readout where it is not norm then lm_head (nnterp.readout.Readout): what the model does past lm_head,
    #: before it, and whether the logit lens is the readout
    readout: Readout = IDENTITY
    #: attention implementations a load may name (None: what transformers accepts)
    loads: tuple[str, ...] = ("eager", "sdpa")
    #: (model) -> a warning sentence for a known numerical hazard of this load, or None
    hazard: Callable | None = None
    checkpoints: tuple[Checkpoint, ...] = ()
    tiny: dict = field(default_factory=dict)
    #: structural config switches, each a tiny-recipe override checked like the family itself
    variants: dict[str, dict] = field(default_factory=dict)
    #: where a family cannot keep the whole contract (multi-stream residuals...), the exact reason
    #: and what it does serve; listed in the families table
    contract_note: str | None = None
    #: the positions where they are not the call's own, 0 to seq - 1 (nnterp.family.Positions)
    positions: "Positions" = None
    #: the family this one is declared from (``PARENT.but(...)``), whose declaration it keeps except where it says
    parent: "Family | None" = field(default=None, repr=False)
    #: the Python module the family is declared in
    module: ModuleType | None = None

    def __post_init__(self) -> None:
        if self.model_types is None:
            self.model_types = (self.name,)
        if self.block is None:
            self.block = Block()
        if self.positions is None:
            self.positions = Positions()
        # what the family's module wrote, kept for a child declared with ``but``
        self._declared = {"sites": dict(self.sites), "accessors": dict(self.accessors)}
        # the presets' sites first, the block's then the router's: the printout lists declared values in this order;
        # the declared sites win
        moe = self.moe.sites() if self.moe is not None else {}
        self.sites = {**self.block.sites(), **moe, **self.sites}
        if self.moe is not None:
            self.accessors = {**self.moe.accessors(), **self.accessors}
        # a sentence in place of a site: the common site, described in this family's words
        for name, declared in list(self.sites.items()):
            if isinstance(declared, str):
                self.sites[name] = described(COMMON_SITES[name], declared)

    def but(self, *, name: str, model_types: tuple[str, ...] | None = None, **changes) -> "Family":
        """A family that is this one plus a change (``OLMO2.but(name="olmo3", ...)``): the fields given replace
        this family's (``tiny`` too: a child's recipe names its own config class), its model types are its own
        (its name alone where it gives none, never its parent's), while ``sites``, ``accessors``,
        ``rename`` and ``variants`` add to (or override) its own. Its checkpoints are its own; ``differences()`` is
        said against this family."""
        declared = {item.name: getattr(self, item.name) for item in fields(self)
                    if item.init and item.name not in ("name", "model_types", "checkpoints", "module", "parent")}
        for merged in ("sites", "accessors"):
            declared[merged] = {**self._declared[merged], **changes.pop(merged, {})}
        for merged in ("rename", "variants"):
            declared[merged] = {**getattr(self, merged), **changes.pop(merged, {})}
        return Family(name=name, model_types=model_types, parent=self, **{**declared, **changes})

    def tiny_for(self, config_class: "str | type", *, without: tuple[str, ...] = (), **changes) -> dict:
        """This family's tiny recipe under a child's config class, less the overrides ``without`` names, with
        ``changes``: a child's recipe, ``tiny=PARENT.tiny_for("ChildConfig", ...)``."""
        overrides = self.tiny["overrides"]
        unknown = [key for key in without if key not in overrides]
        if unknown:
            raise ValueError(f"the {self.name} tiny recipe has no {', '.join(unknown)} to leave out: drop "
                             f"{'them' if len(unknown) > 1 else 'it'} from without=")
        kept = {key: value for key, value in overrides.items() if key not in without}
        return {"config_class": config_class, "overrides": {**kept, **changes}}

    def description_changes(self) -> dict[str, str]:
        """The values this family serves at the common site, described in its own words: {name: sentence}."""
        return {name: site.description for name, site in self.sites.items()
                if isinstance(site, Site) and name in COMMON_SITES and site.description
                and _same_site(site, COMMON_SITES[name])}

    #: what a child says where it drops a part of its parent's declaration (differences)
    _COMMON_AGAIN = {
        "block": "the sequential pre-norm block", "moe": "a dense MLP, no mixture of experts",
        "formula": "logits = lm_head_output", "normed": "lm_head reads the final norm's output",
        "unembed": "lm_head maps the last block's output", "refused": "takes position_ids",
        "ahead": "the positions are the call's", "lens": "project_on_vocab is the readout",
        "loads": "loads eager and sdpa",
    }
    #: the declarations listed by name, and the words before the names
    _BY_NAME = {"rename": "modules renamed: ", "own": "read elsewhere: ", "words": "described in its own words: "}

    def _declarations(self) -> list[tuple[str, Any]]:
        """What this family declares against the common conventions, as (aspect, what): a sentence, None where it
        declares nothing there, or {name: declaration} for the aspects listed by name."""
        words = self.description_changes()
        preset = {**self.block.sites(), **(self.moe.sites() if self.moe is not None else {})}
        readout, positions = self.readout, self.positions
        return [
            ("rename", {native: alias for native, alias in self.rename.items() if isinstance(native, str)}),
            ("block", f"the block: {self.block.describe()}" if self.block.describe() != "sequential" else None),
            ("moe", f"the MLP: {self.moe.describe()}" if self.moe is not None else None),
            ("own", {name: self.sites[name] for name in self.sites if name not in words and name not in preset}),
            ("words", words),
            ("formula", None if readout.past_head_identity else readout.formula()),
            ("normed", readout.normed_divided_by and
             f"lm_head reads the final norm's output divided by config.{readout.normed_divided_by}"),
            ("unembed", readout.unembed is not None and "its own map from the last block's output to lm_head's logits"),
            ("refused", positions.refused and f"refuses position_ids: {positions.refused}"),
            ("ahead", positions.ahead is not Positions.__dataclass_fields__["ahead"].default
             and "the blocks compute positions ahead of the call's, which every position attends to"),
            ("lens", not readout.exact_lens
             and "the logits mix more than the last block's output: project_on_vocab is a lens"),
            ("loads", self.loads != ("eager", "sdpa")
             and f"loads: {', '.join(self.loads) if self.loads else 'what transformers accepts'}"),
        ]

    @staticmethod
    def _same_declaration(a, b) -> bool:
        """Whether a child's declared site (or description, or rename) is its parent's."""
        if a is b or (isinstance(a, str) and a == b):
            return True
        return isinstance(a, Site) and isinstance(b, Site) and _same_site(a, b) and a.description == b.description

    def differences(self) -> list[str]:
        """What this family declares against its parent's declaration (``but``), or the common (Llama)
        conventions where it has none, a sentence each: "as PARENT, except: ..."."""
        parent = dict(self.parent._declarations()) if self.parent is not None else {}
        said = []
        for aspect, what in self._declarations():
            before = parent.get(aspect)
            if aspect in self._BY_NAME:  # what the parent has not, or has otherwise
                names = [name for name, value in what.items()
                         if name not in (before or {}) or not self._same_declaration(value, before[name])]
                if names:
                    listed = (f"{name} as {what[name]}" if aspect == "rename" else name for name in names)
                    said.append(self._BY_NAME[aspect] + ", ".join(listed))
            elif what and what != before:
                said.append(what)
            elif before and not what:  # the parent's, dropped: this family is as the common conventions there
                said.append(f"as Llama, not as {self.parent.name}: {self._COMMON_AGAIN[aspect]}")
        return said

    @property
    def doc(self) -> str:
        return (self.module.__doc__ or "").strip() if self.module else ""

    @property
    def all_rename(self) -> dict:
        return {**COMMON_RENAME, **self.rename}

    def site(self, name: str, context: "HostContext | None" = None) -> Site:
        site = self.sites.get(name) or COMMON_SITES.get(name) or Nowhere(f"{self.name} has no {name.split('_')[0]}")
        # a site may depend on the checkpoint's config (GPT-NeoX's use_parallel_residual) or on
        # the block (a hybrid's Mamba layers): then it is a function of the host's context
        while not isinstance(site, Site):  # a family's function may hand back a common one, itself a function
            site = site(context)
        # a value whose site follows from another's moves with it
        return site.resolve(self.site(site.of, context), context) if isinstance(site, Companion) else site

    @property
    def groups(self) -> tuple[str, ...]:
        """The value groups this family lists: the core ones, plus the router's where it has one and the gates where
        it has gated cross-attention blocks."""
        routed = ("moe",) if any(name.startswith("router_") for name in self.sites) else ()
        return ("core", *routed, *(("gate",) if "attention_gate" in self.sites else ()))

    def declared_first(self, names) -> list[str]:
        """Names in printout order: the ones this family declares, then the common ones."""
        names = list(names)
        own = [n for n in self.sites if n in names]
        return own + [n for n in names if n not in own]

    def accessor(self, name: str, config):
        accessor = self.accessors.get(name) or COMMON_ACCESSORS.get(name)
        if accessor is None:
            raise UnavailableValue(f"{self.name} has no {name}: its blocks have no router")
        return accessor(config)


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
    import transformers  # a module dropped in since the index was written: taken as served here

    return ".".join(transformers.__version__.split(".")[:2])


def served_here(name: str) -> bool:
    """Whether the installed transformers serves the family (its classes exist, its modeling is the one read)."""
    return release(first_release(name)) <= _installed_release()


def _load(module_name: str) -> "Family":
    module = importlib.import_module(f"{families.__name__}.{module_name}")
    return _registered(module.FAMILY, module, module_name)


def _registered(family: "Family", module, module_name: str) -> "Family":
    """The family with its module and its checkpoints, the data file's merged with those it declares (idempotent:
    the module may be met by both the index and the scan)."""
    family.module = module
    family.checkpoints = merged_checkpoints(checkpoint_data(module_name), family.checkpoints)
    return family


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
    process: ``nnterp.lookup.family_for``, ``StandardizedTransformer``, ``nnterp.tiny`` and ``registry()`` then
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
    if name not in _index.MODULES:  # a module dropped in since the index was written
        found = _scan().get(name)
        if found is None:
            raise UnknownArchitecture(unknown_family(name))
        return found
    if not served_here(name):
        raise UnknownArchitecture(not_served(name))
    return declared_family(name)


@lru_cache(maxsize=None)
def declared_family(name: str) -> Family:
    """A family of the index as its module declares it, whether or not the installed transformers serves it (a
    wrapper's recipe borrows its text family's, and is declared on every release)."""
    return _load(_index.MODULES[name])


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
    if name is None:  # a module dropped in since the index was written (the test suite says to rewrite it)
        return next((f for f in _scan().values() if model_type in f.model_types), None)
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
            found[family.name] = _registered(family, module, info.name)
    return dict(sorted(found.items()))


def text_family_for(config, architecture: str | None = None) -> Family:
    """The text family serving a config, or a one-sentence refusal naming how to add one (``nnterp.lookup.family_for``
    looks for a wrapper first)."""
    model_type = getattr(config, "model_type", None)
    architecture = architecture or (getattr(config, "architectures", None) or [type(config).__name__])[0]
    family = _family_of_model_type(model_type, architecture)
    if family is not None:
        return family
    names = list(registry())
    raise UnknownArchitecture(
        f"{architecture} (model_type {model_type!r}) belongs to no nnterp family; {len(names)} are supported "
        f"({', '.join(names[:6])}, ...: see nnterp.family.registry() or FAMILIES.md); "
        f"to add one, declare FAMILY = Family(...) (see nnterp/families/llama.py) in nnterp/families/{model_type}.py, "
        f"or in your own code and call nnterp.register(FAMILY) (docs/families.md)"
    )
