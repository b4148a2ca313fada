"""Families: what a model family declares, and the common (Llama) conventions it starts from.

A family module under ``nnterp/families/`` holds one ``FAMILY = Family(...)``: its model types,
the renames onto the standard module names, the sites that differ from the common ones, the
checkpoints it covers and a tiny recipe. Its docstring is the encyclopedia's "from the family
module" section. Dropping the file into the folder registers it; ``python -m nnterp.catalogue --write``
then adds it to the index (families/_index.py), from which ``family_for`` imports only the module a
model needs, and records the first transformers release serving it. A family declared anywhere else
(a user's module, a notebook) is registered at run time with ``register``.
"""

from __future__ import annotations

import ast
import copy
import difflib
import importlib
import json
import re
import pkgutil
from contextlib import contextmanager
from dataclasses import dataclass, field, fields, replace
from functools import lru_cache, partial
from typing import Any, Callable

from .readout import IDENTITY, Readout
from .errors import RegistrationRefused, UnavailableValue, UnknownArchitecture
from . import labels
from .sites import (
    EAGER_ONLY, HEADS_AFTER_POSITIONS, KERNEL_ARGUMENTS, SAME, SPLIT_HEADS, WHOLE, Argument, Assigned, Attribute, Call,
    Child, Companion, Derived, Element, Nowhere, Own, Read, RotaryInput, Site, contributions_of, input_of, scale_of,
)
from .vocabulary import VALUES

def _forward_source(module) -> str:
    try:
        return labels.compiled_forward(module).source
    except Exception:  # a forward nnsight cannot compile has no operation to read either
        return ""


#: what a forward that applies a rotary embedding mentions
_ROTARY_WORDS = ("rotary", "rope", "position_embeddings", "freqs_cis")
_ROTARY = "apply_rotary_pos_emb"


def _rotary_calls(module):
    """The attention's calls of apply_rotary_pos_emb in its forward's syntax tree (the compiled source)."""
    source = _forward_source(module)
    if not source:
        return source, []
    tree = ast.parse(source)
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    calls = [node for node in ast.walk(tree) if isinstance(node, ast.Call)
             and isinstance(node.func, ast.Name) and node.func.id == _ROTARY]
    return source, [(call, parents) for call in sorted(calls, key=lambda c: (c.lineno, c.col_offset))]


def _runs(call, parents, module) -> bool | None:
    """Whether the forward reaches this call on this block: the conditions of the ifs around it, evaluated on
    the attention module where they read only its attributes (``self.sliding_window is not None``); None where
    one reads anything else (an argument)."""
    node, runs = call, True
    while node in parents:
        parent = parents[node]
        if isinstance(parent, ast.If):
            names = {n.id for n in ast.walk(parent.test) if isinstance(n, ast.Name)}
            if names - {"self", "None", "True", "False"}:
                return None
            try:
                holds = bool(eval(compile(ast.Expression(parent.test), "<condition>", "eval"), {"self": module}))
            except Exception:
                return None
            runs = runs and (holds if node in parent.body else not holds)
        node = parent
    return runs


def _normed_after(source: str, target: str) -> str | None:
    """The norm module an attention applies to its rotated queries or keys right after the rotary (RoPE then norm:
    Hunyuan, nanochat), else None."""
    found = re.search(rf"{_ROTARY}\([^\n]*\)\n(?:\s*(?:#[^\n]*)?\n)*((?:\s*\w+ = self\.\w+\(\w+\)\n)+)", source)
    if not found:
        return None
    for name, norm, argument in re.findall(r"(\w+) = self\.(\w+)\((\w+)\)", found.group(1)):
        if name == argument == target:
            return norm
    return None


