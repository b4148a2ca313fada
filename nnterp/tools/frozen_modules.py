"""Which modules a frozen trace hooks: the activations outside the blocks' MLPs (gating ones, a prediction head's),
the projections that compute a convolution's taps, and the modules whose gates it records and replays, each with the
functions it fixes there (``tools.frozen``)."""

from __future__ import annotations

import torch

from nnterp.declare.engine import module_of
from nnterp.tools.frozen_gates import (
    GATED_NORM,
    MIXER_GATES,
    STREAM_GATES,
    WRITTEN_SOFTMAX,
    _is_gate,
    _is_norm,
    gated_norm,
    writes_softmax_out,
)
from nnterp.tools.frozen_mixers import _mlp_modules, _slot, mixer_modules, scans
from nnterp.tools.frozen_streams import stream_mixers


def _is_activation(module) -> bool:
    """An activation function's module (transformers' or torch's), not a softmax or an attention."""
    name = type(module).__name__.lower()
    return type(module).__module__ in ("transformers.activations", "torch.nn.modules.activation") \
        and not any(word in name for word in ("softm", "multihead")) and not any(True for _ in module.children())


def gating_activations(model) -> list:
    """The activations of gated MLPs outside the blocks' MLPs (a module with a gate and an up projection beside its
    activation, as LongCat-Flash's dense MLPs beside the experts): the activation gates the up projection, so,
    frozen at the clean run's output as an attention's gates are, that MLP is linear in what it reads."""
    inside = _mlp_modules(model)
    found = []
    for module in module_of(model).modules():
        names = [name for name, _ in module.named_children()]
        if module in inside or not (any("gate" in n for n in names) and any("up" in n for n in names)):
            continue
        found += [child for child in module.children() if _is_activation(child)]
    return found


def head_activations(model) -> list:
    """The activations outside every block (a prediction head's, past the final norm, as ModernBERT decoder's
    GELU between its dense layer and its norm): frozen at the clean run's slope (output / input, ``FrozenSlope``), as
    the final norm at its scale, so the readout is linear in the stream."""
    blocks = {inner for layer in model.layers for inner in module_of(layer).modules()}
    return [module for module in module_of(model).modules() if module not in blocks and _is_activation(module)]


def tap_projections(model) -> list:
    """The projections that compute a convolution's taps from its input (a dynamic convolution, as Inkling 2's keys
    and values: a Linear child of a module whose class names it a dynamic convolution): frozen at the clean run's
    taps, the convolution is linear in what it convolves."""
    return [child for module in module_of(model).modules()
            if "dynamic" in type(module).__name__.lower() and "conv" in type(module).__name__.lower()
            for child in module.children() if isinstance(child, torch.nn.Linear)]


def attentions(model) -> list:
    """The modules whose gates are frozen: the attention modules (the blocks' own, and any other module whose class
    names it an attention: a cross-attention outside the blocks, as the Byte Latent Transformer's decoder runs
    before each block, or is of a block's attention's class: a block's second attention), and every gated norm (a
    norm module made of modules, as AX-K2's RMSNorm times a sigmoid gate of a low-rank MLP of its output; a norm given
    a gate, ``gated_norm``, inside a mixer too) and every module whose class names it a gate (Inkling 2 Loop's message
    gate: its tanh gates too), outside the MLPs."""
    blocks = {module_of(layer) for layer in model.layers}
    found = [module for layer in model.layers
             for module in [_slot(layer)] if module is not None and module not in blocks]
    inside = {inner for module in found for inner in module.modules()} | _mlp_modules(model)
    served = {type(module) for module in found}  # a second attention of the same class (LongCat-Flash's sublayers)
    for module in module_of(model).modules():
        name = type(module).__name__.lower()
        composite_norm = "norm" in name and any(True for _ in module.children()) and not _is_norm(module)
        gates = "attention" in name or composite_norm or type(module) in served or _is_gate(module)
        if gates and module not in inside and not blocks & set(module.modules()):
            found.append(module)
            inside.update(module.modules())
    # a mixer beside the attention (Falcon-H1's), and a norm with a gate input, inside a mixer too: its own gate and
    # scale fixed (the mixer's gates around it)
    mlps = _mlp_modules(model)
    beside = [child for block in blocks for child in block.children()
              if child not in found and child not in mlps and scans(child)]
    # a hyper-connection's weights computed from the streams (``frozen_streams``)
    streams = [module for module in stream_mixers(model) if module not in found and module not in mlps]
    return found + beside + streams + [module for module in module_of(model).modules()
                                       if gated_norm(module) and module not in found and module not in mlps]


def gate_functions(model) -> dict:
    """The functions whose outputs ``_Gates`` fixes in each module that is no plain attention: a mixer's
    (``MIXER_GATES``), a gated norm's (``GATED_NORM``)."""
    functions = {mixer: MIXER_GATES for mixer in mixer_modules(model)}
    functions.update({module: GATED_NORM for module in attentions(model) if gated_norm(module)})
    functions.update({module: STREAM_GATES for module in stream_mixers(model)})
    functions.update({module: WRITTEN_SOFTMAX for module in attentions(model) if writes_softmax_out(module)})
    return functions
