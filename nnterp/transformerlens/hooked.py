"""``HookedTransformer`` over a StandardizedTransformer: TransformerLens 3.x's calls, hooks, tokens, weights and
config on any family nnterp serves, on the model transformers computes. A hook name means the tensor it means in
TransformerLens (``nnterp.compat.names``); a hook runs inside an nnterp trace at its value's point of the forward, in
forward order, and what it returns (or edits in place) is written back. Nothing is copied, replaced or changed:
the values are those of ``from_pretrained_no_processing``."""

from __future__ import annotations

import contextlib
import re
import warnings
from typing import Callable

import torch

from nnterp.compat import names
from nnterp.compat.paths import WriteRefused
from nnterp.declare.engine import module_of
from nnterp.declare.errors import NnterpError, UnavailableValue
from nnterp.declare.locations import Child, block_hosts
from nnterp.declare.vocabulary import FORWARD_ORDER
from nnterp.declare.writeback import where_of
from nnterp.model import StandardizedTransformer
from nnterp.runtime.cache import ConventionInfo
from nnterp.runtime.skipping import Blocks, blocks_of, skip_blocks, without_cache
from nnterp.runtime.status import status_of
from nnterp.runtime.tracing import block_order
from nnterp.transformerlens.activation_cache import ActivationCache, derived_norms
from nnterp.transformerlens.config import config_of
from nnterp.transformerlens.utils import HookPoint, Output, Slice, lm_cross_entropy_loss
from nnterp.transformerlens.tokens import Tokens
from nnterp.transformerlens.weights import WeightProperties, Weights

#: from_pretrained's processing, which nnterp never applies to the weights, and what it would have moved
PROCESSING = {
    "fold_ln": "folds each norm's gain and bias into the next weights: hook_normalized, the weights after a norm "
               "(W_Q, W_K, W_V, W_in, W_U) and b_U differ; logits and every stream value are the same",
    "center_writing_weights": "centres every write to the stream over d_model on LayerNorm models: resid_*, "
                              "attn_out, mlp_out and embed differ by their mean; what a LayerNorm reads is the same",
    "center_unembed": "centres W_U over the vocabulary: logits differ by a per-position constant; probabilities "
                      "and logit differences are the same",
    "fold_value_biases": "moves b_V into b_O: hook_v, hook_z and the per-head results differ; attn_out is the same",
}
#: the names whose TransformerLens gradient is one of several calls' (ln1 runs on each of q, k and v's input)
_PER_INPUT_NORM = re.compile(r"^blocks\.\d+\.ln1\.hook_")
_PRESENT_UNDER = re.compile(r"present under (use_\w+)")
_PRESENT_ON = re.compile(r"present on (\w+) models")


_warned: set = set()


def _site_place(host, value: str):
    """Where and how ``host`` reads ``value`` at a child module (its site's kind, module, boundary, element,
    layout and factors): two values with one place are one tensor; None where the site is elsewhere (found without
    touching the forward, inside a trace too)."""
    if host is None:
        return None
    try:
        site = host._nnterp_site(value)
        where = where_of(site) if site.served else None
        if not isinstance(where, Child):
            return None
        module = module_of(where.target(host))
    except (KeyError, AttributeError, NnterpError):
        return None
    return (type(site), id(module), getattr(where, "key", None), repr(getattr(site, "element", None)),
            repr(getattr(site, "layout", None)), getattr(site, "scale", None), getattr(site, "plus", None))


class _keeper:
    """The tensor hook that keeps a gradient in ``gradients`` under ``name`` + "_grad" (run_with_cache's
    incl_bwd), as TransformerLens's caching hook does."""

    def __init__(self, gradients: dict, name: str) -> None:
        self.gradients, self.name = gradients, name

    def __call__(self, gradient):
        self.gradients[self.name + "_grad"] = gradient.detach()


