"""Site kinds that follow from another site: a value read beside another value's site (a norm's scale, an
activation's input, the rotary input), the per-head contributions of an output projection, and attention sinks."""

from __future__ import annotations

import inspect
import re
from dataclasses import dataclass, field, replace
from functools import lru_cache, partial
from typing import Any, Callable

import torch

from nnterp.declare import labels
from nnterp.declare.engine import engine, module_of
from nnterp.declare.layouts import SAME
from nnterp.declare.locations import EAGER_ONLY, Argument, Call, Child, Condition, Element, ListItem, Own, _walk
from nnterp.declare.writeback import Nowhere, PlusEarlier, Read, Site, _version, check_layout, safety_copy

# --------------------------------------------------------------------------- values that follow from another's site
@dataclass(eq=False)
class Companion(Site):
    """A value whose site follows from the family's site of another value (``of``): what the activation function
    reads is the input of wherever mlp_activation is read, a norm's scale sits on the module its output is read at.
    ``Family.site`` resolves it, so a family that moves the other value moves this one with it."""

    of: str
    #: (the other value's site, the native module it names or None) -> this value's site; with ``also``, the
    #: sites of those values too, as keywords
    make: Callable[..., Site]
    #: made once per site of the other value, so blocks that share that site share this one
    made: dict = field(default_factory=dict, repr=False)
    #: further values whose sites this one follows (each head's share carries the multiplier attention_output does)
    also: tuple[str, ...] = ()

    def resolve(self, site: Site, context=None, others: dict | None = None) -> Site:
        module = _native_of(site, context)
        others = others or {}
        # blocks whose modules are of one class share the site made
        key = (id(site), type(module), *(id(other) for other in others.values()))
        found = self.made.get(key)
        if found is None or found[0] is not site:
            found = self.made[key] = (site, self.make(site, module, **others))
        return found[1]


def _native_of(site, context):
    """The native module a Child site names, from the host's context (None where it cannot tell)."""
    where = getattr(site, "where", None)
    if context is None or not isinstance(where, Child):
        return None
    root = context.layer if where.from_block else context.module
    if root is None:
        return None
    rename = context.family.all_rename
    # a native path renamed to this name, as dotted from the root (a wrapper's language model's) or as its last name
    renamed = [key for key, alias in rename.items()
               if isinstance(key, str) and isinstance(alias, str) and alias.rsplit(".", 1)[-1] == where.name]
    names = [where.name, *renamed, *(key.rsplit(".", 1)[-1] for key in renamed)]
    for name in names:
        try:
            found = _walk(root, name) if "." in name else root._modules.get(name)
        except AttributeError:
            found = None
        if found is not None:
            return found
    return None


def _keyed(where) -> bool:
    return hasattr(where, "key") and hasattr(where, "__dataclass_fields__")


def input_of(site: Site, module, value: str) -> Site:
    """The first argument where ``site`` reads an output (a module's or an operation's), in the same layout."""
    if not site.served:
        return Nowhere(site.reason)
    if not (isinstance(site, Read) and _keyed(site.where) and site.where.key == "output" and site.plus is None
            and site.scale is None and isinstance(site.element, Element)):
        return Nowhere(f"{value} is not read at a call's output here, so there is no call whose input to read")
    # a copy taken at the call: a gate split off a fused projection by chunk() is a view torch forbids editing in
    # place; an edit is carried back into the call's argument
    return Read(replace(site.where, key="input"), Argument(0), site.layout, condition=site.condition, snapshot=True)


@dataclass(eq=False)
class RotaryInput(Read):
    """Queries or keys read where they enter the rotary embedding; ``normed_after`` names the norm module the
    attention applies to them after the rotary (RoPE then norm), which the contract applies before comparing them
    with the rotated ones."""

    normed_after: str | None = None


@dataclass(eq=False)
class WholeBeforeSplit(Read):
    """Queries or keys read whole before a partial rotary splits each head: ``rotary_last`` where the rotary dims
    are the head's last (MLA's) rather than its first, ``interleaved`` where the rotary takes them in adjacent pairs
    and returns each pair's first members, then their second (DeepSeek's)."""

    rotary_last: bool = False
    interleaved: bool = False


# --------------------------------------------------------------------------- norm scales
def norm_centres(module) -> bool:
    """Whether a norm subtracts the mean before scaling (a LayerNorm) rather than only dividing by the root mean
    square (an RMSNorm), from its class."""
    name = type(module).__name__.lower()
    return isinstance(module, torch.nn.LayerNorm) or ("layernorm" in name and "rms" not in name)


def norm_eps(module) -> float | None:
    """The eps a norm adds to the mean square: its attribute, or the literal its forward passes (OLMo's
    F.layer_norm(..., eps=1e-5)); None where it has neither."""
    for name in ("variance_epsilon", "eps", "epsilon"):
        value = getattr(module, name, None)
        if isinstance(value, (int, float)):
            return float(value)
    try:
        found = re.search(r"eps=([0-9.eE+-]+)\)", labels.compiled_forward(module).source)
    except Exception:
        found = None
    return float(found.group(1)) if found else None


