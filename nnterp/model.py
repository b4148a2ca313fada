"""``StandardizedTransformer``: any decoder-only ``transformers`` model under one vocabulary."""

from __future__ import annotations

import contextlib
import importlib
import warnings
import weakref
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import torch
from nnsight import TransformersModel

from nnterp.compat import projected
from nnterp.compat.names import resolve
from nnterp.compat.paths import WriteRefused
from nnterp.contract.conformance import check as run_contract
from nnterp.contract.hazards import first_nonfinite
from nnterp.contract.support import Support, build_support
from nnterp.declare.engine import module_of
from nnterp.declare.errors import (
    BadPrompt, BatchRefused, EmptyPrompt, HubUnreachable, LoadOptionRefused, NestedTrace, UnavailableValue,
)
from nnterp.declare.family import Family, NativeClass
from nnterp.declare.locations import block_hosts
from nnterp.declare.vocabulary import BY_NAME, values_of
from nnterp.declare.writeback import where_of
from nnterp.hub import unreachable_reason
from nnterp.registry import OwnClass, auto_class, family_for, image_text_to_text, quiet_text_pipeline, warn_above_window
from nnterp.runtime import bridge, gradients
from nnterp.runtime.bridge import TurnTakingTracer
from nnterp.runtime.cache import ConventionInfo, build as build_cache
from nnterp.runtime.envoys import (
    ENVOYS, AttentionEnvoy, Blocks, LayerEnvoy, MLPEnvoy, MethodAttention, ModulesEnvoy, StandardHost, StandardValue,
    _addindent, absent_host_reason,
)
from nnterp.runtime.status import status_of
from nnterp.runtime.tracing import Captures
from nnterp.wrappers.wrapper import merge_host


gradients.install()  # ``with loss.backward():`` in an nnterp trace serves .grad in any order


@dataclass
class _State:
    family: Family
    config: Any
    #: positions of the running call (the batched input's length), for models that pad inside their forward
    call_length: int | None = None
    #: the inputs the running call passes (not None), while it runs: whether it runs a block a call may skip
    call_inputs: frozenset | None = None


#: the wrappers of each transformers model, so that a second wrapper never changes the model under the first
_HOLDERS: "weakref.WeakKeyDictionary[torch.nn.Module, weakref.WeakSet]" = weakref.WeakKeyDictionary()

