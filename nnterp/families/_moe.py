"""Mixtures of experts: where the router values are read, and what an MoE block serves.

A router turns each position into scores over the experts (``router_logits``), picks ``top_k`` of
them (``router_choices``) and the weights their outputs are mixed with (``router_weights``). Every
router in transformers computes on the positions flattened to ``[tokens, ...]``; the values are
served as ``[batch seq ...]`` views of the tensors the router computes, so an in-place edit is the
model's own tensor changed, and an assignment is copied into it. Three router kinds:

- a module whose forward computes the logits with one call (``F.linear(x, self.weight)``, or
  ``super().forward(x)`` where the router *is* an ``nn.Linear``) and returns
  ``(logits, weights, choices)``: the logits are read at that call, inside the router's forward,
  so an edit reaches the choice and the weights; the weights and the choices are the router's
  output elements, which the block hands to the experts;
- a module whose logits are a child ``Linear``'s output (HunYuan's ``gate.wg``);
- routers that hand the experts something other than top-k weights (Llama 4's dense score map),
  declared by their family.

The experts are fused 3-D parameters (``experts.gate_up_proj``, ``experts.down_proj``) run by the
kernel ``config._experts_implementation`` picks from ``ALL_EXPERTS_FUNCTIONS`` (``grouped_mm`` by
default) on rows sorted by expert: no ``[batch seq intermediate_size]`` tensor of neurons exists,
so on MoE blocks ``mlp_activation`` and ``mlp_neurons`` are unavailable with that sentence. Blocks
whose MLP is dense (``first_k_dense_replace``, ``mlp_only_layers``, ``decoder_sparse_step``) serve
them as usual: the sites are functions of the block, chosen from the module the block holds.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from nnsight.intervention.interleaver import Mediator

from nnterp.errors import UnavailableValue
from nnterp.family import COMMON_SITES
from nnterp.sites import Element, Nowhere, Read, Same, Site, Where
from nnterp import labels


# --------------------------------------------------------------------------- layout
class TokenRows(Same):
    """``[tokens, ...]`` (positions flattened batch-major) seen as ``[batch seq ...]``.

    The batch is the rows of the call, which the router never sees: it is read from the run
    nnsight is interleaving (its batcher counts the rows every invoke contributed). Under several
    invokes each one sees its own rows, as for every other value.
    """

    def view(self, native, model):
        if native.dim() != 2:
            return native
        mediator = Mediator.current("a router value")
        batcher = mediator.interleaver.batcher
        total = batcher.total if batcher is not None and batcher.total else 1
        group = mediator.batch_group if batcher is not None and batcher.batching else None
        if group is None:
            return native.unflatten(0, (total, -1))
        start, size = group
        if native.shape[0] == size:  # one position per row: nnsight already narrowed it
            return native.unflatten(0, (size, 1))
        return native.unflatten(0, (total, -1)).narrow(0, start, size)

    def inverse(self, value, like, model):
        return value.flatten(0, 1) if like.dim() == 2 else value


TOKEN_ROWS = TokenRows()


# --------------------------------------------------------------------------- where
def _child(envoy, dotted: str):
    for part in dotted.split("."):
        envoy = getattr(envoy, part)
    return envoy


def _module(module, dotted: str):
    for part in dotted.split("."):
        module = getattr(module, part)
    return module


@dataclass(frozen=True)
class InRouter(Where):
    """The router module ``router`` (dotted, below the MLP host): its own output when ``callee`` is
    None, else the output of the ``occurrence``-th call of ``callee`` inside its forward."""

    router: str
    callee: str | None = None
    key: str = "output"
    occurrence: int = 0

    def _label(self, compiled_source):
        label = labels.call_label(compiled_source, self.callee, self.occurrence)
        if label is None:
            raise UnavailableValue(
                f"the router's forward makes no call of {self.callee}; the family module's site is out of date")
        return label

    def target(self, host):
        envoy = _child(host, self.router)
        if self.callee is None:
            return envoy
        source = envoy.source
        return getattr(source, self._label(source.compiled))

    def instrument(self, host) -> None:
        """Install the router's operations now (model.instrument()), not at the first read."""
        if self.callee is not None:
            _child(host, self.router).source

    def describe(self, module) -> str:
        if self.callee is None:
            return f"the router {self.router}'s {self.key}"
        label = self._label(labels.compiled_forward(_module(module, self.router)))
        return f"inside the router {self.router}'s forward: the {self.key} of {label}"


