"""The conformance contract (docs/design.md §4), as library code: ``model.check()``, the tests, the CLI and
the encyclopedia all run these functions.

A model conforms when, under its load, for every block:
1. each available value reads with its layout's shape and the model's dtype;
2. ``layer_input + attention_output + mlp_output == layer_output`` (in the block's own order of
   the sum) and, on a sequential block, ``layer_mid == layer_input + attention_output`` and
   ``mlp_norm_output`` is the norm of ``layer_mid``;
3. ``lm_head_output == lm_head(final_norm_output)`` and ``project_on_vocab(last layer_output) == logits``;
4. ``softmax(attention_scores) == attention_probabilities``, the probabilities mix the values into
   ``attention_head_outputs``, ``o_proj(attention_premix)`` is the attention's own output and
   ``down_proj(mlp_neurons) == mlp_output``; the per-head contributions add up to the output projection's
   output less its bias; ``mlp_activation * mlp_up == mlp_neurons`` and the activation module maps
   ``mlp_preactivation`` to ``mlp_activation``; the unrotated queries and keys equal the rotated ones at
   position 0 and past the rotary dims and have their norms (are them, without a rotary); each norm's output
   is its gain times its (centred) input times its scale, plus its bias;
5. each writable value: an in-place edit and an assignment give the same logits, zeroing it
   reaches the logits, and reading it leaves them bit-identical;
6. an unavailable value, or a conditioned one under another load, raises an error saying why.
"""

from __future__ import annotations

import re

import torch

from nnterp.contract.checks import ConformanceError, Report, Result, _check_layout, _check_writable, _close, _diff
from nnterp.contract.image_conformance import check_image
from nnterp.declare import labels
from nnterp.declare.companions import HeadContributions, norm_centres, projection_of
from nnterp.declare.engine import module_of
from nnterp.declare.errors import ConditionedValue, UnavailableValue
from nnterp.declare.layouts import CallPositions
from nnterp.declare.locations import Call, Child, Own, block_hosts
from nnterp.declare.readout import head_input
from nnterp.declare.vocabulary import BY_NAME, FORWARD_ORDER, values_of
from nnterp.declare.writeback import Derived
from nnterp.runtime import bridge
from nnterp.runtime.status import TEXT_CALL, UNAVAILABLE, skipped_by, status_of
from nnterp.runtime.tracing import block_order as declared_block_order
from nnterp.wrappers.wrapper import has_image

__all__ = ["PROMPT", "ConformanceError", "Report", "Result", "check", "check_image", "read_block", "visit_log"]

PROMPT = "The Eiffel Tower is in the city of"


def _hosts(model, i):
    return block_hosts(model.layers[i])


def _transformed_after_return(site) -> bool:
    """Whether a sublayer's contribution is read after the sublayer returned, beside it on the block (a post-norm)
    or by a site of a family's own, rather than at the sublayer, its children or its operations."""
    where = getattr(site, "where", None)
    return not isinstance(where, (Own, Child, Call)) or getattr(where, "from_block", False)


def _child_module(hosts, host, name):
    """The native module a value is read at when its site is a child's input or output, else None."""
    if host not in hosts:
        return None
    where = getattr(hosts[host]._nnterp_site(name), "where", None)
    return module_of(where.target(hosts[host])) if isinstance(where, Child) else None


#: the roundings of an elementwise recomputation of a few operations (an add, a multiplier, cos and sin's terms)
_FEW = 4


def _linear_magnitude(module, x) -> float | None:
    """The largest sum of |x_i · w_ji| a linear ``module`` computes on ``x``, bounded by Cauchy-Schwarz: the largest
    norm of a row of ``x`` times the largest norm of a weight's row (the rounding of a dot product is relative to
    the sum of its terms' sizes, which exceeds its result where they cancel); None without a 2-d weight."""
    weight = getattr(module, "weight", None)
    if not isinstance(weight, torch.Tensor) or weight.ndim != 2 or not x.numel():
        return None
    axis = -1 if weight.shape[-1] == x.shape[-1] else 0 if weight.shape[0] == x.shape[-1] else None
    if axis is None:
        return None
    bias = getattr(module, "bias", None)
    term = float(bias.detach().abs().amax()) if isinstance(bias, torch.Tensor) else 0.0
    return float(x.detach().double().norm(dim=-1).amax() * weight.detach().double().norm(dim=axis).amax()) + term


