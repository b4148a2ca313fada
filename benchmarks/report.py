"""BENCHMARKS.md from the raw results: ratios first, absolute times second, then the machine.

    python -m benchmarks.report [results folder] [--out BENCHMARKS.md]

Results recorded on other machines (a GPU) are kept under benchmarks/recorded/<name>/ and
rendered after the CPU results.
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path

HERE = Path(__file__).resolve().parent
RECORDED = HERE / "recorded"

LABELS = {"nnterp": "nnterp", "nnterp-1.3.0": "nnterp 1.3.0", "transformerlens": "TransformerLens 4.3"}
LIMITS = {"own": 1.03, "residual": 1.05, "all": 1.15, "construction_ms": 20.0, "cold_ms": 50.0}


# --------------------------------------------------------------------------- loading
def load(folder: Path) -> dict:
    runs, scaling, longer, candidates, errors, failed, cold = {}, {}, {}, {}, {}, [], {}
    for path in sorted(folder.glob("*.json")):
        if path.name in ("meta.json", "startup.json"):
            continue
        data = json.loads(path.read_text())
        if path.name.startswith("candidate--"):
            candidates[path.stem.split("--", 1)[1]] = data
        elif path.name.startswith("cold--"):
            cold[data["model"]] = data
        elif "error" in data:
            errors[(data["library"], data["model"])] = data
        elif path.name.startswith("scaling--"):
            scaling[path.stem.split("--", 1)[1]] = data
        elif path.name.startswith("long--"):
            longer[path.stem.split("--", 1)[1]] = data
        else:
            runs[(data["library"], data["model"])] = data
    failed = sorted(p.stem for p in folder.glob("*.failed"))
    meta_path = folder / "meta.json"
    meta = json.loads(meta_path.read_text()) if meta_path.exists() else {}
    startup = json.loads((folder / "startup.json").read_text()) if (folder / "startup.json").exists() else None
    return {"runs": runs, "scaling": scaling, "longer": longer, "candidates": candidates, "errors": errors,
            "failed": failed, "cold": cold,
            "meta": meta, "startup": startup}


# --------------------------------------------------------------------------- numbers
def quartiles(values):
    if len(values) == 1:
        return values[0], values[0], values[0]
    q1, median, q3 = statistics.quantiles(values, n=4, method="inclusive")
    return q1, median, q3


def series(run) -> dict:
    """The per-round times the ratios use: CPU time on the CPU (one torch thread, so it is the work
    itself, whatever the other jobs on the machine), wall-clock on a GPU."""
    if run.get("device", "cpu") == "cpu" and "cpu_times" in run:
        return run["cpu_times"]
    return run["times"]


def ratio(run, numerator, denominator):
    """Round-by-round ratio (q1, median, q3), or None when a scenario is missing."""
    times = series(run)
    if numerator not in times or denominator not in times:
        return None
    return quartiles([a / b for a, b in zip(times[numerator], times[denominator])])


def difference_ms(run, numerator, denominator):
    times = series(run)
    if numerator not in times or denominator not in times:
        return None
    return quartiles([(a - b) * 1e3 for a, b in zip(times[numerator], times[denominator])])


def fmt_ratio(r):
    if r is None:
        return "–"
    q1, median, q3 = r
    return f"{median:.3f}× [{q1:.2f}–{q3:.2f}]"


def fmt_ms(seconds):
    return f"{seconds * 1e3:.1f}" if seconds < 10 else f"{seconds * 1e3:.0f}"


def fmt_times(values):
    q1, median, q3 = quartiles(values)
    return f"{fmt_ms(median)} [{fmt_ms(q1)}–{fmt_ms(q3)}]"


def fmt_mb(value):
    return "–" if value is None else f"{value / 2**20:.1f}"


def verdict(value, limit):
    if value is None:
        return "not measured"
    if value <= limit:
        return "**holds**"
    return f"**missed** by {100 * (value / limit - 1):.1f}%"


# --------------------------------------------------------------------------- sections
def model_line(run) -> str:
    weights = "checkpoint" if run["checkpoint"] else "random weights"
    return (f"{run['model']}: {run['layers']} layers, {run['parameters'] / 1e6:.0f}M parameters ({weights}), "
            f"batch {run['batch']} × {run['seq']} tokens, {run['dtype']}")


def budget_rows(data) -> list[str]:
    rows = []
    for (library, model), run in data["runs"].items():
        if library != "nnterp":
            continue
        own = ratio(run, "nnterp.residuals", "nnsight.residuals")
        own_all = ratio(run, "nnterp.all", "nnsight.all")
        total = ratio(run, "nnterp.residuals", "hf.sdpa")
        native_total = ratio(run, "nnsight.residuals", "hf.sdpa")
        kept_total = ratio(run, "hooks.residuals", "hf.sdpa")
        kept = "" if kept_total is None else (
            f"; plain torch hooks keeping the same tensors, no library: {fmt_ratio(kept_total)}")
        every = ratio(run, "nnterp.all", "hf.eager")
        native_every = ratio(run, "nnsight.all", "hf.eager")
        rows.append(f"| wrapper's own cost: every residual value ÷ bare nnsight reading the same locations | {model} "
                    f"| {fmt_ratio(own)} | ≤ {LIMITS['own']} | {verdict(own and own[1], LIMITS['own'])} |")
        above = "" if own_all is None else (
            "within it" if own_all[1] <= LIMITS["own"] else f"{100 * (own_all[1] / LIMITS['own'] - 1):.1f}% above it")
        rows.append(f"| for reference, every value (eager) ÷ bare nnsight reading the same locations | {model} "
                    f"| {fmt_ratio(own_all)} | (the 1.03 is set for residual values) | {above} |")
        rows.append(f"| total: every residual value ÷ bare transformers forward (sdpa) | {model} | {fmt_ratio(total)} "
                    f"(bare nnsight alone: {fmt_ratio(native_total)}{kept}) | ≤ {LIMITS['residual']} "
                    f"| {verdict(total and total[1], LIMITS['residual'])} |")
        rows.append(f"| total: every value incl. attention interior ÷ bare eager forward | {model} | {fmt_ratio(every)} "
                    f"(bare nnsight alone: {fmt_ratio(native_every)}) | ≤ {LIMITS['all']} "
                    f"| {verdict(every and every[1], LIMITS['all'])} |")
        built = run.get("construction") or {}
        if "nnterp.wrap" in built and "nnsight.wrap" in built:
            ours, bare = built["nnterp.wrap"], built["nnsight.wrap"]
            delta = (ours["summary"]["median"] - bare["summary"]["median"]) * 1e3
            ok = delta <= LIMITS["construction_ms"] and ours["forward_calls"] == 0
            rows.append(
                f"| construction on a built model, minus a bare nnsight wrap; forward passes | {model} "
                f"| {delta:+.1f} ms ({fmt_ms(ours['summary']['median'])} vs {fmt_ms(bare['summary']['median'])} ms); "
                f"{ours['forward_calls']} forward calls | ≤ 20 ms, none | {'**holds**' if ok else '**missed**'} |")
            kept = (ours["parameters_kept"] == ours["parameters"] and ours["new_parameter_tensors"] == 0
                    and ours["modules_replaced"] == 0)
            rows.append(
                f"| no weight copied, changed or module replaced (data_ptr, values, module identity) | {model} "
                f"| {ours['parameters_kept']}/{ours['parameters']} parameters kept, "
                f"{ours['new_parameter_tensors']} new, {ours['modules_replaced']} modules replaced | all kept "
                f"| {'**holds**' if kept else '**missed**'} |")
    return rows


def peer_table(data, model) -> list[str]:
    runs = data["runs"]
    header = ("| library | logits ÷ bare sdpa | every residual value ÷ bare sdpa | every value ÷ bare eager "
              "| fwd+bwd, gradients of every block output ÷ bare fwd+bwd | residual values ÷ its own bare nnsight "
              "| construction (ms) | forward passes at construction | weights / modules | peak MB above the model: "
              "residual / every value |")
    lines = [header, "|" + "---|" * 10]
    ours = runs.get(("nnterp", model))
    if ours is not None:
        built = ours["construction"].get("nnsight.wrap", {})
        lines.append(
            f"| bare nnsight {ours['versions'].get('nnsight', '')} (native names) "
            f"| {fmt_ratio(ratio(ours, 'nnsight.logits', 'hf.sdpa'))} "
            f"| {fmt_ratio(ratio(ours, 'nnsight.residuals', 'hf.sdpa'))} "
            f"| {fmt_ratio(ratio(ours, 'nnsight.all', 'hf.eager'))} "
            f"| {fmt_ratio(ratio(ours, 'nnsight.grad', 'hf.grad'))} | 1 "
            f"| {fmt_ms(built['summary']['median']) if built else '–'} | {built.get('forward_calls', '–')} "
            f"| {_weights(built)} | {fmt_mb(ours['memory'].get('nnsight.residuals'))} / "
            f"{fmt_mb(ours['memory'].get('nnsight.all'))} |")
    for library in ("nnterp", "nnterp-1.3.0", "transformerlens"):
        run = runs.get((library, model))
        if run is None:
            error = data["errors"].get((library, model))
            if error is not None:
                lines.append(f"| {LABELS[library]} | cannot run this model: {error['error']} | | | | | | | | |")
            elif f"{library}--{model}" in data["failed"]:
                lines.append(f"| {LABELS[library]} | failed to run: see the notes | | | | | | | | |")
            continue
        built = run["construction"].get(f"{library}.wrap", {})
        own = ratio(run, f"{library}.residuals", "nnsight.residuals")
        lines.append(
            f"| {LABELS[library]} | {fmt_ratio(ratio(run, f'{library}.logits', 'hf.sdpa'))} "
            f"| {fmt_ratio(ratio(run, f'{library}.residuals', 'hf.sdpa'))} "
            f"| {fmt_ratio(ratio(run, f'{library}.all', 'hf.eager'))} "
            f"| {fmt_ratio(ratio(run, f'{library}.grad', 'hf.grad'))} "
            f"| {fmt_ratio(own) if own else 'no nnsight underneath'} "
            f"| {fmt_ms(built['summary']['median']) if built else '–'} | {built.get('forward_calls', '–')} "
            f"| {_weights(built)} | {fmt_mb(run['memory'].get(f'{library}.residuals'))} / "
            f"{fmt_mb(run['memory'].get(f'{library}.all'))} |")
    return lines


def _weights(built) -> str:
    if not built:
        return "–"
    copied = built["parameters"] - built["parameters_kept"] + built["new_parameter_tensors"]
    return (f"{'all kept' if copied == 0 else f'{copied} parameters copied or changed'}; "
            f"{built['modules_replaced']} modules replaced")


def absolute_table(data, model) -> list[str]:
    runs = {library: run for (library, m), run in data["runs"].items() if m == model}
    if not runs:
        return []
    libraries = [lib for lib in ("nnterp", "nnterp-1.3.0", "transformerlens") if lib in runs]
    scenarios = []
    for lib in libraries:
        scenarios += [s for s in series(runs[lib]) if s not in scenarios]
    lines = ["| scenario | " + " | ".join(f"in the {LABELS[lib]} process" for lib in libraries) + " |",
             "|---|" + "---|" * len(libraries)]
    for scenario in scenarios:
        cells = [fmt_times(series(runs[lib])[scenario]) if scenario in series(runs[lib]) else "" for lib in libraries]
        lines.append(f"| {scenario} | " + " | ".join(cells) + " |")
    peaks = ["| peak MB above the loaded models | " + " | ".join(
        ", ".join(f"{s} {fmt_mb(v)}" for s, v in runs[lib]["memory"].items()) for lib in libraries) + " |"]
    return lines + peaks


def scaling_table(data) -> list[str]:
    points = data["scaling"]
    if not points:
        return []
    lines = ["| layers | seq | batch | bare forward (ms) | bare nnsight, empty trace: + ms | nnterp logits: + ms "
             "| bare nnsight, every residual value: + ms | nnterp, every residual value: + ms "
             "| nnterp − bare nnsight, same reads (ms) | nnterp residual ÷ bare nnsight |",
             "|---|---|---|---|---|---|---|---|---|---|"]

    def key(item):
        run = item[1]
        return (run["layers"], run["seq"], run["batch"])

    for _, run in sorted(points.items(), key=key):
        bare = quartiles(series(run)["hf.sdpa"])[1] * 1e3
        cells = [difference_ms(run, name, "hf.sdpa") for name in
                 ("nnsight.trace", "nnterp.logits", "nnsight.residuals", "nnterp.residuals")]
        own = difference_ms(run, "nnterp.residuals", "nnsight.residuals")
        lines.append(f"| {run['layers']} | {run['seq']} | {run['batch']} | {bare:.1f} | "
                     + " | ".join("–" if c is None else f"{c[1]:+.1f}" for c in cells)
                     + f" | {'–' if own is None else f'{own[1]:+.1f} [{own[0]:+.1f}…{own[2]:+.1f}]'}"
                     + f" | {fmt_ratio(ratio(run, 'nnterp.residuals', 'nnsight.residuals'))} |")
    return lines


def longer_lines(data) -> list[str]:
    """The real model at a longer input: the totals, nnsight's, what keeping the tensors costs alone, and the cache
    against TransformerLens's run_with_cache (its own process, at the same input)."""
    out = []
    longer = data.get("longer") or {}
    peers = {(run["model"], run["batch"], run["seq"]): run for run in longer.values() if run["library"] != "nnterp"}
    for key, run in sorted(longer.items()):
        if run["library"] != "nnterp":
            continue
        cells = [("every residual value", "hf.sdpa", "residuals"), ("every value incl. attention interior (eager)",
                                                                    "hf.eager", "all")]
        rows = []
        for words, bare, kind in cells:
            kept = fmt_ratio(ratio(run, "hooks.residuals", bare)) if kind == "residuals" else "not measured"
            limit = LIMITS["residual" if kind == "residuals" else "all"]
            ours = ratio(run, f"nnterp.{kind}", bare)
            rows.append(f"| {words} ÷ bare {bare.split('.')[1]} forward | {kept} "
                        f"| {fmt_ratio(ratio(run, f'nnsight.{kind}', bare))} | {fmt_ratio(ours)} "
                        f"| {fmt_ratio(ratio(run, f'nnterp.{kind}', f'nnsight.{kind}'))} | ≤ {limit} "
                        f"| {verdict(ours and ours[1], limit)} |")
        out += [f"### A longer input: {model_line(run)}", "",
                "The same reads on the real model at a longer input, timed as above. The first column keeps the "
                "same residual tensors with plain torch hooks and no library: the cost of keeping them, since the "
                "forward can no longer reuse their buffers.", "",
                "| reads | plain torch hooks, no library | bare nnsight | nnterp | nnterp ÷ bare nnsight | limit "
                "| verdict |", "|---|---|---|---|---|---|---|"] + rows + [""]
        out += cache_lines(run, peers.get((run["model"], run["batch"], run["seq"])))
    return out


