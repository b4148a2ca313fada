"""Every checkpoint a family names, built from its real config facts and checked against the contract.

``python -m nnterp.encyclopedia.realconfigs [--family NAME ...] [--dtype float32 --dtype bfloat16] [--memory-gb 8]
[--out FILE]`` builds each checkpoint that carries config facts with random weights: widths, heads, rotary, windows
and caps as released, the depth cut to the fewest blocks that hold one block of each layer type its pattern lists
(and the dense blocks before the first routed one; one dense block stands for those where they do not fit), the
experts and the vocabulary capped. Each checkpoint runs in its own ``nice`` subprocess, one at a time, under a memory ceiling: a build whose
weights alone (counted on the meta device) cannot fit under it is not started, and one that grows past it is
stopped; either is "not checked", with the reason, never a pass. Each build runs ``model.check()`` in each dtype;
the result, per checkpoint and dtype, is printed and written as JSON (``--out``; the committed run is
``nnterp/encyclopedia/realconfigs.json``, which FAMILIES.md and the pages read). Too heavy for every CI run: the
test suite checks a sample.
"""

from __future__ import annotations

import argparse
import copy
import gc
import itertools
import json
import os
import platform
import queue
import subprocess
import sys
import threading
import time
import warnings
from pathlib import Path

import torch
import transformers

from nnterp import tiny
from nnterp.contract.conformance import PROMPT
from nnterp.declare.family import Checkpoint
from nnterp.model import StandardizedTransformer
from nnterp.registry import auto_class, every_family
from nnterp.encyclopedia.configs import class_differences, config_class, sourced
# the record is read in .verdicts; FAMILIES.md (nnterp.cli.table) asks this module for its section
from nnterp.encyclopedia.verdicts import load, table_section  # noqa: F401
from nnterp.declare.vocabulary import EAGER

#: Caps on what only multiplies the cost: experts per block and vocabulary rows.
MAX_EXPERTS, MAX_VOCAB = 4, 512
EXPERT_KEYS = ("n_routed_experts", "num_experts", "num_local_experts", "moe_num_experts")
TOP_K_KEYS = ("num_experts_per_tok", "moe_k", "moe_topk", "moe_top_k", "top_k", "num_experts_per_token")
DENSE_FIRST_KEYS = ("first_k_dense_replace", "first_dense_layers", "num_dense_layers")
#: Vocabulary-sized tables besides the embeddings (Gemma 3n's per-layer embeddings).
VOCAB_KEYS = ("vocab_size", "vocab_size_per_layer_input")
#: The memory ceiling of one build (GB of resident memory) and the wall-clock limit of one checkpoint (s).
MEMORY_GB, TIMEOUT_S = 8.0, 900
#: What a process holds besides the weights (the interpreter, torch, transformers, the traces), in GB.
BASE_GB = 1.5
#: The command whose run is committed (its record is read in .verdicts).
COMMAND = "python -m nnterp.encyclopedia.realconfigs --out nnterp/encyclopedia/realconfigs.json"

#: Config keys of the blocks in each section of a looped stack, which add up to its depth.
SECTION_KEYS = ("n_input_layers", "n_recurrent_layers", "n_output_layers")
#: Config keys that give the number of blocks.
LAYER_KEYS = ("num_hidden_layers", "num_layers", "n_layer", "n_layers")
#: Config attributes that list each block's kind, as the config class computes them from the facts.
PATTERN_KEYS = ("layer_types", "layers_block_type", "block_types", "attention_layers")


def pattern_of(config) -> list | None:
    """Each block's kind, as the full config lists it (the config class fills it in when the facts do not); a
    wrapper's, as its language model's config lists it."""
    config = config.get_text_config() if hasattr(config, "get_text_config") else config
    for key in PATTERN_KEYS:
        try:
            value = getattr(config, key, None)
        except Exception:
            value = None
        if isinstance(value, (list, tuple)) and value:
            return list(value)
    return None


def _depth_of(facts: dict) -> int | None:
    """The depth the facts give, under the config's own name for it."""
    return next((facts[key] for key in LAYER_KEYS if isinstance(facts.get(key), int)), None)