class StandardizedTransformer(StandardHost, TransformersModel):
    """A decoder-only language model with the standard module names and values.

    ``StandardizedTransformer("org/name", dispatch=True, attn_implementation="eager")`` loads a
    checkpoint (``dtype``, ``device_map``, ``trust_remote_code`` (off by default) and any other
    loading keyword pass through); ``StandardizedTransformer(hf_model, tokenizer=tok)`` wraps a
    model built in memory, without copying or replacing anything in it.
    """

    _nnterp_host = "model"

    def __init__(
        self,
        model: Any,
        *args: Any,
        tokenizer: Any = None,
        dispatch: bool = False,
        attn_implementation: str | None = None,
        dtype: Any = None,
        device_map: Any = None,
        trust_remote_code: bool = False,
        remote: bool | str = False,
        **kwargs: Any,
    ) -> None:
        _refuse_keywords(kwargs, built=isinstance(model, torch.nn.Module))
        warn_above_window()
        if not isinstance(model, torch.nn.Module):
            config = _load_config(model, trust_remote_code, kwargs)
            family = family_for(config)
            own = auto_class(family, config)
            if isinstance(own, OwnClass):  # no auto class takes its config (Evolla's): its own class loads it now
                tokenizer = tokenizer if tokenizer is not None else _load_tokenizer(model, trust_remote_code, kwargs)
                given = {"attn_implementation": attn_implementation, "dtype": dtype, "device_map": device_map}
                model = own.from_pretrained(model, trust_remote_code=trust_remote_code, **_hub_options(kwargs),
                                            **{key: value for key, value in given.items() if value is not None})
                attn_implementation = dtype = device_map = None  # honoured by the loading
        if isinstance(model, torch.nn.Module):
            config = model.config
            family = family_for(config, type(model).__name__)
            self._honour_built(model, family, attn_implementation, dtype, device_map)
            load = {}
        else:
            if attn_implementation is not None and attn_implementation not in family.loads:
                raise LoadOptionRefused(
                    f"{family.name} cannot be loaded with attn_implementation={attn_implementation!r}; "
                    f"it runs under {', '.join(map(repr, family.loads))}"
                )
            if tokenizer is None and getattr(family, "wrapper", None) is None:  # a wrapper's pipeline loads its processor
                tokenizer = _load_tokenizer(model, trust_remote_code, kwargs)
            load = {"task": _task(family), "dispatch": dispatch, "trust_remote_code": trust_remote_code}
            for key, value in (("attn_implementation", attn_implementation), ("dtype", dtype), ("device_map", device_map)):
                if value is not None:
                    load[key] = value
        self._nnterp_state = _State(family, config)
        self._nnterp_remote = remote
        envoys = _envoys_by_class(model, family) if isinstance(model, torch.nn.Module) else ENVOYS
        if family.block.mixers:
            envoys = {**ENVOYS, **{f"layers.*.{name}": AttentionEnvoy for name in family.block.mixers}}
        if family.block.interleaved is not None and envoys is ENVOYS:
            envoys = {**ENVOYS, **_interleaved_envoys(family.block.interleaved.path)}
        with _quiet_pipeline(family):
            super().__init__(model, *args, tokenizer=tokenizer, rename=native_rename(family.all_rename), envoys=envoys,
                             **load, **kwargs)
        _HOLDERS.setdefault(module_of(self), weakref.WeakSet()).add(self)
        self._nnterp_state.config = _served_config(family, module_of(self).config)
        self._bind_blocks(family)
        self._bind_mixers(family)
        _instrument_merge(self, family)
        _warn_hazards(self)

    def _batch(self, invokes: list, fn: Any) -> tuple:
        batched = super()._batch(invokes, fn)
        kwargs = batched[1] if isinstance(batched, tuple) and len(batched) == 2 and isinstance(batched[1], dict) else {}
        why = self.family.positions.refused
        if why and "position_ids" in kwargs:
            raise BatchRefused(
                f"prompts of different lengths are left-padded and need position_ids, which {self.family.name} cannot "
                f"take ({why}): trace prompts of one length together, or one prompt per trace")
        ignored, mask = self.family.positions.padding_ignored, kwargs.get("attention_mask")
        if ignored and isinstance(mask, torch.Tensor) and not bool(mask.all()):
            raise BatchRefused(
                f"prompts of different lengths are padded, and {self.family.name} would read the pads as text "
                f"({ignored}): trace prompts of one length together, or one prompt per trace")
        given = kwargs.get("input_ids", kwargs.get("inputs_embeds"))
        self._nnterp_state.call_length = int(given.shape[1]) if isinstance(given, torch.Tensor) and given.ndim > 1 \
            else None
        self._nnterp_state.call_inputs = frozenset(name for name, value in kwargs.items() if value is not None)
        return batched

    def _bind_blocks(self, family) -> None:
        """``model.layers`` as the blocks in forward order where the forward runs blocks that are no members of the
        stack's module list among its members (``blocks.Interleaved``): nnterp's view over nnsight's envoys."""
        interleaved = family.block.interleaved
        if interleaved is not None:
            holder = self.layers.parent  # the module holding the stack's module list
            self.__dict__["layers"] = Blocks(interleaved.blocks(holder, self._nnterp_state.config))
        method = getattr(family.block, "attention_method", None)
        for layer in self.layers if method is not None else ():  # an attention that is a method of its block
            if family.block.crosses(layer._nnterp_context()):
                layer.__dict__["self_attn"] = MethodAttention(layer, method)

    def _bind_mixers(self, family) -> None:
        """Alias a block's token mixer as self_attn where the rename cannot: where the module's own self_attn is
        None, or a named member of a container self_attn ("self_attn.0": LongCat-Flash's two attentions, the
        others then reached with layers[i].get("self_attn.1"))."""
        for name in family.block.mixers:
            for layer in self.layers:
                native = getattr(module_of(layer), "self_attn", 0)
                if native is None and name in module_of(layer)._modules:
                    bridge.add_alias(layer, "self_attn", name)
                elif name.startswith("self_attn.") and isinstance(native, torch.nn.ModuleList):
                    layer.__dict__["self_attn"] = layer.get(name)

    @staticmethod
    def _honour_built(model, family, attn_implementation, dtype, device_map) -> None:
        if device_map is not None:
            raise LoadOptionRefused(
                "device_map places weights while loading; this model is already built: move it with model.to(device) "
                "or pass a repo id or path"
            )
        if dtype is not None and model.dtype != dtype:
            raise LoadOptionRefused(
                f"the built model is {model.dtype} and nnterp never converts weights: pass hf_model.to({dtype}) "
                f"or load the repo id with dtype={dtype}"
            )
        current = model.config._attn_implementation
        if attn_implementation is not None and attn_implementation != current:
            if attn_implementation not in family.loads:
                raise LoadOptionRefused(
                    f"{family.name} cannot run attn_implementation={attn_implementation!r}; "
                    f"it runs under {', '.join(map(repr, family.loads))}"
                )
            if any(True for _ in _HOLDERS.get(model, ())):  # the kernel is the model's, so every wrapper's
                raise LoadOptionRefused(
                    f"this model is already wrapped by a StandardizedTransformer that runs it under "
                    f"attn_implementation={current!r}, and switching the kernel would switch it under that wrapper "
                    f"too: wrap it without attn_implementation= (sharing {current!r}), or load a second model with "
                    f"StandardizedTransformer(repo_id, attn_implementation={attn_implementation!r})")
            model.set_attn_implementation(attn_implementation)  # asked for, so the model's setting changes

    @property
    def hf_model(self) -> torch.nn.Module:
        """The transformers model this wraps, as it was loaded or given: its own modules and weights, not a copy."""
        return module_of(self)

    def __getattr__(self, name: str):
        if name == "_model":  # what nnsight 0.4 called the wrapped model
            raise AttributeError("model._model was nnsight 0.4's name for the wrapped model: use model.hf_model")
        return super().__getattr__(name)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        _refuse_call_inputs(args, kwargs)
        return super().__call__(*args, **kwargs)

    # ------------------------------------------------------------------ tracing
    def trace(self, *inputs: Any, **kwargs: Any):
        # called from the body of a running trace of this model (its worker), not from another thread taking turns
        if bridge.interleaving(self) and bridge.worker_or_none() is not None:
            raise NestedTrace(
                "a trace of this model was opened inside another of its traces (model.cache, model.generate and the "
                "tools each run one), and nnsight runs one forward of a model at a time: open it after the outer "
                "`with` block ends, or read what you need in the outer trace")
        if self._nnterp_remote and "remote" not in kwargs and "backend" not in kwargs:
            kwargs["remote"] = self._nnterp_remote
        kwargs.setdefault("tracer_cls", TurnTakingTracer)
        _refuse_empty(inputs)
        return super().trace(*inputs, **kwargs)

    def interleave(self, fn: Any, *args: Any, **kwargs: Any) -> Any:
        # the trace's code read before the forward: values it names out of order are captured as the forward passes
        try:
            with Captures(self):
                return super().interleave(fn, *args, **kwargs)
        finally:
            self._nnterp_state.call_inputs = None

    def instrument(self) -> "StandardizedTransformer":
        """Instrument now every forward whose operations a standard value is read at.

        Done lazily otherwise, at the first read of such a value, which is only too late when a
        trace reads something inside that module before its first interior value.
        """
        for layer in self.layers:
            for host in block_hosts(layer).values():
                for name in host._nnterp_sites_names():
                    where = where_of(host._nnterp_site(name))
                    if where is not None:
                        where.instrument(host)
        return self

    def cache(self, prompts, values=None, layers=None, positions=None, device=None, dtype=None, *,
              batch_size: int | None = None, progress: bool | None = None, max_bytes: int | None = None,
              transformerlens: int = 3, splices=()):
        """Every served value of a run on ``prompts`` (or the ``values`` named, on ``layers``), under ``no_grad``.

        ``values`` takes standard names (``"layer_output"``: on every chosen block), paths
        (``"layers.3.layer_output"``) or TransformerLens names (``"blocks.3.hook_resid_post"``, ``"hook_resid_post"``);
        ``positions`` (an index, a list or a slice) keeps those positions, the axis kept; ``device`` and ``dtype``
        move each value as it is read; a list of prompts runs ``batch_size`` at a time behind a progress bar, padded
        together. Refused before it runs when its estimated size exceeds the memory free on the target (or
        ``max_bytes``). Returns an ``nnterp.runtime.cache.Cache``: ``cache.layers[3].self_attn.attention_probabilities``,
        ``cache["blocks.3.hook_resid_post"]``, ``cache.stack("layer_output")``. ``transformerlens=4`` gives
        TransformerBridge's tensor under a name whose tensor differs between the generations
        (``nnterp.compat.names.BRIDGE_MEANINGS``); by default HookedTransformer's (3). ``splices`` (``tools.splice``
        objects) are in the forward too, their latents and error terms kept beside the values:
        ``cache["layers.3.mlp.mlp_output.latents"]``, ``cache["layers.3.mlp.mlp_output.error"]``.
        """
        return build_cache(self, prompts, values, layers, positions, device, dtype, batch_size, progress, max_bytes,
                           transformerlens, splices)

    def value(self, name: str, *new_value, transformerlens: int = 3):
        """Inside a trace, the value a standard path (``"layers.3.self_attn.attention_probabilities"``) denotes, or
        under a TransformerLens name (``"blocks.3.attn.hook_q"``) TransformerLens's tensor, in its layout and
        convention (``nnterp.compat.names``); ``model.value(name, tensor)`` writes it, a TransformerLens name's tensor in
        TransformerLens's layout. An in-place edit reaches the model through a name whose tensor is a view of
        nnterp's (the layouts: hook_q, hook_v, hook_z, ...); one whose tensor is computed (hook_scale,
        hook_normalized, hook_attn_scores, hook_q_input) is written by assignment. ``transformerlens=4`` reads the
        name as TransformerBridge's where its tensor differs from HookedTransformer's (the default, 3)."""
        return self._named_value(name, new_value, transformerlens, guard_computed=True)

    def _named_value(self, name: str, new_value: tuple, transformerlens: int, guard_computed: bool):
        """``value``'s work; ``guard_computed``: fail the trace on an in-place edit of a computed tensor (the
        TransformerLens layer carries such an edit back itself, as TransformerLens's hooks do)."""
        path, reads = self._named_path(name, transformerlens)
        hosts = [self._host_of(read) for read in reads]
        convention = path.convention
        if new_value:  # TransformerLens's layout carried back to the one value the tensor is
            try:
                native = convention.from_tl(*new_value, ConventionInfo(self))
            except WriteRefused as refused:
                raise UnavailableValue(f"cannot write {name!r}: {refused}") from None
            setattr(hosts[-1], reads[-1].value, native)
            return None
        values = [getattr(host, read.value) for host, read in zip(hosts, reads)]
        tensor = convention.tensor(values, ConventionInfo(self))
        if guard_computed and not convention.view and isinstance(tensor, torch.Tensor):  # no edit of it reaches the model
            bridge.keep_read_only(convention.in_place_refusal(name, path.value), tensor, path.value)
        return tensor

    def _named_path(self, name: str, transformerlens: int = 3):
        """The standard path a name denotes on this model and the standard values its tensor is computed from, or
        the sentence why it has none here."""
        kind = self.family.block.kind(self._nnterp_state.config)
        path = resolve(name, self.num_layers, kind, self.family.name, transformerlens)
        refused = projected.refusal(self, path)
        if refused:
            raise UnavailableValue(refused)
        reads = path.reads(self.num_layers, kind)
        for read in reads:
            if not read.in_vocabulary:
                raise UnavailableValue(f"{name!r} is {read}, which this version of nnterp does not serve yet")
        return path, reads

    def _host_of(self, read):
        """The envoy a standard path's value is read on, or the sentence why this model has none."""
        if read.layer is None:
            return self
        host = block_hosts(self.layers[read.layer]).get(read.host)
        if host is None:
            raise UnavailableValue(f"{read} is unavailable: "
                                   f"{absent_host_reason(self, self.layers[read.layer], read.host)}")
        return host

    # ------------------------------------------------------------------ identity
    @property
    def family(self) -> Family:
        return self._nnterp_state.family

    def _accessor(self, name: str) -> int:
        return self.family.accessor(name, self._nnterp_state.config)

    @property
    def num_layers(self) -> int:
        return len(self.layers)

    hidden_size = property(lambda self: self._accessor("hidden_size"), doc="The residual stream's width.")
    num_heads = property(lambda self: self._accessor("num_heads"), doc="Query heads per attention.")
    num_kv_heads = property(lambda self: self._accessor("num_kv_heads"), doc="Key and value heads per attention.")
    head_dim = property(lambda self: self._accessor("head_dim"), doc="Width of one value head.")
    qk_head_dim = property(lambda self: self._accessor("qk_head_dim"), doc="Width of one query or key head.")
    vocab_size = property(lambda self: self._accessor("vocab_size"), doc="Rows of the unembedding.")
    intermediate_size = property(lambda self: self._accessor("intermediate_size"), doc="The MLP's hidden width.")
    num_experts = property(lambda self: self._accessor("num_experts"),
                           doc="The experts a router chooses among (MoE families).")
    num_experts_per_token = property(lambda self: self._accessor("num_experts_per_token"),
                                     doc="The experts each position is sent to, top_k (MoE families).")

    def project_on_vocab(self, hidden: torch.Tensor) -> torch.Tensor:
        """Final norm, lm_head and whatever the model does past lm_head: the last block's
        ``layer_output`` projects to exactly ``logits``."""
        readout = self.family.readout
        return readout(self._nnterp_state.config, readout.head_logits(self, hidden))

    # ------------------------------------------------------------------ describing
    def support(self) -> Support:
        """The values, by host: layout, meaning, where each is read, and ⚠︎ conditions or reasons."""
        return build_support(self)

    def serves(self, name: str, layer: int | None = None) -> str | None:
        """None when ``name`` is served under this load (on block ``layer``, default 0), else the sentence why not."""
        spec = BY_NAME.get(name)
        if spec is None:
            return f"{name!r} is not a standard value"
        if spec.host == "model":
            host = self
        else:
            block = self.layers[layer or 0]
            host = block_hosts(block).get(spec.host)
            if host is None:  # the family may say why the block has none
                site = self.family.site(name, block._nnterp_context())
                return site.reason if not site.served else f"block {layer or 0} has no {spec.host} module"
        found = status_of(host, name, self)
        return None if found.available else found.note

    def find_nonfinite(self, prompt):
        """The first value, in forward order, that goes inf or NaN on ``prompt`` (None if all are finite)."""
        return first_nonfinite(self, prompt)

    def check(self, prompt: str | None = None, **kwargs):
        """Run the conformance contract (docs/design.md §4) on this model; returns the report, raises on failure."""
        return run_contract(self, prompt=prompt, **kwargs)

    def __repr__(self) -> str:
        base = getattr(module_of(self), "base_model_prefix", None)
        hidden = module_of(self)._modules.get(base) if base else None
        direct: dict[str, list[str]] = {}
        mounts = []
        for alias, path in bridge.aliases(self).items():
            (mounts.append(alias) if "." in path else direct.setdefault(path, []).append(alias))
        lines = []
        for name, child in bridge.named_children(self):
            if hidden is not None and module_of(child) is hidden:
                continue  # shown through its standard mounts below
            label = "/".join([*direct.get(name, []), name])
            lines.append(f"({label}): " + _addindent(repr(child), 2))
        order = ["embed_tokens", "layers", "norm"]
        for alias in sorted(mounts, key=lambda a: order.index(a) if a in order else len(order)):
            if alias not in bridge.child_names(self):
                lines.append(f"({alias}): " + _addindent(repr(getattr(self, alias)), 2))
        lines += self._nnterp_value_lines()
        return f"{module_of(self)._get_name()}(\n  " + "\n  ".join(lines) + "\n)"