def cache_lines(run, peer) -> list[str]:
    """``model.cache`` beside a trace reading the same values, bare nnsight and TransformerLens's run_with_cache."""
    if "nnterp.cache_residuals" not in series(run):
        return []
    ms = lambda r, name: f"{statistics.median(series(r)[name]) * 1e3:.0f}" if r and name in series(r) else "–"
    rows = []
    for words, bare, kind, tl in (("every residual value", "hf.sdpa", "residuals", "transformerlens.residuals"),
                                  ("every value incl. attention interior (eager)", "hf.eager", "all",
                                   "transformerlens.all")):
        limit = LIMITS["residual" if kind == "residuals" else "all"]
        ours = ratio(run, f"nnterp.cache_{kind}", bare)
        theirs = ratio(peer, tl, bare) if peer else None
        theirs_eager = ratio(peer, tl, "hf.eager") if peer and bare != "hf.eager" else None
        tl_cell = fmt_ratio(theirs) + (f" (÷ bare eager: {fmt_ratio(theirs_eager)})" if theirs_eager else "")
        rows.append(f"| {words} ÷ bare {bare.split('.')[1]} forward | {fmt_ratio(ratio(run, f'nnsight.{kind}', bare))} "
                    f"| {fmt_ratio(ratio(run, f'nnterp.{kind}', bare))} | {fmt_ratio(ours)} "
                    f"| {fmt_ratio(ratio(run, f'nnterp.cache_{kind}', f'nnterp.{kind}'))} | {tl_cell} | ≤ {limit} "
                    f"| {verdict(ours and ours[1], limit)} |")
        wall = lambda r, a, b: fmt_ratio(ratio({"times": r["times"]}, a, b)) if r else "–"
        rows.append(f"| (wall-clock ratios, the same rounds) | {wall(run, f'nnsight.{kind}', bare)} "
                    f"| {wall(run, f'nnterp.{kind}', bare)} | {wall(run, f'nnterp.cache_{kind}', bare)} "
                    f"| {wall(run, f'nnterp.cache_{kind}', f'nnterp.{kind}')} | {wall(peer, tl, bare)} | | |")
        rows.append(f"| (CPU ms per call: bare {ms(run, bare)}; TransformerLens's process: bare {ms(peer, bare)}) "
                    f"| {ms(run, f'nnsight.{kind}')} | {ms(run, f'nnterp.{kind}')} | {ms(run, f'nnterp.cache_{kind}')} "
                    f"| | {ms(peer, tl)} | | |")
    if "nnterp.cache_all_named" in series(run):
        wall = lambda a, b: fmt_ratio(ratio({"times": run["times"]}, a, b))
        rows.append(f"| every value with those computed beside the forward named (`values=` every name) ÷ bare eager "
                    f"forward | | | {fmt_ratio(ratio(run, 'nnterp.cache_all_named', 'hf.eager'))} (wall-clock: "
                    f"{wall('nnterp.cache_all_named', 'hf.eager')}; CPU ms {ms(run, 'nnterp.cache_all_named')}) "
                    f"| {fmt_ratio(ratio(run, 'nnterp.cache_all_named', 'nnterp.all'))} | | | |")
    if "nnterp.tl_run_with_cache" in series(run):  # the TransformerLens API over the same model
        wall = lambda a, b: fmt_ratio(ratio({"times": run["times"]}, a, b))
        rows.append(f"| nnterp.transformerlens's `run_with_cache()` ÷ `model.cache(ids)` | | | "
                    f"{fmt_ratio(ratio(run, 'nnterp.tl_run_with_cache', 'nnterp.cache_all'))} (wall-clock: "
                    f"{wall('nnterp.tl_run_with_cache', 'nnterp.cache_all')}; CPU ms "
                    f"{ms(run, 'nnterp.tl_run_with_cache')}) | | | | |")
        rows.append(f"| nnterp.transformerlens's `run_with_hooks` (a hook on every resid_post) ÷ a trace saving every "
                    f"layer_output | | | {fmt_ratio(ratio(run, 'nnterp.tl_run_with_hooks', 'nnterp.resid_post_trace'))} "
                    f"(wall-clock: {wall('nnterp.tl_run_with_hooks', 'nnterp.resid_post_trace')}) | | | | |")
    notes = [f"- {note}" for note in run["notes"] if note.startswith("cache of")]
    load = f", load average {run['load'][0]:.1f} on {run['cores']} cores" if run.get("load") else ""
    when = (f"Measured {run['finished']}{load} (the CPU-time ratios are taken within each process), alone with: "
            f"`python -m benchmarks.run --long-only`." if run.get("finished") else "")
    if when and peer and peer.get("finished") and peer["finished"] != run.get("finished"):
        when += f" TransformerLens's process (its own job) finished {peer['finished']}."
    return [f"#### The cache at {run['batch']} × {run['seq']}: `model.cache` against `run_with_cache` and bare nnsight",
            "", "`model.cache(ids, values=...)` of the residual values (those of the rows above, the token embeddings, "
            "the final norm's output and the logits), and `model.cache(ids)` of every value on the eager model "
            "(which leaves out the values computed beside the forward, the per-head contributions and the norms' scales, "
            "as run_with_cache leaves out hook_result; its every-hook run computes hook_scale), "
            "beside a trace saving the same values, bare nnsight reading the same locations, and TransformerLens "
            "4.3's `run_with_cache` with the equivalent hooks and with every hook (its own process, eager attention "
            "forced, each ratio against that process's bare forward). The cache's tensors are checked identical to "
            "the trace's (the notes below).", "",
            "| reads | bare nnsight | nnterp trace | `model.cache` | cache ÷ trace | TransformerLens `run_with_cache` "
            "| limit | verdict (cache) |", "|---|---|---|---|---|---|---|---|"] + rows + [""] + notes + ([""] + [when] if when else []) + [""]


