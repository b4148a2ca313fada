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
import threading
from concurrent.futures import ThreadPoolExecutor
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
#: the real model at a longer input (model, batch, seq): are the totals a short prompt's problem?
LONG_INPUT = ("smollm2-135m", 4, 128)
LONG_SCENARIOS = ("hf.sdpa,hf.eager,hooks.residuals,nnsight.residuals,nnterp.residuals,nnsight.all,nnterp.all,"
                  "nnterp.cache_residuals,nnterp.cache_all,nnterp.cache_all_named,nnterp.tl_run_with_cache,"
                  "nnterp.resid_post_trace,nnterp.tl_run_with_hooks")
#: TransformerLens's run_with_cache at the same longer input, in its own process, beside model.cache
LONG_PEER_SCENARIOS = "hf.sdpa,hf.eager,transformerlens.residuals,transformerlens.all"
SCALING_BASE = dict(layers=4, seq=64, batch=1)
SCALING_AXES = dict(layers=(1, 4, 16), seq=(64, 256), batch=(1, 16))
QUICK_SCALING_AXES = dict(layers=(4, 16), seq=(64, 256), batch=(1, 16))
SCALING_SCENARIOS = "hf.sdpa,nnsight.trace,nnsight.logits,nnsight.residuals,nnterp.logits,nnterp.residuals"

#: timing per model (rounds, calls per round, warm-up calls): the large models take a second or
#: more per forward on one core
FULL = {"tiny-llama": (15, 2, 1), "smollm2-135m": (15, 2, 1), "phi-100m": (15, 2, 1)}
#: scenarios left out per model on the CPU (gradients cost three forwards; the tiny model has them)
CPU_SKIP = {"smollm2-135m": "grad,grad_eager", "phi-100m": "grad,grad_eager"}
QUICK = {"tiny-llama": (5, 2, 1), "smollm2-135m": (3, 1, 1), "phi-100m": (3, 1, 1)}
CUDA = {"tiny-llama": (7, 5, 3), "smollm2-135m": (7, 5, 3), "phi-100m": (7, 5, 3)}
#: inputs on CUDA (batch, seq): a GPU is idle on a single short prompt
CUDA_INPUTS = {"tiny-llama": (8, 64), "smollm2-135m": (8, 256), "phi-100m": (8, 256)}


def log(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


#: library -> a folder of its packages, for a machine where its environment cannot be made
#: (no registry): the peer then runs on this python with that folder as its PYTHONPATH
PEER_SITES: dict[str, str] = {}


def python_for(library: str, device: str) -> str:
    if library == "nnterp" or library in PEER_SITES:
        return sys.executable
    from benchmarks import envs

    return str(envs.ensure(ENV_OF[library], log=log))


def worker_env(threads: int, library: str) -> dict:
    env = dict(os.environ)
    env["PYTHONUNBUFFERED"] = "1"
    env["MALLOC_MMAP_THRESHOLD_"] = "65536"  # freed tensors go back to the system: peak RSS is honest
    if library in PEER_SITES:
        env["PYTHONPATH"] = PEER_SITES[library]
    elif library != "nnterp":
        env.pop("PYTHONPATH", None)  # a peer's environment sees its own packages only
    if threads > 0:
        env["OMP_NUM_THREADS"] = env["MKL_NUM_THREADS"] = str(threads)
    return env


def run_worker(library, model, args, results: Path, tag: str, extra=()) -> Path | None:
    """Run one library's process; the report is rewritten after each, so a stopped run leaves one."""
    out = results / f"{tag}.json"
    if args.resume and out.exists():
        return out
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
        if out.exists():  # the library said why it cannot run: kept for the report
            return out
        (results / f"{tag}.failed").write_text(" ".join(map(shlex.quote, command)))
        return None
    log(f"   {tag}: {time.time() - started:.0f} s")
    if args.started is not None:
        with REPORT_LOCK:
            write_meta(args, results, *args.started)
            write_report(args, results)
    return out


REPORT_LOCK = threading.Lock()


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


def candidates(args, results: Path, models) -> None:
    """The candidate core fixes (benchmarks/patches.py), measured against nnterp as it is."""
    runs = [(["--model", model, "--rounds", "11"], f"candidate--construction--{model}") for model in models]
    for extra, tag in runs:
        if args.resume and (results / f"{tag}.json").exists():
            continue
        command = [sys.executable, str(HERE / "patches.py"), *extra, "--json", str(results / f"{tag}.json")]
        if args.smollm2:
            command += ["--smollm2", args.smollm2]
        log(f"== {tag}")
        if subprocess.run(command, cwd=results, env=worker_env(args.threads, "nnterp")).returncode != 0:
            (results / f"{tag}.failed").write_text(" ".join(map(shlex.quote, command)))


def cold_construction(args, results: Path, models) -> None:
    """Construction on a built model, cold and warm, a fresh process per sample (benchmarks/cold.py)."""
    env = worker_env(args.threads, "nnterp")
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # an installed package has its bytecode cached: so does the measurement
    for model in models:
        out = results / f"cold--{model}.json"
        if args.resume and out.exists():
            continue
        command = [sys.executable, str(HERE / "cold.py"), "--model", model, "--samples", "3" if args.quick else "7",
                   "--json", str(out)]
        if args.smollm2:
            command += ["--smollm2", args.smollm2]
        log(f"== cold--{model}")
        if subprocess.run(command, cwd=results, env=env).returncode != 0:
            (results / f"cold--{model}.failed").write_text(" ".join(map(shlex.quote, command)))


def write_meta(args, results: Path, started: float, load_before) -> dict:
    previous = results / "meta.json"
    if args.resume and previous.exists():  # a resumed run: its time adds to the first run's
        earlier = json.loads(previous.read_text())
        started = min(started, earlier.get("started_at", started))
        load_before = earlier.get("load_before", load_before)
    meta = {
        "command": " ".join(["python -m benchmarks.run", *map(shlex.quote, (a for a in args.argv if a != "--resume"))]),
        "started_at": started,
        "machine": machine(), "device": args.device, "dtype": args.dtype, "threads": args.threads,
        "jobs": 1 if args.device != "cpu" else args.jobs,
        "quick": args.quick, "started": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(started)),
        "minutes": round((time.time() - started) / 60, 1), "load_before": load_before, "load_after": load_average(),
    }
    if args.device.startswith("cuda"):
        import torch

        meta["machine"]["gpu"] = torch.cuda.get_device_name(0)
    (results / "meta.json").write_text(json.dumps(meta, indent=1))
    return meta


