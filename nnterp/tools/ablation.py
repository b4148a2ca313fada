"""Ablations: remove heads, neurons or whole blocks, through the standard values only.

A head is removed where the heads sit side by side: ``attention_premix`` [batch seq num_heads
head_dim], the output projection's input, served on every family and under every load (or
``attention_head_outputs``, the kernel's output, where the load serves it). Neurons are removed in
``mlp_neurons``. A skipped block hands its ``layer_input`` on as its ``layer_output``.

By default a removed part is set to zero; pass ``means`` (from ``head_means`` / ``neuron_means``,
averages over a dataset) for mean ablation, which keeps the part's constant contribution.
"""

from __future__ import annotations

from collections import defaultdict

import torch

from nnterp.tools._common import ToolError, blocks_serving, encode, read_blocks
from nnterp.tools.interventions import Edit, Intervention, selection

HEAD_VALUES = ("attention_premix", "attention_head_outputs")


def _group(pairs, what: str) -> dict[int, list[int]]:
    """``[(layer, index), ...]`` or ``{layer: [index, ...]}`` as a dict of sorted lists."""
    grouped: dict[int, list[int]] = defaultdict(list)
    items = pairs.items() if isinstance(pairs, dict) else pairs
    for item in items:
        try:
            layer, indices = item
        except (TypeError, ValueError):
            raise ToolError(f"give {what} as (block, index) pairs or a dict block -> indices; got {item!r}") from None
        for index in ([indices] if isinstance(indices, int) else indices):
            grouped[int(layer)].append(int(index))
    return {layer: sorted(set(indices)) for layer, indices in grouped.items()}


def ablate_heads(heads, *, means: dict | None = None, positions=None, rows=None,
                 value: str = "attention_premix") -> Intervention:
    """Remove attention heads: ``heads`` is ``[(block, head), ...]`` or ``{block: [head, ...]}``.

    Each head's slot in ``value`` is set to zero, or to ``means[block][head]`` ([head_dim]) when
    given. Removing no heads is an empty intervention and changes nothing.
    """
    if value not in HEAD_VALUES:
        raise ToolError(f"heads are removed in {' or '.join(HEAD_VALUES)}; got {value!r}")
    grouped = _group(heads, "heads")

    def edit_for(layer, indices):
        def apply(model, context):
            block = layer % model.num_layers
            bad = [h for h in indices if not 0 <= h < model.num_heads]
            if bad:
                raise ToolError(f"heads {bad} do not exist: the model has heads 0 to {model.num_heads - 1}")
            slots = getattr(model.layers[block].self_attn, value)          # [batch seq heads head_dim]
            batch, seq = slots.shape[:2]
            where = selection(batch, seq, rows, positions).to(slots.device)[..., None]  # [b s 1 1]
            index = torch.tensor(indices, device=slots.device)
            current = slots[:, :, index]
            if means is None:
                replacement = torch.zeros_like(current)
            else:
                replacement = torch.as_tensor(means[block]).to(slots.device, slots.dtype)[index].expand_as(current)
            slots[:, :, index] = torch.where(where.bool(), replacement, current)

        return Edit(value, layer, apply)

    label = "ablate heads " + ", ".join(f"{l}.{h}" for l, hs in sorted(grouped.items()) for h in hs)
    return Intervention([edit_for(l, hs) for l, hs in grouped.items()], label if grouped else "")


def ablate_neurons(neurons, *, means: dict | None = None, positions=None, rows=None) -> Intervention:
    """Remove MLP neurons: ``neurons`` is ``[(block, neuron), ...]`` or ``{block: [neuron, ...]}``, in ``mlp_neurons``."""
    grouped = _group(neurons, "neurons")

    def edit_for(layer, indices):
        def apply(model, context):
            block = layer % model.num_layers
            neurons_now = model.layers[block].mlp.mlp_neurons                   # [batch seq intermediate]
            batch, seq = neurons_now.shape[:2]
            where = selection(batch, seq, rows, positions).to(neurons_now.device)
            index = torch.tensor(indices, device=neurons_now.device)
            current = neurons_now[..., index]
            if means is None:
                replacement = torch.zeros_like(current)
            else:
                replacement = torch.as_tensor(means[block]).to(neurons_now.device, neurons_now.dtype)[index].expand_as(current)
            neurons_now[..., index] = torch.where(where.bool(), replacement, current)

        return Edit("mlp_neurons", layer, apply)

    label = f"ablate {sum(map(len, grouped.values()))} neurons"
    return Intervention([edit_for(l, ns) for l, ns in grouped.items()], label if grouped else "")


def skip_blocks(layers) -> Intervention:
    """Skip whole blocks: each hands its ``layer_input`` on unchanged as its ``layer_output``."""
    layers = [layers] if isinstance(layers, int) else list(layers)
    edits = []
    for layer in layers:
        def keep_input(model, context, layer=layer):
            context[("skip", layer)] = model.layers[layer % model.num_layers].layer_input.clone()

        def hand_on(model, context, layer=layer):
            model.layers[layer % model.num_layers].layer_output[:] = context.pop(("skip", layer))

        edits += [Edit("layer_input", layer, keep_input), Edit("layer_output", layer, hand_on)]
    return Intervention(edits, f"skip blocks {sorted(layers)}" if layers else "")


def _means(model, prompts, value: str, layers) -> dict[int, torch.Tensor]:
    """Per block, ``value``'s mean over all real positions of ``prompts``, in its dtype."""
    batch = encode(model, prompts)
    real = batch["attention_mask"].bool()
    reads = read_blocks(model, batch, value, blocks_serving(model, value, layers))
    return {layer: r[real].float().mean(0).to(r.dtype) for layer, r in reads.items()}


def head_means(model, prompts, layers=None, *, value: str = "attention_premix") -> dict[int, torch.Tensor]:
    """Per block, every head's mean slot over all real positions of ``prompts``: {block: [num_heads head_dim]}."""
    return _means(model, prompts, value, layers)


def neuron_means(model, prompts, layers=None) -> dict[int, torch.Tensor]:
    """Per block, every MLP neuron's mean over all real positions of ``prompts``: {block: [intermediate_size]}."""
    return _means(model, prompts, "mlp_neurons", layers)