def _unrotated(rotated: str, index: int):
    """What enters the rotary: an argument of the attention's apply_rotary_pos_emb call (the first two of a
    call on queries and keys together, the first of one call each); where this block's attention has no rotary,
    the value itself (the rotated and unrotated queries are one tensor)."""
    which = rotated.split("_")[1]
    unlocated = Nowhere(f"the attention's rotary is applied by no apply_rotary_pos_emb call this family declares a "
                        f"site for, so the {which} before it are not located")
    same = Companion(rotated, lambda site, module: site)
    split = Nowhere(f"the attention splits each head into its rotary dims and the rest before the rotary (partial "
                    f"rotary) in a way nnterp does not follow, so the whole {which} before it are not located")
    rotary_last = Nowhere(f"the attention splits each head into the rest and its rotary dims before the rotary, the "
                          f"rotary dims last (MLA's decoupled rotary and its kin), which the contract's checks of the "
                          f"unrotated {which} (the rotary dims first) do not cover yet, so they are not served")
    branch = Nowhere(f"whether the attention applies its rotary depends on what its forward is called with, so "
                     f"the {which} before it are not located")
    made: dict = {}

    def site(context):
        source, calls = _rotary_calls(context.module)
        if not calls:
            return unlocated if any(word in source for word in _ROTARY_WORDS) else same
        if re.search(rf"{_ROTARY}\(\s*(q|query)_rot", source):
            whole = _before_the_split(context.module, source, which)
            if whole is None:
                last = rf"\b\w+, ({which[0]}|{'key' if which == 'keys' else 'query'})_rot = "
                return rotary_last if re.search(last, source) else split
            if whole not in made:
                # a copy, as at the rotary's call: the whole may be a view of one split(), not editable in place
                made[whole] = Read(Assigned(whole[0], occurrence=whole[1]), WHOLE,
                                   HEADS_AFTER_POSITIONS if whole[2] else SAME, snapshot=True, description=(
                    f"The whole {which} before the attention splits each head into its rotary dims and the rest "
                    f"(partial rotary), after any {which[0]} norm: the rotary dims are what it rotates"))
            return made[whole]
        paired = len(calls[0][0].args) >= 4  # apply_rotary_pos_emb(q, k, cos, sin) against (x, cos, sin)
        if not paired and len(calls) != 2:
            return unlocated
        call, parents = calls[0] if paired else calls[index]
        runs = _runs(call, parents, context.module)
        if runs is None:
            return branch
        if not runs:
            return same
        heads_after = any(k.arg == "unsqueeze_dim" and getattr(k.value, "value", None) == 2 for k in call.keywords)
        target = call.args[index if paired else 0]
        norm = _normed_after(source, target.id) if isinstance(target, ast.Name) else None
        key = (paired, heads_after, norm)
        if key not in made:
            # a copy taken at the call: some attentions hand the rotary views of one split(), which torch forbids
            # editing in place; an edit is carried back into the call's arguments
            made[key] = RotaryInput(
                Call(_ROTARY, "input", occurrence=0 if paired else index), Argument(index if paired else 0),
                HEADS_AFTER_POSITIONS if heads_after else SAME, snapshot=True, normed_after=norm,
                description=None if norm is None else (
                    f"The {which} entering the rotary embedding; the attention norms them after it ({norm})"))
        return made[key]
    return site