def read_block(model, i, prompt):
    """Every served value of block ``i`` in one trace, in forward order: {name: tensor}."""
    hosts = _hosts(model, i)
    block_order = declared_block_order(model)
    mlp_returns_at = block_order.index(("mlp", "output")) if ("mlp", "output") in block_order else None
    names = [(h, n) for h, n in block_order if h in hosts and n != "output"
             and status_of(hosts[h], n, model).available]
    seen, order = {}, []
    for host, name in names:  # a location served under two names is read once
        where = hosts[host]._nnterp_site(name).describe(module_of(hosts[host]))
        key = (host, where)
        (order.append((host, name)) if key not in seen else None)
        seen.setdefault(key, []).append(name)
    values, own = {}, {}
    sublayers = {"attention_output": "attention", "mlp_output": "mlp"}

    def beside(name):  # read outside the sublayer's own forward: after it returns (a post-norm)
        return _transformed_after_return(hosts[sublayers[name]]._nnterp_site(name))

    def returned_before(host, name):  # the family's order says the MLP returns before this value
        return mlp_returns_at is not None and "mlp" in hosts and block_order.index((host, name)) > mlp_returns_at

    with model.trace(prompt):
        for host, name in order:
            if "mlp_output" not in own and returned_before(host, name):
                own["mlp_output"] = hosts["mlp"].output.save()
            # the sublayer's own output, for the o_proj and down_proj checks, read in forward order:
            # before a contribution read beside the module, after one read inside it (BLOOM's dense)
            if name in sublayers and beside(name) and name not in own:
                own[name] = hosts[sublayers[name]].output.save()
            values[name] = getattr(hosts[host], name).save()
            if name in sublayers and not beside(name) and name not in own:
                own[name] = hosts[sublayers[name]].output.save()
    out = {}
    for (host, where), aliases in seen.items():
        for name in aliases:
            out[name] = values[aliases[0]]
    for name, key in (("attention_output", "_attention_module_output"), ("mlp_output", "_mlp_module_output")):
        if name in own:
            out[key] = own[name][0] if isinstance(own[name], (tuple, list)) else own[name]
    return out


def _expected_shape(model, name, batch, seq, block=None, image_keys=None):
    # positions ahead of the call's that the attention reads as keys (CPM-Ant's prompt): keys and values span them
    keys = seq + (model.family.positions.ahead(model._nnterp_state.config) if block is not None else 0)
    if image_keys is not None:  # a cross-attention block's keys span the image's positions, not the call's
        keys = image_keys
    positions = keys if BY_NAME[name].layout.kind in ("Keys", "Values") else seq
    dims = {"batch": batch, "seq": positions, "query": seq, "key": keys, "image_keys": image_keys, **{
        d: getattr(model, d) for d in
        ("hidden_size", "num_heads", "num_kv_heads", "head_dim", "qk_head_dim", "intermediate_size", "vocab_size")}}
    if block is not None and model.family.block.dims is not None:
        dims.update(model.family.block.dims(model.layers[block]._nnterp_context()))
    if "moe" in model.family.groups:
        dims.update(num_experts=model.num_experts, top_k=model.num_experts_per_token)
    return tuple(dims[d] for d in BY_NAME[name].layout.dims)


