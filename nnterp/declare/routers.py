"""Mixtures of experts: where the router values are read, and what an MoE block serves.

A router turns each position into scores over the experts (``router_logits``), picks ``top_k`` of
them (``router_choices``) and the weights their outputs are mixed with (``router_weights``). Every
router in transformers computes on the positions flattened to ``[tokens, ...]``; the values are
served as ``[batch seq ...]`` views of the tensors the router computes, so an in-place edit is the
model's own tensor changed, and an assignment is copied into it. Four router kinds:

- a module whose forward computes the logits with one call (``F.linear(x, self.weight)``, or
  ``super().forward(x)`` where the router *is* an ``nn.Linear``) and returns
  ``(logits, weights, choices)``: the logits are read at that call, inside the router's forward,
  so an edit reaches the choice and the weights; the weights and the choices are the router's
  output elements, which the block hands to the experts;
- a module whose logits are a child ``Linear``'s output (HunYuan's ``gate.wg``);
- routers that hand the experts something other than top-k weights (Llama 4's dense score map),
  whose values their family declares one by one (``RouterValues``);
- two routers of one block, each for the positions of one token type (ERNIE 4.5 VL's text and vision experts),
  whose values are each position's own router's (``TokenTypeRouters``).

A family declares its mixture once, ``Family(moe=MoE(router, ...))``: the router values on the MoE
blocks, a reason on the dense ones, and the config keys of the expert count and the top_k.

The experts are fused 3-D parameters (``experts.gate_up_proj``, ``experts.down_proj``) run by the
kernel ``config._experts_implementation`` picks from ``ALL_EXPERTS_FUNCTIONS`` (``grouped_mm`` by
default) on rows sorted by expert: no ``[batch seq intermediate_size]`` tensor of neurons exists,
so on MoE blocks ``mlp_activation`` and ``mlp_neurons`` are unavailable with that sentence. Blocks
whose MLP is dense (``first_k_dense_replace``, ``mlp_only_layers``, ``decoder_sparse_step``) serve
them as usual: the sites are functions of the block, chosen from the module the block holds.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import partial
from typing import Callable

import torch

from nnterp.declare import labels
from nnterp.declare.conventions import COMMON_SITES
from nnterp.declare.engine import engine
from nnterp.declare.errors import OrderError, UnavailableValue
from nnterp.declare.layouts import TOKEN_ROWS, Same
from nnterp.declare.locations import Argument, Call, Element, Where, _block_of, _walk, envoy_memo
from nnterp.declare.writeback import Derived, Nowhere, Read, Site, carried_back, check_layout


# --------------------------------------------------------------------------- where
@dataclass(frozen=True)
class InRouter(Where):
    """The router module ``router`` (dotted, below the MLP host): its own output when ``callee`` is
    None, else the output of the ``occurrence``-th call of ``callee`` inside its forward."""

    router: str
    callee: str | None = None
    key: str = "output"
    occurrence: int = 0
    #: the router is a module of the host's block, beside the MLP (Gemma 4's layers[i].router)
    from_block: bool = False

    def _label(self, compiled_source):
        label = labels.call_label(compiled_source, self.callee, self.occurrence)
        if label is None:
            raise UnavailableValue(
                f"the router's forward makes no call of {self.callee}; the family module's site is out of date")
        return label

    def target(self, host):
        envoy = _walk(_block_of(host) if self.from_block else host, self.router)
        if self.callee is None:
            return envoy
        source = envoy.source
        return getattr(source, self._label(source.compiled))

    def instrument(self, host) -> None:
        """Install the router's operations now (model.instrument()), not at the first read."""
        if self.callee is not None:
            _walk(host, self.router).source

    def describe(self, module) -> str:
        if self.callee is None:
            where = "the block's router module" if self.from_block else "the router"
            return f"{where} {self.router}'s {self.key}"
        label = self._label(labels.compiled_forward(_walk(module, self.router)))
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
        at_output = isinstance(self.where, Call) or getattr(self.where, "callee", None) is None
        if isinstance(self.element, Element) and at_output:
            sentence += f", element {self.element.index}"  # which element of what the router or the call returns
        return sentence


@dataclass(eq=False)
class TopKChoices(Derived):
    """The experts chosen from a router value: its top num_experts_per_tok, as the router takes them (where the
    router hands the experts no choices of its own: JetMoE returns its logits last)."""

    def read(self, host, spec):
        return self.source.read(host, spec).topk(host.root.num_experts_per_token, dim=-1).indices


class ExpertHeads(Same):
    """A mixture of attention heads' per-expert rows, ``[batch seq top_k kv_heads*head_dim]`` (one row per routed
    query expert, JetMoE's experts.reduce input), seen as ``[batch seq num_heads head_dim]``."""

    def view(self, native, model):
        return native.flatten(-2).unflatten(-1, (model.num_heads, -1))

    def inverse(self, value, like, model):
        return value.flatten(-2).unflatten(-1, (like.shape[-2], -1))