def _before_the_split(module, source: str, which: str):
    """(name, occurrence, heads after positions) of the assignment that binds the whole queries or keys a partial
    rotary splits, the rotary dims first (``q_rot = x[..., : self.rotary_ndims]``, ``q_rot, q_pass = (x[...],
    x[...])``, ``q_rot, q_pass = torch.split(x, ...)``): the last assignment of ``x`` before the split that this
    block's forward runs (its q/k norm's, where the attention has one), laid out heads after positions where the
    forward transposes ``x`` after the rotary. None where the split is written otherwise or puts the rotary dims
    last (MLA's shared rotary key), or a branch depends on what the forward is called with."""
    tree = ast.parse(source)
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    rotated = re.compile(rf"({which[0]}|{'key' if which == 'keys' else 'query'})_rot$")

    def split_of(node):
        """The name a rotary part is cut from in this assignment, with the rotary part first; else None."""
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1):
            return None
        target, value = node.targets[0], node.value
        if isinstance(target, ast.Name) and rotated.match(target.id) and isinstance(value, ast.Subscript) \
                and isinstance(value.value, ast.Name):
            return value.value.id
        if not (isinstance(target, ast.Tuple) and target.elts and isinstance(target.elts[0], ast.Name)
                and rotated.match(target.elts[0].id)):
            return None
        if isinstance(value, ast.Tuple) and value.elts and isinstance(value.elts[0], ast.Subscript) \
                and isinstance(value.elts[0].value, ast.Name):
            return value.elts[0].value.id
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "split":
            cut = value.args[0] if isinstance(value.func.value, ast.Name) and value.func.value.id == "torch" \
                and value.args else value.func.value
            return cut.id if isinstance(cut, ast.Name) else None
        return None

    splits = sorted(((node, split_of(node)) for node in ast.walk(tree) if split_of(node) is not None),
                    key=lambda found: (found[0].lineno, found[0].col_offset))
    if not splits:
        return None
    split, name = splits[0]
    if _runs(split, parents, module) is not True:
        return None
    assignments = sorted((node for node in ast.walk(tree) if isinstance(node, ast.Assign) and len(node.targets) == 1
                          and isinstance(node.targets[0], ast.Name) and node.targets[0].id == name),
                         key=lambda node: (node.lineno, node.col_offset))
    chosen, after = None, False
    for occurrence, node in enumerate(assignments):
        if (node.lineno, node.col_offset) >= (split.lineno, split.col_offset):
            moved = [n for n in ast.walk(node.value) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                     and n.func.attr in ("transpose", "permute")]
            after = after or bool(moved)
            continue
        runs = _runs(node, parents, module)
        if runs is None:
            return None
        if runs:
            chosen = occurrence
    return None if chosen is None else (name, chosen, after)


def _family_of(context) -> "Family":
    """The family a host's context belongs to (a wrapper's, whose config is its text config)."""
    return context.family or family_for(context.config)


def _standard_children(context) -> set[str]:
    """The standard names of a host's native children (its own names where the family renames none)."""
    rename = _family_of(context).all_rename
    names = set()
    for child in context.module._modules:
        alias = next((alias for key, alias in rename.items() if isinstance(key, str) and isinstance(alias, str)
                      and key.rsplit(".", 1)[-1] == child), child)
        names.add(alias.rsplit(".", 1)[-1])
    return names


def _up(context):
    """A gated MLP's up projection: up_proj's output beside a gate_proj; unavailable, for the same reason, where
    the activation is (a block of experts)."""
    activation = _family_of(context).site("mlp_activation", context)
    if not activation.served:
        return _UNAVAILABLE_LIKE.setdefault(activation.reason, Nowhere(activation.reason))
    children = _standard_children(context)
    if {"gate_proj", "up_proj"} <= children:
        return _UP
    return _FUSED_UP if "gate_up_proj" in children else _NOT_GATED


_UP = Read(Child("up_proj"))
_UNAVAILABLE_LIKE: dict = {}
_FUSED_UP = Nowhere("gate and up come out of one fused gate_up_proj, split inside the forward; no site is declared "
                    "for the up half")
_NOT_GATED = Nowhere("the MLP is not gated: the activation's output is what the down projection receives")


