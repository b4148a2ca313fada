"""The conformance contract (DESIGN §4), as library code: ``model.check()``, the tests, the CLI and
the encyclopedia all run these functions.

A model conforms when, under its load, for every block:
1. each available value reads with its layout's shape and the model's dtype;
2. ``layer_input + attention_output + mlp_output == layer_output`` (in the block's own order of
   the sum) and, on a sequential block, ``layer_mid == layer_input + attention_output`` and
   ``mlp_norm_output`` is the norm of ``layer_mid``;
3. ``lm_head_output == lm_head(final_norm_output)`` and ``project_on_vocab(last layer_output) == logits``;
4. ``softmax(attention_scores) == attention_probabilities``, the probabilities mix the values into
   ``attention_head_outputs``, ``o_proj(attention_premix)`` is the attention's own output and
   ``down_proj(mlp_neurons) == mlp_output``;
5. each writable value: an in-place edit and an assignment give the same logits, zeroing it
   reaches the logits, and reading it leaves them bit-identical;
6. an unavailable value, or a conditioned one under another load, raises an error saying why.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import torch

from .errors import ConditionedValue, NnterpError, UnavailableValue
from .sites import Call, CallPositions, Child, Own
from .model import _as_head_input
from .vocabulary import BY_NAME, values_of

PROMPT = "The Eiffel Tower is in the city of"

#: The order a forward computes the values in; reads within one trace follow it.
FORWARD_ORDER = {
    "model": ("input_ids", "attention_mask", "input_size", "token_embeddings"),
    "block": (
        ("layer", "layer_input"), ("layer", "attention_norm_output"),
        ("attention", "attention_queries"), ("attention", "attention_keys"), ("attention", "attention_values"),
        ("attention", "attention_scores"), ("attention", "attention_probabilities"),
        ("attention", "attention_head_outputs"), ("attention", "attention_premix"),
        ("attention", "attention_output"), ("layer", "layer_mid"), ("layer", "mlp_norm_output"),
        ("layer", "mlp_input"), ("mlp", "router_logits"), ("mlp", "router_weights"), ("mlp", "router_choices"),
        ("mlp", "mlp_activation"), ("mlp", "mlp_neurons"), ("mlp", "mlp_output"),
        ("layer", "layer_output"),
    ),
    "readout": ("final_norm_output", "lm_head_output", "logits", "next_token_probs"),
}


class ConformanceError(NnterpError):
    """The model broke the contract; the message lists the failed checks."""


@dataclass
class Result:
    check: str
    where: str
    ok: bool
    detail: str = ""


@dataclass
class Report:
    family: str
    load: str
    results: list[Result] = field(default_factory=list)

    def add(self, check, where, ok, detail=""):
        self.results.append(Result(check, where, bool(ok), detail))

    @property
    def failures(self):
        return [r for r in self.results if not r.ok]

    @property
    def ok(self) -> bool:
        return not self.failures

    def __str__(self) -> str:
        lines = [f"conformance of {self.family} under attn_implementation={self.load!r}: "
                 f"{len(self.results) - len(self.failures)}/{len(self.results)} checks passed"]
        lines += [f"  FAILED {r.check} at {r.where}: {r.detail}" for r in self.failures]
        return "\n".join(lines)

    __repr__ = __str__


def _hosts(model, i):
    layer = model.layers[i]
    hosts = {"layer": layer, "attention": getattr(layer, "self_attn", None), "mlp": getattr(layer, "mlp", None)}
    return {host: envoy for host, envoy in hosts.items() if envoy is not None and hasattr(envoy, "_nnterp_site")}


def _child_module(hosts, host, name):
    """The native module a value is read at when its site is a child's input or output, else None."""
    from .sites import Child, Sibling

    if host not in hosts:
        return None
    site = hosts[host]._nnterp_site(name)
    where = getattr(site, "where", None)
    if isinstance(where, Child):
        return getattr(hosts[host], where.name)._module
    if isinstance(where, Sibling):
        return getattr(hosts[host].parent, where.name)._module
    return None


def _status(envoy, name, model):
    site = envoy._nnterp_site(name)
    if not site.served:
        return "unavailable"
    if site.condition is not None and not site.condition.holds(model):
        return "conditioned"
    return "served"


def _diff(a, b) -> float:
    return float((a.detach().double() - b.detach().double()).abs().max()) if a.numel() else 0.0