@dataclass(eq=False)
class RouterRead(Read):
    """A router value: a ``[batch seq ...]`` view of what the router computes; an assignment is
    copied into the model's tensor (so it holds under several invokes too)."""

    def __post_init__(self):
        self.layout = TOKEN_ROWS
        self.shared = True
        parent = getattr(super(), "__post_init__", None)
        if parent is not None:
            parent()

    def describe(self, module) -> str:
        sentence = self.where.describe(module)
        if isinstance(self.element, Element) and self.where.callee is None:
            sentence += f", element {self.element.index}"
        return sentence


# --------------------------------------------------------------------------- sites
NEURONS_REASON = (
    "a mixture of experts: each position's neurons are those of its top-k experts, computed inside the experts "
    "kernel (config._experts_implementation) from the fused {experts} on rows sorted by expert, so no "
    "[batch seq intermediate_size] tensor of them exists"
)


def experts_sentence(experts: str = "experts.gate_up_proj [num_experts, 2·moe_intermediate_size, hidden_size] "
                                    "and experts.down_proj [num_experts, hidden_size, moe_intermediate_size]") -> str:
    return NEURONS_REASON.format(experts=experts)


def router_sites(
    router: str = "gate",
    logits_callee: str | None = "F.linear",
    logits_router: str | None = None,
    weights: int | None = 1,
    choices: int = 2,
    logits: str | None = None,
    weights_description: str | None = None,
    choices_description: str | None = None,
) -> dict[str, Site]:
    """The router values of a module returning ``(logits, weights, choices)`` (element indices as
    given); the logits are read at ``logits_callee`` inside its forward (or at the output of the
    module ``logits_router`` when the logits are a child Linear's output)."""
    where = InRouter(logits_router, None) if logits_router else InRouter(router, logits_callee)
    sites = {
        "router_logits": RouterRead(where, description=logits),
        "router_choices": RouterRead(InRouter(router), Element(choices), description=choices_description),
    }
    if weights is not None:
        sites["router_weights"] = RouterRead(InRouter(router), Element(weights), description=weights_description)
    return sites


DENSE_ROUTER = "a dense MLP block: this block's MLP has no router and no experts"


def moe_block(
    routed: dict[str, Site],
    neurons_reason: str,
    is_moe: Callable | None = None,
    dense_reason: str = DENSE_ROUTER,
    dense: dict[str, Site] | None = None,
) -> dict[str, Callable | Site]:
    """The MLP host's sites on a family whose MLP is an MoE block on some or all blocks.

    ``is_moe(module)`` tells an MoE block from a dense one (default: the MLP module holds experts);
    ``dense`` overrides the common sites on the dense blocks. The site objects are built once, so
    blocks of one kind share them.
    """
    is_moe = is_moe or (lambda module: hasattr(module, "experts"))
    unavailable = Nowhere(neurons_reason)
    dense_sites = {**{name: Nowhere(dense_reason) for name in routed}, **(dense or {})}

    def per_block(name, moe_site, dense_site):
        def site(context):
            if context is None or context.module is None:
                return moe_site
            return moe_site if is_moe(context.module) else dense_site
        return site

    sites = {name: per_block(name, site, dense_sites[name]) for name, site in routed.items()}
    for name in ("mlp_activation", "mlp_neurons"):
        sites[name] = per_block(name, unavailable, dense_sites.get(name, COMMON_SITES[name]))
    return sites


def moe_accessors(experts: str | tuple[str, ...], top_k: str | tuple[str, ...] = "num_experts_per_tok") -> dict:
    """Config accessors for the router dimensions (model.num_experts, model.num_experts_per_token)."""
    experts = (experts,) if isinstance(experts, str) else experts
    top_k = (top_k,) if isinstance(top_k, str) else top_k

    def first(config, names):
        for name in names:
            value = getattr(config, name, None)
            if value is not None:
                return value
        raise AttributeError(f"{type(config).__name__} has none of {names}")

    return {"num_experts": lambda c: first(c, experts), "num_experts_per_token": lambda c: first(c, top_k)}