#: Where every value is read on the common conventions (Llama's module names, a sequential
#: pre-norm block, the attention kernel called through ``attention_interface``).
COMMON_SITES: dict[str, Site] = {
    # the model
    "logits": Read(Own("output"), Attribute("logits")),
    "token_embeddings": Read(Child("embed_tokens")),
    "final_norm_output": Read(Child("norm")),
    "final_norm_scale": Companion("final_norm_output", partial(scale_of, value="final_norm_output")),
    "lm_head_output": Read(Child("lm_head")),
    "next_token_probs": Derived(Read(Own("output"), Attribute("logits")), lambda logits: logits[:, -1].softmax(-1)),
    "input_ids": Read(Own("input"), Argument(0, "input_ids")),
    "attention_mask": Read(Own("input"), Argument(1, "attention_mask")),
    "input_size": Derived(Read(Own("input"), Argument(0, "input_ids")), lambda ids: tuple(ids.shape[:2])),
    # the block
    "layer_input": Read(Own("input"), Argument(0, "hidden_states")),
    "attention_norm_output": Read(Child("input_layernorm")),
    "attention_norm_scale": Companion("attention_norm_output", partial(scale_of, value="attention_norm_output")),
    "layer_mid": Read(Child("post_attention_layernorm", "input"), Argument(0), shared=True),
    "mlp_norm_output": Read(Child("post_attention_layernorm")),
    "mlp_norm_scale": Companion("mlp_norm_output", partial(scale_of, value="mlp_norm_output")),
    "mlp_input": Read(Child("mlp", "input"), Argument(0)),
    "layer_output": Read(Own("output"), Element(0)),
    # the attention
    "attention_queries": Read(Call("attention_interface", "input"), Argument(1), condition=KERNEL_ARGUMENTS),
    "attention_keys": Read(Call("attention_interface", "input"), Argument(2), condition=KERNEL_ARGUMENTS),
    "attention_queries_unrotated": _unrotated("attention_queries", 0),
    "attention_keys_unrotated": _unrotated("attention_keys", 1),
    "attention_values": Read(Call("attention_interface", "input"), Argument(3), condition=KERNEL_ARGUMENTS),
    "attention_scores": Read(
        Call("nn.functional.softmax", "input", inside="attention_interface", eager="eager_attention_forward"),
        Argument(0), condition=EAGER_ONLY),
    "attention_premix": Read(Child("o_proj", "input"), Argument(0), SPLIT_HEADS),
    "attention_head_contributions": Companion("attention_premix", partial(contributions_of, value="attention_premix")),
    "attention_output": Read(Own("output"), Element(0)),
    "attention_probabilities": Read(
        Call("nn.functional.dropout", "output", inside="attention_interface", eager="eager_attention_forward"),
        condition=EAGER_ONLY),
    "attention_head_outputs": Read(Call("attention_interface", "output"), Element(0), condition=KERNEL_ARGUMENTS),
    # the MLP
    "mlp_preactivation": Companion("mlp_activation", partial(input_of, value="mlp_activation")),
    "mlp_activation": Read(Child("act_fn")),
    "mlp_up": _up,
    "mlp_neurons": Read(Child("down_proj", "input"), Argument(0)),
    "mlp_output": Read(Own("output"), Element(0)),
}
assert set(COMMON_SITES) == {spec.name for spec in VALUES}

def described(site: "Site | str", sentence: str, **changes) -> Site:
    """A site (or the common site of a value name) in a family's own words, any other field changed too
    (``described("attention_values", text, snapshot=True)``). A family declaring only the words writes the
    sentence alone in ``sites``."""
    return replace(COMMON_SITES[site] if isinstance(site, str) else site, description=sentence, **changes)


def _same_site(a: Site, b: Site) -> bool:
    """Whether two sites read at the same place the same way, whatever their descriptions say."""
    if type(a) is not type(b):
        return False
    for item in fields(a):
        if item.name == "description":
            continue
        x, y = getattr(a, item.name), getattr(b, item.name)
        if item.name == "source":
            if not (_same_site(x, y) and x.description == y.description):
                return False
        elif item.name == "layout":
            if type(x) is not type(y) or vars(x) != vars(y):
                return False
        elif x is not y and x != y:
            return False
    return True


#: Native paths of the common conventions, aliased to the standard names.
COMMON_RENAME = {"model.layers": "layers", "model.embed_tokens": "embed_tokens", "model.norm": "norm"}


def _config_get(config, *names, default=None):
    for name in names:
        value = getattr(config, name, None)
        if value is not None:
            return value
    return default


