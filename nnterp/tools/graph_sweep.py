"""An attribution graph on every family's tiny model, with random per-block transcoders: which build, which refuse.

    python -m nnterp.tools.graph_sweep [--family F ...] [--json out.json]

Each family's tiny model (eager attention) gets one random transcoder a block that reads what the MLP reads
(``mlp.hook_in``, the MLP's input) and writes what it adds (``hook_mlp_out``), sparse enough that a few latents fire
at each position; ``attribution_graph`` then builds the graph of one prompt. A family is ``complete`` (the graph is
built, which means its completeness held), ``incomplete`` (the tool refused the graph it built: its edges do not
add up, ``IncompleteGraph``, with the figure), ``refused`` (one sentence, the tool's ``ToolError``: the frozen
trace cannot take the family), or ``failed`` (any other exception: a bug). Prints one line a family, then the counts.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import traceback

PROMPT = "The Eiffel Tower is in"


def transcoders(model, threshold: float = 0.6, read: str = "mlp.hook_in"):
    """Random transcoders, one a block, reading ``read`` and writing the block's mlp_output."""
    from .splice import LocalSAE

    width = model.hidden_size
    return [LocalSAE.random(width, 2 * width, seed=i, d_out=width, hook_name=f"blocks.{i}.{read}",
                            hook_name_out=f"blocks.{i}.hook_mlp_out", threshold=threshold)
            for i in range(model.num_layers)]


def text_families() -> list[str]:
    """Every family the installed transformers serves (wrappers of image or audio models are not among them)."""
    from ..family import registry

    return list(registry())


def sweep_one(family: str, prompt: str = PROMPT) -> dict:
    """{"family", "status": complete | incomplete | refused | failed, "detail", "completeness", "seconds"} for one family."""
    from .. import tiny
    from ._common import ToolError
    from .graph import IncompleteGraph, attribution_graph

    started = time.perf_counter()
    row = {"family": family, "status": "complete", "detail": "", "completeness": None}
    try:
        model = tiny.load(family, attn_implementation="eager")
        graph = attribution_graph(model, transcoders(model), prompt, progress=False, batch_size=128)
        full = graph.stats["completeness_over_every_active_latent"]
        rows = graph.computed
        drift = float((graph.values[rows] - graph.clean[rows]).abs().max() / graph.clean[rows].abs().max())
        row["completeness"], row["drift"] = full, drift
        row["detail"] = f"{graph.stats['active_latents']} latents, residual {full:.1e}, against the clean run {drift:.1e}"
    except IncompleteGraph as error:
        row.update(status="incomplete", detail=str(error), completeness=error.residual)
    except ToolError as error:
        row.update(status="refused", detail=str(error))
    except Exception as error:  # noqa: BLE001 (a sweep reports every failure and goes on)
        row.update(status="failed", detail=f"{type(error).__name__}: {error}".split("\n")[0][:400],
                   trace=traceback.format_exc(limit=-3))
    row["seconds"] = round(time.perf_counter() - started, 2)
    return row


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--family", action="append", help="only these families (repeat)")
    parser.add_argument("--json", help="write the rows to this file")
    args = parser.parse_args(argv)
    families = args.family or text_families()
    rows = []
    for family in families:
        row = sweep_one(family)
        rows.append(row)
        print(f"{family:28s} {row['status']:9s} {row['detail']}", flush=True)
    counts = {status: sum(row["status"] == status for row in rows) for status in ("complete", "incomplete", "refused", "failed")}
    print(f"{counts['complete']} of {len(rows)} complete, {counts['incomplete']} incomplete, {counts['refused']} "
          f"refused, {counts['failed']} failed")
    if args.json:
        with open(args.json, "w") as handle:
            json.dump(rows, handle, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