def check(model, prompt: str | None = None, edit_blocks=None, raise_on_failure: bool = True) -> Report:
    """Run the contract on ``model``; ``edit_blocks`` picks the blocks whose edits are checked
    (default: the first and the last block the call runs)."""
    prompt = prompt or PROMPT
    report = Report(model.family.name, model.attn_implementation)
    dtype = next(module_of(model).parameters()).dtype
    n = model.num_layers
    # the final stream is the last block a text call runs: a cross-attention block may sit last (Mllama's layout
    # moved) and pass the stream through untouched
    # (a call with an image or a protein runs the blocks a text call skips: the call's own inputs decide)
    given = tuple(prompt) if isinstance(prompt, dict) else TEXT_CALL
    last_run = max(i for i in range(n) if skipped_by(model, model.layers[i], given) is None)

    with model.trace(prompt):
        base = model.logits.save()
    # 3 and the model-level reads of 1
    top, readout = {}, {}  # made before the trace: nnsight keeps what the block saves into them
    # a multi-stream residual has no last layer_output to project; the flag is computed outside the trace
    lens_is_readout = model.family.readout.exact_lens and model.layers[last_run]._nnterp_site("layer_output").served
    with model.trace(prompt):
        for name in FORWARD_ORDER["model"]:
            if BY_NAME[name].group == "core":  # a wrapper's image values are checked on a call with an image
                top[name] = getattr(model, name).save()
        if lens_is_readout:
            last = model.layers[last_run].layer_output.save()
        for name in FORWARD_ORDER["readout"]:
            if status_of(model, name, model).available:
                readout[name] = getattr(model, name).save()
    batch, seq = top["input_ids"].shape
    report.add("reads leave logits bit-identical", "model", torch.equal(readout["logits"], base))
    report.add("input_size", "model", tuple(top["input_size"]) == (batch, seq), str(top["input_size"]))
    for name, value in {**top, **readout}.items():
        if name != "input_size":
            _check_layout(report, "model", name, value, _expected_shape(model, name, batch, seq), dtype)
    if "final_norm_output" in readout and "lm_head_output" in readout:
        lm = module_of(model.lm_head)(head_input(module_of(model.lm_head), readout["final_norm_output"]))
        report.add("lm_head_output == lm_head(final_norm_output)", "model", torch.equal(lm, readout["lm_head_output"]),
                   f"max diff {_diff(lm, readout['lm_head_output']):.3g}")
    if lens_is_readout:
        projected = model.project_on_vocab(last)
        report.add("project_on_vocab(last layer_output) == logits", "model",
                   torch.equal(projected, readout["logits"]), f"max diff {_diff(projected, readout['logits']):.3g}")

    _check_norm_scales(model, None, prompt, report)
    log = visit_log(model, prompt)
    if not _check_order(model, log, report):  # every later check reads in that order
        _name_declarations(model, report)
        if raise_on_failure:
            raise ConformanceError(str(report))
        return report
    ran = [i for i in range(n) if _ran(model, i, log, report)]
    edit_blocks = sorted({ran[0], ran[-1]} if edit_blocks is None and ran else set(edit_blocks or ()))
    for i in ran:
        _check_block(model, i, prompt, report, dtype, batch, seq, base)
    for i in edit_blocks:
        if i in ran:
            _check_edits(model, i, prompt, report, base)
    _check_edits(model, None, prompt, report, base)
    wrapped = getattr(model.family, "wrapper", None) is not None
    if wrapped and status_of(model, "image_mask", model).available:  # where the image enters the stream
        check_image(model, prompt, report, base)
    elif wrapped:  # the image enters by cross-attention blocks, not the stream
        _check_cross_attended(model, prompt, report, base)
    _check_refusals(model, prompt, report)
    _name_declarations(model, report)
    if raise_on_failure and not report.ok:
        raise ConformanceError(str(report))
    return report


_WHERE = re.compile(r"^layers\[(\d+)\](?:\.(self_attn|mlp))?")


def _name_declarations(model, report) -> None:
    """Each failure's detail ends with where the values it names were declared (their sites' ``declared_at``),
    the code to read when the failure is a wrong layout or location."""
    for result in report.failures:
        found = _WHERE.match(result.where)
        layer = int(found.group(1)) if found else None
        declared = []
        for name in re.findall(r"[a-z_]+", f"{result.check} {result.where} {result.detail}"):
            spec = BY_NAME.get(name)
            if spec is None or (spec.host == "model") != (layer is None):
                continue
            try:
                host = model if layer is None else block_hosts(model.layers[layer]).get(spec.host)
                site = host._nnterp_site(name) if host is not None else None
            except Exception:  # noqa: BLE001 - a failure's own cause may be the site: the failure is what is said
                site = None
            where = getattr(site, "declared_at", None)
            if where and f"{name} declared at {where}" not in declared:
                declared.append(f"{name} declared at {where}")
        if declared:
            result.detail = f"{result.detail} [{'; '.join(declared)}]".strip()


def visit_log(model, prompt) -> list[str]:
    """Every location the forward on ``prompt`` reaches (module inputs and outputs, the operations of every forward
    a value is read in), in the order it reaches them."""
    model.instrument()
    with bridge.logging_visits(model) as log:
        with model.trace(prompt):
            model.logits.save()
    return log


def _visited_at(host, site):
    """(the location where the forward reaches a value's site, 1 for an operation nested in a call: reached between
    that call's input and output), or None where the site has no location of its own."""
    while isinstance(site, (Derived, HeadContributions)):
        site = site.source
    where = getattr(site, "where", None)
    if isinstance(where, Call):
        label, outer = where.labels_for(module_of(host))
        base = f"{where._module_of(host).path}.source"
        return (f"{base}.{outer}.input", 1) if outer is not None else (f"{base}.{label}.{where.key}", 0)
    if isinstance(where, (Own, Child)):
        return f"{where.target(host).path}.{where.key}", 0
    return None