for _spec in values_of("model", ("core", "image")):
    setattr(StandardizedTransformer, _spec.name, StandardValue(_spec))


def _served_config(family, config):
    """The config the served stack runs on: a wrapper's text config, else the model's own."""
    served = getattr(family, "served_config", None)
    return served(config) if served is not None else config


def _task(family) -> str:
    """The pipeline task a repo id loads under: a wrapper's own auto class (image-text-to-text) builds the
    wrapper, with its vision tower."""
    return "image-text-to-text" if image_text_to_text(family) else "text-generation"


def _quiet_pipeline(family):
    """A built wrapper runs under the text-generation pipeline, which only tokenizes text for it (the
    image-text-to-text one needs a processor): its complaint that the class is no CausalLM is not shown."""
    if not image_text_to_text(family):
        return contextlib.nullcontext()

    return quiet_text_pipeline()


def _instrument_merge(model, family) -> None:
    """A wrapper's image_features are read inside the forward that merges them, which starts before anything the
    language stack serves: instrumented now, so a read after token_embeddings in a first trace still fires."""
    wrapper = getattr(family, "wrapper", None)
    if wrapper is not None:
        merge_host(model, wrapper).source


def native_rename(rename: dict) -> dict:
    """The family's renames as nnsight takes them: a key naming a class of the modeling (``NativeClass``) as the
    class itself, imported now."""
    return {getattr(importlib.import_module(key.module), key.name) if isinstance(key, NativeClass) else key: alias
            for key, alias in rename.items()}


