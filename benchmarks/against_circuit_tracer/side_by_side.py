"""nnterp's attribution_graph and circuit-tracer 0.5's attribute, timed side by side on identical weights,
transcoders and tokens, each call in a fresh process of its own environment.

    python benchmarks/against_circuit_tracer/side_by_side.py inputs FOLDER          # nnterp's python
    python benchmarks/against_circuit_tracer/side_by_side.py run FOLDER [--rows a,b] [--repeats 3]

``run`` starts, for every repeat and row, one process per tool (nnterp's on this python, circuit-tracer's on
``.venv-circuit-tracer/bin/python``, see README.md), in alternating order, and writes every run and the medians to
``benchmarks/recorded/circuit_tracer_side_by_side.json`` (``python -m benchmarks.report`` puts the table in
BENCHMARKS.md). Each process loads the model and the transcoders, then measures the one call: the process's CPU
time and the wall time, with one torch thread, and the peak resident memory above what was resident before the
call (``/proc/self/clear_refs`` resets the peak; freed buffers above 64 KiB go back to the system,
``MALLOC_MMAP_THRESHOLD_``, so the peak is what the call held). The transcoders are circuit-tracer's single-layer
format (``layer_{i}.safetensors``: W_enc [latents, d_model], W_dec [latents, d_model], b_enc, b_dec, ReLU), read by
circuit-tracer's ``load_transcoder_set`` on its side and as ``LocalSAE`` (the same tensors, W_enc transposed) on
nnterp's. Both graphs keep position 0's latents (circuit-tracer's ``zero_positions`` set empty, nnterp's None).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
RECORD = ROOT / "benchmarks" / "recorded" / "circuit_tracer_side_by_side.json"
CT_PYTHON = ROOT / ".venv-circuit-tracer" / "bin" / "python"
SHORT = "The Eiffel Tower is in the city of"
LONGER = "The Eiffel Tower is in the city of Paris, which is the capital of"
#: the rows: the model, where the transcoders read and write, their width, how sparse, the prompt, the cap
ROWS = {
    "a": dict(title="tiny Llama, every active latent", model="tiny-llama", reads="hook_resid_mid", width=256,
              b_enc=0.0, prompt=SHORT, max_feature_nodes=None),
    "b": dict(title="tiny Llama, ~13k active latents, cap 64", model="tiny-llama", reads="hook_resid_mid",
              width=4096, active=13000, prompt=LONGER, max_feature_nodes=64),
    "c": dict(title="SmolLM2-135M, 30 × 576 → 2048", model="smollm2", reads="ln2.hook_normalized", width=2048,
              b_enc=-3.0, prompt=SHORT, max_feature_nodes=128),
    "d": dict(title="SmolLM2-135M, 30 × 576 → 8192", model="smollm2", reads="ln2.hook_normalized", width=8192,
              b_enc=-3.0, prompt=SHORT, max_feature_nodes=128),
}
BATCH_SIZE, UPDATE_INTERVAL, MAX_N_LOGITS, DESIRED_LOGIT_PROB = 64, 4, 10, 0.95
WRITES = "hook_mlp_out"


# --------------------------------------------------------------------------- inputs (nnterp's python)
def make_inputs(folder: Path) -> None:
    import torch
    from safetensors.torch import save_file

    from nnterp import StandardizedTransformer, real, tiny
    from nnterp.tools.frozen import circuit_tracer_tokens

    folder.mkdir(parents=True, exist_ok=True)
    tiny_path = folder / "tiny-llama"
    if not (tiny_path / "config.json").exists():
        model, tokenizer = tiny.build("llama", num_hidden_layers=2)
        model.save_pretrained(tiny_path)
        tokenizer.save_pretrained(tiny_path)
    paths = {"tiny-llama": str(tiny_path), "smollm2": str(real.checkpoint_path())}
    loaded = {}
    for name, row in ROWS.items():
        if row["model"] not in loaded:
            loaded[row["model"]] = StandardizedTransformer(paths[row["model"]], attn_implementation="eager")
        model = loaded[row["model"]]
        ids = circuit_tracer_tokens(model, row["prompt"])
        d, width, L = model.hidden_size, row["width"], model.num_layers
        generator = torch.Generator().manual_seed(0)
        W_enc = [torch.randn(width, d, generator=generator) / d ** 0.5 for _ in range(L)]
        W_dec = [torch.randn(width, d, generator=generator) / width ** 0.5 for _ in range(L)]
        if "active" in row:  # one threshold over every block: about row["active"] latents fire on the prompt
            from nnterp.tools.splice import resolve_at
            points, reads = [resolve_at(model, f"blocks.{i}.{row['reads']}") for i in range(L)], []
            with torch.no_grad(), model.trace(ids[None]):
                for point in points:
                    reads.append(point.read().save())
            pre = torch.cat([(reads[i][0].float() @ W_enc[i].T).flatten() for i in range(L)])
            threshold = float(pre.topk(row["active"]).values[-1])
            b_enc = [torch.full((width,), -threshold + 1e-4) for _ in range(L)]
        else:
            b_enc = [torch.full((width,), row["b_enc"]) for _ in range(L)]
        out = folder / name
        out.mkdir(exist_ok=True)
        for i in range(L):
            save_file({"W_enc": W_enc[i].contiguous(), "W_dec": W_dec[i].contiguous(), "b_enc": b_enc[i],
                       "b_dec": torch.zeros(d)}, str(out / f"layer_{i}.safetensors"))
        with torch.no_grad(), model.trace(ids[None]):
            logits = model.logits[0, -1].save()
        spec = {**row, "model_path": paths[row["model"]], "tokens": ids.tolist(), "layers": L,
                "clean_logits": logits.float().tolist()}
        (out / "spec.json").write_text(json.dumps(spec))
        print(name, row["title"], "tokens", len(ids))


# --------------------------------------------------------------------------- one measured call (either python)
def _status(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) * 1024
    raise KeyError(field)


def _resident(*modules) -> None:
    """Every weight read once: safetensors files are memory-mapped, and a page first read during the call would
    count as the call's memory."""
    import torch

    with torch.no_grad():
        for module in modules:
            for tensor in [*module.parameters(), *module.buffers()]:
                float(tensor.float().sum())


