"""Candidate fixes of nnterp's core, applied by monkeypatching, to measure them before they land.

    python benchmarks/patches.py [--model phi-100m]

Each patch says what it replaces; the script checks that the patched construction gives the
same tree (every alias on every envoy, the printout) and that patched reads give the same tensors,
and measures both ways interleaved, in the process's CPU time (one torch thread). Per round, a
trace keeps the fastest of its calls.
"""

from __future__ import annotations

import argparse
import statistics
import time

import torch


# --------------------------------------------------------------------------- aliases bound where they resolve
def bind_where_resolvable(root, rename) -> None:
    """Bind ``rename`` on every envoy of the tree, children before parents as nnsight does, trying
    at each envoy only the keys whose first component is there.

    nnsight's ``aliasing.bind`` walks every key from every envoy with ``getattr``; each miss goes
    through ``Envoy.__getattr__`` into ``torch.nn.Module.__getattr__``, which raises. A key's first
    component is a child or alias of the envoy (its ``__dict__``), ``*``, or a class attribute of
    the module (a property such as ``base_model``) wherever the key can resolve; elsewhere it
    cannot, so skipping it there changes nothing."""
    from nnsight import Envoy
    from nnsight.intervention import aliasing

    keys = [(key, alias, None if isinstance(key, type) else key.lstrip(".").split(".")[0])
            for key, alias in rename.items()]
    order, stack = [], [root]
    while stack:
        envoy = stack.pop()
        order.append(envoy)
        stack.extend(envoy._children)
    for envoy in reversed(order):  # a parent after all of its descendants
        own, module_class = envoy.__dict__, type(envoy._module)
        subset = {key: alias for key, alias, first in keys
                  if first is None or first == "*" or isinstance(own.get(first), Envoy) or hasattr(module_class, first)}
        if subset:
            object.__setattr__(envoy, "_rename", subset)
            aliasing.bind(envoy)
    for envoy in order:
        object.__setattr__(envoy, "_rename", rename)


def patch_bind_where_resolvable():
    """nnterp/model.py, StandardizedTransformer.__init__, built-model path: call nnsight with
    ``rename=None`` and bind the aliases afterwards with ``bind_where_resolvable``."""
    from nnsight import TransformersModel

    from nnterp import StandardizedTransformer

    original = TransformersModel.__init__

    def init(self, model, *args, rename=None, envoys=None, **kwargs):
        if isinstance(self, StandardizedTransformer) and isinstance(model, torch.nn.Module) and rename:
            original(self, model, *args, rename=None, envoys=envoys, **kwargs)
            bind_where_resolvable(self, rename)
        else:
            original(self, model, *args, rename=rename, envoys=envoys, **kwargs)

    TransformersModel.__init__ = init
    return lambda: setattr(TransformersModel, "__init__", original)


def _patch_no_aliases():
    from nnsight import TransformersModel

    original = TransformersModel.__init__

    def init(self, model, *args, rename=None, **kwargs):
        original(self, model, *args, rename=None, **kwargs)

    TransformersModel.__init__ = init
    return lambda: setattr(TransformersModel, "__init__", original)


# --------------------------------------------------------------------------- per-read work done once
def patch_reads_resolved_once():
    """Three changes to the read path of a standard value (the interior values gain most):

    - nnterp/labels.py, ``call_label``: memoize the label per (compiled forward, callee,
      occurrence); it filters the forward's whole label list on every read today.
    - nnterp/envoys.py, ``StandardValue._site``: keep the root envoy on the host (found by walking
      the parents on every read today) and test a load condition on the module's config
      (``_attn_implementation``) instead of through nnsight's ``attn_implementation`` property.
    - nnterp/sites.py, ``Call.target``: for an operation of the host's own forward (no ``inside``),
      cache the operation's envoy on the host per site; nested operations still drill in per trace.
    - nnterp/sites.py, ``Read.read``: for a plain value outside nested calls, make the location string
      (``model.model.layers.3.self_attn.source.attention_interface_1.input``) once per host and site
      and read it from the mediator directly, without walking envoys on every read.
    """
    from nnterp import envoys, labels, sites
    from nnterp.errors import NnterpError
    from nnterp.sites import conditioned_error

    saved = (labels.call_label, envoys.StandardValue._site, sites.Call.target)
    original_label, _, original_target = saved
    memo = {}

    def call_label(compiled_source, callee, occurrence=0):
        key = (id(compiled_source), callee, occurrence)
        hit = memo.get(key)
        if hit is None or hit[0] is not compiled_source:
            hit = memo[key] = (compiled_source, original_label(compiled_source, callee, occurrence))
        return hit[1]

    def _site(self, envoy):
        site = envoy._nnterp_site(self.spec.name)
        own = envoy.__dict__
        model = own.get("_nnterp_root")
        if model is None:
            model = envoy.root
            object.__setattr__(envoy, "_nnterp_root", model)
        if site.condition is not None and \
                model._module.config._attn_implementation not in site.condition.attn_implementations:
            raise conditioned_error(self.spec, site, model, site.describe(envoy._module)) from None
        if not envoy.interleaver.interleaving:
            raise NnterpError(f"{self.spec.name} is served inside a trace")
        return site

    def target(self, host):
        if self.inside is not None:
            return original_target(self, host)
        cache = host.__dict__.get("_nnterp_operations")
        if cache is None:
            cache = {}
            object.__setattr__(host, "_nnterp_operations", cache)
        found = cache.get(self)
        if found is None:
            found = cache[self] = original_target(self, host)
        else:
            object.__setattr__(host, "_nnterp_fresh_source", False)
        return found

    original_read = sites.Read.read

    def read(self, host, spec):
        """A plain value (no layout, term or copy) not nested in a call: its location string is made
        once per host and site, and read straight from the mediator."""
        if self.plus is not None or self.layout is not sites.SAME or self.scale is not None or self.snapshot \
                or getattr(self.where, "inside", None) is not None:
            return original_read(self, host, spec)
        cache = host.__dict__.get("_nnterp_locations")
        if cache is None:
            cache = {}
            object.__setattr__(host, "_nnterp_locations", cache)
        location = cache.get(self)
        if location is None:
            location = cache[self] = f"{self.where.target(host).path}.{self.where.key}"
        return self.element.get(sites.Mediator.value(location))

    labels.call_label, envoys.StandardValue._site, sites.Call.target = call_label, _site, target
    sites.Read.read = read

    def restore():
        labels.call_label, envoys.StandardValue._site, sites.Call.target = saved
        sites.Read.read = original_read
    return restore