def not_a_norm(module, value: str) -> str | None:
    """Why a module ``value`` is read at has no scale of the form gain · (input · scale) + bias, else None."""
    if isinstance(module, torch.nn.Identity):
        return f"{value} is read at an Identity: nothing is normed there, so there is no scale"
    if norm_eps(module) is None:
        return (f"{value} is read at {type(module).__name__}, whose output is not one norm's gain · (input · scale) + "
                f"bias (it keeps no eps of its own: a norm wrapped in more, such as a gate)")
    return None


def norm_sums(module) -> bool:
    """Whether a norm divides by the root of the sum of squares (an L2 norm: nGPT's) rather than of their mean."""
    return _class_sums_squares(type(module))


@lru_cache(maxsize=None)
def _class_sums_squares(cls) -> bool:
    # once per class: reading a class's source parses its whole module file (a third of a cache's cost, read per norm)
    try:
        source = inspect.getsource(cls).replace(" ", "")
    except (OSError, TypeError):
        return False
    return ".pow(2).sum(-1" in source and ".pow(2).mean(-1" not in source


def norm_scale(module, x: torch.Tensor) -> torch.Tensor:
    """1 / sqrt(mean square + eps) of ``x`` over its last axis (centred first under a LayerNorm; the sum of
    squares under an L2 norm), in float32."""
    x = x.float()
    if norm_centres(module):
        x = x - x.mean(-1, keepdim=True)
    squares = x.pow(2)
    return torch.rsqrt((squares.sum(-1) if norm_sums(module) else squares.mean(-1)) + norm_eps(module))


def rescaled(module, output: torch.Tensor, old: torch.Tensor, new: torch.Tensor) -> torch.Tensor:
    """A norm's output with its scale ``old`` replaced by ``new``: bias + (output - bias) · new / old, which holds
    whatever the gain (weight, 1 + weight, none), since the gain multiplies the scaled input."""
    bias = getattr(module, "bias", None)
    bias = bias if isinstance(bias, torch.Tensor) else None
    ratio = (new.float() / old.float()).unsqueeze(-1)
    centred = output.float() if bias is None else output.float() - bias.float()
    out = centred * ratio
    return (out if bias is None else out + bias.float()).to(output.dtype)


@dataclass
class _NormContext:
    host: Any
    model: Any
    x: Any
    module: Any


@dataclass(eq=False)
class NormScale(Read):
    """A norm's scale, computed from the norm module's input and served at its output: an edit (in place or an
    assignment) rescales the norm's output to the edited scale, as if the norm had computed it."""

    def _input_location(self, host) -> str:
        return f"{self.where.target(host).path}.input"

    def _norm_input(self, host):
        return Argument(0).get(engine.value_at(self._input_location(host)))

    def read(self, host, spec):
        x = self._norm_input(host)
        context = _NormContext(host, host.root, x, module_of(self.where.target(host)))
        return self._read_with_writeback(self._location(host), context)

    def _present(self, context, raw):
        scale = norm_scale(context.module, context.x)
        context.original = safety_copy(self, scale)  # the scale an edit rescales from
        scale._nnterp_version = scale._version
        return scale

    def _carry_back(self, context, value, raw):
        if _version(value) == getattr(value, "_nnterp_version", None):
            return raw
        output = self.element.get(raw)
        return self.element.put(raw, rescaled(context.module, output, context.original, value))

    def write(self, host, spec, value) -> None:
        location = self._location(host)
        waiting = engine.waiting_carry_back(location, self)
        if waiting is not None:
            context = waiting.args[0]  # just read here (``x.scale = f(x.scale)``): the norm's input has passed
        else:
            context = _NormContext(host, host.root, self._norm_input(host), module_of(self.where.target(host)))
            context.original = norm_scale(context.module, context.x)
        raw = engine.value_at(location)
        check_layout(spec, context.original, value, host.root)
        output = rescaled(context.module, self.element.get(raw), context.original, value)
        engine.swap(location, self.element.put(raw, output))

    def describe(self, module) -> str:
        return f"computed from {self.where.describe(module).replace('output', 'input')}, applied at its output"


def scale_of(site: Site, module, value: str) -> Site:
    """The scale of the norm whose output ``value`` is read at, where that is a norm module's own output
    (``module``, the native module, None where it is not found)."""
    if not site.served:
        return Nowhere(site.reason)
    if not (isinstance(site, Read) and isinstance(site.where, Child) and site.where.key == "output"
            and type(site) is Read and site.layout is SAME and site.plus is None and site.scale is None):
        return Nowhere(f"{value} is not read at a norm module's own output here, so no norm module's input to scale")
    reason = not_a_norm(module, value) if module is not None else None
    if reason:
        return Nowhere(reason)
    l2 = module is not None and norm_sums(module)
    return NormScale(site.where, site.element, condition=site.condition, description=None if not l2 else (
        "The factor the L2 norm multiplies its input by: 1 / sqrt(sum of squares + eps), in float32"))