def order_run(model, i, log) -> list[tuple[str, float, float]] | None:
    """Block ``i``'s served values in the declared order, each with where the forward reaches it in ``log``: the
    earliest and latest place (one place, but for an operation nested in a call: anywhere between the call's input
    and output); values whose site has no location, or is not reached in this run, left out. None where the block
    did not run."""
    layer = model.layers[i]
    hosts = _hosts(model, i)
    try:
        start = log.index(f"{layer.path}.input")
        end = log.index(f"{layer.path}.output", start)
    except ValueError:
        return None  # the block did not run on this call (a cross-attention block without an image)
    first: dict[str, int] = {}
    for at, location in enumerate(log[start:end + 1]):
        first.setdefault(location, at)
    placed = []
    for host, name in declared_block_order(model):
        if host not in hosts or name not in BY_NAME or not status_of(hosts[host], name, model).available:
            continue
        found = _visited_at(hosts[host], hosts[host]._nnterp_site(name))
        if found is None or found[0] not in first:
            continue
        at = first[found[0]]
        returned = first.get(found[0][:-len(".input")] + ".output") if found[1] else None
        placed.append((name, at + 0.5 * found[1], at if returned is None else returned - 0.5))
    return placed


def _ran(model, i, log, report) -> bool:
    """Whether block ``i`` ran on the call ``log`` records; one that did not must be one its family says a call may
    skip (a cross-attention block on a call without an image), with the reason."""
    layer = model.layers[i]
    if _block_ran(model, i, log):
        return True
    why = model.family.block.skips(layer._nnterp_context())
    report.add("a block the call skips is one its family says a call may skip", f"layers[{i}]", why is not None,
               why or "the block did not run, and its family does not say why a call may skip it")
    return False


def _block_ran(model, i, log) -> bool:
    """Whether block ``i`` ran on the call ``log`` records: its forward was entered and, on a block a call may skip,
    its attention reached (Evolla's adapter, entered on every call, passes the stream through without a protein)."""
    layer = model.layers[i]
    if f"{layer.path}.input" not in log:
        return False
    attention = block_hosts(layer).get("attention")
    if model.family.block.skips(layer._nnterp_context()) is None or attention is None:
        return True
    found = _visited_at(attention, attention._nnterp_site("attention_output"))
    return found is None or found[0] in log


def _check_order(model, log, report) -> bool:
    """The block order the captures, the cache and the contract read in is the order the forward reaches the
    values' sites, recorded on a run (``log``); whether it is."""
    ok = True
    for i in range(model.num_layers):
        placed = order_run(model, i, log)
        if placed is None:
            continue
        latest, wrong = None, None
        for name, earliest, at_latest in placed:
            if latest is not None and at_latest < latest[1]:
                wrong = f"{name} is declared after {latest[0]}, but the forward reaches it first"
                break
            if latest is None or earliest > latest[1]:
                latest = (name, earliest)
        report.add("the declared forward order is the order the forward reaches the values", f"layers[{i}]",
                   wrong is None and bool(placed), wrong or ("" if placed else "no value of the block was reached"))
        ok = ok and wrong is None and bool(placed)
    return ok