def _envoys_by_class(model, family) -> dict:
    """The envoy classes keyed by module class, for a model already built.

    nnsight tries class keys first, along the module's MRO; with ``torch.nn.Module`` as the last
    key every other module resolves at once, where path keys would spell out every module's path
    under every alias (tens of milliseconds on a small model).
    """
    from nnsight import Envoy

    def resolve(root, dotted):
        for part in dotted.split("."):
            root = getattr(root, part, None) if root is not None else None
        return root

    def native_names(standard):
        return [key for key, alias in family.all_rename.items()
                if isinstance(key, str) and standard in ([alias] if isinstance(alias, str) else alias)]

    if any(isinstance(key, (type, NativeClass)) for key in family.all_rename):
        return ENVOYS  # class keys name hosts by type: nnsight's spellings of the paths resolve them
    path, layers = next(((key, found) for key in native_names("layers") if (found := resolve(model, key)) is not None),
                        (None, None))
    if layers is None:
        return ENVOYS
    classes = {torch.nn.Module: Envoy, torch.nn.ModuleList: ModulesEnvoy}
    host_modules = set()
    interleaved = family.block.interleaved
    if interleaved is not None:  # the blocks in forward order, those of no module list's among them
        holder = resolve(model, path.rpartition(".")[0]) if "." in path else model
        layers = interleaved.blocks(holder, _served_config(family, model.config))
    for layer in layers:
        classes[type(layer)] = LayerEnvoy
        host_modules.add(id(layer))
        for standard, envoy in (("self_attn", AttentionEnvoy), ("mlp", MLPEnvoy)):
            for name in [standard, *native_names(standard)]:
                child = layer
                for part in name.split("."):  # keys relative to the block (Zamba's shared_transformer.self_attn)
                    child = child._modules.get(part) if child is not None else None
                if child is None and "." in name:
                    child = layer._modules.get(name.rsplit(".", 1)[-1])
                if child is not None and type(child) not in classes:
                    classes[type(child)] = envoy
                if child is not None:
                    host_modules.add(id(child))
    keyed = set(classes) - {torch.nn.Module}
    if any(type(m) in keyed and id(m) not in host_modules for m in model.modules()):
        # a host's class also sits off the host positions (OPT's mlp is a Linear): paths tell them apart, anchored at
        # the blocks' own path inside a wrapper, whose vision tower has blocks of its own (BLIP-2's vision_model)
        extra = _interleaved_envoys(interleaved.path) if interleaved is not None else {}
        if getattr(family, "wrapper", None) is None:
            return {**ENVOYS, **extra}
        holder = path.rpartition(".")[0] + "." if "." in path else ""
        return {f"{path}.{key[len('layers.'):]}" if key != "layers.*" else f"{path}.*": envoy
                for key, envoy in ENVOYS.items() if isinstance(key, str)} | {
                holder + key: envoy for key, envoy in extra.items()} | {torch.nn.ModuleList: ModulesEnvoy}
    return classes


