"""Run every benchmark scenario, library by library, and write BENCHMARKS.md.

    python -m benchmarks.run                    # the whole suite on the CPU (about 40 min on 2 cores)
    python -m benchmarks.run --quick            # fewer rounds and the tiny model only
    python -m benchmarks.run --device cuda --quick --results $OUT/results --out $OUT/BENCHMARKS.md

Each library runs in its own process (the peers in their own virtual environments, made once
under benchmarks/.envs/), and each process times its scenarios interleaved with the bare
baselines, so every ratio is taken between calls made side by side.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
MODELS = ("tiny-llama", "smollm2-135m", "phi-100m")
LIBRARIES = ("nnterp", "nnterp-1.3.0", "transformerlens")
ENV_OF = {"nnterp-1.3.0": "nnterp-1.3.0", "transformerlens": "transformerlens-4.3"}

#: the scaling sweep, on the tiny Llama at batch 1: one axis moved at a time from the middle
SCALING_BASE = dict(layers=4, seq=64, batch=1)
SCALING_AXES = dict(layers=(1, 4, 16), seq=(16, 64, 256), batch=(1, 4, 16))
SCALING_SCENARIOS = "hf.sdpa,nnsight.trace,nnsight.logits,nnsight.residuals,nnterp.logits,nnterp.residuals"

#: timing per model (rounds, repeats): the large models take a second or more per forward on a core
FULL = {"tiny-llama": (15, 3), "smollm2-135m": (9, 1), "phi-100m": (9, 1)}
QUICK = {"tiny-llama": (7, 2), "smollm2-135m": (3, 1), "phi-100m": (3, 1)}


def log(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def python_for(library: str, device: str) -> str:
    if library == "nnterp":
        return sys.executable
    from benchmarks import envs

    return str(envs.ensure(ENV_OF[library], log=log))


def worker_env(threads: int, library: str) -> dict:
    env = dict(os.environ)
    env["PYTHONUNBUFFERED"] = "1"
    env["MALLOC_MMAP_THRESHOLD_"] = "65536"  # freed tensors go back to the system: peak RSS is honest
    if library != "nnterp":
        env.pop("PYTHONPATH", None)  # a peer's environment sees its own packages only
    if threads > 0:
        env["OMP_NUM_THREADS"] = env["MKL_NUM_THREADS"] = str(threads)
    return env


def run_worker(library, model, args, results: Path, tag: str, extra=()) -> Path | None:
    out = results / f"{tag}.json"
    command = [python_for(library, args.device), str(HERE / "worker.py"), "--library", library, "--model", model,
               "--device", args.device, "--dtype", args.dtype, "--threads", str(args.threads),
               "--json", str(out), *extra]
    if args.smollm2:
        command += ["--smollm2", args.smollm2]
    log(f"== {tag}")
    env = worker_env(args.threads, library)
    started = time.time()
    finished = subprocess.run(command, cwd=results, env=env)
    if finished.returncode != 0:
        log(f"!! {tag} failed (exit {finished.returncode}); see the log above")
        (results / f"{tag}.failed").write_text(" ".join(map(shlex.quote, command)))
        return None
    log(f"   {tag}: {time.time() - started:.0f} s")
    return out


IMPORT_PROBE = """
import json, sys, time
start = time.perf_counter()
import torch, transformers
from transformers import AutoModelForCausalLM
base = time.perf_counter()
for name in sys.argv[1:]:
    __import__(name)