def cold_budget_rows(data) -> list[str]:
    """Construction on a built model, first in a fresh process and after, against bare nnsight's."""
    rows = []
    for model, result in (data.get("cold") or {}).items():
        ours, bare = result["libraries"]["nnterp"]["summary"], result["libraries"]["nnsight"]["summary"]
        for when, label in (("cold", "the first in a fresh process"), ("warm", "the ones after it")):
            delta = (ours[when]["median"] - bare[when]["median"]) * 1e3
            wall = (ours[f"{when}_wall"]["median"] - bare[f"{when}_wall"]["median"]) * 1e3
            rows.append(
                f"| construction on a built model, {label}, minus bare nnsight's ({result['samples']} processes each) "
                f"| {model} | {delta:+.1f} ms ({fmt_ms(ours[when]['median'])} vs {fmt_ms(bare[when]['median'])} ms; "
                f"wall-clock {wall:+.1f} ms: {fmt_ms(ours[f'{when}_wall']['median'])} vs "
                f"{fmt_ms(bare[f'{when}_wall']['median'])}) | ≤ {LIMITS['cold_ms']:.0f} ms "
                f"| {verdict(delta, LIMITS['cold_ms'])} |")
    return rows


def candidate_lines(data) -> list[str]:
    """The candidate core fixes of benchmarks/patches.py, measured against nnterp as it is."""
    found = data.get("candidates") or {}
    if not found:
        return []
    out = ["### Candidate core fixes, measured by monkeypatching (benchmarks/patches.py)", "",
           "Construction: aliases bound only on the envoys where each `rename` key can resolve "
           "(`patch_bind_where_resolvable`); not landed, since construction is within its budget as it is. "
           "Medians of interleaved rounds.", "",
           "| model | bare nnsight wrap (ms) | nnterp as it is | nnterp patched | nnterp with no alias at all "
           "| patched tree and printout identical |", "|---|---|---|---|---|---|"]
    for key, result in sorted(found.items()):
        if result.get("kind") != "construction":
            continue
        medians = {name: statistics.median(values) * 1e3 for name, values in result["times"].items()}
        bare = medians["bare nnsight"]
        cell = lambda name: f"{medians[name]:.1f} ({medians[name] - bare:+.1f})"
        out.append(f"| {result['model']} | {bare:.1f} | {cell('nnterp')} | "
                   f"{cell('nnterp, aliases bound where resolvable')} | {cell('nnterp without any alias (floor)')} "
                   f"| {result['same_tree'] and result['same_printout']} |")
    return out + [""]