def _measured(call):
    import gc

    gc.collect()
    Path("/proc/self/clear_refs").write_text("5")  # the peak resident set starts again from the current one
    before = _status("VmRSS")
    cpu, wall = time.process_time(), time.perf_counter()
    result = call()
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    return result, {"cpu_s": cpu, "wall_s": wall, "peak_rss_growth_mib": (_status("VmHWM") - before) / 2 ** 20}


def worker(tool: str, folder: Path) -> None:
    import torch

    torch.set_num_threads(1)
    spec = {**json.loads((folder / "spec.json").read_text()), "folder": str(folder)}
    L, ids = spec["layers"], torch.tensor(spec["tokens"])
    files = {i: str(folder / f"layer_{i}.safetensors") for i in range(L)}
    common = dict(max_feature_nodes=spec["max_feature_nodes"], batch_size=BATCH_SIZE, update_interval=UPDATE_INTERVAL)
    if tool == "nnterp":
        from safetensors.torch import load_file

        from nnterp import StandardizedTransformer
        from nnterp.tools.graph import attribution_graph
        from nnterp.tools.splice import LocalSAE

        model = StandardizedTransformer(spec["model_path"], attn_implementation="eager", dispatch=True)
        transcoders = []
        for i in range(L):
            w = load_file(files[i])
            transcoders.append(LocalSAE(w["W_enc"].T.contiguous(), w["b_enc"], w["W_dec"], w["b_dec"],
                                        f"blocks.{i}.{spec['reads']}", f"blocks.{i}.{WRITES}").requires_grad_(False))
        batch = {"input_ids": ids[None], "attention_mask": torch.ones_like(ids[None])}
        with torch.no_grad(), model.trace(batch):  # one forward before the call, as on circuit-tracer's side
            logits = model.logits[0, -1].save()
        logits_diff = float((logits - torch.tensor(spec["clean_logits"])).abs().max())
        _resident(model._module, *transcoders)
        graph, figures = _measured(lambda: attribution_graph(
            model, transcoders, batch, progress=False, max_n_logits=MAX_N_LOGITS, zero_positions=None,
            desired_logit_prob=DESIRED_LOGIT_PROB, **common))
        selected = sorted(map(tuple, graph.features.tolist()))
        figures.update(active_latents=graph.stats["active_latents"], nodes=len(graph.adjacency),
                       logits=[t for t, _ in graph.logit_tokens], logits_max_abs_diff_vs_nnterp=logits_diff)
    else:
        from circuit_tracer import attribute
        from circuit_tracer.replacement_model.replacement_model_transformerlens import TransformerLensReplacementModel
        from circuit_tracer.transcoder.single_layer_transcoder import load_transcoder_set

        model = _transformerlens_model(spec)
        transcoders = load_transcoder_set(files, "side-by-side", spec["reads"], WRITES, device=torch.device("cpu"),
                                          lazy_encoder=False, lazy_decoder=False)
        model._configure_replacement_model(transcoders)
        model.zero_positions = slice(0, 0)  # nnterp keeps position 0's latents and error
        with torch.no_grad():
            logits_diff = float((model(ids[None])[0, -1] - torch.tensor(spec["clean_logits"])).abs().max())
        _resident(model)
        graph, figures = _measured(lambda: attribute(ids, model, max_n_logits=MAX_N_LOGITS,
                                                     desired_logit_prob=DESIRED_LOGIT_PROB, **common))
        features = graph.active_features[graph.selected_features]
        selected = sorted(map(tuple, features.tolist()))
        figures.update(active_latents=len(graph.active_features), nodes=len(graph.adjacency_matrix),
                       logits=[t.vocab_idx for t in graph.logit_targets], logits_max_abs_diff_vs_nnterp=logits_diff)
    figures.update(selected_latents=len(selected), selected_hash=hash(tuple(selected)) & 0xFFFFFFFF,
                   threads=torch.get_num_threads())
    print("RESULT " + json.dumps(figures), flush=True)
    os._exit(0)  # circuit-tracer's __del__ raises inside TransformerLens 3.2.1 at exit; the figures are out


