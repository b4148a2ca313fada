"""Start-up: what a newcomer waits for before nnterp answers, each command a fresh process, whole-process CPU and
wall time, against ``python -c 'import nnsight'`` run in the same rounds.

    python -m benchmarks.startup                          # this checkout
    python -m benchmarks.startup --baseline /path/to/old  # and another checkout of nnterp, side by side

Every round runs each command once, in a fresh random order; a ratio is taken round by round against that round's
``import nnsight``. The result goes to startup.json in the results folder, which BENCHMARKS.md is written from.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent

#: label -> the python arguments
COMMANDS = {
    "python -c 'import nnsight'": ["-c", "import nnsight"],
    "python -c 'import nnterp'": ["-c", "import nnterp"],
    "python -c 'from nnterp import StandardizedTransformer'": ["-c", "from nnterp import StandardizedTransformer"],
    "nnterp --help": ["-m", "nnterp.cli", "--help"],
    "nnterp show lalma (a mistyped family)": ["-m", "nnterp.cli", "show", "lalma"],
}
REFERENCE = "python -c 'import nnsight'"


def run_once(arguments: list[str], tree: Path) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one fresh process importing nnterp from ``tree``."""
    env = {**os.environ, "PYTHONPATH": str(tree), "OMP_NUM_THREADS": "1"}
    started = time.perf_counter()
    process = subprocess.Popen([sys.executable, *arguments], cwd=tree, env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    _, _, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    process.returncode = 0
    return usage.ru_utime + usage.ru_stime, wall


def median(values):
    ordered = sorted(values)
    return ordered[len(ordered) // 2]


def measure(trees: dict[str, Path], rounds: int) -> dict:
    samples = {(label, tree): [] for tree in trees for label in COMMANDS}
    for _ in range(rounds + 1):  # the first round warms the file cache and is not counted
        order = [(label, tree) for tree in trees for label in COMMANDS]
        random.shuffle(order)
        this_round = {key: run_once(COMMANDS[key[0]], trees[key[1]]) for key in order}
        for key, sample in this_round.items():
            samples[key].append((*sample, this_round[(REFERENCE, key[1])][0]))
    found = {}
    for (label, tree), values in samples.items():
        values = values[1:]
        found.setdefault(tree, {})[label] = {
            "cpu": median(v[0] for v in values), "wall": median(v[1] for v in values),
            "cpu_ratio": median(v[0] / v[2] for v in values)}
    return found


def commit_of(tree: Path) -> str:
    done = subprocess.run(["git", "-C", str(tree), "log", "-1", "--format=%h %cs"], capture_output=True, text=True)
    return done.stdout.strip() or "unknown"


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--baseline", help="another checkout of nnterp, measured in the same rounds")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--results", default=str(HERE / "recorded" / "cpu"))
    args = parser.parse_args(argv)
    trees = {"this checkout": REPO}
    if args.baseline:
        trees["baseline"] = Path(args.baseline).resolve()
    found = measure(trees, args.rounds)
    record = {"rounds": args.rounds, "finished": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
              "load_average": os.getloadavg(), "python": sys.executable,
              "trees": {name: {"commit": commit_of(tree), "commands": found[name]} for name, tree in trees.items()}}
    out = Path(args.results) / "startup.json"
    out.write_text(json.dumps(record, indent=1))
    print(json.dumps(record, indent=1))


if __name__ == "__main__":
    main()