#: Config accessors on the common conventions; a family overrides any of them.
COMMON_ACCESSORS: dict[str, Callable[[Any], Any]] = {
    "hidden_size": lambda c: c.hidden_size,
    "num_heads": lambda c: c.num_attention_heads,
    "num_kv_heads": lambda c: _config_get(c, "num_key_value_heads", "num_attention_heads"),
    "head_dim": lambda c: _config_get(c, "head_dim", default=c.hidden_size // c.num_attention_heads),
    "qk_head_dim": lambda c: _config_get(c, "head_dim", default=c.hidden_size // c.num_attention_heads),
    "vocab_size": lambda c: c.vocab_size,
    "intermediate_size": lambda c: _config_get(c, "intermediate_size", default=4 * c.hidden_size),
}


@dataclass(frozen=True)
class HostContext:
    """What a site that varies per checkpoint or per block is chosen from."""

    config: Any
    module: Any          # the host's native module
    layer: Any = None    # the block's native module (None on the model)
    index: int | None = None
    family: Any = None   # the family serving the model (a wrapper's, whose config is its text config)


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

    def as_data(self) -> dict:
        """The checkpoint as its family's data file (``families/checkpoints/<module>.json``) holds it."""
        data = {"repo": self.repo, "label": self.label, "source": self.source, "partial": self.partial,
                "config": self.config}
        if self.not_buildable:
            data["not_buildable"] = self.not_buildable
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
                            bool(e.get("partial"))) for e in entries)


def merged_checkpoints(recorded: tuple[Checkpoint, ...], declared: tuple[Checkpoint, ...]) -> tuple[Checkpoint, ...]:
    """The data file's checkpoints with those a family module still declares in Python: a declared one replaces
    the recorded one of its repository (keeping the recorded source where it names none), in the module's order;
    the recorded ones it does not name follow."""
    by_repo = {c.repo: c for c in recorded}
    merged = [replace(c, source=c.source or by_repo[c.repo].source) if c.repo in by_repo else c for c in declared]
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
    """What a family declares; everything left out follows the common conventions."""

    name: str
    model_types: tuple[str, ...]
    summary: str = ""
    tags: tuple[str, ...] = ()
    rename: dict = field(default_factory=dict)
    sites: dict[str, Site] = field(default_factory=dict)
    accessors: dict[str, Callable] = field(default_factory=dict)
    #: the block where it is not the common sequential pre-norm one (nnterp.blocks: Block, Parallel, PostNorms): its
    #: kind, its own arithmetic and order, per-block dimensions, its mixers, and the sites a preset implies
    block: Any = None
    #: a mixture-of-experts preset (nnterp.routers.MoE): the router's and the experts' sites and accessors
    moe: Any = None
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
    module: Any = None

    def __post_init__(self) -> None:
        from .blocks import Block

        if self.block is None:
            self.block = Block()
        if self.positions is None:
            self.positions = Positions()
        # the preset's sites first: the printout lists declared values in this order
        self.sites = {**self.block.sites(), **self.sites}
        if self.moe is not None:  # the declared sites win; the MLP's values keep the router's first
            self.sites = {**self.moe.sites(), **self.sites}
            self.accessors = {**self.moe.accessors(), **self.accessors}
        # a sentence in place of a site: the common site, described in this family's words
        for name, declared in list(self.sites.items()):
            if isinstance(declared, str):
                self.sites[name] = described(COMMON_SITES[name], declared)

    def description_changes(self) -> dict[str, str]:
        """The values this family serves at the common site, described in its own words: {name: sentence}."""
        return {name: site.description for name, site in self.sites.items()
                if isinstance(site, Site) and name in COMMON_SITES and site.description
                and _same_site(site, COMMON_SITES[name])}

    def differences(self) -> list[str]:
        """What this family declares against the common (Llama) conventions, a sentence each: the data a page
        prints as "as Llama, except: ..."."""
        said = []
        if self.rename:
            said.append("modules renamed: " + ", ".join(f"{native} as {alias}" for native, alias in self.rename.items()
                                                        if isinstance(native, str)))
        if self.block.describe() != "sequential":
            said.append(f"the block: {self.block.describe()}")
        if self.moe is not None:
            said.append(f"the MLP: {self.moe.describe()}")
        words = self.description_changes()
        preset = {**self.block.sites(),
                  **(self.moe.sites() if self.moe is not None else {})}
        own = [name for name in self.sites if name not in words and name not in preset]
        if own:
            said.append("read elsewhere: " + ", ".join(own))
        if words:
            said.append("described in its own words: " + ", ".join(words))
        if not self.readout.past_head_identity:
            said.append(self.readout.formula())
        if self.readout.normed_divided_by:
            said.append(f"lm_head reads the final norm's output divided by config.{self.readout.normed_divided_by}")
        if self.readout.unembed is not None:
            said.append("its own map from the last block's output to lm_head's logits")
        if self.positions.refused:
            said.append(f"refuses position_ids: {self.positions.refused}")
        if self.positions.ahead is not Positions.__dataclass_fields__["ahead"].default:
            said.append("the blocks compute positions ahead of the call's, which every position attends to")
        if not self.readout.exact_lens:
            said.append("the logits mix more than the last block's output: project_on_vocab is a lens")
        if self.loads != ("eager", "sdpa"):
            said.append(f"loads: {', '.join(self.loads) if self.loads else 'what transformers accepts'}")
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
        """The value groups this family lists: the core ones, plus the router's where it has one."""
        return ("core", "moe") if any(name.startswith("router_") for name in self.sites) else ("core",)

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
    from .families import _index

    if name in _index.SINCE:
        return _index.SINCE[name]
    import transformers  # a module dropped in since the index was written: taken as served here

    return ".".join(transformers.__version__.split(".")[:2])