# --------------------------------------------------------------------------- attention sinks
@dataclass(frozen=True)
class ListItem:
    """Item ``item`` of the list passed as argument ``index`` of a call (``torch.cat([scores, sinks])``)."""

    index: int = 0
    item: int = 0

    def get(self, raw):
        args, kwargs = raw
        return (args[self.index] if self.index < len(args) else kwargs["tensors"])[self.item]

    def put(self, raw, value):
        args, kwargs = raw
        if self.index < len(args):
            items = list(args[self.index])
            items[self.item] = value
            return (*args[:self.index], items, *args[self.index + 1:]), kwargs
        items = list(kwargs["tensors"])
        items[self.item] = value
        return args, {**kwargs, "tensors": items}


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
        import torch

        sinks = module.sinks.reshape(1, -1, 1, 1).expand(*scores.shape[:-1], 1).to(scores.dtype)
        return torch.cat([scores, sinks], dim=-1).float().softmax(-1)[..., :-1]


def sink_scores(description: str = "The attention scores, masked, before the sink column is appended" + SINKS):
    """attention_scores read as the first tensor ``torch.cat`` joins inside the eager kernel."""
    from nnterp.sites import EAGER_ONLY, Call

    return SinkScores(
        Call("torch.cat", "input", inside="attention_interface", eager="eager_attention_forward"), ListItem(0, 0),
        description=description, condition=EAGER_ONLY)


# --------------------------------------------------------------------------- router words
LOGITS_BEFORE_SOFTMAX = "The router's score for every expert, before the softmax over all experts"
LOGITS_BEFORE_SIGMOID = "The router's score for every expert, before the sigmoid (computed in float32)"
SOFTMAX_THEN_TOPK = "The chosen experts' softmax probabilities over all experts, renormalized over the top_k"
SOFTMAX_THEN_TOPK_OPTIONAL = ("The chosen experts' softmax probabilities over all experts (renormalized over the top_k "
                              "only when norm_topk_prob)")
TOPK_THEN_SOFTMAX = "The softmax of the chosen experts' logits, taken among the top_k only"
SIGMOID_WITH_BIAS = (
    "The chosen experts' sigmoid scores (the choice adds e_score_correction_bias and keeps the best groups; "
    "the weights do not), normalized over the top_k when norm_topk_prob and multiplied by routed_scaling_factor")
DEEPSEEK_CHOICES = ("The experts each position is sent to: the top_k of sigmoid(logits) + e_score_correction_bias "
                    "within the topk_group best of n_group expert groups; read-only")


# --------------------------------------------------------------------------- Granite MoE
def _residual_multiplier(config):
    return config.residual_multiplier


@dataclass(eq=False)
class PlusEarlier(Read):
    """A sum of two outputs the block adds together, each times its multiplier, served where the
    second one is produced (``where``); the first (``earlier``, relative to the same host) is read
    before it. An edit is carried back into the second minus the first's part: Granite's shared_mlp
    beside the MoE block, Falcon-H1's attention beside its Mamba mixer."""

    earlier: Where | None = None
    earlier_scale: Callable | None = None
    words: str = ""

    def _earlier(self, host):
        target = self.earlier.target(host)
        location = f"{target.path}.{self.earlier.key}"
        mediator = Mediator.current(location)
        held = host.__dict__.get("_nnterp_earlier_output")
        if held is not None and held[0] is mediator and held[1] == location:
            return  # read before in this run (an assignment after a read): the worker is past it now
        value = Mediator.value(location)
        value = value[0] if isinstance(value, (tuple, list)) else value
        object.__setattr__(host, "_nnterp_earlier_output", (mediator, location, value))

    def _term(self, host):
        value = host.__dict__["_nnterp_earlier_output"][2]
        factor = self.earlier_scale(host.root._nnterp_state.config) if self.earlier_scale else None
        return value if factor is None else value * factor

    def read(self, host, spec):
        self._earlier(host)
        return self._read_written_back(host)

    def write(self, host, spec, value) -> None:
        self._earlier(host)
        super().write(host, spec, value)

    def describe(self, module) -> str:
        return f"{self.where.describe(module)} plus {self.earlier.describe(module)}{self.words}"


class EarlierFirst(Site):
    """A site of a host whose PlusEarlier value needs an earlier module's output (Falcon-H1's Mamba
    mixer runs before its attention): reading any value of the host reads that output first, while it
    is still ahead of the forward, so attention_output can be read after the attention's interior."""

    def __init__(self, inner: Site, plus: PlusEarlier) -> None:
        self.inner, self.plus = inner, plus

    served = property(lambda self: self.inner.served)
    condition = property(lambda self: self.inner.condition)
    description = property(lambda self: self.inner.description)

    def __getattr__(self, name):
        if name in ("inner", "plus") or name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.inner, name)

    def read(self, host, spec):
        self.plus._earlier(host)
        return self.inner.read(host, spec)

    def write(self, host, spec, value) -> None:
        self.plus._earlier(host)
        self.inner.write(host, spec, value)

    def describe(self, module) -> str:
        return self.inner.describe(module)


