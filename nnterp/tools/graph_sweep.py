"""An attribution graph on every family's tiny model, with random per-block transcoders: which build, which refuse.

    python -m nnterp.tools.graph_sweep [--family F ...] [--json out.json]

Each family's tiny model (eager attention) gets one random transcoder a block that reads what the MLP reads
(``mlp.hook_in``, the MLP's input; the block's input where no site serves that) and writes what it adds
(``hook_mlp_out``), sparse enough that a few latents fire at each position, and None at a block with no MLP; ``attribution_graph`` then builds the graph of one prompt. A family is ``complete`` (the graph is
built, which means its completeness held), ``incomplete`` (the tool refused the graph it built: its edges do not
add up, ``IncompleteGraph``, with the figure), ``refused`` (one sentence, the tool's ``ToolError``: the frozen
trace cannot take the family), or ``failed`` (any other exception: a bug). Prints one line a family, then the counts.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
import traceback

import torch

from nnterp import tiny
from nnterp.declare.engine import module_of
from nnterp.registry import registry
from nnterp.tools._common import ToolError
from nnterp.tools.graph import IncompleteGraph, attribution_graph, completeness_tolerance
from nnterp.tools.splice import LocalSAE

PROMPT = "The Eiffel Tower is in"


def transcoders(model, threshold: float = 0.6, read: str = "mlp.hook_in"):
    """Random transcoders, one a block, reading ``read`` and writing the block's mlp_output; None at a block with no
    MLP (a Mamba block). Where no site serves the MLP's input (a Nemotron-H block of an MLP alone), the default reads
    the block's input (``hook_resid_pre``), which the MLP's norm reads."""
    width = model.hidden_size

    def point(i):
        return "hook_resid_pre" if read == "mlp.hook_in" and model.serves("mlp_input", i) is not None else read

    return [LocalSAE.random(width, 2 * width, seed=i, d_out=width, hook_name=f"blocks.{i}.{point(i)}",
                            hook_name_out=f"blocks.{i}.hook_mlp_out", threshold=threshold)
            if model.serves("mlp_output", i) is None else None for i in range(model.num_layers)]


class Unchecked(Exception):
    """The independent check cannot read what the transcoders read with a plain hook on this family."""


def independent_completeness(model, graph, transcoders) -> float:
    """The graph's completeness recomputed without the tool: one plain forward of the transformers model, with
    torch hooks on each block's MLP module (its input, what the transcoders read at ``mlp.hook_in``; the block
    module's input where they read ``hook_resid_pre``; the call's positions, after any the blocks run ahead of them) and
    on lm_head (its output). Each computed target's clean input (a latent's encoder vector on that input; a top logit less the
    mean logit) against its constant plus the sum of its incoming edges: the largest residual relative to the sum of
    their magnitudes. Also checks each latent's activation, ``relu(input + b_enc)``, against the graph's, and that a
    block the plain forward does not run holds no latent."""
    hf = module_of(model)
    def reader(i):
        if str(getattr(getattr(transcoders[i], "cfg", None), "hook_name", "")).endswith(".hook_resid_pre"):
            return module_of(model.layers[i])
        mlp = module_of(model.layers[i].mlp)
        if mlp is module_of(model.layers[i]):
            raise Unchecked("a block's MLP is no module of its own, so no plain hook reads its input")
        return mlp

    mlps = {i: reader(i) for i in range(model.num_layers) if transcoders[i] is not None}
    head = hf.get_output_embeddings()
    if head is None:  # a wrapper that names no output embeddings: the standard lm_head
        head = module_of(model.lm_head)
    seen, calls, handles = {}, set(), []
    for i, mlp in mlps.items():
        def keep(module, args, kwargs, i=i):
            seen.setdefault(i, args[0] if args else next(iter(kwargs.values())))
        handles.append(mlp.register_forward_pre_hook(keep, with_kwargs=True))
        handles.append(module_of(model.layers[i]).register_forward_pre_hook(lambda *_, i=i: calls.add(i)))
    handles.append(head.register_forward_hook(lambda module, args, output: seen.setdefault("head", output)))
    try:
        with torch.no_grad():
            hf(input_ids=graph.token_ids[None])
    finally:
        for handle in handles:
            handle.remove()
    seq = graph.n_pos
    ahead = model.family.positions.ahead(model.config)  # positions the blocks run ahead of the call's (CPM-Ant's)
    reads = {}
    for i in mlps:
        x = _call_positions(seen.get(i), ahead + seq)
        if i not in calls or i not in seen:  # a block, or its MLP, the plain forward does not run (a cross-attention
            # block on text, Evolla's adapter returning the stream untouched): no latent is there
            if (graph.features[:, 0] == i).any():
                raise AssertionError(f"block {i}'s MLP does not run in a plain forward, yet the graph holds latents "
                                     "there")
            continue
        if x is None or x.numel() != (ahead + seq) * model.hidden_size:
            raise Unchecked(f"block {i}'s MLP module is called with {None if x is None else tuple(x.shape)}, not one "
                            "row a position of the stream's width")
        reads[i] = x.reshape(ahead + seq, model.hidden_size)[ahead:].float()
    head = _call_positions(seen["head"], seq)
    logits = head.reshape(-1, seq, head.shape[-1])[0, -1].float()
    n_features = graph.n_features
    token_start = n_features + graph.num_layers * seq
    logit_start = token_start + seq
    worst = 0.0
    for node in graph.computed.nonzero().flatten().tolist():
        if node >= logit_start:
            vocab = graph.logit_tokens[node - logit_start][0]
            expected = logits[vocab] - logits.mean()
        else:
            layer, pos, latent = graph.features[node].tolist()
            sae = transcoders[layer]
            expected = reads[layer][pos] @ sae.W_enc[:, latent].detach().float()
            activation = torch.relu(expected + sae.b_enc[latent].detach().float())
            if not torch.isclose(activation, graph.activations[node], rtol=1e-3, atol=1e-5):
                raise AssertionError(f"latent {(layer, pos, latent)}'s activation is {float(activation):.6g} in a "
                                     f"plain run, {float(graph.activations[node]):.6g} in the graph")
        row = graph.adjacency[node].double()
        constant = float(graph.constants[node])
        scale = float(row.abs().sum()) + abs(constant)
        residual = abs(float(expected) - constant - float(row.sum())) / max(scale, 1e-30)
        worst = residual if math.isnan(residual) else max(worst, residual)  # a NaN stays the answer
    return worst


def _call_positions(x, seq: int):
    """A one-row value's first ``seq`` positions, where the model ran more (Reformer pads the ids on the right to a
    multiple of its chunk length inside its forward); as it is otherwise."""
    if x is None or x.dim() < 2 or x.shape[-2] <= seq or x.shape[:-2].numel() != 1:
        return x
    return x[..., :seq, :]


def text_families() -> list[str]:
    """Every family the installed transformers serves (wrappers of image or audio models are not among them)."""
    return list(registry())


def sweep_one(family: str, prompt: str = PROMPT) -> dict:
    """{"family", "status": complete | incomplete | refused | failed, "detail", "completeness", "seconds"} for one family."""
    started = time.perf_counter()
    row = {"family": family, "status": "complete", "detail": "", "completeness": None}
    try:
        model = tiny.load(family, attn_implementation="eager")
        saes = transcoders(model)
        graph = attribution_graph(model, saes, prompt, progress=False, batch_size=128)
        full = graph.stats["completeness_over_every_active_latent"]
        rows = graph.computed
        drift = float((graph.values[rows] - graph.clean[rows]).abs().max() / graph.clean[rows].abs().max())
        row["completeness"], row["drift"] = full, drift
        row["detail"] = f"{graph.stats['active_latents']} latents, residual {full:.1e}, against the clean run {drift:.1e}"
        if graph.stats.get("blocks_not_run"):
            row["detail"] += f", blocks {graph.stats['blocks_not_run']} not run on this call"
        held = graph.stats.get("held_ahead_share")  # the MLP outputs held over positions ahead of the call's
        if held is not None:
            row["detail"] += f", the MLP outputs held ahead of the call carry up to {held:.2f} of a target"
        try:
            row["independent"] = independent_completeness(model, graph, saes)
            allowed = completeness_tolerance(model, len(graph.adjacency), graph.adjacency.dtype)
            row["detail"] += f", recomputed by plain hooks {row['independent']:.1e}"
            if not row["independent"] <= allowed:  # a NaN disagrees
                row["status"] = "disagrees"
        except Unchecked as why:
            row["detail"] += f", not recomputed ({why})"
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
    counts = {status: sum(row["status"] == status for row in rows) for status in ("complete", "disagrees", "incomplete", "refused",
                                                                 "failed")}
    print(f"{counts['complete']} of {len(rows)} complete, {counts['disagrees']} disagreeing with the plain hooks, "
          f"{counts['incomplete']} incomplete, {counts['refused']} refused, {counts['failed']} failed")
    if args.json:
        with open(args.json, "w") as handle:
            json.dump(rows, handle, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
