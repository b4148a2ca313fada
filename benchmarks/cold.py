"""Construction on a built model, cold (the first wrap in a fresh process) and warm (the ones after), for
bare nnsight and nnterp side by side.

    python benchmarks/cold.py --model smollm2-135m --samples 7 --json cold.json

A cold sample needs a process of its own: each sample starts one process per library (their order
alternating), which imports torch, transformers, nnsight and nnterp (both libraries in both processes,
so that only the construction differs; imports are timed by the suite separately), builds the model and
its tokenizer, then times the first wrap and three more, each on a fresh sibling of the model sharing
its weights. Times are the process's CPU time (wall-clock kept beside).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
LIBRARIES = ("nnsight", "nnterp")
WARM_CALLS = 3


def child(library: str, model_name: str, smollm2: str | None) -> dict:
    import nnsight  # noqa: F401
    import torch

    import nnterp  # noqa: F401

    sys.path.insert(0, str(HERE))
    import bench_models as models

    torch.set_num_threads(1)
    spec = models.specs(smollm2)[model_name]
    base = models.build(spec, "cpu", torch.float32, "sdpa")
    tokenizer = models.tokenizer(spec)
    if library == "nnsight":
        from nnsight import TransformersModel as wrap_class
    else:
        from nnterp import StandardizedTransformer as wrap_class
    siblings = [models.sibling(base) for _ in range(WARM_CALLS + 1)]
    cpu, wall = [], []
    for model in siblings:
        started_cpu, started_wall = time.process_time(), time.perf_counter()
        wrapper = wrap_class(model, tokenizer=tokenizer)
        cpu.append(time.process_time() - started_cpu)
        wall.append(time.perf_counter() - started_wall)
        del wrapper
    families = sorted(m for m in sys.modules if m.startswith("nnterp.families."))
    return {"cold": cpu[0], "warm": sorted(cpu[1:])[len(cpu[1:]) // 2], "cold_wall": wall[0],
            "warm_wall": sorted(wall[1:])[len(wall[1:]) // 2], "family_modules": len(families)}


def measure(model_name: str, samples: int, smollm2: str | None = None, env=None) -> dict:
    """``samples`` fresh processes per library; every sample's cold and warm times, and their summaries."""
    import bench_timing as timing

    found = {library: {"cold": [], "warm": [], "cold_wall": [], "warm_wall": []} for library in LIBRARIES}
    for index in range(samples):
        for library in LIBRARIES if index % 2 == 0 else reversed(LIBRARIES):
            command = [sys.executable, str(Path(__file__).resolve()), "--child", library, "--model", model_name]
            if smollm2:
                command += ["--smollm2", smollm2]
            done = subprocess.run(command, capture_output=True, text=True, env=env)
            if done.returncode != 0:
                raise RuntimeError(f"{library} on {model_name}: {done.stderr[-1500:]}")
            sample = json.loads(done.stdout.strip().splitlines()[-1])
            for key in ("cold", "warm", "cold_wall", "warm_wall"):
                found[library][key].append(sample[key])
            found[library]["family_modules"] = sample["family_modules"]
    for result in found.values():
        result["summary"] = {key: timing.summary(result[key]) for key in ("cold", "warm", "cold_wall", "warm_wall")}
    return {"kind": "construction-cold", "model": model_name, "samples": samples, "libraries": found}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="tiny-llama")
    parser.add_argument("--samples", type=int, default=7)
    parser.add_argument("--smollm2", default=None)
    parser.add_argument("--json", default=None)
    parser.add_argument("--child", choices=LIBRARIES, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.model, args.smollm2)))
        return
    sys.path.insert(0, str(HERE))
    result = measure(args.model, args.samples, args.smollm2, env=dict(os.environ))
    text = json.dumps(result, indent=1)
    if args.json:
        Path(args.json).write_text(text)
    for library, found in result["libraries"].items():
        summary = found["summary"]
        print(f"{library}: cold {summary['cold']['median'] * 1e3:.1f} ms, warm {summary['warm']['median'] * 1e3:.1f} ms "
              f"(wall {summary['cold_wall']['median'] * 1e3:.1f} / {summary['warm_wall']['median'] * 1e3:.1f} ms)")


if __name__ == "__main__":
    main()