# --------------------------------------------------------------------------- per-head contributions
def projection_of(site: Site, host):
    """The native output projection a premix site is read at (its child's or sibling's input), else None."""
    where = getattr(site, "where", None)
    if isinstance(where, Child) and where.key == "input":
        return module_of(where.target(host))
    return None


def per_head(projection, premix: torch.Tensor) -> torch.Tensor:
    """Each head's slot of ``premix`` [batch seq heads dim] through ``projection``, without its bias:
    [batch seq heads out]. A Linear's (or Conv1D's) weight is split by head; any other projection is called on
    each head's slot alone, less its output on zeros."""
    heads, width = premix.shape[-2], premix.shape[-1]
    weight = getattr(projection, "weight", None)
    if isinstance(projection, torch.nn.Linear) and type(projection).forward is torch.nn.Linear.forward:
        return torch.einsum("bshd,ohd->bsho", premix, weight.view(weight.shape[0], heads, width).to(premix.dtype))
    if type(projection).__name__ == "Conv1D":  # GPT-2's [in, out] weight
        return torch.einsum("bshd,hdo->bsho", premix, weight.view(heads, width, -1).to(premix.dtype))
    eye = torch.eye(heads, dtype=premix.dtype, device=premix.device)
    alone = (premix.unsqueeze(-3) * eye[:, :, None]).flatten(-2)  # [batch seq heads(alone) heads*dim]
    forward = partial(type(projection).forward, projection)  # the module's own arithmetic, outside any hook
    return forward(alone) - forward(torch.zeros_like(alone[..., :1, :]))


@dataclass(eq=False)
class HeadContributions(Site):
    """Every head's contribution through the output projection, derived from attention_premix; read-only."""

    source: Site
    description: str | None = None
    condition: Condition | None = None
    #: the multiplier the block applies to the attention's output before the add (Granite's residual_multiplier,
    #: a ConfigKey): each head's share is what the stream receives, so the heads add up to attention_output
    scale: Callable | None = None

    def read(self, host, spec):
        heads = per_head(projection_of(self.source, host), self.source.read(host, spec))
        return heads if self.scale is None else heads * self.scale(host.root._nnterp_state.config)

    def describe(self, module) -> str:
        times = "" if self.scale is None else ", times attention_output's multiplier"
        return f"derived from attention_premix ({self.source.describe(module)}) through that projection{times}"


def contributions_of(site: Site, module, value: str, attention_output: Site | None = None) -> Site:
    if not site.served:
        return Nowhere(site.reason)
    where = getattr(site, "where", None)
    if not (isinstance(where, Child) and where.key == "input"):
        return Nowhere(f"{value} is not read at an output projection module's input here, so there is no "
                       "projection to split by head")
    scale = _output_multiplier(attention_output)
    if scale is None:
        return HeadContributions(site, condition=site.condition)
    times = f"config.{scale.key}" if hasattr(scale, "key") else "the multiplier the block applies to the attention"
    sums_to = "attention_output" if type(attention_output) is Read else "the attention's part of attention_output"
    return HeadContributions(site, condition=site.condition, scale=scale, description=(
        f"Each head's slot of attention_premix through the output projection, times {times}: what each head adds to "
        f"the residual stream; their sum plus the projection's bias times it is {sums_to}; derived, read-only"))


def _output_multiplier(attention_output: Site | None):
    """The number the block multiplies the attention module's output by before the add, where attention_output is
    that output times it (Granite's residual_multiplier, MiniCPM 3's scale_depth / sqrt(num_layers), Falcon-H1's
    attention_out_multiplier beside its Mamba mixer's); else None."""
    where = getattr(attention_output, "where", None)
    if type(attention_output) in (Read, PlusEarlier) and type(where) is Own and where.key == "output" and \
            attention_output.plus is None:
        return attention_output.scale
    return None


# --------------------------------------------------------------------------- attention sinks
SINKS = (
    "; the softmax also takes one learned sink logit per head (self_attn.sinks), appended as a last key column and "
    "dropped after it, so attention_probabilities = softmax([scores, sink])[..., :-1] and each row sums to less "
    "than one"
)


@dataclass(eq=False)
class SinkScores(Read):
    """Attention scores that the model softmaxes together with a per-head sink logit."""

    def softmax(self, scores, module):
        """The probabilities the model computes from these scores: the sink column in, then out."""
        sinks = module.sinks.reshape(1, -1, 1, 1).expand(*scores.shape[:-1], 1).to(scores.dtype)
        return torch.cat([scores, sinks], dim=-1).float().softmax(-1)[..., :-1]


def sink_scores(description: str = "The attention scores, masked, before the sink column is appended" + SINKS):
    """attention_scores read as the first tensor ``torch.cat`` joins inside the eager kernel."""
    return SinkScores(
        Call("torch.cat", "input", inside="attention_interface", eager="eager_attention_forward"), ListItem(0, 0),
        description=description, condition=EAGER_ONLY)
