"""What reading out of forward order costs: the same values read in order and out of order, side by side.

    python benchmarks/capture_cost.py [--rounds 25] [--batch 8] [--seq 64]

A tiny Llama (4 blocks x 256, eager) under no_grad, one torch thread, CPU time per trace (the median of
rounds run in a fresh random order, each against the bare forward of the same round). Out-of-order code
makes nnterp capture the values named too late, one worker each; the captured tensors are the model's
own, kept alive until the trace ends. Prints the times and the bytes the captures hold.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

import torch


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=25)
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--seq", type=int, default=64)
    args = parser.parse_args()
    torch.set_num_threads(1)
    from nnterp import tiny
    from nnterp.runtime import tracing

    model = tiny.load("llama", attn_implementation="eager", num_hidden_layers=4, hidden_size=256,
                      intermediate_size=512, num_attention_heads=8, num_key_value_heads=8, vocab_size=1000)
    ids = torch.randint(0, 1000, (args.batch, args.seq), generator=torch.Generator().manual_seed(0))

    def bare():
        with torch.no_grad():
            model._module(ids)

    def ordered():  # queries before the block's output: in forward order, nothing captured
        with torch.no_grad(), model.trace(ids):
            for layer in model.layers:
                layer.self_attn.attention_queries.save()
                layer.layer_output.save()
            model.logits.save()

    def queries_late():  # each block's queries after its output: 4 values captured
        with torch.no_grad(), model.trace(ids):
            for layer in model.layers:
                layer.layer_output.save()
                layer.self_attn.attention_queries.save()
            model.logits.save()

    def all_late():  # the logits first: every block value after them, 8 values captured
        with torch.no_grad(), model.trace(ids):
            model.logits.save()
            for layer in model.layers:
                layer.layer_output.save()
                layer.self_attn.attention_queries.save()

    scenarios = {"bare forward": bare, "in order": ordered, "4 captured": queries_late, "8 captured": all_late}
    for run in scenarios.values():
        run()
    ratios = {name: [] for name in scenarios}
    times = {name: [] for name in scenarios}
    for _ in range(args.rounds):
        spent = {}
        for name in random.sample(list(scenarios), len(scenarios)):
            start = time.process_time()
            scenarios[name]()
            spent[name] = time.process_time() - start
        for name in scenarios:
            times[name].append(spent[name])
            ratios[name].append(spent[name] / spent["bare forward"])
    ordered_ms = statistics.median(times["in order"]) * 1e3
    for name in scenarios:
        ms = statistics.median(times[name]) * 1e3
        extra = "" if name in ("bare forward", "in order") else f", {ms - ordered_ms:+.2f} ms on the ordered trace"
        print(f"{name:13s} {ms:7.2f} ms  {statistics.median(ratios[name]):.3f}x the bare forward{extra}")

    held = []
    original = tracing.Captures.__exit__

    def measure(self, *exc):
        for state in self.capturing:
            held.append(sum(entry.value.numel() * entry.value.element_size()
                            for entry in state.captured.values()))
        return original(self, *exc)

    tracing.Captures.__exit__ = measure
    try:
        all_late()
    finally:
        tracing.Captures.__exit__ = original
    print(f"captured tensors held until the trace ends (8 captured): {sum(held) / 2**20:.2f} MiB, "
          f"the size of the values themselves")


if __name__ == "__main__":
    main()