def _interleaved_envoys(path: str) -> dict:
    """The envoy classes of interleaved blocks by path (``blocks.Interleaved.path``, relative to the module holding
    the stack's list): each a block, its attention and MLP hosts."""
    return {path: LayerEnvoy, f"{path}.self_attn": AttentionEnvoy, f"{path}.mlp": MLPEnvoy}


#: nnterp 1.x's keywords, and what does their work now
NNTERP1_KEYWORDS = {
    "enable_attention_probs": 'pass attn_implementation="eager" (attention_probabilities and attention_scores are '
                              "served under eager)",
    "check_renaming": "nothing is checked at construction now: call model.check() to run the conformance contract",
    "check_attn_probs_with_trace": "nothing is checked at construction now: call model.check() to run the "
                                   "conformance contract",
    "allow_dispatch": "pass dispatch=True to load the weights at construction (a built model is used as it is)",
    "rename_config": "each family module declares its own renames (nnterp/families/<family>.py; docs/families.md "
                     "says how to add one)",
    "allow_multimodal": "nnterp serves decoder-only language models: wrap the text model "
                        "(e.g. hf_model.language_model) with its tokenizer",
    "tokenizer_kwargs": "pass tokenizer=AutoTokenizer.from_pretrained(repo, ...) built as you want it",
}
#: keywords nnterp sets itself
OWN_KEYWORDS = {
    "rename": "the family module declares the renames onto the standard names (nnterp/families/<family>.py); "
              "native names keep working beside them",
    "envoys": "the standard values' envoys are nnterp's own; read native modules through the model tree",
}
#: nnsight's keywords that mean something for a model built in memory
BUILT_KEYWORDS = {"task", "processor", "image_processor", "feature_extractor", "peft", "revision", "device",
                  "interleaver"}


