"""Families: what a model family declares, and the common (Llama) conventions it starts from.

A family module under ``nnterp/families/`` holds one ``FAMILY = Family(...)``: its model types,
the renames onto the standard module names, the sites that differ from the common ones, the
checkpoints it covers and a tiny recipe. Its docstring is the encyclopedia's "from the family
module" section. Dropping the file into the folder is the whole registration.
"""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Callable

from .errors import UnavailableValue, UnknownArchitecture
from .sites import (
    EAGER_ONLY, KERNEL_ARGUMENTS, SPLIT_HEADS, Argument, Attribute, Call, Child, Derived, Element, Nowhere, Own, Read,
    Site,
)
from .vocabulary import VALUES

#: Where every value is read on the common conventions (Llama's module names, a sequential
#: pre-norm block, the attention kernel called through ``attention_interface``).
COMMON_SITES: dict[str, Site] = {
    # the model
    "logits": Read(Own("output"), Attribute("logits")),
    "token_embeddings": Read(Child("embed_tokens")),
    "final_norm_output": Read(Child("norm")),
    "lm_head_output": Read(Child("lm_head")),
    "next_token_probs": Derived(Read(Own("output"), Attribute("logits")), lambda logits: logits[:, -1].softmax(-1)),
    "input_ids": Read(Own("input"), Argument(0, "input_ids")),
    "attention_mask": Read(Own("input"), Argument(1, "attention_mask")),
    "input_size": Derived(Read(Own("input"), Argument(0, "input_ids")), lambda ids: tuple(ids.shape[:2])),
    # the block
    "layer_input": Read(Own("input"), Argument(0, "hidden_states")),
    "attention_norm_output": Read(Child("input_layernorm")),
    "layer_mid": Read(Child("post_attention_layernorm", "input"), Argument(0), shared=True),
    "mlp_norm_output": Read(Child("post_attention_layernorm")),
    "mlp_input": Read(Child("mlp", "input"), Argument(0)),
    "layer_output": Read(Own("output"), Element(0)),
    # the attention
    "attention_queries": Read(Call("attention_interface", "input"), Argument(1), condition=KERNEL_ARGUMENTS),
    "attention_keys": Read(Call("attention_interface", "input"), Argument(2), condition=KERNEL_ARGUMENTS),
    "attention_values": Read(Call("attention_interface", "input"), Argument(3), condition=KERNEL_ARGUMENTS),
    "attention_scores": Read(
        Call("nn.functional.softmax", "input", inside="attention_interface", eager="eager_attention_forward"),
        Argument(0), condition=EAGER_ONLY),
    "attention_premix": Read(Child("o_proj", "input"), Argument(0), SPLIT_HEADS),
    "attention_output": Read(Own("output"), Element(0)),
    "attention_probabilities": Read(
        Call("nn.functional.dropout", "output", inside="attention_interface", eager="eager_attention_forward"),
        condition=EAGER_ONLY),
    "attention_head_outputs": Read(Call("attention_interface", "output"), Element(0), condition=KERNEL_ARGUMENTS),
    # the MLP
    "mlp_activation": Read(Child("act_fn")),
    "mlp_neurons": Read(Child("down_proj", "input"), Argument(0)),
    "mlp_output": Read(Own("output"), Element(0)),
}
assert set(COMMON_SITES) == {spec.name for spec in VALUES}

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


@dataclass(frozen=True)
class Checkpoint:
    """A real checkpoint the family covers, with the config facts its page is printed from."""

    repo: str
    label: str
    config: dict = field(default_factory=dict)
    #: why its printout cannot be built from the facts known here (the page then shows the tiny model)
    not_buildable: str | None = None


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
    #: the block's own order of the sum, for the identity check: (x, attn, mlp) -> out
    block_sum: Callable = lambda x, attn, mlp: (x + attn) + mlp
    block_kind: Callable = lambda config: "sequential"
    #: post-norm blocks (norms on the residual path: OPT's do_layer_norm_before=False, BLOOM's
    #: apply_residual_connection_post_layernorm, OpenAI GPT) are no sum of the stream and the contributions:
    #: (config) -> None where block_sum holds, else (layer module, x, attn, mlp) -> layer_output, checked instead
    block_arithmetic: Callable = lambda config: None
    #: where the stream after the attention is no sum either (Dory's interpolation): (config) -> None where
    #: layer_mid == layer_input + attention_output, else (layer module, x, attn) -> layer_mid, checked instead
    mid_arithmetic: Callable = lambda config: None
    #: whatever the model does past lm_head: (model, logits) -> logits
    readout: Callable = lambda model, logits: logits
    #: the map from the last block's output to lm_head's logits where it is not norm then lm_head
    #: (OPT-350M: project_out, no final norm): (model, hidden) -> lm_head's logits
    unembed: Callable | None = None
    #: what the model does between the final norm and lm_head (MiniCPM3 divides by logits_scaling):
    #: (model, normed) -> what lm_head reads
    pre_head: Callable | None = None
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
    #: dimensions that differ per block (a layer with more key/value heads): HostContext of the
    #: layer -> {dimension: size}, overriding the model-wide accessors for that block
    block_dims: Callable | None = None
    #: the order the block computes its values in, where it is not FORWARD_ORDER["block"] (a router run
    #: after the dense MLP); ("mlp", "output") marks where the MLP returns
    block_order: tuple | None = None
    #: False where the logits mix more than the last block's output (depth attention over the block states):
    #: project_on_vocab is then a lens, not the readout, and the contract does not compare it with the logits
    exact_lens: bool = True
    #: native names of the token mixer where a block keeps its own self_attn as None (GraniteMoeHybrid's mamba):
    #: the mixer becomes that block's self_attn host, the module's None attribute untouched
    mixers: tuple[str, ...] = ()
    #: why the model's forward cannot take position_ids (Reformer computes and pads its own), which a left-padded
    #: batch of prompts of different lengths needs; None where it can
    refuses_position_ids: str | None = None
    #: positions the blocks compute ahead of the call's own, which every call position attends to (CPM-Ant's
    #: prompt_length learned prompt tokens): (config) -> count; keys, values and the pattern's key axis span them
    key_prefix: Callable = lambda config: 0
    module: Any = None

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
        return site if isinstance(site, Site) else site(context)

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


@lru_cache(maxsize=None)
def registry() -> dict[str, Family]:
    """Every family module in ``nnterp.families``, by family name."""
    from . import families

    found = {}
    for info in pkgutil.iter_modules(families.__path__):
        module = importlib.import_module(f"{families.__name__}.{info.name}")
        family = getattr(module, "FAMILY", None)
        if family is not None:
            family.module = module
            found[family.name] = family
    return dict(sorted(found.items()))


def family_for(config, architecture: str | None = None) -> Family:
    """The family serving a config, or a one-sentence refusal naming how to add one."""
    from .wrappers import wrapper_for

    model_type = getattr(config, "model_type", None)
    wrapper = wrapper_for(config, architecture)  # an image-text-to-text model: its language model's family
    if wrapper is not None:
        return wrapper
    for family in registry().values():
        if model_type in family.model_types:
            return family
    architecture = architecture or (getattr(config, "architectures", None) or [type(config).__name__])[0]
    names = list(registry())
    raise UnknownArchitecture(
        f"{architecture} (model_type {model_type!r}) belongs to no nnterp family; {len(names)} are supported "
        f"({', '.join(names[:6])}, ...: see nnterp.family.registry() or FAMILIES.md); "
        f"to add one, write nnterp/families/{model_type}.py declaring FAMILY = Family(...) (see nnterp/families/llama.py)"
    )