def served_here(name: str) -> bool:
    """Whether the installed transformers serves the family (its classes exist, its modeling is the one read)."""
    return release(first_release(name)) <= _installed_release()


def _load(module_name: str) -> "Family":
    from . import families

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
    process: ``family_for``, ``StandardizedTransformer``, ``nnterp.tiny`` and ``registry()`` then find it. The name
    of a family of the package, or a model type that one (or another registered family) already serves, is refused
    unless ``override=True``, and the registered family then wins; registering a family of the same name again (a
    notebook cell run twice) replaces it. Returns the family."""
    from .families import _index

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
    from .families import _index

    return sorted({*_index.MODULES, *_REGISTERED})


@lru_cache(maxsize=None)
def family_named(name: str) -> Family:
    """One family by name, importing its module alone."""
    from .families import _index

    if name in _REGISTERED:
        return _REGISTERED[name]
    if name not in _index.MODULES:  # a module dropped in since the index was written
        found = _scan().get(name)
        if found is None:
            raise UnknownArchitecture(unknown_family(name))
        return found
    if not served_here(name):
        raise UnknownArchitecture(not_served(name))
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
    from .families import _index

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
    from .families import _index

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
    from . import families
    from .families import _index

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


def family_for(config, architecture: str | None = None) -> Family:
    """The family serving a config, or a one-sentence refusal naming how to add one."""
    model_type = getattr(config, "model_type", None)
    if getattr(config, "text_config", None) is not None:  # an image-text-to-text model: its language model's family
        from .wrappers import wrapper_for

        wrapper = wrapper_for(config, architecture)
        if wrapper is not None:
            return wrapper
    architecture = architecture or (getattr(config, "architectures", None) or [type(config).__name__])[0]
    family = _family_of_model_type(model_type, architecture)
    if family is not None:
        return family
    from .wrappers import wrapper_for

    wrapper = wrapper_for(config, architecture)  # a wrapper whose config has no text_config (Chameleon's)
    if wrapper is not None:
        return wrapper
    names = list(registry())
    raise UnknownArchitecture(
        f"{architecture} (model_type {model_type!r}) belongs to no nnterp family; {len(names)} are supported "
        f"({', '.join(names[:6])}, ...: see nnterp.family.registry() or FAMILIES.md); "
        f"to add one, declare FAMILY = Family(...) (see nnterp/families/llama.py) in nnterp/families/{model_type}.py, "
        f"or in your own code and call nnterp.register(FAMILY) (docs/families.md)"
    )
