"""Where nnterp's own time goes: a scenario profiled with pyinstrument, against bare nnsight.

    python benchmarks/profile_nnterp.py [--scenario nnterp.all] [--seq 8] [--calls 200]

Small inputs make the forward cheap, so what is left is the tracing machinery. Prints the
per-call time of the nnterp scenario and of its bare-nnsight twin, then the profile.
"""

from __future__ import annotations

import argparse
import time

import torch

import bench_models as models
import lib_nnterp
from worker import Context, no_grad


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default="tiny-llama")
    parser.add_argument("--scenario", default="nnterp.all")
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--seq", type=int, default=8)
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--html", default=None)
    parser.add_argument("--construction", action="store_true", help="profile construction instead")
    parser.add_argument("--show-all", action="store_true", help="show library frames too")
    args = parser.parse_args()
    torch.set_num_threads(1)
    spec = models.specs(None)[args.model]
    spec.batch, spec.seq = args.batch, args.seq
    base = models.build(spec, "cpu", torch.float32, "sdpa")
    ids, mask = models.inputs(spec, "cpu")
    ctx = Context(spec, base, ids, mask, models.tokenizer(spec), "cpu")
    from pyinstrument import Profiler

    if args.construction:
        import lib_nnsight

        siblings = [models.sibling(base) for _ in range(2 * args.calls + 2)]
        lib_nnterp.wrap(siblings.pop(), ctx.tokenizer), lib_nnsight.wrap(siblings.pop(), ctx.tokenizer)
        start = time.perf_counter()
        for _ in range(args.calls):
            lib_nnsight.wrap(siblings.pop(), ctx.tokenizer)
        bare = (time.perf_counter() - start) / args.calls
        profiler = Profiler(interval=0.0005)
        profiler.start()
        start = time.perf_counter()
        for _ in range(args.calls):
            lib_nnterp.wrap(siblings.pop(), ctx.tokenizer)
        ours = (time.perf_counter() - start) / args.calls
        profiler.stop()
        print(f"construction: nnterp {ours * 1e3:.2f} ms, bare nnsight {bare * 1e3:.2f} ms")
    else:
        scenarios = {name: no_grad(fn) for name, fn in lib_nnterp.scenarios(ctx).items()}
        ours, native = scenarios[args.scenario], scenarios[args.scenario.replace("nnterp.", "nnsight.")]
        timings = {}
        for name, fn in (("bare nnsight", native), ("nnterp", ours), ("bare nnsight", native), ("nnterp", ours)):
            fn()
            start = time.perf_counter()
            for _ in range(args.calls):
                fn()
            timings.setdefault(name, []).append((time.perf_counter() - start) / args.calls)
        print(", ".join(f"{name} {min(v) * 1e3:.2f} ms" for name, v in timings.items()))
        profiler = Profiler(interval=0.0005)
        profiler.start()
        for _ in range(args.calls):
            ours()
        profiler.stop()
    if args.html:
        with open(args.html, "w") as out:
            out.write(profiler.output_html())
    print(profiler.output_text(unicode=True, color=False, show_all=args.show_all))


if __name__ == "__main__":
    main()