class HookedTransformer(Tokens, WeightProperties):
    """TransformerLens's HookedTransformer on a StandardizedTransformer (``HookedTransformer(model)``) or a
    checkpoint (``HookedTransformer.from_pretrained(name)``). ``model.std`` is the StandardizedTransformer: both
    APIs share one model."""

    #: the TransformerLens generation whose tensors the names mean (nnterp.compat.names.generation)
    generation = 3
    #: the (model, block) name tables this API's hook names come from
    tables = ((names.TRANSFORMERLENS_MODEL, names.TRANSFORMERLENS_BLOCK),)

    def __init__(self, model, tokenizer=None, default_prepend_bos: bool | None = None) -> None:
        if not isinstance(model, StandardizedTransformer):
            model = StandardizedTransformer(model, tokenizer=tokenizer)
        self.std = model
        self.tokenizer = model.tokenizer
        self.cfg = config_of(model)
        if default_prepend_bos is not None:  # else the architecture's, as TransformerLens converts it
            self.cfg.default_prepend_bos = default_prepend_bos
        self._weights = Weights(model)
        self._hooks: list = []  # (name or filter, function, permanent)
        self._names: list[str] | None = None
        # found once: hook_names() per use_* flags, _path and _placed per name, _host per value, derived_norms
        self._names_under, self._paths, self._places, self._hosts, self._derived_plans = {}, {}, {}, {}, {}
        self._factors: dict = {}  # name -> the model's multipliers of its tensor (_multipliers)

    # ------------------------------------------------------------------ loading
    @classmethod
    def from_pretrained(cls, model_name: str, fold_ln: bool = True, center_writing_weights: bool = True,
                        center_unembed: bool = True, fold_value_biases: bool = True,
                        refactor_factored_attn_matrices: bool = False, default_prepend_bos: bool | None = None,
                        **kwargs) -> "HookedTransformer":
        """Loads through StandardizedTransformer. nnterp never changes weights, so the processing flags are not
        applied: the values are from_pretrained_no_processing's, and a warning (once) says what differs."""
        asked = {"fold_ln": fold_ln, "center_writing_weights": center_writing_weights,
                 "center_unembed": center_unembed, "fold_value_biases": fold_value_biases}
        if refactor_factored_attn_matrices:
            raise NnterpError("refactor_factored_attn_matrices rewrites W_Q and W_K, and nnterp never changes "
                              "weights: load without it (HookedTransformer.from_pretrained_no_processing)")
        on = [flag for flag, value in asked.items() if value]
        if on and tuple(on) not in _warned:
            _warned.add(tuple(on))
            warnings.warn("nnterp does not process weights, so these from_pretrained flags are not applied and the "
                          "values are from_pretrained_no_processing's: " + "; ".join(
                              f"{flag} {PROCESSING[flag]}" for flag in on), stacklevel=2)
        return cls.from_pretrained_no_processing(model_name, default_prepend_bos=default_prepend_bos, **kwargs)

    @classmethod
    def from_pretrained_no_processing(cls, model_name: str, default_prepend_bos: bool | None = None,
                                      device=None, dtype=None, **kwargs) -> "HookedTransformer":
        model = StandardizedTransformer(model_name, dtype=dtype, **kwargs)
        if device is not None:
            model.to(device)
        return cls(model, default_prepend_bos=default_prepend_bos)

    # ------------------------------------------------------------------ names
    def hook_names(self) -> list[str]:
        """Every TransformerLens hook name this model has under the config's use_* flags, and nnterp serves."""
        if self._names is None:
            self._names = self._served()
        flags = tuple(flag for flag in ("use_attn_result", "use_split_qkv_input", "use_hook_mlp_in", "use_attn_in")
                      if getattr(self.cfg, flag))
        if flags not in self._names_under:
            self._names_under[flags] = [name for name, flag in self._names if flag is None or flag in flags]
        return list(self._names_under[flags])

    @property
    def hook_dict(self) -> dict:
        return {name: HookPoint(name) for name in self.hook_names()}

    def _served(self) -> list:
        std, found = self.std, []
        present = {"rotary": self.cfg.positional_embedding_type == "rotary",
                   "SoLU": str(self.cfg.act_fn).startswith("solu")}

        def add(name, entry):
            kind = _PRESENT_ON.search(entry.note)
            if kind and not present[kind.group(1)]:
                return
            try:
                path, reads = self._path(name)
                if not all(status_of(self._host(read), read.value, std).available for read in reads):
                    return  # unavailable here, or not under this load (the scores under sdpa)
            except (KeyError, NnterpError):
                return
            flag = _PRESENT_UNDER.search(entry.note)
            found.append((name, flag.group(1) if flag else None))

        for model_table, block_table in self.tables:
            for name, entry in model_table.items():
                add(name, entry)
            for layer in range(std.num_layers):
                for name, entry in block_table.items():
                    add(f"blocks.{layer}.{name}", entry)
        if self.cfg.positional_embedding_type == "standard":
            found.append(("hook_pos_embed", None))
        return found

    def why_not(self, name: str) -> str:
        """Why a run gives no tensor under ``name``, in a sentence: the family has no such value (and why), a
        config flag it is present under is off, or the run was not asked for it."""
        if name in self.hook_names():
            return "the run did not keep it: keep it in names_filter"
        try:
            path, reads = self._path(name)
            for read in reads:
                found = status_of(self._host(read), read.value, self.std)
                if not found.available:
                    return f"{self.std.family.name} has no {read.key} here: {found.note}"
        except (KeyError, NnterpError) as refused:
            return str(refused).strip('"')
        flag = _PRESENT_UNDER.search(path.via.note if path.via is not None else "")
        if flag:
            return f"it is present under {flag.group(1)}: set model.cfg.{flag.group(1)} = True before the run"
        return f"nnterp does not serve it on {self.std.family.name}"

    def _matching(self, name_or_filter) -> list[str]:
        if callable(name_or_filter):
            return [name for name in self.hook_names() if name_or_filter(name)]
        names.resolve(name_or_filter, self.std.num_layers, transformerlens=self.generation)  # refused in nnterp's words
        return [name_or_filter]

    # ------------------------------------------------------------------ hooks
    def add_hook(self, name, hook: Callable, dir: str = "fwd", is_permanent: bool = False, level=None,
                 prepend: bool = False) -> None:
        """A forward hook (``dir="fwd"``) runs on its tensor as the forward reaches it; a backward hook
        (``dir="bwd"``) runs on that tensor's gradient when the backward of a forward it was added for passes it,
        and what it returns replaces the gradient, as TransformerLens's do."""
        if dir not in ("fwd", "bwd"):
            raise NnterpError(f"dir={dir!r}: pass 'fwd' or 'bwd'")
        entry = (name, hook, is_permanent, dir)
        self._hooks.insert(0, entry) if prepend else self._hooks.append(entry)

    def reset_hooks(self, clear_contexts: bool = True, direction: str = "both", including_permanent: bool = False,
                    level=None) -> None:
        removed = ("fwd", "bwd") if direction == "both" else (direction,)
        self._hooks = [entry for entry in self._hooks
                       if entry[3] not in removed or entry[2] and not including_permanent]

    @contextlib.contextmanager
    def hooks(self, fwd_hooks=(), bwd_hooks=(), reset_hooks_end: bool = True, clear_contexts: bool = False):
        before = list(self._hooks)
        for name, hook in fwd_hooks:
            self.add_hook(name, hook)
        for name, hook in bwd_hooks:
            self.add_hook(name, hook, dir="bwd")
        try:
            yield self
        finally:
            if reset_hooks_end:
                self._hooks = before

    def run_with_hooks(self, *model_args, fwd_hooks=(), bwd_hooks=(), reset_hooks_end: bool = True,
                       clear_contexts: bool = False, **model_kwargs):
        with self.hooks(fwd_hooks, bwd_hooks, reset_hooks_end, clear_contexts):
            return self(*model_args, **model_kwargs)

    def _active_hooks(self) -> list:
        """(name, hook function) of every forward hook on this model's names, in the order they were added."""
        return [(name, hook) for target, hook, _, dir in self._hooks if dir == "fwd"
                for name in self._matching(target)]

    def _backward_hooks(self) -> list:
        """(name, hook function) of every backward hook on this model's names, in the order they were added."""
        return [(name, hook) for target, hook, _, dir in self._hooks if dir == "bwd"
                for name in self._matching(target)]

    @staticmethod
    def _on_gradient(name: str, hook):
        """A tensor hook that runs ``hook`` on the gradient at ``name``: a hook added when the forward ran runs in
        its backward even if removed since (run_with_hooks's), as TransformerLens's module hooks do."""
        def run(gradient):
            return hook(gradient, hook=HookPoint(name))
        return run

    def _run_hooks(self, saving=(), saved=None, blocks: range | None = None, residual=None, stop: bool = False,
                   gradients: dict | None = None, skipping: Blocks | None = None):
        """Inside a trace: each hook, in forward order, on its tensor (what it returns or edits in place is written
        back), and each name of ``saving`` read after its hooks into ``saved`` (a dict made before the trace, which
        nnsight keeps), as TransformerLens's cache hooks run last. Each standard value is read once, at its own
        point of the forward, and the tensors of the names are computed from those reads.

        ``blocks`` (start_at_layer and stop_at_layer): only these blocks count, as if the rest did not run; the
        first one's input is ``residual`` where given; with ``stop`` (stop_at_layer), nothing past the last block
        counts, and the stream entering the block after it is returned, saved (TransformerLens's residual); with
        ``skipping`` (start_at_layer, where the model's blocks can be skipped) the blocks before the first do not run.

        A backward hook's tensor (and, with ``gradients``, each name of ``saving`` whose tensor can be written
        back) is written back in the forward's place, so that the backward flows through it, and gets a tensor
        hook (into ``gradients`` under name + "_grad")."""
        events, memo, info = [], {}, ConventionInfo(self.std)
        layers = self.std.layers
        first = self._rank_of(blocks.start) if residual is not None else (0, 0, -2)
        last = self._rank_of(blocks.stop) if stop else (3, 0, 0)
        if skipping is not None:
            skip_blocks(self.std, skipping, blocks.start, residual)
        if residual is not None:
            layers[blocks.start].layer_input = residual
        named = [(name, hook, 1) for name, hook in self._active_hooks()] + \
            [(name, self._on_gradient(name, hook), 2) for name, hook in self._backward_hooks()] + \
            [(name, None, 3) for name in saving]
        if gradients is not None:
            named += [(name, _keeper(gradients, name), 2) for name in saving if name != "hook_pos_embed"]
        for order, (name, hook, kind) in enumerate(named):
            if name == "hook_pos_embed":
                events.append(((0, 0, -1), kind, order, name, hook, None, (), ()))
                continue
            path, reads, keys, ranks = self._placed(name)
            events += [(rank, 0, 0, key, None, None, (read,), ()) for rank, key, read in zip(ranks, keys, reads)]
            events.append((ranks[-1], kind, order, name, hook, path, reads, keys))
        for rank, kind, _, name, hook, path, reads, keys in sorted(events, key=lambda event: event[:3]):
            if not first <= rank < last:
                continue
            if kind == 0:
                if name not in memo:
                    alike = self._first_alike(reads[0])
                    memo[name] = getattr(self._host(alike), alike.value)
                continue
            tensor = self._pos_embed() if path is None else path.convention.tensor([memo[key] for key in keys], info)
            if kind == 3:
                saved[name] = tensor.save()
                continue
            if kind == 2:
                self._through(name, tensor, hook, path, reads, memo, info, required=not isinstance(hook, _keeper))
                continue
            version = tensor._version
            out = hook(tensor, hook=HookPoint(name))
            if out is None and tensor._version != version:
                out = tensor  # an edit in place: written back where the tensor is computed, not a view
            if out is None:
                continue
            if path is None:
                raise UnavailableValue("hook_pos_embed has no standard value to write: edit layers[0].layer_input")
            try:
                native = path.convention.from_tl(out, info)
            except WriteRefused as refused:
                raise UnavailableValue(f"a hook on {name} changed its tensor, and {refused}") from None
            setattr(self._host(reads[-1]), reads[-1].value, native)
            memo[keys[-1]] = native
        if not stop:
            return None
        if blocks.stop < self.std.num_layers:
            return layers[blocks.stop].layer_input.save()
        return layers[blocks.stop - 1].layer_output.save()

    def _through(self, name, tensor, hook, path, reads, memo, info, required: bool) -> None:
        """Writes ``tensor`` back in the forward's place, so that the backward flows through it, and hooks it with
        ``hook``; where the name cannot be written back, refused (``required``) or left without a gradient."""
        if not tensor.requires_grad:
            return  # no backward will pass (torch.no_grad, or frozen weights and inputs)
        tensor = tensor.clone()  # a node of its own: a tensor hook on a view of the forward's output can crash torch
        try:
            if path is None:
                raise WriteRefused("hook_pos_embed has no standard value to write")
            if self.generation == 3 and _PER_INPUT_NORM.match(name):
                if not required:
                    return
                block = name.split(".ln1.")[0]
                raise UnavailableValue(
                    f"{name} has no gradient here: TransformerLens runs ln1 once each on the queries', keys' and "
                    f"values' input, so a hook there sees three gradients and a cache keeps the queries', while the "
                    f"model runs its norm once; hook "
                    f"{block}.hook_resid_pre (ln1's input, the three together) or {block}.attn.hook_q, hook_k and "
                    f"hook_v (each input's own) instead")
            native = path.convention.from_tl(tensor, info)
        except WriteRefused as refused:
            if required:
                raise UnavailableValue(f"a backward hook on {name} needs the gradient to flow through its tensor, "
                                       f"and {refused}") from None
            return
        setattr(self._host(reads[-1]), reads[-1].value, native)
        memo[self._placed(name)[2][-1]] = native
        tensor.register_hook(hook)

    def _rank_of(self, layer: int) -> tuple:
        """The place in the forward where block ``layer`` begins (the readout's, past the last block)."""
        if layer >= self.std.num_layers:
            return (2, -1, 0)
        return (1, layer, [value for _, value in block_order(self.std)].index("layer_input"))

    def _path(self, name: str):
        """(the standard path, its reads) of a name, resolved once per model: each call's hooks look theirs up."""
        if name not in self._paths:
            self._paths[name] = self.std._named_path(name, self.generation)
        return self._paths[name]

    def _host(self, read):
        """The envoy ``read`` is on, found once per value: the model's envoys last as long as it."""
        if read.key not in self._hosts:
            self._hosts[read.key] = self.std._host_of(read)
        return self._hosts[read.key]

    def _placed(self, name: str) -> tuple:
        """(path, reads, the keys their tensors are kept under, their places in the forward) of a name, found
        once per model."""
        if name not in self._places:
            path, reads = self._path(name)
            firsts = [self._first_alike(read) for read in reads]
            self._places[name] = (path, reads, [first.key for first in firsts], [self._rank(first) for first in firsts])
        return self._places[name]

    def _first_alike(self, read):
        """The first value of the block's order read at the same site as ``read`` (a parallel block's one norm
        serves both norms' values): the one read is kept under its key, where the forward first passes it."""
        if read.layer is None:
            return read
        hosts = block_hosts(self.std.layers[read.layer])
        mine = _site_place(hosts.get(read.host), read.value)
        if mine is not None:
            for host, value in block_order(self.std):
                if value == read.value:
                    break
                if host in hosts and _site_place(hosts[host], value) == mine:
                    return names.Path(value, read.layer)
        return read

    def _rank(self, read) -> tuple:
        """A standard value's place in the forward."""
        if read.layer is None:
            if read.value in FORWARD_ORDER["model"]:
                return (0, 0, FORWARD_ORDER["model"].index(read.value))
            return (2, 0, FORWARD_ORDER["readout"].index(read.value))
        return (1, read.layer, [value for _, value in block_order(self.std)].index(read.value))

    def _pos_embed(self) -> torch.Tensor:
        ids = self.std.input_ids
        return self.W_pos[:ids.shape[-1]].expand(ids.shape[0], ids.shape[-1], -1)

    # ------------------------------------------------------------------ calls
    def __call__(self, input, return_type: str | None = "logits", loss_per_token: bool = False,
                 prepend_bos=None, padding_side=None, attention_mask=None, start_at_layer=None,
                 stop_at_layer=None, **kwargs):
        return self.forward(input, return_type, loss_per_token, prepend_bos, padding_side, attention_mask,
                            start_at_layer, stop_at_layer, **kwargs)

    def forward(self, input, return_type: str | None = "logits", loss_per_token: bool = False, prepend_bos=None,
                padding_side=None, attention_mask=None, start_at_layer=None, stop_at_layer=None, tokens=None,
                **kwargs):
        """TransformerLens's forward. start_at_layer takes ``input`` as the residual stream entering that block,
        written there in a trace of the model on ``tokens`` (or zeros): the blocks before it do not run, and what
        the model computes before its blocks (positions, masks) is computed as usual; on a model where a block reads
        what an earlier one produced besides the stream, they run and count for nothing (a warning says so, once).
        stop_at_layer returns the residual stream entering that block (the blocks' output past the last), and the
        run stops there."""
        given = {name: value for name, value in kwargs.items() if value is not None}
        if "past_kv_cache" in given:
            raise NnterpError("past_kv_cache: nnterp.transformerlens keeps no key-value cache between calls, so pass "
                              "the whole sequence each time")
        if "shortformer_pos_embed" in given:
            raise NnterpError("shortformer_pos_embed: no family nnterp serves adds shortformer positions, so pass "
                              "only the residual to start_at_layer")
        if given:
            raise NnterpError(f"{', '.join(given)}: TransformerLens's forward takes no such argument, so "
                              f"nnterp.transformerlens does not either")
        if return_type not in ("logits", "loss", "both", None):
            raise NnterpError(f"return_type={return_type!r}: pass 'logits', 'loss', 'both' or None")
        if start_at_layer is not None and tokens is None and stop_at_layer is None and \
                return_type in ("loss", "both"):
            raise NnterpError("return_type='loss' with start_at_layer: pass tokens= (the residual has no tokens)")
        tokens_given = tokens is not None
        tokens, blocks, residual = self._window(input, tokens, prepend_bos, padding_side, start_at_layer,
                                                stop_at_layer)
        if residual is not None and not len(blocks):
            return residual  # no block between start_at_layer and stop_at_layer: the stream given
        logits, stream, _ = self._run(tokens, attention_mask, blocks, residual, stop=stop_at_layer is not None,
                                      tokens_given=tokens_given)
        if stop_at_layer is not None:
            return stream
        return self._output(logits, tokens, attention_mask, return_type, loss_per_token)

    def _window(self, input, tokens, prepend_bos, padding_side, start_at_layer, stop_at_layer):
        """(the tokens to run, the blocks that count or None for all, the residual given to the first)."""
        if start_at_layer is None:
            tokens = self._tokens(input, prepend_bos, padding_side)
            residual = None
        else:
            if not isinstance(input, torch.Tensor) or input.ndim != 3:
                raise NnterpError("start_at_layer takes the residual stream entering that block, [batch pos "
                                  "d_model], as the input: pass it, not text or tokens")
            residual = input
            if tokens is None:  # the blocks before start_at_layer run on something of the stream's shape
                tokens = torch.zeros(input.shape[:2], dtype=torch.long, device=input.device)
        if start_at_layer is None and stop_at_layer is None:
            return tokens, None, residual
        return tokens, range(self.cfg.n_layers)[start_at_layer:stop_at_layer], residual

    def _run(self, tokens, attention_mask, blocks, residual, stop: bool = False, saving=(), saved=None,
             gradients=None, tokens_given: bool = True):
        """(logits, the residual where the blocks stop, ``saved``) of one trace with the hooks, reading
        ``saving``; with ``stop`` the run ends at the residual."""
        call = tokens if attention_mask is None else {"input_ids": tokens, "attention_mask": attention_mask}
        skipping, options = self._skipping(tokens, attention_mask, blocks, residual, tokens_given)
        stream = None  # a trace writes back only what it saves
        with self.std.trace(call, **options) as tracer:
            stream = self._run_hooks(saving=saving, saved=saved, blocks=blocks, residual=residual, stop=stop,
                                     gradients=gradients, skipping=skipping)
            if stop:
                tracer.stop()  # the blocks past stop_at_layer and the readout do not run
            logits = self.std.logits.save()
        return (None if stop else logits), stream, saved

    def _skipping(self, tokens, attention_mask, blocks, residual, tokens_given: bool) -> tuple:
        """(how the blocks before start_at_layer are skipped, or None where they run; the trace's options): they
        are skipped, without the model's cache, where no block reads what an earlier one produced besides the
        stream (nnterp.runtime.skipping); elsewhere they run on the tokens given, and count for nothing but what
        the later blocks read of them."""
        if residual is None or not blocks.start:
            return None, {}
        options = without_cache(self.std)
        probe = {"input_ids": tokens[:1], **options}
        if attention_mask is not None:
            probe["attention_mask"] = attention_mask[:1]
        found = blocks_of(self.std, probe)
        if found.refused is None:
            return found, options
        if not tokens_given:
            raise NnterpError(f"start_at_layer on {self.std.family.name} runs the blocks before it, as "
                              f"{found.refused}, and what they produce depends on the tokens: pass tokens=")
        if ("start_at_layer", id(self.std)) not in _warned:
            _warned.add(("start_at_layer", id(self.std)))
            warnings.warn(f"start_at_layer runs the blocks before it on {self.std.family.name}, as {found.refused}: "
                          f"the values are the same, the time is a whole run's", stacklevel=4)
        return None, {}

    def _output(self, logits, tokens, attention_mask, return_type, loss_per_token):
        if return_type is None:
            return None
        if return_type == "logits":
            return logits
        loss = lm_cross_entropy_loss(logits, tokens.to(logits.device), attention_mask, loss_per_token)
        return loss if return_type == "loss" else Output((logits, loss))

    def run_with_cache(self, *model_args, names_filter=None, device=None, remove_batch_dim: bool = False,
                       incl_bwd: bool = False, reset_hooks_end: bool = True, clear_contexts: bool = False,
                       pos_slice=None, return_cache_object: bool = True, **model_kwargs):
        """The output and a cache of every hook name ``names_filter`` keeps (a name, a list, a function; all by
        default), each TransformerLens's tensor; the norms' scales are among them, as in TransformerLens (computed
        from the norm's input when read, where the cache holds that input). With
        incl_bwd, the output (a scalar: return_type="loss") is backpropagated and each name's gradient is cached
        under name + "_grad", except where the tensor cannot be written back for the gradient to flow through."""
        if incl_bwd and not torch.is_grad_enabled():
            raise NnterpError("incl_bwd needs autograd, and gradients are off here (torch.no_grad or "
                              "torch.inference_mode): call run_with_cache outside it")
        wanted = self.hook_names()
        if names_filter is not None:
            keep = (lambda name: name == names_filter) if isinstance(names_filter, str) else \
                names_filter if callable(names_filter) else (lambda name: name in names_filter)
            wanted = [name for name in wanted if keep(name)]
        input = model_args[0] if model_args else model_kwargs.pop("input")
        return_type = model_kwargs.pop("return_type", "logits")
        start_at_layer = model_kwargs.pop("start_at_layer", None)
        stop_at_layer = model_kwargs.pop("stop_at_layer", None)
        attention_mask = model_kwargs.pop("attention_mask", None)
        given_tokens = model_kwargs.pop("tokens", None)
        if start_at_layer is not None and given_tokens is None and stop_at_layer is None and \
                return_type in ("loss", "both"):
            raise NnterpError("return_type='loss' with start_at_layer: pass tokens= (the residual has no tokens)")
        tokens, blocks, residual = self._window(input, given_tokens, model_kwargs.pop("prepend_bos", None),
                                                model_kwargs.pop("padding_side", None), start_at_layer, stop_at_layer)
        gradients, derived = ({} if incl_bwd else None), {}
        if self._active_hooks() or self._backward_hooks() or blocks is not None or incl_bwd:
            # hooks, some blocks only or gradients, and a cache in one run: one trace, each value read after its hooks
            found: dict = {}  # made before the trace: nnsight keeps what the trace saves into it
            if residual is not None and not len(blocks):
                logits, stream = None, residual
            else:
                logits, stream, _ = self._run(tokens, attention_mask, blocks, residual, stop_at_layer is not None,
                                              saving=wanted, saved=found, gradients=gradients,
                                              tokens_given=given_tokens is not None)
        else:
            derived = derived_norms(self, tuple(wanted))
            values = [name for name in wanted if name != "hook_pos_embed" and name not in derived] + ["logits"]
            call = tokens if attention_mask is None else {"input_ids": tokens, "attention_mask": attention_mask}
            cache = self.std.cache(call, values=values, transformerlens=self.generation)
            found = {}
            for name in wanted:
                if name == "hook_pos_embed":
                    found[name] = self.W_pos[:tokens.shape[-1]].expand(tokens.shape[0], tokens.shape[-1], -1)
                    continue
                try:
                    found[name] = cache[name]
                except (KeyError, NnterpError):
                    continue
            logits = cache.logits
        if stop_at_layer is not None:
            out = stream
        else:
            out = self._output(logits, tokens, attention_mask, return_type, model_kwargs.get("loss_per_token", False))
        if incl_bwd:
            if not isinstance(out, torch.Tensor) or out.numel() != 1:
                raise NnterpError("incl_bwd backpropagates the output, which must be a scalar: pass "
                                  "return_type='loss'")
            out.backward()
            found.update(gradients)
        if pos_slice is not None:
            found = {name: Slice(pos_slice).apply(value, dim=1) if value.ndim > 1 else value
                     for name, value in found.items()}
        if device is not None:
            found = {name: value.to(device) for name, value in found.items()}
        if return_cache_object:
            made = ActivationCache(found, self, has_batch_dim=True, derived=derived, order=wanted)
            return out, made.remove_batch_dim() if remove_batch_dim else made
        found = {name: found[name] if name in found else derived[name][1](found[derived[name][0]])
                 for name in wanted if name in found or name in derived}
        if remove_batch_dim:
            found = {name: value[0] for name, value in found.items()}
        return out, found

    @torch.no_grad()
    def generate(self, input="", max_new_tokens: int = 10, stop_at_eos: bool = True, eos_token_id=None,
                 do_sample: bool = True, top_k: int | None = None, top_p: float | None = None,
                 temperature: float = 1.0, freq_penalty: float = 0.0, use_past_kv_cache: bool = True,
                 prepend_bos=None, padding_side=None, return_type: str | None = "input", verbose: bool = True):
        """TransformerLens's generate: each new token from the last position's logits (sampled with temperature,
        top_k, top_p and freq_penalty, or greedy), with the hooks in place at every step. Every step runs the
        whole sequence, so a hook sees every position each time (use_past_kv_cache is accepted and changes
        nothing but speed in TransformerLens)."""
        tokens = self._tokens(input, prepend_bos, padding_side) if isinstance(input, (str, list)) else input
        if tokens.ndim == 1:
            tokens = tokens[None]
        stops = set([eos_token_id] if isinstance(eos_token_id, int) else eos_token_id or []) or \
            {self.tokenizer.eos_token_id} - {None}
        finished = torch.zeros(tokens.shape[0], dtype=torch.bool)
        for _ in range(max_new_tokens):
            logits = self(tokens)[:, -1, :].float()
            if do_sample:
                logits = logits / temperature
                if freq_penalty:
                    counts = torch.zeros_like(logits).scatter_add_(1, tokens, torch.ones_like(tokens, dtype=logits.dtype))
                    logits = logits - freq_penalty * counts
                if top_k is not None:
                    kth = logits.topk(top_k, dim=-1).values[..., -1:]
                    logits = logits.masked_fill(logits < kth, float("-inf"))
                if top_p is not None:
                    ordered, order = logits.sort(dim=-1, descending=True)
                    drop = ordered.softmax(-1).cumsum(-1) > top_p
                    drop[..., 1:] = drop[..., :-1].clone()
                    drop[..., 0] = False
                    logits = logits.masked_fill(drop.scatter(-1, order, drop), float("-inf"))
                new = torch.distributions.Categorical(logits=logits).sample()
            else:
                new = logits.argmax(-1)
            if stop_at_eos and stops:
                pad = next(iter(stops))
                new = torch.where(finished, torch.full_like(new, pad), new)
                finished |= torch.isin(new, torch.tensor(sorted(stops)))
            tokens = torch.cat([tokens, new[:, None].to(tokens.device)], dim=1)
            if stop_at_eos and bool(finished.all()):
                break
        if return_type == "str" or return_type == "input" and isinstance(input, str):
            texts = self.tokenizer.batch_decode(tokens)
            return texts[0] if len(texts) == 1 else texts
        return tokens

    def __repr__(self) -> str:
        return f"HookedTransformer(nnterp, {self.cfg.original_architecture}, {self.cfg.n_layers} blocks)"
