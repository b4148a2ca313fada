"""An attribution graph on SmolLM2-135M-Instruct (the embedded real weights) with random transcoders at a real width.

    python -m benchmarks.attribution_graph_smollm2 [--width 8192] [--max-feature-nodes N] [--batch-size 64]

One transcoder per block, 576 -> width -> 576, reading ln2.hook_normalized and writing hook_mlp_out, Gaussian
weights (seed = the block) with b_enc = -3, so about 0.13% of the latents fire at each position. Prints, and writes
to benchmarks/recorded/attribution_graph_smollm2.json: the time, the peak resident memory of the process, the
graph's sizes and its completeness (max relative residual of a target's input against its edges and constant).
"""

from __future__ import annotations

import argparse
import json
import resource
import time
from pathlib import Path

import torch


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--width", type=int, default=8192)
    parser.add_argument("--max-feature-nodes", type=int, default=None)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--prompt", default="The Eiffel Tower is in the city of")
    parser.add_argument("--out", default=str(Path(__file__).parent / "recorded" / "attribution_graph_smollm2.json"))
    args = parser.parse_args()

    from nnterp import real
    from nnterp.tools.graph import attribution_graph
    from nnterp.tools.splice import LocalSAE

    model = real.load(attn_implementation="eager")
    width = model.hidden_size
    started = time.perf_counter()
    transcoders = [LocalSAE.random(width, args.width, seed=i, d_out=width, hook_name=f"blocks.{i}.ln2.hook_normalized",
                                   hook_name_out=f"blocks.{i}.hook_mlp_out", threshold=3.0)
                   for i in range(model.num_layers)]
    for transcoder in transcoders:
        transcoder.requires_grad_(False)
    made = time.perf_counter() - started
    # as the recorded figures were measured: the prompt's ids as the tokenizer gives them (no leading special token,
    # which a str prompt now gets, as circuit-tracer adds one), every position kept (circuit-tracer's default zeroes
    # the first, here a word) and the latents re-ranked after every batch
    ids = model.tokenizer(args.prompt, return_tensors="pt")["input_ids"]
    graph = attribution_graph(model, transcoders, ids, max_feature_nodes=args.max_feature_nodes,
                              batch_size=args.batch_size, update_interval=1, zero_positions=None)
    folder = Path(args.out).parent
    written = graph.write(folder / "graphs", slug="smollm2-eiffel", scan="random-smollm2")  # no released name
    record = {
        "model": "SmolLM2-135M-Instruct", "prompt": args.prompt, "positions": graph.n_pos,
        "transcoders": f"{model.num_layers} x {width} -> {args.width} -> {width}", "batch_size": args.batch_size,
        "threads": torch.get_num_threads(), "device": "cpu" if not torch.cuda.is_available() else "cuda",
        "seconds_building_transcoders": round(made, 1), "seconds_graph": round(graph.seconds, 1),
        "peak_rss_gib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2 ** 20, 2),
        "peak_cuda_gib": round(graph.peak_bytes / 2 ** 30, 2), **graph.stats,
        "completeness": graph.completeness(), "logit_tokens": graph.logit_tokens[:5],
        "json_nodes": len(json.loads(written.read_text())["nodes"]), "json_bytes": written.stat().st_size,
    }
    Path(args.out).write_text(json.dumps(record, indent=2) + "\n")
    print(json.dumps(record, indent=2))


if __name__ == "__main__":
    main()