def _refuse_keywords(kwargs: dict, built: bool) -> None:
    for key in kwargs:
        why = NNTERP1_KEYWORDS.get(key)
        if why is not None:
            raise LoadOptionRefused(f"{key}= is nnterp 1.x's keyword: {why}")
        why = OWN_KEYWORDS.get(key)
        if why is not None:
            raise LoadOptionRefused(f"{key}= cannot be given to StandardizedTransformer: {why}")
        if built and key not in BUILT_KEYWORDS:
            raise LoadOptionRefused(
                f"{key}= means nothing for a model built in memory (it would be ignored): a built model takes "
                f"tokenizer=, attn_implementation= and remote=; pass loading options with a repo id or path")


def _refuse_empty(inputs) -> None:
    for item in inputs:
        if item is None or isinstance(item, (bool, int, float)):
            raise BadPrompt(
                f"model.trace was given {item!r}, which is not a prompt: pass a string, a list of strings, token ids "
                f"(a list of ints or a tensor) or the tokenizer's output")
        prompts = item if isinstance(item, (list, tuple)) else [item]
        empty = any((isinstance(p, str) and not p) or (isinstance(p, torch.Tensor) and p.numel() == 0) for p in prompts)
        if empty or (isinstance(item, (list, tuple)) and not item):
            raise EmptyPrompt(
                "an empty prompt gives the model no token to run on: pass at least one token "
                "(prepend the tokenizer's bos_token if the text may be empty)"
            )


