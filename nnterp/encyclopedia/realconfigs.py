"""Every checkpoint a family names, built from its real config facts and checked against the contract.

``python -m nnterp.encyclopedia.realconfigs [--family NAME ...] [--dtype float32 --dtype bfloat16] [--out FILE]``
builds each checkpoint that carries config facts with random weights: widths, heads, rotary, windows and caps as
released, the depth cut to the fewest blocks that hold one block of each layer type its pattern lists (and the
dense blocks before the first routed one), the experts and the vocabulary capped. Each build runs
``model.check()`` in each dtype; the result, per checkpoint and dtype, is printed and written as JSON. Too heavy for
every CI run: the test suite checks a sample.
"""

from __future__ import annotations

import argparse
import json
import time
import warnings

import torch

#: Caps on what only multiplies the cost: experts per block and vocabulary rows.
MAX_EXPERTS, MAX_VOCAB = 4, 512
EXPERT_KEYS = ("n_routed_experts", "num_experts", "num_local_experts", "moe_num_experts")
TOP_K_KEYS = ("num_experts_per_tok", "moe_k", "top_k", "num_experts_per_token")
DENSE_FIRST_KEYS = ("first_k_dense_replace", "first_dense_layers", "num_dense_layers")


#: Config attributes that list each block's kind, as the config class computes them from the facts.
PATTERN_KEYS = ("layer_types", "layers_block_type", "block_types")


def pattern_of(config) -> list | None:
    """Each block's kind, as the full config lists it (the config class fills it in when the facts do not)."""
    for key in PATTERN_KEYS:
        try:
            value = getattr(config, key, None)
        except Exception:
            value = None
        if isinstance(value, (list, tuple)) and value:
            return list(value)
    return None


def depth_for(facts: dict, types=None) -> int:
    """The fewest blocks holding one block of each layer type the pattern lists, and the dense blocks first."""
    layers = facts.get("num_hidden_layers") or 2
    types = types if types is not None else facts.get("layer_types")
    need = 2
    if isinstance(types, (list, tuple)) and types:
        firsts = {}
        for index, kind in enumerate(types):
            firsts.setdefault(str(kind), index)
        need = max(need, max(firsts.values()) + 1)
    for key in DENSE_FIRST_KEYS:
        if isinstance(facts.get(key), int):
            need = max(need, facts[key] + 1)
    return min(layers, need)


def reduced(facts: dict, types=None) -> dict:
    """The config facts with the depth cut (to cover ``types``, each block's kind) and the experts and vocabulary
    capped."""
    out = dict(facts)
    depth = depth_for(facts, types)
    out["num_hidden_layers"] = depth
    if isinstance(out.get("layer_types"), (list, tuple)):
        out["layer_types"] = list(out["layer_types"])[:depth]
    for key in EXPERT_KEYS:
        if isinstance(out.get(key), int) and out[key] > MAX_EXPERTS:
            out[key] = MAX_EXPERTS
            for top in TOP_K_KEYS:
                if isinstance(out.get(top), int):
                    out[top] = min(out[top], MAX_EXPERTS)
            for group in ("n_group", "topk_group"):
                if group in out:
                    out[group] = 1
    if isinstance(out.get("vocab_size"), int) and out["vocab_size"] > MAX_VOCAB:
        out["vocab_size"] = MAX_VOCAB
        for token in ("pad_token_id", "bos_token_id", "eos_token_id", "decoder_start_token_id"):
            if isinstance(out.get(token), int) and out[token] >= MAX_VOCAB:
                out[token] = MAX_VOCAB - 1
    return out


def check_one(family, checkpoint, dtype: torch.dtype) -> dict:
    """Build one checkpoint's reduced config in ``dtype`` and run the contract; a dict of what happened."""
    from transformers import AutoModelForCausalLM

    from nnterp import StandardizedTransformer, tiny

    from .pages import config_class

    started = time.perf_counter()
    result = {"family": family.name, "checkpoint": checkpoint.repo, "dtype": str(dtype).removeprefix("torch.")}
    try:
        cls = config_class(family)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            facts = reduced(checkpoint.config, pattern_of(cls(**checkpoint.config)))
            result["blocks"] = facts["num_hidden_layers"]
            config = cls(**facts)
        result["kinds"] = sorted(set(map(str, pattern_of(config) or ["one kind"])))
        load = "eager" if family.loads is None or "eager" in family.loads else family.loads[0]
        torch.manual_seed(0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            hf = AutoModelForCausalLM.from_config(config, dtype=dtype, attn_implementation=load).eval()
            model = StandardizedTransformer(hf, tokenizer=tiny.tokenizer(min(config.vocab_size, 300)))
            report = model.check(raise_on_failure=False)
        failures = [f"{r.check} at {r.where}: {r.detail}" for r in report.failures]
        result.update(passed=not failures, failures=failures[:5])
    except Exception as error:  # the run goes on; the checkpoint's line says why
        result.update(passed=False, failures=[f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}"])
    result["seconds"] = round(time.perf_counter() - started, 2)
    return result


def run(families=None, dtypes=("float32", "bfloat16"), progress=print) -> list[dict]:
    from ..family import registry

    chosen = registry() if not families else {name: registry()[name] for name in families}
    results = []
    for family in chosen.values():
        for checkpoint in family.checkpoints:
            if not checkpoint.config or checkpoint.not_buildable:
                continue
            for name in dtypes:
                result = check_one(family, checkpoint, getattr(torch, name))
                results.append(result)
                if progress:
                    mark = "ok " if result["passed"] else "FAIL"
                    progress(f"{mark} {family.name} {checkpoint.repo} {result['dtype']} ({result.get('blocks')} blocks, "
                             f"{result['seconds']} s){'' if result['passed'] else ': ' + '; '.join(result['failures'])}")
    return results


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--family", action="append", help="only this family (repeatable)")
    parser.add_argument("--dtype", action="append", choices=("float32", "bfloat16", "float16"))
    parser.add_argument("--out", help="write the results as JSON here")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    results = run(args.family, tuple(args.dtype or ("float32", "bfloat16")))
    passed = sum(1 for r in results if r["passed"])
    print(f"{passed} of {len(results)} checkpoint builds pass the contract")
    if args.out:
        with open(args.out, "w") as handle:
            json.dump(results, handle, indent=1)


if __name__ == "__main__":
    main()