def depth_for(facts: dict, types=None, least: int = 1) -> int:
    """The fewest blocks holding one block of each layer type the pattern lists, and the dense blocks first (at
    least ``least``)."""
    layers = _depth_of(facts) or 2
    types = types if types is not None else facts.get("layer_types")
    need = least
    if isinstance(types, (list, tuple)) and types:
        firsts = {}
        for index, kind in enumerate(types):
            firsts.setdefault(str(kind), index)
        need = max(need, max(firsts.values()) + 1)
    for key in DENSE_FIRST_KEYS:
        if isinstance(facts.get(key), int):
            need = max(need, facts[key] + 1)
    return min(layers, need)


def _experts_capped(facts: dict) -> dict:
    """``facts`` with at most MAX_EXPERTS experts and a top-k within them, in nested dicts too (DBRX's
    ffn_config)."""
    out = {key: _experts_capped(value) if isinstance(value, dict) else value for key, value in facts.items()}
    for key in EXPERT_KEYS:
        if isinstance(out.get(key), int) and out[key] > MAX_EXPERTS:
            out[key] = MAX_EXPERTS
            for top in TOP_K_KEYS:
                if isinstance(out.get(top), int):
                    out[top] = min(out[top], MAX_EXPERTS)
            for group in ("n_group", "topk_group"):
                if group in out:
                    out[group] = 1
    return out