def _refuse_call_inputs(args: tuple, kwargs: dict) -> None:
    """``model(...)`` calls the transformers model, whose forward takes token ids as a tensor: what a trace takes
    (text, a list of ids, the tokenizer's output as one argument) is refused with the call that takes it."""
    given = args[0] if args else kwargs.get("input_ids")
    items = given if isinstance(given, (list, tuple)) else [given]
    if any(isinstance(item, str) for item in items):
        raise BadPrompt(
            "model(...) calls the transformers model, which takes token ids, not text: read the logits in a trace "
            "(with model.trace(prompt): logits = model.logits.save()) or pass "
            "**model.tokenizer(prompt, return_tensors='pt')")
    if isinstance(given, Mapping):
        raise BadPrompt(
            "model(...) was given the tokenizer's output as one argument; the forward takes its entries as keywords: "
            "model(**inputs)")
    if isinstance(given, (list, tuple)):
        raise BadPrompt(
            f"model(...) takes token ids as a tensor [batch seq], not a {type(given).__name__}: "
            f"model(torch.tensor([ids])), or trace the list itself (with model.trace(ids): ...)")


def _load_config(repo: Any, trust_remote_code: bool, kwargs: dict):
    from transformers import AutoConfig

    why = unreachable_reason(repo, kwargs.get("cache_dir"))
    if why is not None:
        raise HubUnreachable(why)

    return AutoConfig.from_pretrained(repo, trust_remote_code=trust_remote_code, **_hub_options(kwargs))


def _hub_options(kwargs: dict) -> dict:
    """The options of a load that say where its files come from."""
    return {key: kwargs[key] for key in ("gguf_file", "revision", "token", "cache_dir") if key in kwargs}


def _load_tokenizer(repo: Any, trust_remote_code: bool, kwargs: dict):
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(repo, trust_remote_code=trust_remote_code, **_hub_options(kwargs))


def _warn_hazards(model) -> None:
    hazard = getattr(model.family, "hazard", None)
    if hazard is not None:
        message = hazard(model)
        if message:
            warnings.warn(message, stacklevel=3)
