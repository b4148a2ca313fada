"""Checks of a frozen trace (``nnterp.tools.frozen``) that ``attribution_graph`` runs where a graph fails its
completeness, to name the cause (``qk_attribution`` before it builds): the first
module still not affine in the map's inputs (``first_nonlinear``), a module run with gradients off
(``gradients_off``), the MLP no site serves (``unreplaced_mlp``); and the frozen attribution of one logit
(``attribute``)."""

from __future__ import annotations

from dataclasses import dataclass, field

import torch

from nnterp.contract.numerics import UNIT_ROUNDOFF, roundings
from nnterp.declare.engine import module_of
from nnterp.tools._common import token_id
from nnterp.tools.frozen import (
    EMBED,
    MLP,
    Frozen,
    _frozen_pass,
    fixed_inside,
    freeze,
    frozen_logits,
    has_mlp,
)
from nnterp.tools.frozen_gates import _hooked
from nnterp.tools.frozen_mixers import _mlp_modules


def first_nonlinear(model, frozen: Frozen):
    """Where the frozen map is not affine in its inputs: the frozen map run on three collinear sets of inputs (the
    clean ones, then a random step, then two), each module's output kept, in the order the calls finish; a module
    is affine where its second difference is within rounding of its output. Returns None where every block's output
    and the logits are affine, else (path, class name) of the first module that bends what it is given (its output
    not affine, its input affine), inside the first block whose output is not (or past the blocks, where the logits
    alone are not); the blocks' MLPs are left out, their outputs being the map's inputs."""
    generator = torch.Generator().manual_seed(0)
    steps = {key: torch.randn(value.shape, generator=generator).to(value.dtype) * value.float().std().to(value.dtype)
             for key, value in frozen.inputs.items()}
    rows = {key: torch.cat([value, value + steps[key], value + 2 * steps[key]]) for key, value in frozen.inputs.items()}
    allowed = 2 * roundings(model) * UNIT_ROUNDOFF[frozen.inputs[EMBED].dtype]
    names = {module: path for path, module in module_of(model).named_modules()}
    mlps = _mlp_modules(model)
    seen = []

    def bent(value):
        """Whether ``value`` (three rows, batch first) is not affine in the step; None where it is no such tensor."""
        value = value[0] if isinstance(value, tuple) and value else value
        if not (isinstance(value, torch.Tensor) and value.is_floating_point() and value.dim() and value.shape[0] == 3
                and value.numel()):
            return None
        value = value.detach().double().reshape(3, -1)
        return float((value[2] - 2 * value[1] + value[0]).abs().max() / value.abs().max().clamp(min=1e-30)) > allowed

    def keep(module, _, args, output):
        seen.append((module, bent(output), bent(args[0]) if args else None))

    with torch.no_grad():
        with fixed_inside(frozen), _hooked([m for m in names if m not in mlps], keep):  # after the fixes' hooks
            logits = _frozen_pass(model, frozen, rows, "lm_head_output")
    blocks = [module_of(layer) for layer in model.layers]
    bent_blocks = [module for module, out, _ in seen if out and module in blocks]
    if not bent_blocks and not bent(logits):
        return None
    within = set(bent_blocks[0].modules()) if bent_blocks else \
        {module for module in names if not any(module in set(block.modules()) for block in blocks)}
    # the first that bends what it is given: its output is not affine, its input is (or is no tensor); where none
    # in the first bent block does, the first anywhere (a module outside the blocks that runs before it)
    for candidates in (within, set(names)):
        for module, out, given in seen:
            if out and not given and module in candidates:
                return names[module], type(module).__name__
    return None