def _close(a, b) -> bool:
    tolerance = {torch.float16: 2e-3, torch.bfloat16: 2e-2}.get(a.dtype, 1e-5)
    return a.shape == b.shape and torch.allclose(a.double(), b.double(), rtol=tolerance, atol=tolerance)


def read_block(model, i, prompt):
    """Every served value of block ``i`` in one trace, in forward order: {name: tensor}."""
    hosts = _hosts(model, i)
    block_order = model.family.block_order or FORWARD_ORDER["block"]
    mlp_returns_at = block_order.index(("mlp", "output")) if ("mlp", "output") in block_order else None
    names = [(h, n) for h, n in block_order if h in hosts and n != "output"
             and _status(hosts[h], n, model) == "served"]
    seen, order = {}, []
    for host, name in names:  # a location served under two names is read once
        where = hosts[host]._nnterp_site(name).describe(hosts[host]._module)
        key = (host, where)
        (order.append((host, name)) if key not in seen else None)
        seen.setdefault(key, []).append(name)
    values, own = {}, {}
    sublayers = {"attention_output": "attention", "mlp_output": "mlp"}

    def beside(name):  # read outside the sublayer's own forward: after it returns (a post-norm)
        return not isinstance(getattr(hosts[sublayers[name]]._nnterp_site(name), "where", None), (Own, Child, Call))

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


def _expected_shape(model, name, batch, seq, block=None):
    # positions ahead of the call's that the attention reads as keys (CPM-Ant's prompt): keys and values span them
    keys = seq + (model.family.key_prefix(model._nnterp_state.config) if block is not None else 0)
    positions = keys if BY_NAME[name].layout.kind in ("Keys", "Values") else seq
    dims = {"batch": batch, "seq": positions, "query": seq, "key": keys, **{
        d: getattr(model, d) for d in
        ("hidden_size", "num_heads", "num_kv_heads", "head_dim", "qk_head_dim", "intermediate_size", "vocab_size")}}
    if block is not None and model.family.block_dims is not None:
        dims.update(model.family.block_dims(model.layers[block]._nnterp_context()))
    if "moe" in model.family.groups:
        dims.update(num_experts=model.num_experts, top_k=model.num_experts_per_token)
    return tuple(dims[d] for d in BY_NAME[name].layout.dims)


def check(model, prompt: str | None = None, edit_blocks=None, raise_on_failure: bool = True) -> Report:
    """Run the contract on ``model``; ``edit_blocks`` picks the blocks whose edits are checked
    (default: the first and the last)."""
    prompt = prompt or PROMPT
    report = Report(model.family.name, model.attn_implementation)
    dtype = next(model._module.parameters()).dtype
    n = model.num_layers
    edit_blocks = sorted({0, n - 1} if edit_blocks is None else set(edit_blocks))

    with model.trace(prompt):
        base = model.logits.save()
    # 3 and the model-level reads of 1
    top, readout = {}, {}  # made before the trace: nnsight keeps what the block saves into them
    # a multi-stream residual has no last layer_output to project; the flag is computed outside the trace
    lens_is_readout = model.family.exact_lens and model.layers[-1]._nnterp_site("layer_output").served
    with model.trace(prompt):
        for name in FORWARD_ORDER["model"]:
            top[name] = getattr(model, name).save()
        if lens_is_readout:
            last = model.layers[-1].layer_output.save()
        for name in FORWARD_ORDER["readout"]:
            if _status(model, name, model) == "served":
                readout[name] = getattr(model, name).save()
    batch, seq = top["input_ids"].shape
    report.add("reads leave logits bit-identical", "model", torch.equal(readout["logits"], base))
    report.add("input_size", "model", tuple(top["input_size"]) == (batch, seq), str(top["input_size"]))
    for name, value in {**top, **readout}.items():
        if name != "input_size":
            _check_layout(report, "model", name, value, _expected_shape(model, name, batch, seq), dtype)
    if "final_norm_output" in readout and "lm_head_output" in readout:
        lm = model.lm_head._module(_as_head_input(model.lm_head._module, readout["final_norm_output"]))
        report.add("lm_head_output == lm_head(final_norm_output)", "model", torch.equal(lm, readout["lm_head_output"]),
                   f"max diff {_diff(lm, readout['lm_head_output']):.3g}")
    if lens_is_readout:
        projected = model.project_on_vocab(last)
        report.add("project_on_vocab(last layer_output) == logits", "model",
                   torch.equal(projected, readout["logits"]), f"max diff {_diff(projected, readout['logits']):.3g}")

    for i in range(n):
        _check_block(model, i, prompt, report, dtype, batch, seq, base)
    for i in edit_blocks:
        _check_edits(model, i, prompt, report, base)
    _check_edits(model, None, prompt, report, base)
    if getattr(model.family, "wrapper", None) is not None:  # where the image enters the stream
        from .wrappers import check_image

        check_image(model, prompt, report, base)
    _check_refusals(model, prompt, report)
    if raise_on_failure and not report.ok:
        raise ConformanceError(str(report))
    return report


