"""TransformerLens's ActivationCache over a run's tensors under TransformerLens's names, with its methods and
arguments: tuple keys, ``accumulated_resid``, ``decompose_resid``, ``stack_head_results``, ``apply_ln_to_stack``,
``logit_attrs``, ``stack_activation``, ``get_neuron_results``, ``stack_neuron_results``,
``get_full_resid_decomposition``, ``remove_batch_dim``, ``to``."""

from __future__ import annotations

from collections import Counter

import torch

from nnterp.compat.paths import Divisor, Normalized
from nnterp.declare.companions import norm_scale
from nnterp.declare.engine import module_of
from nnterp.declare.errors import NnterpError, NotCached
from nnterp.runtime.cache import ConventionInfo
from nnterp.transformerlens.utils import Slice, get_act_name


class ActivationCache:
    """A dict of TransformerLens names to tensors, with the analyses TransformerLens's cache offers."""

    def __init__(self, cache_dict: dict, model, has_batch_dim: bool = True, derived: dict | None = None,
                 order: list | None = None) -> None:
        self.cache_dict = cache_dict
        self.model = model
        self.has_batch_dim = has_batch_dim
        #: name -> (the cached name it is computed from, the function computing it): the norms' hook_scale and
        #: hook_normalized, computed from their input when first read, so holding them costs nothing until then
        self._derived = {name: made for name, made in (derived or {}).items() if name not in cache_dict}
        self._order = order or [*cache_dict, *self._derived]  # the forward's, as TransformerLens's keys
        self.has_embed = "hook_embed" in cache_dict
        self.has_pos_embed = "hook_pos_embed" in cache_dict

    # -- the dict
    def _lookup(self, name: str) -> torch.Tensor:
        if name not in self.cache_dict and name in self._derived:
            source, compute = self._derived[name]
            self.cache_dict[name] = compute(self.cache_dict[source])
            del self._derived[name]
        if name not in self.cache_dict:  # a KeyError, as TransformerLens's, saying why
            raise NotCached(f"{name} is not in this cache: {self.model.why_not(name)}")
        return self.cache_dict[name]

    def __getitem__(self, key) -> torch.Tensor:
        if key in self.cache_dict or key in self._derived:
            return self._lookup(key)
        if isinstance(key, str):
            return self._lookup(get_act_name(key))
        if len(key) > 1 and key[1] is not None and key[1] < 0:
            key = (key[0], self.model.cfg.n_layers + key[1], *key[2:])
        return self._lookup(get_act_name(*key))

    def __contains__(self, key) -> bool:
        return key in self.cache_dict or key in self._derived

    def __len__(self) -> int:
        return len(self.cache_dict) + len(self._derived)

    def keys(self):
        kept = dict.fromkeys(name for name in self._order if name in self)
        return list(kept) + [name for name in self.cache_dict if name not in kept]  # hook_result, computed later

    def __iter__(self):
        return iter(self.keys())

    def values(self):
        return [self[name] for name in self.keys()]

    def items(self):
        return [(name, self[name]) for name in self.keys()]

    def __repr__(self) -> str:
        return f"ActivationCache with keys {self.keys()}"

    def _batch_size(self) -> int:
        counts = Counter(v.size(0) for v in self.cache_dict.values() if v.ndim > 0)
        return counts.most_common(1)[0][0] if counts else 1

    def remove_batch_dim(self) -> "ActivationCache":
        if self.has_batch_dim:
            size = self._batch_size()
            if size != 1:
                raise ValueError(f"cannot remove the batch dimension of a cache with {size} rows: slice one first "
                                 f"(cache.apply_slice_to_batch_dim(0))")
            self.cache_dict = {key: value[0] if value.ndim > 0 and value.size(0) == 1 else value
                               for key, value in self.cache_dict.items()}
            self.has_batch_dim = False
        return self

    def apply_slice_to_batch_dim(self, batch_slice) -> "ActivationCache":
        batch_slice = Slice(batch_slice)
        size = self._batch_size()
        kept = {name: batch_slice.apply(value, dim=0) if value.ndim > 0 and value.size(0) == size else value
                for name, value in self.cache_dict.items()}
        return ActivationCache(kept, self.model, has_batch_dim=batch_slice.mode != "int" and self.has_batch_dim,
                               derived=self._derived, order=self._order)

    def to(self, device) -> "ActivationCache":
        self.cache_dict = {key: value.to(device) for key, value in self.cache_dict.items()}
        return self

    # -- the residual stream
    def _layer(self, layer) -> int:
        return self.model.cfg.n_layers if layer is None or layer == -1 else layer

    def accumulated_resid(self, layer=None, incl_mid=False, apply_ln=False, pos_slice=None, mlp_input=False,
                          return_labels=False):
        pos_slice, layer = Slice(pos_slice), self._layer(layer)
        labels, parts = [], []
        for index in range(layer + 1):
            if index == self.model.cfg.n_layers:
                parts.append(self["resid_post", self.model.cfg.n_layers - 1])
                labels.append("final_post")
                continue
            parts.append(self["resid_pre", index])
            labels.append(f"{index}_pre")
            if incl_mid and index < layer or mlp_input and index == layer:
                parts.append(self["resid_mid", index])
                labels.append(f"{index}_mid")
        stack = torch.stack([pos_slice.apply(part, dim=-2) for part in parts], dim=0)
        if apply_ln:
            stack = self.apply_ln_to_stack(stack, layer, pos_slice=pos_slice, mlp_input=mlp_input,
                                           has_batch_dim=self.has_batch_dim,
                                           recompute_ln=layer == self.model.cfg.n_layers)
        return (stack, labels) if return_labels else stack

    def decompose_resid(self, layer=None, mlp_input=False, mode="all", apply_ln=False, pos_slice=None,
                        incl_embeds=True, return_labels=False):
        pos_slice, layer = Slice(pos_slice), self._layer(layer)
        attention, mlp = mode != "mlp", mode != "attn" and not self.model.cfg.attn_only
        parts, labels = [], []
        if incl_embeds:
            if self.has_embed:
                parts, labels = [self["hook_embed"]], ["embed"]
            if self.has_pos_embed:
                parts.append(self["hook_pos_embed"])
                labels.append("pos_embed")
        for index in range(layer):
            if attention:
                parts.append(self["attn_out", index])
                labels.append(f"{index}_attn_out")
            if mlp:
                parts.append(self["mlp_out", index])
                labels.append(f"{index}_mlp_out")
        if mlp_input and attention:
            parts.append(self["attn_out", layer])
            labels.append(f"{layer}_attn_out")
        stack = torch.stack([pos_slice.apply(part, dim=-2) for part in parts], dim=0)
        if apply_ln:
            stack = self.apply_ln_to_stack(stack, layer, pos_slice=pos_slice, mlp_input=mlp_input)
        return (stack, labels) if return_labels else stack

    def compute_head_results(self) -> None:
        """Each head's write to the stream, hook_result [... head_index d_model], from hook_z and W_O."""
        if isinstance(self.cache_dict.get("blocks.0.attn.hook_result"), torch.Tensor):
            return
        W_O = self.model.W_O
        for layer in range(self.model.cfg.n_layers):
            z = self["z", layer, "attn"][..., None]
            self.cache_dict[f"blocks.{layer}.attn.hook_result"] = (z * W_O[layer]).sum(dim=-2)

    def stack_head_results(self, layer=-1, return_labels=False, incl_remainder=False, pos_slice=None,
                           apply_ln=False):
        pos_slice, layer = Slice(pos_slice), self._layer(layer)
        self.compute_head_results()
        parts, labels = [], []
        for index in range(layer):
            parts.append(pos_slice.apply(self["result", index, "attn"], dim=-3))
            labels.extend(f"L{index}H{head}" for head in range(self.model.cfg.n_heads))
        if parts:
            stack = torch.cat(parts, dim=-2).movedim(-2, 0)
            if incl_remainder:
                remainder = pos_slice.apply(self["resid_post", layer - 1], dim=-2) - stack.sum(dim=0)
                stack = torch.cat([stack, remainder[None]], dim=0)
                labels.append("remainder")
        elif incl_remainder:
            stack = pos_slice.apply(self["resid_post", layer - 1], dim=-2)[None]
            labels.append("remainder")
        else:
            stack = torch.zeros(0, *pos_slice.apply(self["hook_embed"], dim=-2).shape)
        if apply_ln:
            stack = self.apply_ln_to_stack(stack, layer, pos_slice=pos_slice)
        return (stack, labels) if return_labels else stack

    def stack_activation(self, activation_name: str, layer: int = -1, sublayer_type=None) -> torch.Tensor:
        layer = self._layer(layer)
        return torch.stack([self[activation_name, index, sublayer_type] for index in range(layer)], dim=0)

    def get_neuron_results(self, layer: int, neuron_slice=None, pos_slice=None, project_output_onto=None):
        neuron_slice, pos_slice = Slice(neuron_slice), Slice(pos_slice)
        acts = neuron_slice.apply(pos_slice.apply(self["post", layer, "mlp"], dim=-2), dim=-1)
        W_out = neuron_slice.apply(self.model.W_out[layer], dim=0)
        if project_output_onto is None:
            return acts[..., None] * W_out
        projected = W_out @ project_output_onto
        return acts * projected if projected.ndim == 1 else acts[..., None] * projected

    def stack_neuron_results(self, layer: int, pos_slice=None, neuron_slice=None, return_labels=False,
                             incl_remainder=False, apply_ln=False, project_output_onto=None):
        layer, pos_slice, neuron_slice = self._layer(layer), Slice(pos_slice), Slice(neuron_slice)
        kept = neuron_slice.apply(torch.arange(self.model.cfg.d_mlp), dim=0)
        kept = [int(kept)] if kept.ndim == 0 else kept.tolist()
        labels = [f"L{index}N{neuron}" for index in range(layer) for neuron in kept]
        parts = [self.get_neuron_results(index, neuron_slice, pos_slice, project_output_onto)
                 for index in range(layer)]
        stack = torch.cat(parts, dim=-2).movedim(-2, 0) if parts else \
            torch.zeros(0, *pos_slice.apply(self["hook_embed"], dim=-2).shape)
        if incl_remainder:
            total = pos_slice.apply(self["resid_post", layer - 1], dim=-2)
            if project_output_onto is not None:
                total = total @ project_output_onto
            stack = torch.cat([stack, (total - stack.sum(dim=0))[None]], dim=0)
            labels.append("remainder")
        if apply_ln:
            stack = self.apply_ln_to_stack(stack, layer, pos_slice=pos_slice)
        return (stack, labels) if return_labels else stack

    def get_full_resid_decomposition(self, layer=None, mlp_input=False, expand_neurons=True, apply_ln=False,
                                     pos_slice=None, return_labels=False):
        layer, pos_slice = self._layer(layer), Slice(pos_slice)
        heads, labels = self.stack_head_results(layer + (1 if mlp_input else 0), pos_slice=pos_slice,
                                                return_labels=True)
        parts = [heads]
        if not self.model.cfg.attn_only and layer > 0:
            if expand_neurons:
                neurons, neuron_labels = self.stack_neuron_results(layer, pos_slice=pos_slice, return_labels=True)
            else:
                neurons, neuron_labels = self.decompose_resid(layer, mlp_input=mlp_input, pos_slice=pos_slice,
                                                              incl_embeds=False, mode="mlp", return_labels=True)
            parts.append(neurons)
            labels = labels + neuron_labels
        for key, label in (("embed", "embed"), ("pos_embed", "pos_embed")):
            if getattr(self, f"has_{key}"):
                parts.append(pos_slice.apply(self[key], -2)[None])
                labels.append(label)
        bias = self.model.accumulated_bias(layer, mlp_input, include_mlp_biases=expand_neurons)
        parts.append(bias.expand((1,) + heads.shape[1:]))
        labels.append("bias")
        stack = torch.cat(parts, dim=0)
        if apply_ln:
            stack = self.apply_ln_to_stack(stack, layer, pos_slice=pos_slice, mlp_input=mlp_input)
        return (stack, labels) if return_labels else stack

    # -- the norms
    def apply_ln_to_stack(self, residual_stack, layer=None, mlp_input=False, pos_slice=None, batch_slice=None,
                          has_batch_dim=True, recompute_ln=False):
        """As TransformerLens 3.9: the cached scale of the norm that reads the stack (centred first under a
        LayerNorm), without the norm's gain; the final norm itself, recomputed, where ``recompute_ln`` asks."""
        if self.model.cfg.normalization_type not in ("LN", "LNPre", "RMS", "RMSPre"):
            return residual_stack
        pos_slice, batch_slice, layer = Slice(pos_slice), Slice(batch_slice), self._layer(layer)
        if has_batch_dim:
            residual_stack = batch_slice.apply(residual_stack, dim=1)
        if recompute_ln and layer == self.model.cfg.n_layers:
            return torch.stack([self.model.ln_final(part) for part in residual_stack], dim=0)
        if self.model.cfg.normalization_type in ("LN", "LNPre"):
            residual_stack = residual_stack - residual_stack.mean(dim=-1, keepdim=True)
        key = "ln_final.hook_scale" if layer == self.model.cfg.n_layers else \
            f"blocks.{layer}.ln{2 if mlp_input else 1}.hook_scale"
        scale = pos_slice.apply(self[key], dim=-2)
        if self.has_batch_dim:
            scale = batch_slice.apply(scale)
        return residual_stack / scale

    def logit_attrs(self, residual_stack, tokens, incorrect_tokens=None, pos_slice=None, batch_slice=None,
                    has_batch_dim=True):
        directions = self.model.tokens_to_residual_directions(tokens)
        if incorrect_tokens is not None:
            directions = directions - self.model.tokens_to_residual_directions(incorrect_tokens)
        scaled = self.apply_ln_to_stack(residual_stack, layer=-1, pos_slice=pos_slice, batch_slice=batch_slice,
                                        has_batch_dim=has_batch_dim)
        return (scaled * directions).sum(dim=-1)