def _transformerlens_model(spec):
    """circuit-tracer's TransformerLens backend on the checkpoint's weights, read by transformers 4.57 from the same
    safetensors file (its config given field by field: the file's config.json is transformers 5's)."""
    import torch
    from circuit_tracer.replacement_model.replacement_model_transformerlens import TransformerLensReplacementModel
    from safetensors.torch import load_file
    from transformer_lens import HookedTransformerConfig
    from transformer_lens.pretrained.weight_conversions import convert_llama_weights
    from transformers import AutoTokenizer, LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    path = Path(spec["model_path"])
    raw = json.loads((path / "config.json").read_text())
    theta = raw.get("rope_theta") or (raw.get("rope_parameters") or {}).get("rope_theta", 10000.0)
    head_dim = raw.get("head_dim") or raw["hidden_size"] // raw["num_attention_heads"]
    config = LlamaConfig(vocab_size=raw["vocab_size"], hidden_size=raw["hidden_size"],
                         intermediate_size=raw["intermediate_size"], num_hidden_layers=raw["num_hidden_layers"],
                         num_attention_heads=raw["num_attention_heads"], head_dim=head_dim,
                         num_key_value_heads=raw["num_key_value_heads"], rms_norm_eps=raw["rms_norm_eps"],
                         rope_theta=theta, tie_word_embeddings=raw.get("tie_word_embeddings", False),
                         max_position_embeddings=raw["max_position_embeddings"])
    hf = LlamaForCausalLM(config)
    state = load_file(str(path / "model.safetensors"))
    if config.tie_word_embeddings:  # the file holds the tied matrix once, under either name
        state.setdefault("model.embed_tokens.weight", state.get("lm_head.weight"))
        state.setdefault("lm_head.weight", state["model.embed_tokens.weight"])
    missing, unexpected = hf.load_state_dict(state, strict=False)
    assert not missing and not unexpected, (missing, unexpected)
    tokenizer = PreTrainedTokenizerFast(tokenizer_file=str(path / "tokenizer.json"))
    special = tokenizer.convert_ids_to_tokens(spec["tokens"][0])
    # saved again by this version and read back: TransformerLens reads the name it was loaded from
    saved = Path(spec["folder"]) / "tokenizer4"
    PreTrainedTokenizerFast(tokenizer_file=str(path / "tokenizer.json"), bos_token=special, eos_token=special,
                            pad_token=special).save_pretrained(saved)
    tokenizer = AutoTokenizer.from_pretrained(saved)
    c = hf.config
    tl = HookedTransformerConfig(
        d_model=c.hidden_size, d_head=head_dim, n_heads=c.num_attention_heads, d_mlp=c.intermediate_size,
        n_layers=c.num_hidden_layers, n_ctx=max(128, len(spec["tokens"])), d_vocab=c.vocab_size, act_fn="silu",
        normalization_type="RMS", eps=c.rms_norm_eps, positional_embedding_type="rotary", rotary_dim=head_dim,
        rotary_base=theta, gated_mlp=True, final_rms=True, n_key_value_heads=c.num_key_value_heads,
        original_architecture="LlamaForCausalLM", rotary_adjacent_pairs=False, default_prepend_bos=False,
        tokenizer_prepends_bos=False, dtype=torch.float32, device="cpu")
    model = TransformerLensReplacementModel(tl, tokenizer=tokenizer)
    model.load_state_dict(convert_llama_weights(hf, tl), strict=False)  # the rotary tables are buffers it makes
    del hf, state
    return model