def _check_layout(report, where, name, value, shape, dtype) -> None:
    """The value's shape, and its dtype: the model's, or float32, in which a model may compute under a
    half-precision load (routers, upcast attention scores, Dory's head, Mamba's and ZAYA's streams); token ids and
    chosen experts are indices."""
    kind = BY_NAME[name].layout.kind
    dtypes = (torch.long,) if kind in ("Tokens", "Experts") else (torch.bool,) if kind == "Mask" else (dtype, torch.float32)
    report.add("layout", f"{where}.{name}", tuple(value.shape) == shape and value.dtype in dtypes,
               f"{tuple(value.shape)} {value.dtype}, expected {shape} {' or '.join(map(str, dtypes))}")


def _check_block(model, i, prompt, report, dtype, batch, seq, base):
    where = f"layers[{i}]"
    v = read_block(model, i, prompt)
    hosts = _hosts(model, i)
    for name, value in v.items():
        if name.startswith("_"):
            continue
        _check_layout(report, where, name, value, _expected_shape(model, name, batch, seq, i), dtype)
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
        arithmetic = model.family.block_arithmetic(model._nnterp_state.config)
        if arithmetic is None:
            total = model.family.block_sum(x, attn, mlp)
            label = "identity input + attention_output + mlp_output == layer_output"
        else:
            total = arithmetic(model.layers[i]._module, x, attn, mlp)
            label = "the block's own arithmetic of layer_input, attention_output and mlp_output == layer_output"
        report.add(label, where, torch.equal(total, out) or _close(total, out), f"max diff {_diff(total, out):.3g}")
    if "layer_mid" in v and x is not None:
        mid = v["layer_mid"]
        mid_of = model.family.mid_arithmetic(model._nnterp_state.config)
        expected = x + attn if mid_of is None else mid_of(model.layers[i]._module, x, attn)
        label = "layer_mid == layer_input + attention_output" if mid_of is None else \
            "the block's own arithmetic of layer_input and attention_output == layer_mid"
        report.add(label, where, _close(mid, expected), f"max diff {_diff(mid, expected):.3g}")
        norm = _child_module(hosts, "layer", "mlp_norm_output")
        if norm is not None and "mlp_norm_output" in v:
            # a float32 stream under a half-precision load is cast to the norm's dtype first where the model does
            # (ZAYA): the norm's output dtype says so
            normed = norm(mid.to(v["mlp_norm_output"].dtype))
            report.add("mlp_norm_output == norm(layer_mid)", where, _close(normed, v["mlp_norm_output"]),
                       f"max diff {_diff(normed, v['mlp_norm_output']):.3g}")
    if "attention_scores" in v and "attention_probabilities" in v:
        softmax = getattr(hosts["attention"]._nnterp_site("attention_scores"), "softmax", None)
        if softmax is not None:  # the model's own softmax over these scores (attention sinks)
            p = softmax(v["attention_scores"], hosts["attention"]._module).to(v["attention_probabilities"].dtype)
        else:
            p = v["attention_scores"].float().softmax(-1).to(v["attention_probabilities"].dtype)
        report.add("softmax(attention_scores) == attention_probabilities", where,
                   _close(p, v["attention_probabilities"]), f"max diff {_diff(p, v['attention_probabilities']):.3g}")
    if "attention_probabilities" in v and "attention_values" in v and "attention_head_outputs" in v:
        values = v["attention_values"]
        values = values.repeat_interleave(v["attention_probabilities"].shape[1] // values.shape[1], dim=1)
        mixed = (v["attention_probabilities"] @ values.to(v["attention_probabilities"].dtype)).transpose(1, 2)
        report.add("attention_probabilities @ attention_values == attention_head_outputs", where,
                   _close(mixed, v["attention_head_outputs"]), f"max diff {_diff(mixed, v['attention_head_outputs']):.3g}")
    o_proj = _child_module(hosts, "attention", "attention_premix")
    if "attention_premix" in v and o_proj is not None and "_attention_module_output" in v:
        projected = o_proj(v["attention_premix"].flatten(-2))
        own = _at_call_positions(model, v["_attention_module_output"], projected)
        report.add("o_proj(attention_premix) == the attention's own output", where, _close(projected, own),
                   f"max diff {_diff(projected, own):.3g}")
    down_proj = _child_module(hosts, "mlp", "mlp_neurons")
    if "mlp_neurons" in v and down_proj is not None and "mlp_output" in v:
        down = down_proj(v["mlp_neurons"])
        # mlp_output is down_proj's output unless the block transforms it after the MLP returns (a
        # post-norm read beside the MLP, a multiplier): then compare with the MLP's own output
        site = hosts["mlp"]._nnterp_site("mlp_output")
        transformed = getattr(site, "scale", None) is not None or not isinstance(
            getattr(site, "where", None), (Own, Child, Call))
        target = v["_mlp_module_output"] if transformed and "_mlp_module_output" in v else v["mlp_output"]
        target = _at_call_positions(model, target, down)
        if target.shape != down.shape and target.numel() == down.numel():
            target = target.reshape(down.shape)  # an MLP run on flattened positions (OPT)
        label = "down_proj(mlp_neurons) == the MLP's own output" if transformed else "down_proj(mlp_neurons) == mlp_output"
        report.add(label, where, _close(down, target), f"max diff {_diff(down, target):.3g}")


def _at_call_positions(model, own, served):
    """A module's own output cut to the call's positions where the model runs on more (Reformer's padding after
    them, CPM-Ant's prompt before them) and the served value it is compared with is cut."""
    length = model._nnterp_state.call_length
    if length is not None and own.ndim >= 2 and served.ndim >= 2 and own.shape[1] > served.shape[1] == length:
        ahead = model.family.key_prefix(model._nnterp_state.config) > 0  # positions ahead of the call's (CPM-Ant)
        return CallPositions(1, from_end=ahead).view(own, model)
    return own


def _logits_after(model, prompt, host_of, name, edit):
    with model.trace(prompt):
        envoy = host_of()
        if edit == "inplace":
            getattr(envoy, name)[:] = 0
        elif edit == "assign":
            setattr(envoy, name, torch.zeros_like(getattr(envoy, name)))
        else:
            getattr(envoy, name)
        logits = model.logits.save()
    return logits


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
        if spec.read_only or _status(envoy, spec.name, model) != "served" or spec.layout.kind == "Tokens":
            continue
        label = f"{where}.{spec.name}"
        read = _logits_after(model, prompt, host_of[host], spec.name, "read")
        report.add("a read leaves logits bit-identical", label, torch.equal(read, base), f"max diff {_diff(read, base):.3g}")
        inplace = _logits_after(model, prompt, host_of[host], spec.name, "inplace")
        assigned = _logits_after(model, prompt, host_of[host], spec.name, "assign")
        report.add("in-place edit == assignment", label, torch.equal(inplace, assigned) or _close(inplace, assigned),
                   f"max diff {_diff(inplace, assigned):.3g}")
        report.add("a zeroing edit reaches the logits", label, not torch.equal(inplace, base))


def _check_refusals(model, prompt, report):
    hosts = {"model": model, **_hosts(model, 0)}
    for host, envoy in hosts.items():
        for spec in values_of(host, model.family.groups):
            status = _status(envoy, spec.name, model)
            if status == "served":
                continue
            expected = UnavailableValue if status == "unavailable" else ConditionedValue
            try:
                with model.trace(prompt):
                    getattr(envoy, spec.name).save()
                report.add("unavailable and conditioned values refuse with a reason", f"{host}.{spec.name}", False,
                           "the read did not raise")
            except expected as error:
                report.add("unavailable and conditioned values refuse with a reason", f"{host}.{spec.name}",
                           len(str(error)) > 40, str(error))