#: the layout of a mixture of attention heads' per-head outputs
EXPERT_HEADS = ExpertHeads()


# --------------------------------------------------------------------------- sites
NEURONS_REASON = (
    "a mixture of experts: each position's neurons are those of its top-k experts, computed inside the experts "
    "kernel (config._experts_implementation) from the fused {experts} on rows sorted by expert, so no "
    "[batch seq intermediate_size] tensor of them exists"
)


def experts_sentence(experts: str = "experts.gate_up_proj [num_experts, 2·moe_intermediate_size, hidden_size] "
                                    "and experts.down_proj [num_experts, hidden_size, moe_intermediate_size]") -> str:
    return NEURONS_REASON.format(experts=experts)


DENSE_ROUTER = "a dense MLP block: this block's MLP has no router and no experts"


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


# --------------------------------------------------------------------------- dense score maps
def _top_k(host) -> int:
    state = host.root._nnterp_state
    return state.family.accessor("num_experts_per_token", state.config)


@dataclass(eq=False)
class ScoresAtChoices(Read):
    """Router weights a router hands the experts as a dense ``[tokens, num_experts]`` map, zero off the chosen
    experts (Llama 4: sigmoid of the top_k logits), read at the router's output element ``element``: served as the
    map's entries at the chosen experts, found as the map's top_k (the sigmoid keeps the logits' order). An edit is
    scattered back into the map; ``choices=True`` serves the chosen experts instead (read-only)."""

    choices: bool = False

    def _chosen(self, context, raw):
        scores = self.element.get(raw)
        return scores, scores.topk(_top_k(context.host), dim=-1).indices

    def _present(self, context, raw):
        scores, indices = self._chosen(context, raw)
        value = TOKEN_ROWS.view(indices if self.choices else scores.gather(-1, indices), context.model)
        value._nnterp_version = value._version
        return value

    _current = _present

    def _is_live(self, host) -> bool:
        return False  # the entries are gathered out of the map

    def _put(self, context, raw, value):
        scores, indices = self._chosen(context, raw)
        return self.element.put(raw, scores.scatter(-1, indices, value.reshape(indices.shape)))

    def read(self, host, spec):
        return self._read_written_back(host)

    def write(self, host, spec, value) -> None:
        if self.choices:
            return Site.write(self, host, spec, value)
        super().write(host, spec, value)

    def describe(self, module) -> str:
        what = "the top_k entries" if self.choices else "the entries at its top_k"
        return f"{self.where.describe(module)}, element {self.element.index} (a dense score map): {what}"


# --------------------------------------------------------------------------- presets
@dataclass(frozen=True)
class Router:
    """A router module returning ``(logits, weights, choices)``, declared once: the module, where its logits are
    read (a call inside its forward, or a child Linear's output), which output elements hand the experts the
    weights and the choices, and what each value means."""

    module: str = "gate"
    logits_call: str | None = "F.linear"
    logits_module: str | None = None
    weights: int | None = 1
    choices: int = 2
    logits: str | None = None
    weights_description: str | None = None
    choices_description: str | None = None

    def sites(self) -> dict[str, Site]:
        """The router values, the logits read at ``logits_call`` inside its forward (or at the output of the module
        ``logits_module`` when the logits are a child Linear's output), the weights and the choices at the given
        elements of its output."""
        where = InRouter(self.logits_module, None) if self.logits_module else InRouter(self.module, self.logits_call)
        sites = {
            "router_logits": RouterRead(where, description=self.logits),
            "router_choices": RouterRead(InRouter(self.module), Element(self.choices),
                                         description=self.choices_description),
        }
        if self.weights is not None:
            sites["router_weights"] = RouterRead(InRouter(self.module), Element(self.weights),
                                                 description=self.weights_description)
        return sites


@dataclass(frozen=True)
class RouterValues:
    """A router whose values a family declares one by one, where it hands the experts something other than
    ``(logits, weights, choices)``: Llama 4's dense score map, JetMoE's logits returned last, Gemma 4's router
    beside the MLP. ``values`` maps router value names to their sites."""

    module: str
    values: dict = field(default_factory=dict)

    @property
    def weights_description(self) -> str | None:
        weights = self.values.get("router_weights")
        return getattr(weights, "description", None)

    def sites(self) -> dict[str, Site]:
        return dict(self.values)