def noise_line(data) -> str:
    """How much the same native measurement moves on this machine."""
    spreads = []
    for (library, model), run in data["runs"].items():
        r = ratio(run, "nnsight.residuals", "hf.sdpa")
        if r is not None:
            spreads.append(f"{LABELS[library]} process, {model}: {r[1]:.3f}× [{r[0]:.2f}–{r[2]:.2f}]")
    if not spreads:
        return ""
    return ("Noise: bare nnsight reading every residual value, against the bare forward, measured in each process "
            "(the same code, so any spread is the machine): " + "; ".join(spreads) + ".")


def section(data, title) -> list[str]:
    meta, runs = data["meta"], data["runs"]
    if title is None:
        gpu = meta.get("machine", {}).get("gpu")
        title = f"CUDA: {gpu}" if str(meta.get("device", "cpu")).startswith("cuda") else "CPU"
    models = []
    for _, model in runs:
        if model not in models:
            models.append(model)
    any_run = next(iter(runs.values()), None)
    out = [f"## {title}", ""]
    if any_run is None:
        return out + ["No results.", ""]
    machine = meta.get("machine", {})
    where = machine.get("gpu") or machine.get("cpu", "")
    out += [f"Reproduce: `{meta.get('command', 'python -m benchmarks.run')}` ({meta.get('minutes', '?')} min, "
            f"{meta.get('started', '')}, {where}, {meta.get('threads', 1) or 'default'} torch thread(s) per process, "
            f"{meta.get('jobs', 1)} process(es) at once, "
            f"load average {meta.get('load_before')} before, {meta.get('load_after')} after).", ""]
    clock = ("the process's CPU time per call (one torch thread, so waiting for a core shared with other jobs does "
             "not count; wall-clock times are in the raw results)" if str(meta.get("device", "cpu")) == "cpu"
             else "wall-clock time per call, the device synchronized before and after")
    out += ["Every ratio is the median of round-by-round ratios between calls made in the same round of the same "
            "process, with the interquartile range in brackets; rounds run every scenario in a fresh random order "
            f"and keep the fastest of their calls. Times are {clock}.", ""]
    line = noise_line(data)
    if line:
        out += [line, ""]
    out += ["### The budgets (docs/design.md §8)", "", "| budget | model | measured | limit | verdict |",
            "|---|---|---|---|---|"]
    out += budget_rows(data) + cold_budget_rows(data) + [""]
    for model in models:
        lead = runs.get(("nnterp", model)) or next(r for (l, m), r in runs.items() if m == model)
        out += [f"### Against the peers: {model_line(lead)}", ""]
        out += peer_table(data, model) + [""]
        tl = runs.get(("transformerlens", model))
        if tl is not None:
            grad = ratio(tl, "transformerlens.grad", "hf.grad_eager")
            out += [f"TransformerLens boots with eager attention forced onto the model, so it runs the eager kernel where "
                    f"the others run sdpa; against the bare eager forward its logits cost "
                    f"{fmt_ratio(ratio(tl, 'transformerlens.logits', 'hf.eager'))} and its residual values "
                    f"{fmt_ratio(ratio(tl, 'transformerlens.residuals', 'hf.eager'))}"
                    + (f", and its gradients against a bare eager forward and backward {fmt_ratio(grad)}." if grad else ".")
                    + (" Gradients are timed on the tiny model only (three forwards' worth per call)."
                       if grad is None else ""), ""]
    scaling = scaling_table(data)
    if scaling:
        out += ["### Scaling: is the overhead fixed per trace?", "",
                "The tiny Llama at batch 1, one axis moved at a time; + ms is the median extra time over the bare "
                "forward measured in the same round.", ""] + scaling + [""]
    out += longer_lines(data)
    out += candidate_lines(data)
    imports = meta.get("imports")
    if imports:
        out += ["### Import time (fresh process, median of 3)", "",
                "| library | seconds above `import torch, transformers` | `import torch, transformers` |",
                "|---|---|---|"]
        out += [f"| {name} | {v['library']:.2f} | {v['base']:.2f} |" for name, v in imports.items()] + [""]
    out += startup_lines(data.get("startup"))
    out += ["### Absolute times (ms per call, median over rounds [q1–q3])", ""]
    for model in models:
        out += [f"#### {model}", ""] + absolute_table(data, model) + [""]
    out += ["### Versions and notes", ""]
    for (library, model), run in runs.items():
        versions = ", ".join(f"{k} {v}" for k, v in run["versions"].items())
        out.append(f"- {LABELS[library]} process, {model}: {versions}; Python {run['python']}; "
                   f"{run['threads']} thread(s); {run['rounds']} rounds × {run['repeats']} calls.")
        for note in run["spec_notes"] + run["notes"]:
            out.append(f"  - {note}")
    for name in data["failed"]:
        out.append(f"- {name}: failed; rerun the command above to see why.")
    return out + [""]