def granite_sites(routed: dict, neurons_reason: str) -> dict:
    """Granite's MoE blocks: both contributions scaled by residual_multiplier; the layer's
    shared_mlp (GraniteMoeShared, GraniteMoeSWA), when the checkpoint has one, is part of mlp_output."""
    from nnterp.sites import Argument, Child, Own, Sibling

    scaled = Read(Own("output"), Element(0), scale=_residual_multiplier,
                  description="What the MoE block adds to the residual stream: its output times residual_multiplier")
    with_shared = PlusEarlier(
        Sibling("shared_mlp"), Element(0), scale=_residual_multiplier, earlier=Own("output"),
        earlier_scale=_residual_multiplier, words=", times residual_multiplier",
        description="What the MLP adds to the residual stream: the MoE block's output plus the block's shared_mlp "
                    "output (a sibling module run on every token), times residual_multiplier")

    def mlp_output(context):
        shared = getattr(context.layer, "shared_mlp", None) if context is not None else None
        return scaled if shared is None else with_shared

    return {
        # the MoE block and the shared_mlp read one tensor: an assignment is copied into it, so it reaches both
        "mlp_input": Read(Child("mlp", "input"), Argument(0), shared=True),
        "attention_output": Read(
            Own("output"), Element(0), scale=_residual_multiplier,
            description="What the attention adds to the residual stream: its output times residual_multiplier"),
        "mlp_output": mlp_output,
        **moe_block(routed, neurons_reason),
    }


def granite_readout(model, logits):
    """Granite divides lm_head's logits by logits_scaling."""
    return logits / model._nnterp_state.config.logits_scaling


# --------------------------------------------------------------------------- dense score maps
def _top_k(host) -> int:
    state = host.root._nnterp_state
    return state.family.accessor("num_experts_per_token", state.config)


@dataclass(eq=False)
class ScoresAtChoices(Site):
    """Router weights a router hands the experts as a dense ``[tokens, num_experts]`` map, zero off
    the chosen experts (Llama 4: sigmoid of the top_k logits): served as the map's entries at the
    chosen experts, found as the map's top_k (the sigmoid keeps the logits' order). An edit is
    scattered back into the map; ``choices=True`` serves the chosen experts instead (read-only)."""

    router: str = "router"
    scores: int = 0
    choices: bool = False
    description: str | None = None
    condition: Any = None

    def _location(self, host):
        return f"{_child(host, self.router).path}.output"

    def read(self, host, spec):
        from nnsight.intervention.eproperty import WriteBack

        location = self._location(host)
        mediator = Mediator.current(location)
        occurrence = mediator.wanted(location)
        raw = Mediator.value(location)
        scores = raw[self.scores]
        indices = scores.topk(_top_k(host), dim=-1).indices
        if self.choices:
            return TOKEN_ROWS.view(indices, host.root)
        picked = scores.gather(-1, indices)
        value = TOKEN_ROWS.view(picked, host.root)
        version = picked._version

        def carry_back():
            if picked._version == version:
                return raw  # not edited: the model's own objects, bit for bit
            return Element(self.scores).put(raw, scores.scatter(-1, indices, picked))

        mediator.transform = WriteBack(carry_back, value, self, location, occurrence)
        return value

    def write(self, host, spec, value) -> None:
        from nnterp.sites import check_layout

        location = self._location(host)
        raw = Mediator.value(location)
        scores = raw[self.scores]
        indices = scores.topk(_top_k(host), dim=-1).indices
        current = TOKEN_ROWS.view(scores.gather(-1, indices), host.root)
        check_layout(spec, current, value, host.root)
        edited = scores.scatter(-1, indices, value.reshape(indices.shape))
        Mediator.swap(location, Element(self.scores).put(raw, edited))

    def describe(self, module) -> str:
        what = "the top_k entries" if self.choices else "the entries at its top_k"
        return f"the router {self.router}'s output, element {self.scores} (a dense score map): {what}"