# --------------------------------------------------------------------------- the driver
def run(folder: Path, rows: list, repeats: int) -> None:
    env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", MALLOC_MMAP_THRESHOLD_="65536",
               PYTHONPATH=str(ROOT), TOKENIZERS_PARALLELISM="false")
    recorded = json.loads(RECORD.read_text()) if RECORD.exists() else {"runs": []}
    runs = [r for r in recorded["runs"] if r["row"] not in rows]
    for repeat in range(repeats):
        for row in rows:
            tools = ["nnterp", "circuit-tracer"] if (repeat + rows.index(row)) % 2 == 0 else \
                ["circuit-tracer", "nnterp"]
            for tool in tools:
                python = sys.executable if tool == "nnterp" else str(CT_PYTHON)
                load = os.getloadavg()[0]
                done = subprocess.run([python, __file__, "worker", tool, str(folder / row)], env=env, cwd=ROOT,
                                      capture_output=True, text=True)
                lines = [l for l in done.stdout.splitlines() if l.startswith("RESULT ")]
                if not lines:
                    raise SystemExit(f"{tool} on row {row} failed:\n{done.stderr[-3000:]}")
                figures = json.loads(lines[-1][len("RESULT "):])
                runs.append({"row": row, "tool": tool, "repeat": repeat, "load_before": load, **figures})
                print(row, tool, {k: figures[k] for k in ("cpu_s", "wall_s", "peak_rss_growth_mib",
                                                         "active_latents", "selected_latents")}, flush=True)
                _write(runs)
    _write(runs)


def _write(runs) -> None:
    medians = {}
    for row in ROWS:
        for tool in ("nnterp", "circuit-tracer"):
            mine = [r for r in runs if r["row"] == row and r["tool"] == tool]
            if mine:
                medians.setdefault(row, {})[tool] = {
                    key: statistics.median(r[key] for r in mine) for key in ("cpu_s", "wall_s", "peak_rss_growth_mib")}
                medians[row][tool].update(runs=len(mine), active_latents=mine[-1]["active_latents"],
                                          selected_latents=mine[-1]["selected_latents"], nodes=mine[-1]["nodes"])
        if row in medians and len(medians[row]) == 2:
            a, b = ([r for r in runs if r["row"] == row and r["tool"] == t][-1] for t in ("nnterp", "circuit-tracer"))
            medians[row]["same_selected_latents"] = a["selected_hash"] == b["selected_hash"]
            medians[row]["same_logit_targets"] = a["logits"] == b["logits"]
    record = {"rows": {k: {key: v for key, v in ROWS[k].items()} for k in ROWS},
              "settings": {"batch_size": BATCH_SIZE, "update_interval": UPDATE_INTERVAL, "max_n_logits": MAX_N_LOGITS,
                           "desired_logit_prob": DESIRED_LOGIT_PROB, "torch_threads": 1},
              "machine": {"cpus": os.cpu_count(), "processor": platform.processor() or platform.machine(),
                          "note": "shared with other sessions; CPU time is the process's own"},
              "circuit_tracer": "0.5.0, TransformerLens 3.2.1 backend, transformers 4.57.3, torch 2.13.0",
              "medians": medians, "runs": runs}
    RECORD.write_text(json.dumps(record, indent=2) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("command", choices=["inputs", "run", "worker"])
    parser.add_argument("args", nargs="+")
    parser.add_argument("--rows", default=",".join(ROWS))
    parser.add_argument("--repeats", type=int, default=3)
    options = parser.parse_args()
    if options.command == "inputs":
        make_inputs(Path(options.args[0]))
    elif options.command == "worker":
        worker(options.args[0], Path(options.args[1]))
    else:
        run(Path(options.args[0]), options.rows.split(","), options.repeats)


if __name__ == "__main__":
    main()
