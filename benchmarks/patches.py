"""Candidate fixes of nnterp's core, applied by monkeypatching, to measure them before they land.

    python benchmarks/patches.py [--model phi-100m]

Each patch says what it replaces; the script checks that the patched construction gives the
same tree (every alias on every envoy, the printout) and measures both ways interleaved, in the
process's CPU time (one torch thread). (The read-path candidate measured here before, location
strings made once per host and site, has landed in nnterp/declare/writeback.py.)
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
    parser.add_argument("--json", default=None, help="write the measurements here")
    args = parser.parse_args()
    torch.set_num_threads(1)
    result = construction_comparison(args)
    if args.json:
        import json

        result["kind"] = "construction"
        with open(args.json, "w") as out:
            json.dump(result, out, indent=1)


if __name__ == "__main__":
    main()