def trace_comparison(args) -> dict:
    """Per-call time of every value read through nnterp, as it is and patched, against bare nnsight."""
    import bench_models as models
    import lib_nnterp
    from worker import Context, no_grad

    spec = models.specs(args.smollm2)[args.model]
    spec.batch, spec.seq = args.batch or spec.batch, args.seq or spec.seq
    base = models.build(spec, "cpu", torch.float32, "sdpa")
    ids, mask = models.inputs(spec, "cpu")
    ctx = Context(spec, base, ids, mask, models.tokenizer(spec), "cpu")
    found = {name: no_grad(fn) for name, fn in lib_nnterp.scenarios(ctx).items()}
    result = {"model": spec.name, "batch": spec.batch, "seq": spec.seq}
    for kind in ("residuals", "all"):
        native, ours = found[f"nnsight.{kind}"], found[f"nnterp.{kind}"]
        restore = patch_reads_resolved_once()
        patched_values = ours()
        restore()
        same = all(torch.equal(a.reshape(-1), b.reshape(-1)) for a, b in zip(patched_values, native()))
        times = {"bare nnsight": [], "nnterp": [], "nnterp patched": []}
        for _ in range(args.rounds):
            for name in times:
                restore = patch_reads_resolved_once() if name == "nnterp patched" else None
                fn = native if name == "bare nnsight" else ours
                calls = []
                for _ in range(args.repeats):
                    start = time.process_time()
                    fn()
                    calls.append(time.process_time() - start)
                times[name].append(min(calls))
                if restore:
                    restore()
        result[kind] = {"same_values": same, "times": times}
        bare = times["bare nnsight"]
        print(f"{spec.name} batch {spec.batch} × {spec.seq}, every {kind} value (patched reads identical: {same}):")
        for name, values in times.items():
            ratios = sorted(a / b for a, b in zip(values, bare))
            print(f"  {name}: {statistics.median(values) * 1e3:.2f} ms, ÷ bare nnsight {statistics.median(ratios):.3f} "
                  f"[{ratios[len(ratios) // 4]:.3f}–{ratios[(3 * len(ratios)) // 4]:.3f}]")
    return result


def construction_comparison(args) -> dict:
    """Construction on a built model: bare nnsight, nnterp as it is, patched, and with no alias."""
    import bench_models as models
    import lib_nnsight
    from nnterp import StandardizedTransformer

    spec = models.specs(args.smollm2)[args.model]
    base = models.build(spec, "cpu", torch.float32, "sdpa")
    tokenizer = models.tokenizer(spec)
    reference = StandardizedTransformer(models.sibling(base), tokenizer=tokenizer)
    unpatch = patch_bind_where_resolvable()
    patched = StandardizedTransformer(models.sibling(base), tokenizer=tokenizer)
    unpatch()
    same_tree = _tree(reference) == _tree(patched)
    same_print = repr(reference) == repr(patched)
    print(f"{spec.name}: same envoy classes and aliases on every envoy: {same_tree}; same printout: {same_print}")
    times = {"bare nnsight": [], "nnterp": [], "nnterp, aliases bound where resolvable": [],
             "nnterp without any alias (floor)": []}
    for _ in range(args.rounds):
        for name in times:
            model = models.sibling(base)
            restore = patch_bind_where_resolvable() if name.startswith("nnterp, aliases") else None
            if name.startswith("nnterp without"):
                restore = _patch_no_aliases()
            start = time.process_time()
            lib_nnsight.wrap(model, tokenizer) if name == "bare nnsight" else StandardizedTransformer(model, tokenizer=tokenizer)
            times[name].append(time.process_time() - start)
            if restore:
                restore()
    bare = statistics.median(times["bare nnsight"])
    for name, values in times.items():
        median = statistics.median(values)
        print(f"  {name}: {median * 1e3:.1f} ms ({(median - bare) * 1e3:+.1f} ms over a bare wrap)")
    return {"model": spec.name, "same_tree": same_tree, "same_printout": same_print, "times": times}


# --------------------------------------------------------------------------- the check
def _tree(model):
    found, stack = {}, [model]
    while stack:
        envoy = stack.pop()
        found[envoy.path] = (type(envoy).__name__, dict(envoy._aliases))
        stack.extend(envoy._children)
    return found


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default="phi-100m")
    parser.add_argument("--smollm2", default=None)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--trace", action="store_true", help="compare the read path instead of construction")
    parser.add_argument("--batch", type=int, default=None)
    parser.add_argument("--seq", type=int, default=None)
    parser.add_argument("--json", default=None, help="write the measurements here")
    args = parser.parse_args()
    torch.set_num_threads(1)
    result = trace_comparison(args) if args.trace else construction_comparison(args)
    if args.json:
        import json

        result["kind"] = "trace" if args.trace else "construction"
        with open(args.json, "w") as out:
            json.dump(result, out, indent=1)


if __name__ == "__main__":
    main()
