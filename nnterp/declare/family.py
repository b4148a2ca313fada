"""Families: what a model family declares (it starts from the common conventions, ``nnterp.declare.conventions``); the
registry that finds one is ``nnterp.registry``.

A family module under ``nnterp/families/`` holds one ``FAMILY = Family(...)``: its model types,
the renames onto the standard module names, the sites that differ from the common ones, the
checkpoints it covers and a tiny recipe. Its docstring is the encyclopedia's "from the family
module" section. Dropping the file into the folder registers it; ``python -m nnterp.cli.catalogue --write``
then adds it to the index (families/_index.py), from which ``text_family_for`` imports only the module a
model needs, and records the first transformers release serving it. A family declared anywhere else
(a user's module, a notebook) is registered at run time with ``register``.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field, fields, replace
from types import ModuleType
from typing import Any, Callable

from nnterp.declare.blocks import Block
from nnterp.declare.companions import Companion
from nnterp.declare.conventions import COMMON_ACCESSORS, COMMON_RENAME, COMMON_SITES, _same_site, described
from nnterp.declare.errors import UnavailableValue
from nnterp.declare.locations import HostContext
from nnterp.declare.readout import IDENTITY, Readout
from nnterp.declare.routers import MoE
from nnterp.declare.vocabulary import EAGER, SDPA
from nnterp.declare.writeback import Nowhere, Site


#: A family served under eager alone declares ``loads=EAGER_LOADS`` (the implementations: nnterp.declare.vocabulary)
EAGER_LOADS = (EAGER,)


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
class NativeClass:
    """A module class of the family's modeling, by module and name: a rename keyed by it reaches every module of that
    class (the runtime imports the class when it wraps a model), and ``matches`` tells a module of it, so that the
    declaration imports no transformers."""

    module: str
    name: str

    def matches(self, module) -> bool:
        return type(module).__name__ == self.name and type(module).__module__ == self.module


@dataclass(frozen=True)
class Positions:
    """A model's positions where they are not the call's own: ``refused`` says why its forward cannot take
    position_ids (Reformer computes and pads its own), which a left-padded batch of prompts of different lengths
    needs; ``ahead`` counts positions the blocks compute ahead of the call's, which every call position attends to
    (CPM-Ant's prompt_length learned prompt tokens): (config) -> count, so keys, values and the pattern's key axis
    span them."""

    refused: str | None = None
    ahead: Callable = lambda config: 0
    #: why the forward reads no attention mask (RWKV's): a padded batch would read its pads as text, so it is refused
    padding_ignored: str | None = None


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
    #: the block where it is not the common sequential pre-norm one (nnterp.declare.blocks: Block, Parallel, PostNorms): its
    #: kind, its own arithmetic and order, per-block dimensions, its mixers, and the sites a preset implies
    block: Block | None = None
    #: a mixture-of-experts preset (nnterp.declare.routers.MoE): the router's and the experts' sites and accessors
    moe: MoE | None = None
    #: the readout where it is not norm then lm_head (nnterp.declare.readout.Readout): what the model does past lm_head,
    #: before it, and whether the logit lens is the readout
    readout: Readout = IDENTITY
    #: attention implementations a load may name (None: what transformers accepts)
    loads: tuple[str, ...] = (EAGER, SDPA)
    #: (model) -> a warning sentence for a known numerical hazard of this load, or None
    hazard: Callable | None = None
    checkpoints: tuple[Checkpoint, ...] = ()
    tiny: dict = field(default_factory=dict)
    #: structural config switches, each a tiny-recipe override checked like the family itself
    variants: dict[str, dict] = field(default_factory=dict)
    #: where a family cannot keep the whole contract (multi-stream residuals...), the exact reason
    #: and what it does serve; listed in the families table
    contract_note: str | None = None
    #: the positions where they are not the call's own, 0 to seq - 1 (nnterp.declare.family.Positions)
    positions: "Positions" = None
    #: (config) -> the load keywords under which the forward keeps gradients on where it turns them off by default
    #: (HRM's L_bp_cycles: its first low-level cycles run under torch.no_grad); an attribution graph's refusal names them
    gradients_on: Callable | None = None
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
            ("loads", self.loads != (EAGER, SDPA)
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
        if not isinstance(site, Companion):
            return site
        return site.resolve(self.site(site.of, context), context, {name: self.site(name, context) for name in site.also})

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