print(json.dumps({"base": base - start, "library": time.perf_counter() - base}))
"""


def import_times(args, results: Path) -> dict:
    """Seconds to import each library in a fresh process, above `import torch, transformers`."""
    probes = {"nnsight 0.8.1": ("nnterp", ["nnsight"]), "nnterp": ("nnterp", ["nnterp"])}
    if "nnterp-1.3.0" in args.libraries:
        probes["nnterp 1.3.0"] = ("nnterp-1.3.0", ["nnterp"])
    if "transformerlens" in args.libraries:
        probes["TransformerLens 4.3"] = ("transformerlens", ["transformer_lens", "transformer_lens.model_bridge"])
    found = {}
    for label, (library, modules) in probes.items():
        samples = []
        for _ in range(3):
            done = subprocess.run([python_for(library, args.device), "-P", "-c", IMPORT_PROBE, *modules],
                                  capture_output=True, text=True, cwd=results, env=worker_env(args.threads, library))
            if done.returncode != 0:
                log(f"!! import of {label} failed: {done.stderr[-400:]}")
                break
            samples.append(json.loads(done.stdout.strip().splitlines()[-1]))
        if samples:
            found[label] = {key: sorted(s[key] for s in samples)[len(samples) // 2] for key in ("base", "library")}
    return found


def machine() -> dict:
    info = {"platform": platform.platform(), "python": platform.python_version(), "cores": os.cpu_count()}
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                info["cpu"] = line.split(":", 1)[1].strip()
                break
        info["memory_gib"] = round(int(open("/proc/meminfo").readline().split()[1]) / 2**20, 1)
    except OSError:
        pass
    return info


def load_average() -> list[float]:
    try:
        return [float(x) for x in open("/proc/loadavg").read().split()[:3]]
    except OSError:
        return []


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--dtype", default=None, help="float32 on the CPU, bfloat16 on CUDA unless given")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--threads", type=int, default=1, help="torch threads per process; 0: torch's default")
    parser.add_argument("--models", default=None, help=f"comma-separated, of {', '.join(MODELS)}")
    parser.add_argument("--libraries", default=None, help=f"comma-separated, of {', '.join(LIBRARIES)}")
    parser.add_argument("--rounds", type=int, default=None)
    parser.add_argument("--no-scaling", action="store_true")
    parser.add_argument("--smollm2", default=None, help="checkpoint directory (default: nnterp.real's cache)")
    parser.add_argument("--results", default=str(HERE / "results"), help="folder of the raw JSON results")
    parser.add_argument("--out", default=str(REPO / "BENCHMARKS.md"))
    args = parser.parse_args(argv)

    cuda = args.device.startswith("cuda")
    args.dtype = args.dtype or ("bfloat16" if cuda else "float32")
    models = args.models.split(",") if args.models else (["tiny-llama"] if args.quick and not cuda else list(MODELS))
    # the peers' environments are made with pip from the CPU wheels: on another machine, nnterp alone
    args.libraries = args.libraries.split(",") if args.libraries else (["nnterp"] if cuda else list(LIBRARIES))
    if args.smollm2 is None and "smollm2-135m" in models:
        try:
            from nnterp import real

            args.smollm2 = str(real.checkpoint_path())
        except Exception as error:  # no checkpoint here: the same config with random weights
            log(f"SmolLM2-135M checkpoint unavailable ({error}); using its config with random weights")
    results = Path(args.results)
    results.mkdir(parents=True, exist_ok=True)
    for stale in [*results.glob("*.json"), *results.glob("*.failed")]:
        stale.unlink()

    started, load_before = time.time(), load_average()
    plan = FULL if not args.quick else QUICK
    for index, model in enumerate(models):
        rounds, repeats = plan[model]
        rounds = args.rounds or rounds
        order = args.libraries[index % len(args.libraries):] + args.libraries[:index % len(args.libraries)]
        for library in order:
            run_worker(library, model, args, results, f"{library}--{model}",
                       ["--rounds", str(rounds), "--repeats", str(repeats),
                        "--construction-rounds", "4" if args.quick else "9"])

    if not args.no_scaling and "nnterp" in args.libraries:
        rounds = 5 if args.quick else 9
        seen = set()
        for axis, values in SCALING_AXES.items():
            for value in values:
                point = {**SCALING_BASE, axis: value}
                key = tuple(sorted(point.items()))
                if key in seen:
                    continue
                seen.add(key)
                run_worker("nnterp", "tiny-llama", args, results,
                           f"scaling--L{point['layers']}-S{point['seq']}-B{point['batch']}",
                           ["--rounds", str(rounds), "--repeats", "3", "--only", SCALING_SCENARIOS,
                            "--layers", str(point["layers"]), "--seq", str(point["seq"]),
                            "--batch", str(point["batch"]), "--skip-memory", "--skip-construction"])

    meta = {
        "command": "python -m benchmarks.run " + " ".join(map(shlex.quote, argv if argv is not None else sys.argv[1:])),
        "machine": machine(), "device": args.device, "dtype": args.dtype, "threads": args.threads,
        "quick": args.quick, "started": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(started)),
        "minutes": round((time.time() - started) / 60, 1), "load_before": load_before, "load_after": load_average(),
        "imports": import_times(args, results),
    }
    if cuda:
        import torch

        meta["machine"]["gpu"] = torch.cuda.get_device_name(0)
    (results / "meta.json").write_text(json.dumps(meta, indent=1))

    from benchmarks import report

    report.write(Path(args.out), results)
    log(f"wrote {args.out}")


if __name__ == "__main__":
    main()
