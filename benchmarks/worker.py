"""One library's process: its scenarios and the bare baselines, timed side by side.

Run as a script (``python benchmarks/worker.py ...``) by ``benchmarks/run.py``, with the python
of the library's environment; it imports nothing from this checkout but its sibling files, so
the peers' own packages are the ones imported.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import json
import os
import platform
import statistics
import sys
import time
from dataclasses import dataclass, field

import torch

import bench_models as models
import bench_timing as timing
from bench_models import lm_loss

LIBRARIES = {"nnterp": "lib_nnterp", "nnterp-1.3.0": "lib_nnterp130", "transformerlens": "lib_transformerlens"}


@dataclass
class Context:
    spec: models.ModelSpec
    base: torch.nn.Module  # never wrapped: the bare baseline, and the source of every twin
    ids: torch.Tensor
    mask: torch.Tensor
    tokenizer: object
    device: str
    notes: list = field(default_factory=list)
    checks: dict = field(default_factory=dict)

    def twin(self, attn_implementation="sdpa"):
        return models.twin(self.base, attn_implementation)


def baselines(ctx: Context, with_eager_grad: bool) -> dict:
    ids, mask = ctx.ids, ctx.mask
    sdpa, eager = ctx.twin("sdpa"), ctx.twin("eager")  # twins, as every wrapped model is
    grad_sdpa = models.lazily(lambda: ctx.twin("sdpa"))
    found = {
        "hf.sdpa": lambda: sdpa(input_ids=ids, attention_mask=mask).logits,
        "hf.eager": lambda: eager(input_ids=ids, attention_mask=mask).logits,
    }

    def grad(get_model):
        def run():
            model = get_model()
            model.zero_grad(set_to_none=True)
            with torch.enable_grad():
                lm_loss(model(input_ids=ids, attention_mask=mask).logits, ids).backward()
        return run

    found["hf.grad"] = grad(grad_sdpa)
    if with_eager_grad:
        found["hf.grad_eager"] = grad(models.lazily(lambda: ctx.twin("eager")))
    return found


def no_grad(fn):
    def run():
        with torch.no_grad():
            return fn()
    return run


# --------------------------------------------------------------------------- construction
def _fingerprint(model):
    modules = {name: id(module) for name, module in model.named_modules()}
    parameters = {id(p): (p.data_ptr(), p.detach().double().sum().item()) for p in model.parameters()}
    return modules, parameters


def construction(ctx: Context, builders: dict, rounds: int) -> dict:
    """Seconds to build each wrapper on a built model (a fresh sibling sharing the weights each
    time), forward calls made while building, and whether any weight or module changed."""
    results = {name: {"seconds": []} for name in builders}
    order = list(builders)
    for round_index in range(rounds):
        for name in order if round_index % 2 == 0 else reversed(order):
            model = models.sibling(ctx.base)
            calls = []
            hooks = [m.register_forward_pre_hook(lambda *a: calls.append(1)) for m in (model, model.model)]
            if round_index == 0:
                before = _fingerprint(model)
            gc.collect()
            start = time.process_time() if ctx.device == "cpu" else time.perf_counter()
            wrapper = builders[name](model)
            results[name]["seconds"].append((time.process_time() if ctx.device == "cpu" else time.perf_counter()) - start)
            results[name]["forward_calls"] = len(calls)
            if round_index == 0:
                with torch.no_grad():
                    model(input_ids=ctx.ids[:1, :8])  # a run through the wrapped model, outside a trace
                modules, parameters = before
                after_modules, after_parameters = _fingerprint(model)
                results[name]["modules_replaced"] = sum(
                    after_modules.get(path) != ident for path, ident in modules.items())
                results[name]["parameters_kept"] = sum(
                    after_parameters.get(ident) == value for ident, value in parameters.items())
                results[name]["parameters"] = len(parameters)
                results[name]["new_parameter_tensors"] = len(set(after_parameters) - set(parameters))
            for hook in hooks:
                hook.remove()
            del wrapper, model
    for result in results.values():
        result["summary"] = timing.summary(result["seconds"])
    return results


# --------------------------------------------------------------------------- main
def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--library", choices=LIBRARIES, required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--smollm2", default=None)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--dtype", default="float32")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--construction-rounds", type=int, default=7)
    parser.add_argument("--batch", type=int, default=None)
    parser.add_argument("--seq", type=int, default=None)
    parser.add_argument("--layers", type=int, default=None)
    parser.add_argument("--only", default=None, help="comma-separated scenario prefixes to time")
    parser.add_argument("--skip", default=None, help="comma-separated scenario suffixes not to time (grad)")
    parser.add_argument("--skip-memory", action="store_true")
    parser.add_argument("--skip-construction", action="store_true")
    parser.add_argument("--json", required=True)
    args = parser.parse_args()

    if args.threads > 0:
        torch.set_num_threads(args.threads)
    log = lambda text: print(f"[{args.library} {args.model}] {text}", file=sys.stderr, flush=True)
    dtype = getattr(torch, args.dtype)
    spec = models.specs(args.smollm2)[args.model]
    if args.batch:
        spec.batch = args.batch
    if args.seq:
        spec.seq = args.seq
    overrides = {}
    if args.layers:
        overrides["num_hidden_layers"] = spec.config["num_hidden_layers"] = args.layers
    base = models.build(spec, args.device, dtype, "sdpa", **overrides)
    ids, mask = models.inputs(spec, args.device)
    ctx = Context(spec, base, ids, mask, models.tokenizer(spec), args.device)
    library = importlib.import_module(LIBRARIES[args.library])

    log("setting up")
    scenarios = baselines(ctx, with_eager_grad=args.library == "transformerlens")
    try:
        scenarios.update(library.scenarios(ctx))
    except Exception as error:  # the library cannot serve this model: recorded, with its own words
        message = str(error).strip().splitlines()
        with open(args.json, "w") as out:
            json.dump({"library": args.library, "model": spec.name, "versions": library.versions(),
                       "error": f"{type(error).__name__}: {' '.join(message)[:400]}"}, out, indent=1)
        raise
    if args.only:
        prefixes = tuple(args.only.split(","))
        scenarios = {name: fn for name, fn in scenarios.items() if name.startswith(prefixes)}
    if args.skip:
        suffixes = tuple(args.skip.split(","))
        scenarios = {name: fn for name, fn in scenarios.items() if not name.endswith(suffixes)}
    scenarios = {name: (fn if name.endswith("grad") or name.endswith("grad_eager") else no_grad(fn))
                 for name, fn in scenarios.items()}

    log(f"timing {len(scenarios)} scenarios, {args.rounds} rounds")
    times, cpu_times = timing.interleaved(scenarios, args.rounds, args.repeats, args.warmup, args.device, log=log)

    memory = {}
    if not args.skip_memory:
        log("peak memory")
        memory = {name: timing.peak_memory(fn, args.device) for name, fn in scenarios.items()}

    built = {}
    if not args.skip_construction:
        log("construction")
        built = construction(ctx, library.construction(ctx), args.construction_rounds)

    result = {
        "library": args.library, "model": spec.name, "family": spec.family, "device": args.device,
        "dtype": args.dtype, "threads": torch.get_num_threads(), "batch": spec.batch, "seq": spec.seq,
        "layers": spec.config["num_hidden_layers"], "parameters": models.parameter_count(base),
        "checkpoint": bool(spec.checkpoint), "spec_notes": spec.notes,
        "rounds": args.rounds, "repeats": args.repeats,
        "versions": library.versions(), "python": platform.python_version(),
        "times": times, "cpu_times": cpu_times,
        "summary": {name: timing.summary(values) for name, values in times.items()},
        "memory": memory, "construction": built, "notes": ctx.notes, "checks": ctx.checks,
        "finished": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "load": list(os.getloadavg()),
        "cores": os.cpu_count(),
    }
    with open(args.json, "w") as out:
        json.dump(result, out, indent=1)
    log("done: " + ", ".join(f"{name} {statistics.median(v) * 1e3:.1f} ms" for name, v in times.items()))


if __name__ == "__main__":
    main()
