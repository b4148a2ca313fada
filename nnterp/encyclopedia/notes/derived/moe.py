"""The mixture of experts: how many, how many per token, and the order in which the forward computes the
router's values."""

from __future__ import annotations

from itertools import permutations
import inspect
import sys

from nnterp.contract.support import compact_indices
from nnterp.encyclopedia.notes.derived.reading import _children, _mlp_module, _num, _trace
from nnterp.encyclopedia.notes.derived.subject import _serves, config_name


def moe_note(subject) -> str | None:
    tiny = subject.tiny
    index = subject.served("router_logits")
    if index is None:
        return None
    real = subject.real if subject.real is not None else tiny
    try:
        experts, top_k = real.num_experts, real.num_experts_per_token
    except Exception:
        return None
    shared, stated = None, []  # numbers said of a checkpoint: from its recorded facts, each asserted by the snippet
    real_index = next((i for i in range(real.num_layers) if _serves(real, "router_logits", i)), index)
    children = _children(_mlp_module(real, real_index))
    shared_name = next((n for n in children if "shared" in n and "gate" not in n), None)
    if shared_name:
        count = subject.stated("n_shared_experts", "num_shared_experts", "shared_expert_count")
        count = count if count is not None and (count.repo or subject.checkpoint is None) else None
        shared = f"{count.value} shared expert{'s' if count.value != 1 else ''} (`{shared_name}`)" \
            if count is not None and isinstance(count.value, int) else f"a shared expert (`{shared_name}`)"
        stated.append(count)
    counts = [subject.stated(*keys) for keys in (
        ("num_local_experts", "num_experts", "n_routed_experts", "moe_num_experts", "num_routed_experts",
         ("ffn_config", "moe_num_experts")),
        ("num_experts_per_tok", "num_experts_per_token", "moe_top_k", "moe_topk", "top_k", "moe_k",
         ("ffn_config", "moe_top_k")))]
    counts = [c for c, value in zip(counts, (experts, top_k)) if c is not None and c.value == value]
    own = len(counts) == 2 and (all(c.repo for c in counts) or subject.checkpoint is None)
    heading = f"The MLP is a mixture of {experts} experts, {top_k} per token"
    if shared:
        heading += f", plus {shared} every token passes through"
    on = f"On {subject.named}" if own or subject.checkpoint is None else \
        f"On {subject.named}'s config as built here (its recorded facts with {config_name(subject)}'s defaults)"
    prose = [f"{on}, the router (`{_router_name(children)}`) scores {experts} experts per position "
             f"and sends each to {top_k}."]
    source = _modeling_source(_mlp_module(real, real_index))
    norm = subject.stated("norm_topk_prob")
    if norm is not None and "norm_topk_prob" in source:  # the switch, where the family's router reads it
        prose.append(f"`norm_topk_prob` is {norm.value} {norm.on}: the chosen experts' weights are "
                     f"{'renormalised to sum to 1' if norm.value else 'the router probabilities as chosen, not renormalised'}")
        stated.append(norm)
        factor = subject.stated("routed_scaling_factor")
        if factor is not None and factor.value != 1 and "routed_scaling_factor" in source:
            prose[-1] += f", then multiplied by `routed_scaling_factor` = {_num(float(factor.value))}" + \
                ("" if factor.on == norm.on else f" {factor.on}")
            stated.append(factor)
        prose[-1] += "."
    dense = [i for i in range(real.num_layers) if not _serves(real, "router_logits", i)]
    if dense:
        prose.append(f"Block{'s' if len(dense) > 1 else ''} {compact_indices(dense)} {'have' if len(dense) > 1 else 'has'} "
                     "a dense MLP and no router.")
    prose.append("`router_logits`, `router_choices` and `router_weights` are served on the routed blocks; "
                 "`mlp_activation` and `mlp_neurons` of one expert are not standard values.")
    order = _router_order(tiny, index)
    if order is None:
        return None
    code = [f"mlp = model.layers[{index}].mlp", "with model.trace(prompt):",
            *(f"    {var} = mlp.{name}.save()" for var, name in order), "",
            "assert logits.shape[-1] == model.num_experts", "assert choices.shape[-1] == model.num_experts_per_token",
            "assert weights.shape == choices.shape and choices.max() < model.num_experts",
            *([line for c in counts for line in c.check()] if own else []),
            *(line for c in stated if c is not None for line in c.check())]
    return "\n".join([f"## {heading}", "", " ".join(prose), "", "```python", *code, "```", ""])


def _modeling_source(module) -> str:
    """The source of the modeling file a module's class is defined in ('' when it cannot be read)."""
    modeling = sys.modules.get(type(module).__module__) if module is not None else None
    try:
        return inspect.getsource(modeling) if modeling is not None else ""
    except (OSError, TypeError):
        return ""


def _router_order(tiny, index):
    """(variable, value) of the three router values in an order the forward computes them, tried on the tiny model."""
    mlp = tiny.layers[index].mlp
    names = (("logits", "router_logits"), ("choices", "router_choices"), ("weights", "router_weights"))
    for order in permutations(names):
        try:
            _trace(tiny, {var: (lambda name=name: getattr(mlp, name)) for var, name in order})
            return order
        except Exception:
            continue
    return None


def _router_name(children) -> str:
    return next((n for n in ("gate", "router", "routing") if n in children), "gate")
