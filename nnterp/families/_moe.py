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
from typing import Callable

from nnsight.intervention.interleaver import Mediator
from nnsight.intervention.source import STATE

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
        state = envoy._module.__dict__.get(STATE)
        object.__setattr__(host, "_nnterp_fresh_source", state is None or not state.sourced)
        source = envoy.source
        return getattr(source, self._label(source.compiled))

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
    "a mixture of experts: each position's neurons are those of its top-k experts, computed inside the fused "
    "experts call ({experts}, run by the kernel config._experts_implementation picks from ALL_EXPERTS_FUNCTIONS "
    "on rows sorted by expert), so no [batch seq intermediate_size] tensor exists; the MoE block's output is "
    "mlp_output and the routing is router_logits, router_choices and router_weights"
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
) -> dict[str, Callable | Site]:
    """The MLP host's sites on a family whose MLP is an MoE block on some or all blocks.

    ``is_moe(module)`` tells an MoE block from a dense one (default: the MLP module holds experts);
    the site objects are built once, so blocks of one kind share them.
    """
    is_moe = is_moe or (lambda module: hasattr(module, "experts"))
    unavailable = Nowhere(neurons_reason)
    dense = {name: Nowhere(dense_reason) for name in routed}

    def per_block(name, moe_site, dense_site):
        def site(context):
            if context is None or context.module is None:
                return moe_site
            return moe_site if is_moe(context.module) else dense_site
        return site

    sites = {name: per_block(name, site, dense[name]) for name, site in routed.items()}
    for name in ("mlp_activation", "mlp_neurons"):
        sites[name] = per_block(name, unavailable, COMMON_SITES[name])
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