def _check_block(model, i, prompt, report, dtype, batch, seq, base):
    where = f"layers[{i}]"
    v = read_block(model, i, prompt)
    hosts = _hosts(model, i)
    image_keys = model.family.block.image_positions(model, i, prompt)
    for name, value in v.items():
        if name.startswith("_"):
            continue
        _check_layout(report, where, name, value, _expected_shape(model, name, batch, seq, i, image_keys), dtype)
    if "router_choices" in v:
        choices = v["router_choices"]
        report.add("router_choices index the experts", where,
                   bool(((choices >= 0) & (choices < model.num_experts)).all()), f"{choices.min()}..{choices.max()}")
    # a block without its own stream (a cross-attention block that only reads, a multi-stream residual) has
    # nothing to add up; its interior is still checked
    x, out = v.get("layer_input"), v.get("layer_output")
    if x is not None:
        attn, mlp = v.get("attention_output", torch.zeros_like(x)), v.get("mlp_output", torch.zeros_like(x))
    if x is not None and out is not None and ("attention_output" in v or "mlp_output" in v):
        arithmetic = model.family.block.arithmetic(model._nnterp_state.config)
        if arithmetic is None:
            total = model.family.block.sum(x, attn, mlp)
            label = "identity input + attention_output + mlp_output == layer_output"
        else:
            total = arithmetic(module_of(model.layers[i]), x, attn, mlp)
            label = "the block's own arithmetic of layer_input, attention_output and mlp_output == layer_output"
        # three terms added, a multiplier or a mixing weight at most before each: a handful of roundings per entry
        terms = max(float(t.detach().abs().amax()) if t.numel() else 0.0 for t in (x, attn, mlp, out))
        report.add(label, where, torch.equal(total, out) or _close(total, out, _FEW, terms),
                   f"max diff {_diff(total, out):.3g}")
    if "layer_mid" in v and x is not None:
        mid = v["layer_mid"]
        mid_of = model.family.block.mid_arithmetic(model._nnterp_state.config)
        expected = x + attn if mid_of is None else mid_of(module_of(model.layers[i]), x, attn)
        label = "layer_mid == layer_input + attention_output" if mid_of is None else \
            "the block's own arithmetic of layer_input and attention_output == layer_mid"
        terms = max(float(t.detach().abs().amax()) if t.numel() else 0.0 for t in (x, attn, mid))
        report.add(label, where, _close(mid, expected, _FEW, terms), f"max diff {_diff(mid, expected):.3g}")
        norm = _child_module(hosts, "layer", "mlp_norm_output")
        if norm is not None and "mlp_norm_output" in v:
            # a float32 stream under a half-precision load is cast to the norm's dtype first where the model does
            # (ZAYA): the norm's output dtype says so
            normed = norm(mid.to(v["mlp_norm_output"].dtype))
            # the norm's mean (and centring) over the hidden width, run again on the same input
            report.add("mlp_norm_output == norm(layer_mid)", where,
                       _close(normed, v["mlp_norm_output"], 2 * mid.shape[-1]),
                       f"max diff {_diff(normed, v['mlp_norm_output']):.3g}")
    if "attention_scores" in v and "attention_probabilities" in v:
        softmax = getattr(hosts["attention"]._nnterp_site("attention_scores"), "softmax", None)
        if softmax is not None:  # the model's own softmax over these scores (attention sinks)
            p = softmax(v["attention_scores"], module_of(hosts["attention"])).to(v["attention_probabilities"].dtype)
        else:
            p = v["attention_scores"].float().softmax(-1).to(v["attention_probabilities"].dtype)
        # a sum over the keys; exp turns the rounding of (score - max) into a relative error of that size
        scores = v["attention_scores"].detach().float()
        kept = scores[p > 0] if p.shape == scores.shape else scores[scores > torch.finfo(scores.dtype).min / 2]
        spread = float(kept.amax() - kept.amin()) if kept.numel() else 0.0
        report.add("softmax(attention_scores) == attention_probabilities", where,
                   _close(p, v["attention_probabilities"], p.shape[-1], float(p.detach().amax()) * (1.0 + spread)),
                   f"max diff {_diff(p, v['attention_probabilities']):.3g}")
    if "attention_probabilities" in v and "attention_values" in v and "attention_head_outputs" in v:
        values = v["attention_values"]
        values = values.repeat_interleave(v["attention_probabilities"].shape[1] // values.shape[1], dim=1)
        mixed = (v["attention_probabilities"] @ values.to(v["attention_probabilities"].dtype)).transpose(1, 2)
        # a sum over the keys of weights summing to 1: its terms add up to at most the largest value
        report.add("attention_probabilities @ attention_values == attention_head_outputs", where,
                   _close(mixed, v["attention_head_outputs"], values.shape[-2], float(values.detach().abs().amax())),
                   f"max diff {_diff(mixed, v['attention_head_outputs']):.3g}")
    o_proj = _child_module(hosts, "attention", "attention_premix")
    if "attention_premix" in v and o_proj is not None and "_attention_module_output" in v:
        premix = v["attention_premix"].flatten(-2)
        projected = o_proj(premix)
        own = _at_call_positions(model, v["_attention_module_output"], projected)
        report.add("o_proj(attention_premix) == the attention's own output", where,
                   _close(projected, own, premix.shape[-1], _linear_magnitude(o_proj, premix)),
                   f"max diff {_diff(projected, own):.3g}")
    down_proj = _child_module(hosts, "mlp", "mlp_neurons")
    if "mlp_neurons" in v and down_proj is not None and "mlp_output" in v:
        down = down_proj(v["mlp_neurons"])
        # mlp_output is down_proj's output unless the block transforms it after the MLP returns (a
        # post-norm read beside the MLP, a multiplier): then compare with the MLP's own output
        site = hosts["mlp"]._nnterp_site("mlp_output")
        transformed = getattr(site, "factored", False) or _transformed_after_return(site)
        target = v["_mlp_module_output"] if transformed and "_mlp_module_output" in v else v["mlp_output"]
        target = _at_call_positions(model, target, down)
        if target.shape != down.shape and target.numel() == down.numel():
            target = target.reshape(down.shape)  # an MLP run on flattened positions (OPT)
        label = "down_proj(mlp_neurons) == the MLP's own output" if transformed else "down_proj(mlp_neurons) == mlp_output"
        width = v["mlp_neurons"].shape[-1]
        report.add(label, where, _close(down, target, width, _linear_magnitude(down_proj, v["mlp_neurons"])),
                   f"max diff {_diff(down, target):.3g}")
    _check_new_values(model, v, hosts, where, report)
    _check_norm_scales(model, i, prompt, report)


def _check_new_values(model, v, hosts, where, report):
    """The unrotated queries and keys, the per-head contributions, the preactivation and the up projection."""
    if "attention_head_contributions" in v and "attention_premix" in v:
        attention = hosts["attention"]
        projection = projection_of(attention._nnterp_site("attention_premix"), attention)
        # the block's multiplier of the attention's output (Granite's residual_multiplier), which each head's share
        # carries as what the stream receives
        scale = getattr(attention._nnterp_site("attention_head_contributions"), "scale", None)
        factor = 1 if scale is None else scale(model._nnterp_state.config)
        projected = projection(v["attention_premix"].flatten(-2)) * factor
        bias = getattr(projection, "bias", None)
        heads = v["attention_head_contributions"]
        total = heads.sum(-2) + (bias * factor if isinstance(bias, torch.Tensor) else 0)
        # the projection's dot product cut into num_heads partial sums then added: its width's roundings and the
        # heads', each relative to the terms' sizes (in the dtype's own precision: a half-precision projection
        # rounds each partial sum)
        premix = v["attention_premix"].flatten(-2)
        ok = _close(total, projected, premix.shape[-1] + heads.shape[-2], _linear_magnitude(projection, premix))
        report.add("attention_head_contributions.sum(heads) + bias == o_proj(attention_premix)" +
                   ("" if scale is None else ", both times the block's multiplier of the attention"), where, ok,
                   f"max diff {_diff(total, projected):.3g}")
    if "mlp_up" in v and "mlp_activation" in v and "mlp_neurons" in v:
        product = v["mlp_activation"] * v["mlp_up"]
        sub_norm = getattr(module_of(hosts["mlp"]), "ffn_sub_norm", None)  # BitNet's norm of the product
        label = "mlp_activation * mlp_up == mlp_neurons"
        if sub_norm is not None:
            product, label = sub_norm(product), "ffn_sub_norm(mlp_activation * mlp_up) == mlp_neurons"
        # one rounding of the product; a norm after it means over the width
        length = 1 if sub_norm is None else 2 * product.shape[-1]
        report.add(label, where, _close(product, v["mlp_neurons"], length),
                   f"max diff {_diff(product, v['mlp_neurons']):.3g}")
    activation = _child_module(hosts, "mlp", "mlp_activation")
    if "mlp_preactivation" in v and "mlp_activation" in v and activation is not None:
        applied = activation(v["mlp_preactivation"])
        # an elementwise function, run again, maybe by another kernel (the model's ran on a strided view): each run
        # within a few roundings of its argument's size (exp, erf or tanh inside), and the two runs' errors add in
        # the worst case (_close takes a random walk's length: (2·few)² for 2·few roundings added)
        report.add("act_fn(mlp_preactivation) == mlp_activation", where,
                   _close(applied, v["mlp_activation"], (2 * _FEW) ** 2,
                          float(v["mlp_preactivation"].detach().abs().amax())),
                   f"max diff {_diff(applied, v['mlp_activation']):.3g}")
    for kind in ("queries", "keys"):
        rotated, unrotated = v.get(f"attention_{kind}"), v.get(f"attention_{kind}_unrotated")
        if rotated is None or unrotated is None:
            continue
        site = hosts["attention"]._nnterp_site(f"attention_{kind}_unrotated")
        if site is hosts["attention"]._nnterp_site(f"attention_{kind}"):
            report.add(f"without a rotary, attention_{kind}_unrotated is attention_{kind}", where,
                       torch.equal(rotated, unrotated))
            continue
        report.add(f"attention_{kind}_unrotated has attention_{kind}'s layout", where,
                   rotated.shape == unrotated.shape, f"{tuple(unrotated.shape)} and {tuple(rotated.shape)}")
        if rotated.shape != unrotated.shape:
            continue
        norm = getattr(site, "normed_after", None)
        if norm is not None:  # RoPE then norm: the norm of what enters the rotary, compared with what leaves both
            unrotated = getattr(module_of(hosts["attention"]), norm)(unrotated)
        width = rotated.shape[-1]
        rotary = _rotary_dims(module_of(hosts["attention"]), width)
        # a partial rotary turns a head's first dims, or its last (MLA's); the rest pass as they are
        last = getattr(site, "rotary_last", False)
        turned, rest = (slice(width - rotary, width), slice(0, width - rotary)) if last else \
            (slice(0, rotary), slice(rotary, width))
        # a rope that scales cos and sin (YaRN's attention_scaling) scales every rotated dim
        unrotated = torch.cat([unrotated[..., rest], unrotated[..., turned] * _rope_scaling(
            model, module_of(hosts["attention"]))], -1) if last else torch.cat([unrotated[..., turned] * _rope_scaling(
                model, module_of(hosts["attention"])), unrotated[..., rest]], -1)
        label = f"attention_{kind}_unrotated" if norm is None else f"{norm}(attention_{kind}_unrotated)"
        # the rotary leaves the token at position id 0 as it is; a model counting from 1 (PaliGemma) has none
        if getattr(getattr(model.family, "wrapper", None), "first_position", 0) == 0:
            at_zero = unrotated.select(-2, 0)  # [batch heads seq dim]
            if getattr(site, "interleaved", False):  # pairs (x0, x1), (x2, x3) come out as x0, x2, ..., x1, x3, ...
                pairs = at_zero[..., turned]
                at_zero = torch.cat([at_zero[..., rest], pairs[..., 0::2], pairs[..., 1::2]], -1) if last else \
                    torch.cat([pairs[..., 0::2], pairs[..., 1::2], at_zero[..., rest]], -1)
            first = (rotated.select(-2, 0), at_zero)
            # cos 1 and sin 0 there: the product by cos, the sum with the zero term, a rope's scale
            report.add(f"{label} == attention_{kind} at position 0", where, _close(*first, _FEW),
                       f"max diff {_diff(*first):.3g}")
        if norm is None:  # a norm after the rotary weighs the dims: the rotation keeps only its mean square
            # summed in float32, compared at the values' own precision (a bfloat16 rotation rounds each dim)
            norms = (rotated.float().norm(dim=-1).to(rotated.dtype), unrotated.float().norm(dim=-1).to(rotated.dtype))
            # the rotation's few roundings per entry, then a sum of squares over the head's dims
            report.add(f"{label} has attention_{kind}'s norms", where, _close(*norms, rotated.shape[-1] + _FEW),
                       f"max diff {_diff(*norms):.3g}")
        past = (rotated[..., rest], unrotated[..., rest])
        side = "before the last" if last else "past the"
        report.add(f"{label} == attention_{kind} {side} {rotary} rotary dims", where, _close(*past, _FEW),
                   f"max diff {_diff(*past):.3g}")


def _rope_scaling(model, attention) -> float:
    """The factor the model's rotary embedding scales cos and sin by (YaRN's attention_scaling) for this attention,
    1 without one; a rotary per layer type (Olmo 3's YaRN on full attention only) keeps one per type."""
    plain, per_type = set(), {}
    for module in module_of(model).modules():
        for name, value in vars(module).items():
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                if name == "attention_scaling":
                    plain.add(float(value))
                elif name.endswith("_attention_scaling"):
                    per_type[name.removesuffix("_attention_scaling")] = float(value)
    kind = getattr(attention, "attention_type", None) or getattr(attention, "layer_type", None)
    if per_type and kind in per_type:
        return per_type[kind]
    return plain.pop() if len(plain) == 1 else 1.0


def _rotary_dims(attention, width) -> int:
    """How many of a head's dims the rotary turns: the attention's own count where it keeps one (partial rotary)."""
    for name in ("rotary_ndims", "rotary_dim", "rotary_emb_dim", "qk_rope_head_dim"):
        value = getattr(attention, name, None)
        if isinstance(value, int) and 0 < value <= width:
            return value
    return width


def norm_gain(module):
    """The factor a norm multiplies its scaled input by: its weight, 1 + its weight where its forward adds one
    (Gemma's), 1 without a weight."""
    weight = getattr(module, "weight", None)
    if not isinstance(weight, torch.Tensor):
        return 1.0
    source = labels.compiled_forward(module).source.replace(" ", "")
    adds_one = any(f"{one}+self.weight" in source for one in ("1.0", "1")) or "self.weight+1" in source
    return 1.0 + weight.float() if adds_one else weight.float()


def _check_norm_scales(model, i, prompt, report):
    """Each norm's output == its gain * its (centred) input * its scale (+ its bias), read in one trace."""
    hosts = {"model": model} if i is None else {"layer": model.layers[i]}
    host = hosts.get("model", hosts.get("layer"))
    names = ("final_norm",) if i is None else ("attention_norm", "mlp_norm")
    where = "model" if i is None else f"layers[{i}]"
    for name in names:
        if not status_of(host, f"{name}_scale", model).available:
            continue
        site = host._nnterp_site(f"{name}_scale")
        with model.trace(prompt):
            x = site.where.target(host).input.save()
            scale = getattr(host, f"{name}_scale").save()
            out = getattr(host, f"{name}_output").save()
        module = module_of(site.where.target(host))
        centred = x.double() - x.double().mean(-1, keepdim=True) if norm_centres(module) else x.double()
        bias = getattr(module, "bias", None)
        expected = norm_gain(module) * (centred * scale.double().unsqueeze(-1))
        expected = expected + bias.double() if isinstance(bias, torch.Tensor) else expected
        # the scale is a mean over the width (after a centring mean under a LayerNorm), in float32, and the model
        # rounds its output to its dtype: the roundings of twice the width, in the coarser dtype
        ok = _close(expected, out, 2 * x.shape[-1])
        report.add(f"{name}_output == gain * (input{' centred' if norm_centres(module) else ''} * {name}_scale)"
                   f"{' + bias' if isinstance(bias, torch.Tensor) else ''}", where, ok,
                   f"max diff {_diff(expected, out) if expected.shape == out.shape else 'shape'}")


def _at_call_positions(model, own, served):
    """A module's own output cut to the call's positions where the model runs on more (Reformer's padding after
    them, CPM-Ant's prompt before them) and the served value it is compared with is cut."""
    length = model._nnterp_state.call_length
    if length is not None and own.ndim >= 2 and served.ndim >= 2 and own.shape[1] > served.shape[1] == length:
        ahead = model.family.positions.ahead(model._nnterp_state.config) > 0  # positions ahead of the call's (CPM-Ant)
        return CallPositions(1, from_end=ahead).view(own, model)
    return own


def _check_edits(model, i, prompt, report, base):
    if i is None:
        specs = [("model", spec) for spec in values_of("model", model.family.groups)]
        host_of = {"model": lambda: model}
        where = "model"
    else:
        present = _hosts(model, i)
        specs = [(h, spec) for h in present for spec in values_of(h, model.family.groups)]
        host_of = {
            "layer": lambda: model.layers[i], "attention": lambda: model.layers[i].self_attn,
            "mlp": lambda: model.layers[i].mlp,
        }
        where = f"layers[{i}]"
    for host, spec in specs:
        if spec.group == "image":  # checked by the wrapper's own check, on a call with an image
            continue
        envoy = host_of[host]()
        if spec.read_only or not status_of(envoy, spec.name, model).available or spec.layout.kind == "Tokens":
            continue
        _check_writable(model, prompt, host_of[host], spec.name, f"{where}.{spec.name}", report, base)


def _check_refusals(model, prompt, report):
    hosts = {"model": model, **_hosts(model, 0)}
    for host, envoy in hosts.items():
        for spec in values_of(host, model.family.groups):
            found = status_of(envoy, spec.name, model)
            if found.available:
                continue
            expected = UnavailableValue if found.kind == UNAVAILABLE else ConditionedValue
            try:
                with model.trace(prompt):
                    getattr(envoy, spec.name).save()
                report.add("unavailable and conditioned values refuse with a reason", f"{host}.{spec.name}", False,
                           "the read did not raise")
            except expected as error:
                report.add("unavailable and conditioned values refuse with a reason", f"{host}.{spec.name}",
                           len(str(error)) > 40, str(error))


def _check_cross_attended(model, inputs, report, base) -> None:
    """Where the image enters by cross-attention blocks: a call with an image runs every one, and an edit of what each
    adds reaches the logits; a text-only call runs none that a call may skip."""
    log = visit_log(model, inputs)
    block = model.family.block
    crossing = [i for i in range(model.num_layers) if block.crosses(model.layers[i]._nnterp_context())]
    ran = [i for i in crossing if _block_ran(model, i, log)]
    image = has_image(model, inputs)
    if crossing:  # a stack cut to its first blocks (a real config's check) may keep none
        expected = crossing if image else [i for i in crossing if block.skips(model.layers[i]._nnterp_context()) is None]
        report.add("a call with an image runs every cross-attention block, a text-only call none it may skip",
                   "model", ran == expected, f"ran {ran} of {crossing}")
    for i in ran if image else ():
        _check_edits(model, i, inputs, report, base)