def startup_lines(startup) -> list[str]:
    """Start-up: each command a fresh process, against `import nnsight` in the same rounds (benchmarks/startup.py)."""
    if not startup:
        return []
    trees = startup["trees"]
    names = list(trees)
    commits = ", ".join(f"{name}: {tree['commit']}" for name, tree in trees.items())
    out = ["### Start-up (a fresh process per command)", "",
           f"Whole-process CPU and wall seconds, median of {startup['rounds']} rounds, each round every command once "
           f"in a random order; the ratio is taken round by round against `import nnsight` "
           f"({commits}; {startup['finished']}, "
           f"load average {startup['load_average'][0]:.1f}). Reproduce: `python -m benchmarks.startup"
           f"{' --baseline OLD_CHECKOUT' if len(names) > 1 else ''}`.", "",
           "| command | " + " | ".join(f"{name}: CPU s (÷ import nnsight) | {name}: wall s" for name in names) + " |",
           "|---|" + "---|---|" * len(names)]
    for label in trees[names[0]]["commands"]:
        cells = []
        for name in names:
            row = trees[name]["commands"][label]
            cells += [f"{row['cpu']:.2f} ({row['cpu_ratio']:.3f}×)", f"{row['wall']:.2f}"]
        out.append(f"| `{label}` | " + " | ".join(cells) + " |")
    return out + [""]