def write_report(args, results: Path) -> None:
    from benchmarks import report

    report.write(Path(args.out), results)
    log(f"wrote {args.out}")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--dtype", default=None, help="float32 on the CPU, bfloat16 on CUDA unless given")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--threads", type=int, default=1, help="torch threads per process; 0: torch's default")
    parser.add_argument("--jobs", type=int, default=3,
                        help="library processes run at once (CPU times are per process; 1 on a GPU)")
    parser.add_argument("--models", default=None, help=f"comma-separated, of {', '.join(MODELS)}")
    parser.add_argument("--libraries", default=None, help=f"comma-separated, of {', '.join(LIBRARIES)}")
    parser.add_argument("--rounds", type=int, default=None)
    parser.add_argument("--no-scaling", action="store_true")
    parser.add_argument("--no-imports", action="store_true")
    parser.add_argument("--no-cold", action="store_true",
                        help="skip construction cold and warm, a fresh process per sample (benchmarks/cold.py)")
    parser.add_argument("--resume", action="store_true", help="keep the results already in the folder; run the rest")
    parser.add_argument("--long-only", action="store_true",
                        help="run only the longer-input jobs (the cache against run_with_cache) into the recorded "
                             "results, keeping the others, and rewrite BENCHMARKS.md")
    parser.add_argument("--no-candidates", action="store_true",
                        help="skip measuring the candidate core fixes of benchmarks/patches.py")
    parser.add_argument("--peer-site", action="append", default=[], metavar="LIBRARY=FOLDER",
                        help="run a peer on this python with FOLDER as its PYTHONPATH (no environment is made)")
    parser.add_argument("--peer-models", default=None, help="comma-separated models the peers run on (default: all)")
    parser.add_argument("--smollm2", default=None, help="checkpoint directory (default: nnterp.real's cache)")
    parser.add_argument("--results", default=None,
                        help="folder of the raw results (default: benchmarks/recorded/cpu for the whole suite on the "
                             "CPU, which BENCHMARKS.md is written from; benchmarks/results otherwise)")
    parser.add_argument("--out", default=str(REPO / "BENCHMARKS.md"))
    args = parser.parse_args(argv)
    args.argv = list(argv if argv is not None else sys.argv[1:])

    cuda = args.device.startswith("cuda")
    for item in args.peer_site:
        library, _, folder = item.partition("=")
        PEER_SITES[library] = folder
    args.dtype = args.dtype or ("bfloat16" if cuda else "float32")
    models = args.models.split(",") if args.models else (["tiny-llama"] if args.quick and not cuda else list(MODELS))
    # the peers' environments are made with pip from the CPU wheels: on another machine, nnterp alone
    args.libraries = args.libraries.split(",") if args.libraries else (
        ["nnterp", *PEER_SITES] if cuda else list(LIBRARIES))
    peer_models = args.peer_models.split(",") if args.peer_models else None
    if args.smollm2 is None and "smollm2-135m" in models:
        try:
            from nnterp import real

            args.smollm2 = str(real.checkpoint_path())
        except Exception as error:  # no checkpoint here: the same config with random weights
            log(f"SmolLM2-135M checkpoint unavailable ({error}); using its config with random weights")
    whole = not (args.quick or cuda or args.models or args.rounds or args.no_scaling or args.peer_site)
    results = Path(args.results or (HERE / "recorded" / "cpu" if whole and "--libraries" not in args.argv else HERE / "results"))
    results.mkdir(parents=True, exist_ok=True)
    for stale in [*results.glob("*.json"), *results.glob("*.failed")]:
        if args.long_only and not stale.name.startswith("long--"):
            continue  # the rest of the recorded run is kept
        if not args.resume or stale.suffix == ".failed":
            stale.unlink()

    started, load_before = time.time(), load_average()
    args.started = (started, load_before)
    plan = CUDA if cuda else (QUICK if args.quick else FULL)
    jobs = []
    for index, model in enumerate(models):
        rounds, repeats, warmup = plan[model]
        rounds = args.rounds or rounds
        order = args.libraries[index % len(args.libraries):] + args.libraries[:index % len(args.libraries)]
        sizes = [] if cuda or model not in CPU_SKIP else ["--skip", CPU_SKIP[model]]
        if cuda:
            batch, seq = CUDA_INPUTS[model]
            sizes = ["--batch", str(batch), "--seq", str(seq)]
        for library in order:
            if library != "nnterp" and peer_models is not None and model not in peer_models:
                continue
            jobs.append((library, model, f"{library}--{model}",
                         ["--rounds", str(rounds), "--repeats", str(repeats), "--warmup", str(warmup),
                          "--construction-rounds", "4" if args.quick else "9", *sizes]))

    if not args.no_scaling and "nnterp" in args.libraries:
        rounds = 5 if args.quick else 9
        seen = set()
        for axis, values in (QUICK_SCALING_AXES if args.quick else SCALING_AXES).items():
            for value in values:
                point = {**SCALING_BASE, axis: value}
                key = tuple(sorted(point.items()))
                if key in seen:
                    continue
                seen.add(key)
                jobs.append(("nnterp", "tiny-llama", f"scaling--L{point['layers']}-S{point['seq']}-B{point['batch']}",
                             ["--rounds", str(rounds), "--repeats", "3", "--only", SCALING_SCENARIOS,
                              "--layers", str(point["layers"]), "--seq", str(point["seq"]),
                              "--batch", str(point["batch"]), "--skip-memory", "--skip-construction"]))

    model, batch, seq = LONG_INPUT
    if whole and not cuda and model in models and "nnterp" in args.libraries:
        jobs.append(("nnterp", model, f"long--{model}-B{batch}-S{seq}",
                     ["--rounds", "7", "--repeats", "1", "--warmup", "1", "--only", LONG_SCENARIOS,
                      "--batch", str(batch), "--seq", str(seq), "--skip-memory", "--skip-construction"]))

    if whole and not cuda and model in models and "transformerlens" in args.libraries:
        jobs.append(("transformerlens", model, f"long--transformerlens--{model}-B{batch}-S{seq}",
                     ["--rounds", "7", "--repeats", "1", "--warmup", "1", "--only", LONG_PEER_SCENARIOS,
                      "--batch", str(batch), "--seq", str(seq), "--skip-memory", "--skip-construction"]))

    if args.long_only:
        jobs = [job for job in jobs if job[2].startswith("long--")]
        args.started = None  # the recorded run's meta stays that run's
    with ThreadPoolExecutor(max_workers=1 if cuda else max(1, args.jobs)) as pool:
        list(pool.map(lambda job: run_worker(job[0], job[1], args, results, job[2], job[3]), jobs))

    if args.long_only:
        write_report(args, results)
        return

    if not args.no_cold and not cuda and "nnterp" in args.libraries:
        cold_construction(args, results, models)

    if not args.no_candidates and not args.quick and not cuda:
        candidates(args, results, models)

    meta = write_meta(args, results, started, load_before)
    meta["imports"] = {} if args.no_imports else import_times(args, results)
    (results / "meta.json").write_text(json.dumps(meta, indent=1))

    write_report(args, results)


if __name__ == "__main__":
    main()