def derived_norms(hooked, wanted: tuple) -> dict:
    """The norms' hook_scale and hook_normalized among ``wanted`` whose norm input is among them too, each as (that
    input's name, the function computing it from the input as the model's norm computes its scale), so that a cache
    holds them without the run saving them; found once per ``wanted``."""
    if wanted not in hooked._derived_plans:
        hooked._derived_plans[wanted] = _plan_derived_norms(hooked, wanted)
    return hooked._derived_plans[wanted]


def _plan_derived_norms(hooked, wanted) -> dict:
    info, plan, plain = ConventionInfo(hooked.std), {}, {}  # plain: a standard value's key -> the name that is it
    for name in wanted:
        try:
            path, _ = hooked._path(name) if name != "hook_pos_embed" else (None, None)
        except (KeyError, NnterpError):
            continue
        if path is not None and path.convention.same:
            plain.setdefault(path.key, name)
    for name in wanted:
        if not name.endswith(("hook_scale", "hook_normalized")):
            continue
        try:
            path, _ = hooked._path(name)
            _, (source, scale) = hooked._path(name.rsplit(".", 1)[0] + ".hook_normalized")
        except (KeyError, NnterpError, ValueError):
            continue  # refused, or not a norm of the model's: the run says why
        if isinstance(path.convention, (Normalized, Divisor)) and source.key in plain:
            host = hooked._host(scale)
            module = module_of(host._nnterp_site(scale.value).where.target(host))
            plan[name] = (plain[source.key], _from_norm_input(path.convention, module, info))
    return plan


def _from_norm_input(convention, module, info):
    """TransformerLens's tensor under ``convention`` (a norm's divisor, or its normalised input) from the norm's
    input, with the norm's own scale."""
    if isinstance(convention, Divisor):
        return lambda x: convention.to_tl([norm_scale(module, x)], info)
    return lambda x: convention.to_tl([x, norm_scale(module, x)], info)
