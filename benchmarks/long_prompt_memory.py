"""What an attribution graph of a long prompt holds, with and without ``memory_budget``, on the tiny Llama.

    python -m benchmarks.long_prompt_memory --tokens 500 1000 2000 4000 --budget-mib 256 [--without]

Each length runs in its own process (the resident peak is the process's). The graph is the test's
(tests/test_graph_long_prompts.py): two random transcoders, 10 logits, 16 latents, batch_size 64, random token ids
(seed 0). Prints, one line a run: the rows a pass took, the most bytes the tensors the call creates hold at once
and the largest of them (``LiveBytes``; the returned adjacency aside, circuit-tracer's dense [nodes nodes] layout),
the growth of the process's resident peak over the call (the adjacency and the allocator's slack included), the
adjacency's own size, the seconds, and with ``--without`` the largest difference from the graph without a budget.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import time

import torch

MiB = 2 ** 20


def _status(field: str) -> int:
    with open("/proc/self/status") as status:
        return int(re.search(rf"{field}:\s+(\d+)", status.read()).group(1)) * 1024


def one(tokens: int, budget: int | None, out: str | None) -> None:
    from nnterp import tiny
    from nnterp.tools import LocalSAE
    from nnterp.tools.frozen_attention import LiveBytes
    from nnterp.tools.graph import attribution_graph

    model = tiny.load("llama", attn_implementation="eager")
    width = model.hidden_size
    transcoders = [LocalSAE.random(width, 2 * width, seed=i, d_out=width, hook_name=f"blocks.{i}.ln2.hook_normalized",
                                   hook_name_out=f"blocks.{i}.hook_mlp_out", threshold=1.5)
                   for i in range(model.num_layers)]
    ids = torch.randint(0, model.config.vocab_size, (1, tokens), generator=torch.Generator().manual_seed(0))
    batch = {"input_ids": ids, "attention_mask": torch.ones_like(ids)}
    resident = _status("VmRSS")
    with open("/proc/self/clear_refs", "w") as refs:  # the resident peak from here
        refs.write("5")
    started = time.perf_counter()
    square = tokens * (model.num_layers + 1)
    with LiveBytes(ignored=lambda t: t.dim() == 2 and t.shape[0] == t.shape[1] >= square) as live:
        graph = attribution_graph(model, transcoders, batch, progress=False, max_feature_nodes=16, batch_size=64,
                                  memory_budget=budget)
    seconds = time.perf_counter() - started
    print(f"tokens={tokens} budget={'none' if budget is None else f'{budget // MiB} MiB'} "
          f"rows_per_pass={graph.stats['rows_per_pass']} live_peak={live.peak / MiB:.0f} MiB "
          f"largest={live.largest[0] / MiB:.1f} MiB {list(live.largest[1])} "
          f"resident_peak_growth={(_status('VmHWM') - resident) / MiB:.0f} MiB "
          f"adjacency={graph.adjacency.numel() * 4 / MiB:.1f} MiB seconds={seconds:.0f}", flush=True)
    if out:
        torch.save(graph.adjacency, out)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tokens", type=int, nargs="+", default=[500, 1000, 2000, 4000])
    parser.add_argument("--budget-mib", type=int, default=256)
    parser.add_argument("--without", action="store_true", help="also each length without a budget, and compare")
    parser.add_argument("--one", nargs=3, help=argparse.SUPPRESS)  # tokens, budget MiB or none, adjacency file
    args = parser.parse_args()
    if args.one:
        tokens, budget, out = args.one
        one(int(tokens), None if budget == "none" else int(budget) * MiB, out)
        return
    for tokens in args.tokens:
        runs = [str(args.budget_mib)] + (["none"] if args.without else [])
        files = [f"/tmp/long_prompt_memory_{tokens}_{run}.pt" for run in runs]
        for run, file in zip(runs, files):
            subprocess.run([sys.executable, "-m", "benchmarks.long_prompt_memory", "--one", str(tokens), run, file],
                           check=True)
        if args.without:
            within, without = (torch.load(file) for file in files)
            print(f"tokens={tokens} adjacency difference={float((within - without).abs().max()):.2e} "
                  f"of {float(without.abs().max()):.2f}", flush=True)


if __name__ == "__main__":
    main()