@dataclass(frozen=True)
class TokenTypeRouters:
    """Two routers of one block, each routing the positions of one token type (ERNIE 4.5 VL: text_moe.gate the
    text positions, vision_moe.gate the image ones, marked by the MLP's input ``types``): each router value is one
    ``[batch seq ...]`` value, every position's row from its own router (``TokenTypeRead``). ``first`` routes the
    unmarked positions, and every position on a call that marks none."""

    first: Router
    second: Router
    types: Argument

    module = property(lambda self: f"{self.first.module} and {self.second.module}")
    weights_description = property(lambda self: self.first.weights_description)

    def sites(self) -> dict[str, Site]:
        first, second = self.first.sites(), self.second.sites()
        return {name: TokenTypeRead(self, name, first, second[name]) for name in first}


@dataclass(eq=False)
class TokenTypeRead(Site):
    """A router value of ``TokenTypeRouters``. On a call that marks no position the first router routes them all:
    its value, as it is. Otherwise the first router and its experts have run before the second router starts, so
    the value is served where the second one computes its rows, with the first one's rows as it computed them
    (all of the first router's values are held at the first read of a run, in the forward's order): an edit
    reaches the marked positions' routing, and an edit of an unmarked row, already used, is refused."""

    routers: TokenTypeRouters
    name: str
    #: the first router's values, by name: all of them are held at a run's first read
    firsts: dict
    second: Read
    description: str | None = None

    def __post_init__(self):
        self.first = self.firsts[self.name]
        self.description = self.first.description

    where = property(lambda self: self.second.where)

    def _held(self, host) -> dict:
        """This run's marked positions (flat, or None where none is marked) and the first router's native values."""
        memo = envoy_memo(host, "_nnterp_token_types")
        mediator = engine.worker("the router values")
        # held for this step (a generation's steps pass the block again, each read at its pinned step)
        step = mediator.iteration
        if memo.get("worker") is not mediator or memo["step"] != step:
            types = self.routers.types.get(engine.value_at(f"{host.path}.input"))
            marked = types.reshape(-1).bool() if types is not None and bool(types.any()) else None
            memo.clear()
            memo.update(worker=mediator, marked=marked, step=step)
            if marked is not None:  # the first router's values, before the forward passes them
                for name, site in self.firsts.items():
                    memo[name] = site.element.get(engine.value_at(site._location(host)))
        return memo

    def _present(self, held, raw, model):
        own = self.second.element.get(raw)
        first = held[self.name]
        flat = first.new_empty((held["marked"].numel(), *first.shape[1:]))
        flat[~held["marked"]], flat[held["marked"]] = first, own.to(first.dtype)
        value = TOKEN_ROWS.view(flat, model)
        value._nnterp_version = value._version
        return value

    def _carry_back(self, held, value, raw):
        if value._version == value._nnterp_version:
            return raw
        flat = value.reshape(held["marked"].numel(), *value.shape[2:])
        if not torch.equal(flat[~held["marked"]], held[self.name]):
            raise OrderError(
                f"{self.name} of the positions {self.routers.first.module} routes was edited after their experts "
                f"ran (on a call with positions of both types, {self.routers.second.module} runs second): edit "
                f"only the marked positions' rows, or edit them on a call that marks none")
        own = self.second.element.get(raw)
        return self.second.element.put(raw, flat[held["marked"]].to(own.dtype))

    def read(self, host, spec):
        held = self._held(host)
        if held["marked"] is None:
            return self.first.read(host, spec)
        location, model = self.second._location(host), host.root
        return carried_back(location, self, lambda raw: self._present(held, raw, model),
                            lambda value, raw: self._carry_back(held, value, raw))

    def write(self, host, spec, value) -> None:
        if self._held(host)["marked"] is None:
            return self.first.write(host, spec, value)
        current = self.read(host, spec)  # carried back, as an in-place edit is, when the worker moves on
        check_layout(spec, current, value, host.root)
        current.copy_(value)

    def describe(self, module) -> str:
        return (f"{self.first.describe(module)}, at the unmarked positions; {self.second.describe(module)}, at "
                f"those the MLP's {self.routers.types.keyword} marks")


def _holds_experts(context) -> bool:
    return hasattr(context.module, "experts")


def every_block(context) -> bool:
    """``MoE(is_moe=every_block)``: every block's MLP is a mixture, whatever its modules are called."""
    return True


def _per_block(is_moe: Callable, moe_site, dense_site):
    """A site chosen by the block's MLP: ``moe_site`` where ``is_moe`` (a host's context) holds, else ``dense_site``."""
    def site(context):
        if context is None or context.module is None:
            return moe_site
        return moe_site if is_moe(context) else dense_site
    return site


#: the neurons of a mixture whose experts run as one fused call on rows grouped by expert
GROUPED_EXPERTS = ("a mixture of experts: each position's neurons are those of its chosen experts, computed inside the "
                   "fused experts call (experts.gate_up_proj, experts.down_proj) on rows grouped by expert, so no "
                   "[batch seq intermediate_size] tensor exists; the block's output is mlp_output")