def gradients_off(model, frozen: Frozen):
    """Where the frozen map's gradients miss a path its values take (a ``torch.no_grad`` inside the model's own
    forward, as HRM's first low-level cycles): the map being affine, its gradient along a random step must be the
    step's change of the logits (one random projection of them); where it is not, the first module the pass ran with
    gradients off (or None where the pass ran none), else None. A module run with gradients off whose output the
    frozen trace replaces (an indexer's scores, which only choose the keys) misses nothing and passes."""
    names = {module: path for path, module in module_of(model).named_modules()}
    found = []

    def check(module, _, args):
        if not torch.is_grad_enabled() and module not in found:
            found.append(module)

    generator = torch.Generator().manual_seed(1)
    steps = {key: (torch.randn(value.shape, generator=generator) * value.float().std()).to(value.dtype)
             for key, value in frozen.inputs.items()}
    inputs = {key: value.clone().requires_grad_(True) for key, value in frozen.inputs.items()}
    with torch.enable_grad(), fixed_inside(frozen), _hooked(list(names), lambda *_: None, check):
        logits = _frozen_pass(model, frozen, inputs, "lm_head_output")
        projection = torch.randn(logits.shape, generator=generator).to(logits.dtype)
        grads = torch.autograd.grad((logits * projection).sum(), list(inputs.values()), allow_unused=True)
    with torch.no_grad(), fixed_inside(frozen):
        stepped = _frozen_pass(model, frozen, {key: value + steps[key] for key, value in frozen.inputs.items()},
                               "lm_head_output")
    along = sum(float((g.double() * steps[key].double()).sum()) for key, g in zip(inputs, grads) if g is not None)
    change = (stepped.double() - logits.detach().double()) * projection.double()
    magnitude = float(((stepped.double().abs() + logits.detach().double().abs()) * projection.double().abs()).sum())
    allowed = 2 * roundings(model) * UNIT_ROUNDOFF[frozen.inputs[EMBED].dtype]
    if abs(along - float(change.sum())) <= allowed * max(magnitude, 1e-30):
        return None
    return names[found[0]] if found else None


def unreplaced_mlp(model, path: str) -> str | None:
    """Where module ``path`` sits in a block that serves no mlp_output (Zamba's shared MLP, outside every site):
    the reason the block gives; else None."""
    names = {module: name for name, module in module_of(model).named_modules()}
    for i, layer in enumerate(model.layers):
        if path.startswith(names.get(module_of(layer), "\0") + ".") and not has_mlp(model, i):
            return model.serves("mlp_output", i)
    return None


@dataclass
class FrozenAttribution:
    """A logit split over the frozen map's inputs: ``terms[node]`` for node ``("embed", position)`` or
    ``("mlp", block, position)``, plus ``constant`` (the map at zero input: the biases' share); they sum to
    ``total``, the frozen map's logit at the clean inputs, which is the clean run's logit."""

    token: int
    position: int
    terms: dict
    constant: float
    total: float
    clean: float
    nodes: list = field(default_factory=list)

    def by_input(self) -> dict:
        """The terms summed over positions: {"embed": ..., ("mlp", i): ...}."""
        out: dict = {}
        for node, value in self.terms.items():
            key = EMBED if node[0] == EMBED else (MLP, node[1])
            out[key] = out.get(key, 0.0) + value
        return out

    @property
    def residual(self) -> float:
        """total - (constant + the terms): zero up to rounding, the map being affine."""
        return self.total - self.constant - sum(self.terms.values())


def attribute(model, prompt, token, position: int = -1, frozen: Frozen | None = None) -> FrozenAttribution:
    """Split the logit of ``token`` at ``position`` over every input of the frozen map, exactly: one row per
    (input, position) alone, one at zero, one at the clean inputs, in one batched pass."""
    frozen = frozen or freeze(model, prompt)
    token = token_id(model, token)
    seq = frozen.seq_len
    nodes = [(EMBED, p) for p in range(seq)] + [(MLP, i, p) for i in range(model.num_layers) for p in range(seq)]
    rows = len(nodes) + 2
    inputs = frozen.zeros(rows)
    for row, node in enumerate(nodes):
        key = EMBED if node[0] == EMBED else (MLP, node[1])
        at = node[-1]
        inputs[key][row, at] = frozen.inputs[key][0, at]
    for key, value in frozen.inputs.items():  # the last row: every input at its clean value
        inputs[key][-1] = value[0]
    logits = frozen_logits(model, frozen, inputs)[:, position, token].detach().double()
    constant = float(logits[-2])
    terms = {node: float(logits[row]) - constant for row, node in enumerate(nodes)}
    return FrozenAttribution(token, position, terms, constant, float(logits[-1]),
                             float(frozen.logits[0, position, token]), nodes)