def reduced(facts: dict, types=None, least: int = 1, dense: bool = True) -> dict:
    """The config facts with the depth cut (to cover ``types``, each block's kind) and the experts and vocabulary
    capped; without ``dense``, one dense block stands for the dense blocks before the first routed one."""
    out = dict(facts)
    if not dense:
        for key in DENSE_FIRST_KEYS:
            if isinstance(out.get(key), int) and out[key] > 1:
                out[key] = 1
        facts = out
    if isinstance(out.get("text_config"), dict):  # a composite config's facts (Emu3): the text config is cut
        out["text_config"] = reduced(out["text_config"], types, least, dense)
        return out
    depth = depth_for(facts, types, least)
    sections = [key for key in SECTION_KEYS if isinstance(out.get(key), int)]
    if sections:  # sections that must add up to the depth (Dory's input, recurrent, output): one block at each end
        for key in sections:
            out[key] = min(out[key], 1)
        if "n_recurrent_layers" in sections:
            out["n_recurrent_layers"] = max(1, depth - sum(out[key] for key in sections if key != "n_recurrent_layers"))
        depth = max(depth, sum(out[key] for key in sections))
    if isinstance(facts.get("attn_layer_period"), int) and isinstance(facts.get("attn_layer_offset"), int):
        # Zamba's shared block is tied across its hybrid layers: transformers needs two of them to tie
        depth = max(depth, facts["attn_layer_offset"] + facts["attn_layer_period"] + 1)
    if "num_hidden_layers" in facts or not any(key in facts for key in LAYER_KEYS):
        out["num_hidden_layers"] = depth
    if isinstance(out.get("num_kv_shared_layers"), int) and out["num_kv_shared_layers"]:
        # the last blocks reuse earlier blocks' keys and values (Gemma 3n): as many sharing blocks as shared ones
        out["num_kv_shared_layers"] = depth
        depth *= 2
        out["num_hidden_layers"] = depth
        if isinstance(out.get("layer_types"), (list, tuple)):
            out["layer_types"] = list(out["layer_types"])[:depth // 2] * 2
    if isinstance(out.get("attention_types"), list) and types:  # GPT-Neo's [[kinds, repeats]]: one of each kind
        kinds = list(dict.fromkeys(map(str, types)))
        out["attention_types"], depth = [[kinds, 1]], len(kinds)
        out["num_hidden_layers"] = depth
    for key in LAYER_KEYS:  # the config's own name for the depth (ExaoneConfig's num_layers)
        if isinstance(out.get(key), int):
            out[key] = depth
    stack, total = facts.get("num_layers_per_stack"), facts.get("num_hidden_layers")
    if isinstance(stack, int) and isinstance(total, int) and total % stack == 0:
        # blocks run as slots of recurrent stacks (HRM's H and L cycles): the stack is cut, the slots keep its multiple
        out["num_layers_per_stack"], out["num_hidden_layers"] = depth, depth * (total // stack)
    out = _per_layer_cut(out, _depth_of(facts), depth)
    out = _experts_capped(out)
    for key in VOCAB_KEYS:
        if isinstance(out.get(key), int) and out[key] > MAX_VOCAB:
            out[key] = MAX_VOCAB
    # an output vocabulary smaller than the input's (Apertus 1.5) stays smaller, and within it
    output, vocab = facts.get("output_vocab_size"), facts.get("vocab_size")
    if isinstance(output, int) and isinstance(vocab, int) and out["vocab_size"] != vocab:
        out["output_vocab_size"] = min(output, out["vocab_size"] // 2 if output < vocab else out["vocab_size"])
    if out.get("vocab_size") == MAX_VOCAB:
        for token in ("pad_token_id", "bos_token_id", "eos_token_id", "decoder_start_token_id"):
            if isinstance(out.get(token), int) and out[token] >= MAX_VOCAB:
                out[token] = MAX_VOCAB - 1
    return out


def _config(family, facts: dict):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        config = config_class(family)(**copy.deepcopy(facts))
    # a special id the class defaults to past the capped vocabulary (Emu3's pad_token_id) names the last row
    for held in {id(config): config, id(config.get_text_config()): config.get_text_config()}.values():
        for token in ("pad_token_id", "bos_token_id", "eos_token_id"):
            value, rows = getattr(held, token, None), getattr(held, "vocab_size", None)
            if isinstance(value, int) and isinstance(rows, int) and value >= rows:
                setattr(held, token, rows - 1)
    return config


def _weights(config, family=None) -> int:
    """The parameters and buffers of the model ``config`` builds, counted on the meta device."""
    with torch.device("meta"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = auto_class(family, config).from_config(config)
    return sum(t.numel() for t in model.parameters()) + sum(t.numel() for t in model.buffers())


def _blocks(facts: dict) -> int | None:
    """The reduced depth: a composite config's text config's, else the top's (Fuyu's top keeps the released
    depth beside a text config that the cut sized)."""
    return _depth_of(facts.get("text_config") or {}) or _depth_of(facts)


def _size(family, checkpoint) -> int:
    """The parameters of the reduced build (0 where the config does not build: it fails at once)."""
    try:
        kinds = pattern_of(_config(family, checkpoint.config))
        return _weights(_config(family, reduced(checkpoint.config, kinds)), family)
    except Exception:
        return 0


#: Facts every config keeps as given; where the built model's text config differs, the facts did not reach it.
KEPT_KEYS = ("hidden_size", "num_hidden_layers", "intermediate_size", "num_attention_heads")


def _not_reached(facts: dict, config) -> str | None:
    """Which facts the config built from them does not hold (a composite config whose text config keeps its
    defaults: MllamaConfig), in words, or None."""
    text = config.get_text_config() if hasattr(config, "get_text_config") else config
    facts = facts["text_config"] if isinstance(facts.get("text_config"), dict) else facts
    missed = [f"its text config keeps {key} {getattr(text, key)} where the reduced facts say {facts[key]}"
              for key in KEPT_KEYS
              if isinstance(facts.get(key), int) and isinstance(getattr(text, key, None), int)
              and getattr(text, key) != facts[key]]
    return "; ".join(missed) or None


def _per_layer_cut(facts: dict, released, depth: int, top: bool = True) -> dict:
    """``facts`` with each per-layer list cut to ``depth``: the pattern, any list a key names per layer or per
    block frequency (Laguna's heads per layer, MiniMax-M3's moe_layer_freq and its sparse attention's
    sparse_attention_freq) as long as the released depth, and a pattern string (Nemotron-H's "MEM*E...")."""
    out = dict(facts)
    for key, value in facts.items():
        per_layer = "layer" in key or key.endswith("_freq")
        if isinstance(value, (list, tuple)) and (top and key in PATTERN_KEYS or per_layer and len(value) == released):
            out[key] = list(value)[:depth]
        elif isinstance(value, str) and "pattern" in key and len(value) == released:
            out[key] = value[:depth]
        elif isinstance(value, dict) and not any(name in value for name in LAYER_KEYS):  # not a sub-model's config
            out[key] = _per_layer_cut(value, released, depth, top=False)
    return out


#: Config keys of a vision tower's depth.
VISION_DEPTH_KEYS = ("num_hidden_layers", "depth", "num_layers")


def _vision_cut(facts: dict) -> dict:
    """A wrapper's facts with its vision tower cut to one block: the run's calls are text-only, so the tower is
    built at its released width but never called."""
    vision = facts.get("vision_config")
    if not isinstance(vision, dict):
        return facts
    return {**facts, "vision_config": {**vision, **{key: 1 for key in VISION_DEPTH_KEYS
                                                    if isinstance(vision.get(key), int)}}}


def plan(family, checkpoint, dtype: torch.dtype, memory_gb: float = MEMORY_GB, least: int = 1) -> dict:
    """The reduced config facts that fit under ``memory_gb`` in ``dtype`` (the fewest blocks that cover each kind
    and the dense blocks first, else one dense block for those), or the reason none does: {"facts", "blocks",
    "gb"} or {"reason"}."""
    kinds = pattern_of(_config(family, checkpoint.config))
    size = torch.empty((), dtype=dtype).element_size()
    estimate = previous = None  # the dense build's size and facts, for the reason where none fits
    for dense in (True, False):
        facts = reduced(checkpoint.config, kinds, least, dense)
        if getattr(family, "wrapper", None):
            facts = _vision_cut(facts)
        try:
            config = _config(family, facts)
        except Exception:
            if previous is not None:  # one dense block for several is not this config's to take
                facts = previous
                break
            if not kinds or "layer_types" in facts:
                raise
            # a class whose default pattern is as long as the released depth (Zamba2): the cut pattern, given
            facts = dict(facts, layer_types=list(kinds)[:_blocks(facts)])
            config = _config(family, facts)
        missed = _not_reached(facts, config)
        if missed:
            return {"reason": f"the config class does not take the facts as given: {missed}",
                    "blocks": None, "gb": None}
        estimate, previous = _weights(config, family) * size / 1e9, facts
        if estimate + BASE_GB <= memory_gb:
            return {"facts": facts, "blocks": _blocks(facts), "gb": round(estimate, 2)}
    blocks = _blocks(facts)
    what = "one block" if blocks == 1 else f"{blocks} blocks (one of each layer type)"
    caps = [f"{MAX_EXPERTS} experts"] if _experts_capped(checkpoint.config) != checkpoint.config else []
    caps += [f"{MAX_VOCAB} vocabulary rows"] if facts.get("vocab_size") != checkpoint.config.get("vocab_size") else []
    capped = f", with {' and '.join(caps)}," if caps else ""
    return {"reason": f"{what} at the released width{capped} holds {estimate:.1f} GB of weights in "
                      f"{str(dtype).removeprefix('torch.')}, which with the process's {BASE_GB:g} GB is over this "
                      f"run's {memory_gb:g} GB ceiling",
            "blocks": blocks, "gb": round(estimate, 2)}


def check_one(family, checkpoint, dtype: torch.dtype, memory_gb: float = MEMORY_GB) -> dict:
    """Build one checkpoint's reduced config in ``dtype`` and run the contract; a dict of what happened, its
    ``status`` "passed", "failed" or "not checked" (with the reason)."""
    started = time.perf_counter()
    result = {"family": family.name, "checkpoint": checkpoint.repo, "dtype": str(dtype).removeprefix("torch.")}
    wrapper = getattr(family, "wrapper", None)
    if wrapper is not None:  # the contract on text-only calls: no image input is made at the released vision sizes
        result["calls"] = "text only"
        if wrapper.image_required:
            result.update(status="not checked", passed=False, reason=(
                f"its forward needs an image ({wrapper.image_required}), and this run makes no image input at the "
                "released vision sizes"))
            result["seconds"] = 0.0
            return result
    try:
        planned = plan(family, checkpoint, dtype, memory_gb)
        result.update(blocks=planned["blocks"], least_blocks=1, weights_gb=planned["gb"])
        if "reason" in planned:
            result.update(status="not checked", passed=False, reason=planned["reason"])
            return result
        config = _config(family, planned["facts"])
        result["kinds"] = sorted(set(map(str, pattern_of(config) or ["one kind"])))
        loads = (wrapper.loads if wrapper is not None and wrapper.loads else None) or family.loads
        load = EAGER if loads is None or EAGER in loads else loads[0]
        torch.manual_seed(0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                hf = auto_class(family, config).from_config(config, dtype=dtype, attn_implementation=load).eval()
            except ZeroDivisionError:  # an init that spaces values over the blocks (RWKV's): two blocks at least
                planned = plan(family, checkpoint, dtype, memory_gb, least=2)
                result.update(blocks=planned["blocks"], least_blocks=2, weights_gb=planned["gb"])
                if "reason" in planned:
                    result.update(status="not checked", passed=False, reason=planned["reason"])
                    return result
                config = _config(family, planned["facts"])
                hf = auto_class(family, config).from_config(config, dtype=dtype, attn_implementation=load).eval()
            # as the tiny recipes do: a constant the init leaves (a zero router, unit norms) would make checks vacuous
            tiny._perturb_constants(hf)
            tokenizer = tiny.tokenizer(min(config.get_text_config().vocab_size, 300))
            own = _own_forward_error(hf, tokenizer)
            if own:  # the model itself does not run: transformers' failure, not the contract's
                result.update(status="not checked", passed=False, reason=own)
                return result
            model = StandardizedTransformer(hf, tokenizer=tokenizer)
            report = model.check(raise_on_failure=False)
        failures = [f"{r.check} at {r.where}: {r.detail}" for r in report.failures]
        result.update(status="failed" if failures else "passed", passed=not failures, failures=failures[:5])
    except Exception as error:  # the run goes on; the checkpoint's line says why
        first = str(error).splitlines()[0] if str(error) else ""
        result.update(status="failed", passed=False, failures=[f"{type(error).__name__}: {first}"])
    finally:
        result["seconds"] = round(time.perf_counter() - started, 2)
        gc.collect()
    return result


def _own_forward_error(hf, tokenizer) -> str | None:
    """Why transformers' own forward of the build fails on the contract's prompt, without nnterp, or None."""
    try:
        with torch.no_grad():
            hf(**tokenizer(PROMPT, return_tensors="pt"))
    except Exception as error:
        first = str(error).splitlines()[0] if str(error) else ""
        return f"transformers' own forward of this build fails, without nnterp: {type(error).__name__}: {first}"
    return None


def _resident_gb(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/status") as handle:
            for line in handle:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1e6
    except OSError:
        pass
    return 0.0


#: A worker whose resident memory stays above this after a build is freed hands on to a fresh one (GB).
RESTART_GB = 3.0


def isolated(jobs, dtypes, memory_gb: float = MEMORY_GB, timeout_s: float = TIMEOUT_S):
    """``check_one`` for each (family, checkpoint) of ``jobs`` and each dtype, yielded as they finish: a ``nice``
    subprocess works through them one build at a time, freeing each before the next, and is stopped when its
    resident memory passes ``memory_gb`` or one checkpoint runs past ``timeout_s``; that checkpoint is then "not
    checked" for the dtypes it had not finished, with the reason, and a fresh subprocess goes on with the rest."""
    pending = list(jobs)
    env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    while pending:
        command = ["nice", "-n", "10", sys.executable, "-m", "nnterp.encyclopedia.realconfigs", "--memory-gb",
                   str(memory_gb), *[arg for d in dtypes for arg in ("--dtype", d)],
                   *[arg for family, checkpoint in pending for arg in ("--child", family.name, checkpoint.repo)]]
        child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
        lines: queue.Queue = queue.Queue()
        threading.Thread(target=lambda: [lines.put(line) for line in child.stdout] + [lines.put(None)],
                         daemon=True).start()
        current, done, began, peak, stopped = None, set(), time.perf_counter(), 0.0, None
        while True:
            try:
                line = lines.get(timeout=0.2)
            except queue.Empty:
                line = ""
            if line is None:
                break
            if line.startswith("{"):
                event = json.loads(line)
                if "start" in event:
                    current, done, began, peak = pending[0], set(), time.perf_counter(), 0.0
                elif "end" in event:
                    pending.pop(0)
                    current = None
                else:
                    done.add(event["dtype"])
                    yield dict(event, process_seconds=round(time.perf_counter() - began, 1))
            peak = max(peak, _resident_gb(child.pid))
            if current is not None and peak > memory_gb:
                stopped = f"its build grew past this run's {memory_gb:g} GB memory ceiling and was stopped"
            elif current is not None and time.perf_counter() - began > timeout_s:
                stopped = f"it ran past this run's {timeout_s:g} s limit and was stopped"
            if stopped:
                child.kill()
                break
        child.wait()
        if current is not None or (pending and not stopped and child.returncode):
            family, checkpoint = pending.pop(0)
            why = stopped or f"its process ended with status {child.returncode} before the check finished"
            for name in dtypes:
                if name not in done:
                    yield {"family": family.name, "checkpoint": checkpoint.repo, "dtype": name,
                           "status": "not checked", "passed": False, "reason": why, "peak_gb": round(peak, 2),
                           "process_seconds": round(time.perf_counter() - began, 1)}


def _work(jobs, dtypes, memory_gb: float) -> None:
    """The subprocess's side: each checkpoint's results as JSON lines between a start and an end line; it exits
    where a freed build leaves it holding more than RESTART_GB, and the parent starts a fresh one for the rest."""
    for name, repo in jobs:
        family = every_family()[name]
        checkpoint = next(c for c in family.checkpoints if c.repo == repo)
        print(json.dumps({"start": repo}), flush=True)
        for dtype in dtypes:
            print(json.dumps(check_one(family, checkpoint, getattr(torch, dtype), memory_gb)), flush=True)
        print(json.dumps({"end": repo}), flush=True)
        gc.collect()
        if _resident_gb(os.getpid()) > RESTART_GB:
            return


#: Keys of a config.json that say nothing of the model's shape or arithmetic: its files, its training, its
#: generation and its tokens (a dropout is off under eval, and special ids point into the capped vocabulary).
UNSHAPED_KEYS = frozenset({
    "_name_or_path", "transformers_version", "auto_map", "quantization_config", "compression_config", "use_cache",
    "initializer_range", "model_type", "task_specific_params", "tokenizer_class", "gradient_checkpointing",
    "bos_token_id", "eos_token_id", "pad_token_id", "sep_token_id", "decoder_start_token_id", "unsloth_fixed",
    "unsloth_version", "_attn_implementation", "attn_implementation", "output_attentions", "output_hidden_states",
    "return_dict", "torchscript", "use_return_dict", "summary_type", "summary_use_proj", "summary_activation",
    "summary_proj_to_labels", "summary_first_dropout", "_commit_hash", "id2label", "label2id",
})


def facts_of(config_json: dict, model_type: bool = False) -> dict:
    """The config facts of a checkpoint's config.json: every key that shapes the model, as released (its legacy
    rope_theta and rope_scaling included: the config class reads them), ``torch_dtype`` named ``dtype``; a nested
    config keeps its model_type, which picks its class (a wrapper's text and vision configs), and so does the
    top level with ``model_type``."""
    facts = {"architectures": config_json["architectures"]} if "architectures" in config_json else {}
    for key, value in config_json.items():
        if key == "model_type" and model_type:
            facts[key] = value
            continue
        if key in UNSHAPED_KEYS or "dropout" in key or key.endswith("pdrop"):
            continue
        if isinstance(value, dict) and key.endswith("_config") and key != "rope_config":
            value = facts_of(value, model_type=True)
        facts["dtype" if key == "torch_dtype" else key] = value
    return facts


def checkpoint_entry(repo: str, label: str, facts: dict, source: str) -> dict:
    """The checkpoint as its family's data file (``nnterp/families/checkpoints/<module>.json``) records it: the facts
    of the config.json read at ``source`` (the repository and path of the copy), all of its keys that shape the
    model, so not partial."""
    return Checkpoint(repo, label, facts, source=source, partial=False).as_data()


#: Config keys that name the checkpoint's classes and files, not its sizes.
NAMING_KEYS = frozenset({"architectures", "dtype", "torch_dtype", "model_type"})


def unbuilt(checkpoint) -> str | None:
    """Why a named checkpoint is not built from real config facts here, or None where it is."""
    if not checkpoint.config:
        return "no config facts are recorded in the family module"
    if checkpoint.not_buildable:
        return checkpoint.not_buildable
    if set(checkpoint.config) <= NAMING_KEYS:
        return ("its recorded config facts are only the architecture and the dtype: a build would check the config "
                "class's defaults, not the checkpoint's sizes")
    return None


def checkpoints(families=None, every: bool = False):
    """(family, checkpoint) for every checkpoint with real config facts that builds here (``every``: every one
    the family modules name)."""
    known = every_family()
    chosen = known if not families else {name: known[name] for name in families}
    for family in chosen.values():
        for checkpoint in family.checkpoints:
            if every or unbuilt(checkpoint) is None:
                yield family, checkpoint


def _line(result: dict) -> str:
    mark = {"passed": "ok  ", "failed": "FAIL", "not checked": "skip"}[result["status"]]
    detail = "" if result["status"] == "passed" else ": " + (result.get("reason") or "; ".join(result["failures"]))
    return (f"{mark} {result['family']} {result['checkpoint']} {result['dtype']} ({result.get('blocks')} blocks, "
            f"{result.get('seconds', '-')} s){detail}")


def seconds(results: list[dict]) -> float:
    """The builds' time: each checkpoint's, from its start in the subprocess to its last dtype's result."""
    walls = {(r["family"], r["checkpoint"]): r.get("process_seconds", r.get("seconds", 0)) for r in results}
    return round(sum(walls.values()))


def summary(results: list[dict]) -> dict:
    """Counts per status, overall and per dtype."""
    counts: dict = {}
    for result in results:
        for key in ("all", result["dtype"]):
            bucket = counts.setdefault(key, {"passed": 0, "failed": 0, "not checked": 0})
            bucket[result["status"]] += 1
    return counts


def run(families=None, dtypes=("float32", "bfloat16"), memory_gb: float = MEMORY_GB, timeout_s: float = TIMEOUT_S,
        progress=print, out=None, update: bool = False, repos=None) -> dict:
    """Every checkpoint (of ``families``; only ``repos`` where given), one subprocess at a time; the run's record
    (written to ``out`` after each checkpoint). With ``update``, the record already at ``out`` keeps its other
    checkpoints and these replace their own."""
    record = {"command": COMMAND, "memory_gb": memory_gb, "max_experts": MAX_EXPERTS, "max_vocab": MAX_VOCAB,
              "versions": f"transformers {transformers.__version__}, torch {torch.__version__}, "
                          f"Python {platform.python_version()}", "results": []}
    previous = load(out) if update and out else None
    named = [(f, c) for f, c in checkpoints(families, every=True) if not repos or c.repo in repos]
    order = {(f.name, c.repo): i for i, (f, c) in enumerate(checkpoints(every=True))}
    if previous:
        again = {(f.name, c.repo) for f, c in named}
        record["results"] = [r for r in previous["results"] if (r["family"], r["checkpoint"]) not in again]
    started = time.perf_counter()
    skipped = [{"family": f.name, "checkpoint": c.repo, "dtype": name, "status": "not checked", "passed": False,
                "reason": unbuilt(c)} for f, c in named if unbuilt(c) for name in dtypes]
    # the smallest builds first, so a run cut short has checked the most checkpoints
    built = sorted(((f, c) for f, c in named if not unbuilt(c)), key=lambda job: _size(*job))
    results = itertools.chain(skipped, isolated(built, dtypes, memory_gb, timeout_s))
    while True:
        try:
            result = next(results)
        except StopIteration:
            break
        except KeyboardInterrupt:  # stopped by hand: what it had not reached is recorded as such
            close_unreached(record, "the run was stopped before it reached this checkpoint", dtypes)
            if out:
                Path(out).write_text(json.dumps(record, indent=1) + "\n")
            raise
        record["results"].append(result)
        if progress:
            progress(_line(result), flush=True)
        record["results"].sort(key=lambda r: (order.get((r["family"], r["checkpoint"]), len(order)),
                                              dtypes.index(r["dtype"]) if r["dtype"] in dtypes else 0))
        record["seconds"] = seconds(record["results"])
        # the whole run's wall clock, imports and restarts included (an update keeps the full run's)
        record["wall_seconds"] = (previous or {}).get("wall_seconds") or round(time.perf_counter() - started)
        record["summary"] = summary(record["results"])
        if out:
            Path(out).write_text(json.dumps(record, indent=1) + "\n")
    return record


def close_unreached(record: dict, why: str, dtypes=("float32", "bfloat16")) -> dict:
    """A run stopped before its end: each named checkpoint it has no line for is "not checked", with ``why``."""
    have = {(r["family"], r["checkpoint"], r["dtype"]) for r in record["results"]}
    order = {(f.name, c.repo): i for i, (f, c) in enumerate(checkpoints(every=True))}
    for family, checkpoint in checkpoints(every=True):
        for name in dtypes:
            if (family.name, checkpoint.repo, name) not in have:
                record["results"].append({"family": family.name, "checkpoint": checkpoint.repo, "dtype": name,
                                          "status": "not checked", "passed": False,
                                          "reason": unbuilt(checkpoint) or why})
    record["results"].sort(key=lambda r: (order.get((r["family"], r["checkpoint"]), len(order)),
                                          dtypes.index(r["dtype"]) if r["dtype"] in dtypes else 0))
    record["summary"] = summary(record["results"])
    return record


def difference_lines(families=None) -> list[str]:
    """One line per key a recorded config's class does not keep as released (configs.class_differences), for every
    checkpoint with config facts, sourced or not; a config its class refuses is a line too."""
    lines = []
    for family, checkpoint in checkpoints(families, every=True):
        if not checkpoint.config:
            continue
        name = f"{family.name} {checkpoint.repo}" + ("" if sourced(checkpoint) else " (no source)")
        try:
            found = class_differences(family, checkpoint)
        except Exception as error:
            lines.append(f"{name}: the class refuses the facts ({type(error).__name__}: {error})")
            continue
        lines += [f"{name}: {'.'.join(d['path'])} released {d['released']!r}, built {d['built']!r} ({d['kind']})"
                  for d in found]
    return lines


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--family", action="append", help="only this family (repeatable)")
    parser.add_argument("--dtype", action="append", choices=("float32", "bfloat16", "float16"))
    parser.add_argument("--memory-gb", type=float, default=MEMORY_GB, help="the memory ceiling of one build")
    parser.add_argument("--timeout", type=float, default=TIMEOUT_S, help="the time limit of one checkpoint (s)")
    parser.add_argument("--out", help="write the run's record as JSON here")
    parser.add_argument("--checkpoint", action="append", metavar="REPO", help="only this checkpoint (repeatable)")
    parser.add_argument("--update", action="store_true",
                        help="re-run only the chosen families, keeping the other checkpoints' results in --out")
    parser.add_argument("--facts", nargs=4, metavar=("CONFIG_JSON", "REPO", "LABEL", "SOURCE"),
                        help="print the entry of a family's checkpoints data file for this config.json (SOURCE: "
                             "the repository and path it was read from), and stop")
    parser.add_argument("--differences", action="store_true",
                        help="print what each recorded config's class does not keep as released, and stop")
    parser.add_argument("--child", nargs=2, action="append", metavar=("FAMILY", "REPO"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.differences:
        for line in difference_lines(args.family):
            print(line)
        return
    if args.facts:
        path, repo, label, source = args.facts
        print(json.dumps(checkpoint_entry(repo, label, facts_of(json.loads(Path(path).read_text())), source), indent=2))
        return
    torch.set_num_threads(1)
    dtypes = tuple(args.dtype or ("float32", "bfloat16"))
    if args.child:
        _work(args.child, dtypes, args.memory_gb)
        return
    record = run(args.family, dtypes, args.memory_gb, args.timeout, out=args.out, update=args.update,
                 repos=args.checkpoint)
    counts = record["summary"].get("all", {})
    print(f"{counts.get('passed', 0)} of {len(record['results'])} checkpoint builds pass the contract, "
          f"{counts.get('failed', 0)} fail, {counts.get('not checked', 0)} not checked ({record['seconds']} s)")


if __name__ == "__main__":
    main()