def unrouted_neurons(reason: str = GROUPED_EXPERTS, is_moe: Callable = every_block) -> dict:
    """mlp_activation and mlp_neurons of a mixture whose router values no site reads yet (so no ``MoE``):
    unavailable for ``reason`` on its MoE blocks (``is_moe``, a host's context), the common sites on the dense ones."""
    unavailable = Nowhere(reason)
    return {name: _per_block(is_moe, unavailable, COMMON_SITES[name]) for name in ("mlp_activation", "mlp_neurons")}


def _first(config, names):
    for name in names:
        value = config
        for part in name.split("."):
            value = getattr(value, part, None)
        if value is not None:
            return value
    raise AttributeError(f"{type(config).__name__} has none of {names}")


@dataclass(frozen=True)
class MoE:
    """A mixture-of-experts MLP as a family declares it (``Family(moe=...)``): its router, why the experts' neurons
    do not exist as one tensor, and the config keys of the expert count and the top_k. Its sites serve the MoE
    blocks and leave a dense block's MLP as usual: ``is_moe`` (a host's context -> bool) tells an MoE block from a
    dense one (default: the MLP module holds experts; ``every_block`` where every MLP is one), ``dense_reason`` is
    why a dense block has no router values, ``dense`` the sites a dense block's MLP serves otherwise than the common
    ones, ``output`` the MoE blocks' mlp_output where it is not read as usual (Llama 4's, computed on the flattened
    positions), and ``neurons`` the MoE blocks' mlp_activation and mlp_neurons where they exist as one tensor (Gemma
    4's dense MLP beside the experts). ``num_experts`` and ``top_k`` name config keys, the first one set (dotted for
    a nested config). The site objects are built once, so blocks of one kind share them."""

    router: Router | RouterValues
    experts: str = experts_sentence()
    num_experts: str | tuple[str, ...] = "num_experts"
    top_k: str | tuple[str, ...] = "num_experts_per_tok"
    is_moe: Callable = _holds_experts
    dense_reason: str = DENSE_ROUTER
    dense: dict = field(default_factory=dict)
    output: Site | None = None
    neurons: dict = field(default_factory=dict)

    def sites(self) -> dict:
        router = self.router.sites()
        routed = {"mlp_output": self.output, **router} if self.output is not None else router
        unavailable = Nowhere(self.experts)
        dense_sites = {"mlp_output": COMMON_SITES["mlp_output"],
                       **{name: Nowhere(self.dense_reason) for name in router}, **self.dense}

        sites = {name: _per_block(self.is_moe, site, dense_sites[name]) for name, site in routed.items()}
        for name in ("mlp_activation", "mlp_neurons"):
            sites[name] = _per_block(self.is_moe, self.neurons.get(name, unavailable),
                                     dense_sites.get(name, COMMON_SITES[name]))
        return sites

    def accessors(self) -> dict:
        """Config accessors for the router dimensions (model.num_experts, model.num_experts_per_token)."""
        experts = (self.num_experts,) if isinstance(self.num_experts, str) else self.num_experts
        top_k = (self.top_k,) if isinstance(self.top_k, str) else self.top_k
        return {"num_experts": partial(_first, names=experts), "num_experts_per_token": partial(_first, names=top_k)}

    def but(self, **changes) -> "MoE":
        """This preset with router fields (``weights_description=...``) or its own fields changed."""
        router = {key: value for key, value in changes.items() if key in Router.__dataclass_fields__}
        own = {key: value for key, value in changes.items() if key not in router}
        return replace(self, router=replace(self.router, **router), **own)

    def describe(self) -> str:
        weights = self.router.weights_description or "the router's weights"
        return f"a mixture of experts routed by {self.router.module}: {weights[0].lower()}{weights[1:]}"


#: DeepSeek-V3's router: sigmoid scores, a load-balancing bias on the choice only, group-limited top_k, shared
#: experts beside (DeepSeek-V3 and its kin: dots1, GLM-4.5, Solar Open, K-EXAONE, MiMo-V2-Flash...)
DEEPSEEK_V3 = MoE(
    Router("gate", "F.linear", logits=LOGITS_BEFORE_SIGMOID,
           weights_description=SIGMOID_WITH_BIAS + "; the shared experts run on every token unweighted",
           choices_description=DEEPSEEK_CHOICES),
    experts_sentence("experts.gate_up_proj [n_routed_experts, 2·moe_intermediate_size, hidden_size] and "
                     "experts.down_proj [n_routed_experts, hidden_size, moe_intermediate_size]"),
    num_experts="n_routed_experts",
)