INTRO = """# Benchmarks

What reading the insides of a model costs through nnterp, against a bare `transformers` forward,
bare nnsight reading the same locations, and the peers (nnterp 1.3.0 on nnsight 0.7.0;
TransformerLens 4.3's `TransformerBridge` with `run_with_cache`), on the same models and inputs.
Each library runs in its own process (the peers in their own virtual environments) and is timed
interleaved with the bare baselines in that process. This file is written by the suite; see
`benchmarks/README.md` for what each scenario reads and how to run it.
"""


def circuit_tracer_lines(path: Path = RECORDED / "circuit_tracer_side_by_side.json") -> list[str]:
    """nnterp's attribution_graph beside circuit-tracer 0.5's attribute (benchmarks/against_circuit_tracer)."""
    if not path.exists():
        return []
    data = json.loads(path.read_text())
    settings, machine = data["settings"], data["machine"]
    waited = statistics.median(r["wall_s"] / max(r["cpu_s"], 1e-9) for r in data["runs"]) > 1.5
    lines = ["## Attribution graphs against circuit-tracer 0.5", "",
             "`benchmarks/against_circuit_tracer/side_by_side.py`: nnterp's `attribution_graph` and circuit-tracer's "
             f"`attribute` ({data['circuit_tracer']}) on identical weights, transcoders and tokens, each call in a "
             "fresh process of its own environment, the two tools alternating. Time: the process's CPU time of the "
             f"call, one torch thread (wall time in the raw results); memory: the peak resident set above what was "
             "resident before the call, every weight read first. Both: batch_size "
             f"{settings['batch_size']}, update_interval {settings['update_interval']}, max_n_logits "
             f"{settings['max_n_logits']}, desired_logit_prob {settings['desired_logit_prob']}, position 0 kept. "
             f"Medians of {min(v['nnterp']['runs'] for v in data['medians'].values())} runs; {machine['cpus']} CPUs "
             f"({machine['processor']}), {machine['note']}: load average before a call "
             f"{statistics.median(r['load_before'] for r in data['runs']):.1f} (median)"
             + (", so the wall times mostly measure the wait" if waited else "")
             + ". What each tool's cost is made of: `benchmarks/against_circuit_tracer/README.md`.", "",
             "| row | active latents | selected | nnterp CPU s | circuit-tracer CPU s | nnterp wall s | "
             "circuit-tracer wall s | nnterp peak MiB | circuit-tracer peak MiB | same latents and logits |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for row, medians in data["medians"].items():
        ours, theirs = medians["nnterp"], medians["circuit-tracer"]
        same = "yes" if medians.get("same_selected_latents") and medians.get("same_logit_targets") else "no"
        lines.append(f"| {row}: {data['rows'][row]['title']} | {ours['active_latents']:,} | {ours['selected_latents']} "
                     f"| {ours['cpu_s']:.2f} | {theirs['cpu_s']:.2f} | {ours['wall_s']:.1f} | {theirs['wall_s']:.1f} "
                     f"| {ours['peak_rss_growth_mib']:.0f} | "
                     f"{theirs['peak_rss_growth_mib']:.0f} | {same} |")
    script = "python benchmarks/against_circuit_tracer/side_by_side.py"
    return lines + ["", "```bash", f"{script} inputs /tmp/ct-side-by-side",
                    f"{script} run /tmp/ct-side-by-side --repeats 3", "```", ""]


def write(out: Path, results: Path) -> None:
    lines = [INTRO]
    if results.exists():
        lines += section(load(results), None)
    if RECORDED.exists():
        # a folder of recorded runs has its meta.json (graphs/ holds attribution graphs, not runs)
        for folder in sorted(p for p in RECORDED.iterdir() if p.is_dir() and (p / "meta.json").exists()):
            if folder.resolve() != results.resolve():
                data = load(folder)
                gpu = data["meta"].get("machine", {}).get("gpu")
                lines += section(data, f"Recorded on {gpu or folder.name}")
    lines += circuit_tracer_lines()
    out.write_text("\n".join(lines).rstrip() + "\n")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("results", nargs="?", default=str(RECORDED / "cpu"))
    parser.add_argument("--out", default=str(HERE.parent / "BENCHMARKS.md"))
    args = parser.parse_args()
    write(Path(args.out), Path(args.results))


if __name__ == "__main__":
    main()
