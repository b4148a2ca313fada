"""The catalogue of decoder-only families in the installed transformers, against the registered families.

    python -m nnterp.cli.catalogue                 # what this release adds or changes; exit status 1 on a gap
    python -m nnterp.cli.catalogue --out CATALOGUE.md   # also write the catalogue: every causal-LM model type, what serves it
    python -m nnterp.cli.catalogue --write         # rewrite nnterp/families/index.json and the recorded module trees

Run on a new transformers release, the report lists what covering it takes: model types no family
declares (nor the exclusions below), registered model types the release no longer has, and in the
families' modeling files, module paths that moved (the tiny model's module tree against the one
recorded in ``catalogue.json``) and calls a family reads that the modeling no longer makes.
``--write`` records the installed release's trees and rewrites the index that lets ``family_for``
import one family module; each family keeps the first release recorded for it (a new one gets the
installed release).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

from nnterp import tiny
from nnterp.declare.conventions import COMMON_SITES
from nnterp.declare.locations import Call
from nnterp.declare.writeback import where_of
from nnterp.families import _index
from nnterp.registry import _scan, auto_class, declared_wrappers as declared, registry, unavailable

HERE = Path(__file__).resolve().parent
INDEX = HERE.parent / "families" / "index.json"
RECORDED = HERE / "catalogue.json"

#: Model types of MODEL_FOR_CAUSAL_LM_MAPPING_NAMES that are no decoder-only text LM, with why.
EXCLUDED = {
    'bart': 'decoder half of encoder-decoder model (cross-attention)',
    'bert': 'encoder-only (BERT-style, causal only via is_decoder)',
    'bert-generation': 'encoder-only (BERT-style, causal only via is_decoder)',
    'big_bird': 'encoder-only (BERT-style, causal only via is_decoder)',
    'bigbird_pegasus': 'decoder half of encoder-decoder model (cross-attention)',
    'blenderbot': 'decoder half of encoder-decoder model (cross-attention)',
    'blenderbot-small': 'decoder half of encoder-decoder model (cross-attention)',
    'camembert': 'encoder-only (BERT-style, causal only via is_decoder)',
    'data2vec-text': 'encoder-only (BERT-style, causal only via is_decoder)',
    'dots3_note': 'multimodal composite config (text = dots3_note_text)',
    'electra': 'encoder-only (BERT-style, causal only via is_decoder)',
    'ernie': 'encoder-only (BERT-style, causal only via is_decoder)',
    'fuyu': 'multimodal wrapper (text LM = persimmon)',
    'gemma3': 'multimodal wrapper (text = gemma3_text)',
    'gemma3n': 'multimodal wrapper (text = gemma3n_text)',
    'gemma4': 'multimodal wrapper (text = gemma4_text)',
    'gemma4_assistant': 'speculative-decoding draft model (needs inputs_embeds + shared_kv_states from a gemma4 backbone)',
    'gemma4_unified': 'multimodal wrapper (text = gemma4_unified_text)',
    'gemma4_unified_assistant': 'speculative-decoding draft model (needs inputs_embeds + shared_kv_states from the backbone)',
    'git': 'vision-language',
    'got_ocr2': 'vision-language wrapper',
    'llama4': 'multimodal composite config (text = llama4_text)',
    'marian': 'decoder half of encoder-decoder model (cross-attention)',
    'mbart': 'decoder half of encoder-decoder model (cross-attention)',
    'megatron-bert': 'encoder-only (BERT-style, causal only via is_decoder)',
    'moshi': 'audio model',
    'moss_transcribe_diarize': 'audio model',
    'musicgen': 'audio model',
    'musicgen_melody': 'audio model',
    'mvp': 'decoder half of encoder-decoder model (cross-attention)',
    'pegasus': 'decoder half of encoder-decoder model (cross-attention)',
    'phi4_multimodal': 'multimodal (vision+audio) wrapper around phi3-like LM',
    'plbart': 'decoder half of encoder-decoder model (cross-attention)',
    'prophetnet': 'decoder half of encoder-decoder model (cross-attention)',
    'qwen3_5': 'multimodal composite config (text = qwen3_5_text)',
    'qwen3_5_moe': 'multimodal composite config (text = qwen3_5_moe_text)',
    'qwen4_exp': 'multimodal composite config (text = qwen4_exp_text)',
    'rembert': 'encoder-only (BERT-style, causal only via is_decoder)',
    'roberta': 'encoder-only (BERT-style, causal only via is_decoder)',
    'roberta-prelayernorm': 'encoder-only (BERT-style, causal only via is_decoder)',
    'roc_bert': 'encoder-only (BERT-style, causal only via is_decoder)',
    'roformer': 'encoder-only (BERT-style, causal only via is_decoder)',
    'trocr': 'decoder half of encoder-decoder model (cross-attention)',
    'whisper': 'decoder half of encoder-decoder model (cross-attention)',
    'xlm': 'encoder-only (XLM MLM/CLM)',
    'xlm-roberta': 'encoder-only (BERT-style, causal only via is_decoder)',
    'xlm-roberta-xl': 'encoder-only (BERT-style, causal only via is_decoder)',
    'xlnet': 'permutation LM (two-stream), not decoder-only',
    'xmod': 'encoder-only (BERT-style, causal only via is_decoder)',
}


def installed() -> str:
    import transformers

    return transformers.__version__


def causal_lm_types() -> dict[str, str]:
    """Every model type the installed release maps to a causal-LM class, with the class."""
    from transformers.models.auto.modeling_auto import MODEL_FOR_CAUSAL_LM_MAPPING_NAMES

    return dict(sorted(MODEL_FOR_CAUSAL_LM_MAPPING_NAMES.items()))


def _tiny_model(family):
    """The family's tiny model without weights (the meta device), or on the CPU where meta cannot build it."""
    import torch

    config = tiny.config(family.name)
    try:
        with torch.device("meta"):
            return auto_class(family, config).from_config(config)
    except Exception:  # a model computing from its weights while it builds
        return auto_class(family, config).from_config(config)


def module_tree(model) -> list[str]:
    """The module paths, block and expert indices folded to ``*``."""
    return sorted({re.sub(r"\.\d+(?=\.|$)", ".*", name) for name, _ in model.named_modules() if name})


def _callees(family) -> set[str]:
    """What the family's sites read inside forwards: calls (``attention_interface(``, ``softmax(``) and
    assignments to local names (``query =``), as the patterns their modeling file must still hold."""
    found = set()
    for name in COMMON_SITES:
        site = family.sites.get(name) or COMMON_SITES[name]
        if not callable(getattr(site, "read", None)):
            continue  # chosen per checkpoint or per block: read on the model, not here
        where = where_of(site)
        if isinstance(where, Call):  # a call drilled into is looked for as the enclosing call
            name = re.escape((where.inside or where.callee).rsplit(".", 1)[-1])
            assigned = type(where).__name__ == "Assigned"  # a local name bound in the forward, not a call
            found.add(rf"\b{name}\s*=[^=]" if assigned else rf"\b{name}\s*\(")
    return found


def survey() -> dict:
    """The installed release against the registered families (see the module's docstring)."""
    types = causal_lm_types()
    served = registry()
    declared = {t: name for name, family in served.items() for t in family.model_types}
    recorded = json.loads(RECORDED.read_text()).get("modules", {}) if RECORDED.exists() else {}
    report = {"transformers": installed(), "families": len(served), "new": {}, "removed": {}, "moved": {},
              "calls": {}, "not_here": unavailable(), "trees": {}, "rows": []}
    tiny_types = {}
    for name, family in served.items():
        try:
            model = _tiny_model(family)
        except AttributeError as error:  # its config class is gone from this release
            report["removed"][name] = str(error)
            continue
        tiny_types[model.config.model_type] = name
        tree = module_tree(model)
        report["trees"][name] = tree
        if name in recorded and recorded[name] != tree:
            before, after = set(recorded[name]), set(tree)
            report["moved"][name] = {"gone": sorted(before - after), "new": sorted(after - before)}
        source = Path(sys.modules[type(model).__module__].__file__).read_text()
        missing = sorted(pattern for pattern in _callees(family) if not re.search(pattern, source))
        if missing:
            report["calls"][name] = missing
    for model_type, model_class in types.items():
        family = declared.get(model_type) or tiny_types.get(model_type)
        if family is None and model_type in _index.MODEL_TYPES:
            family = _index.MODEL_TYPES[model_type] + " (not on this release)"
        status = family or ("excluded: " + EXCLUDED[model_type] if model_type in EXCLUDED else None)
        if status is None:
            report["new"][model_type] = model_class
        report["rows"].append((model_type, model_class, status or "NEW: no family"))
    return report


def gaps(report) -> int:
    return sum(len(report[key]) for key in ("new", "removed", "moved", "calls"))


def render_report(report) -> str:
    lines = [f"transformers {report['transformers']}: {report['families']} registered families served, "
             f"{len(report['rows'])} causal-LM model types, {len(EXCLUDED)} excluded as no decoder-only text LM."]
    sections = (
        ("new", "model types no family declares", lambda k, v: f"{k} ({v}): add nnterp/families/{k}.py"),
        ("removed", "families whose model type this release does not have", lambda k, v: f"{k} ({v})"),
        ("moved", "families whose tiny model's module tree differs from the recorded one",
         lambda k, v: f"{k}: gone {', '.join(v['gone']) or '-'}; new {', '.join(v['new']) or '-'}"),
        ("calls", "families reading calls their modeling file no longer makes",
         lambda k, v: f"{k}: no match of {', '.join(v)}"),
    )
    for key, title, line in sections:
        if report[key]:
            lines += ["", f"{title} ({len(report[key])}):", *(f"  {line(k, v)}" for k, v in report[key].items())]
    if report["not_here"]:
        lines += ["", f"families served from a later release ({len(report['not_here'])}): "
                  + ", ".join(f"{k} ({v})" for k, v in report["not_here"].items())]
    count = gaps(report)
    lines += ["", "no gap: every decoder-only model type is served or excluded, and the families' modeling is the one "
              "recorded" if count == 0 else f"{count} gaps"]
    return "\n".join(lines)


def render_catalogue(report) -> str:
    lines = ["# Decoder-only families in transformers " + report["transformers"], "",
             "Generated by `python -m nnterp.cli.catalogue --out`: every model type the release maps to a causal-LM "
             "class, and the nnterp family serving it.", "", "| model type | causal-LM class | nnterp family |",
             "|---|---|---|"]
    lines += [f"| {t} | {c} | {s} |" for t, c, s in report["rows"]]
    return "\n".join(lines) + "\n"


def wrapper_names() -> list[str]:
    """Every wrapper declaration's name, served here or not."""
    return sorted(w.name for w in declared())


def index_text(found: dict, release: str) -> str:
    """``nnterp/families/index.json`` as ``--write`` writes it, one family a line: the families ``found`` (name ->
    Family, those this release imports) and, kept as the current index has them, those of a later release. A
    family keeps its first release (a new one gets ``release``); its entry names its module and its model types
    only where they are not its name."""
    later = set(_index.MODULES) - set(found)  # families of a later release, not imported here: kept as they are
    entries = {}
    for name in sorted([*found, *later]):
        if name in found:
            module, types = found[name].module.__name__.rsplit(".", 1)[-1], sorted(found[name].model_types)
        else:
            module, types = _index.MODULES[name], sorted(t for t, owner in _index.MODEL_TYPES.items() if owner == name)
        entry = {"since": _index.SINCE.get(name, release)}
        if module != name:
            entry["module"] = module
        if types != [name]:
            entry["model_types"] = types
        entries[name] = entry
    families = [f" {json.dumps(name)}: {json.dumps(entry)}" for name, entry in entries.items()]
    wrappers = [f" {json.dumps(name)}" for name in wrapper_names()]
    return "\n".join(['{"families": {', ",\n".join(families), '},', '"wrappers": [', ",\n".join(wrappers), "]}", ""])


def write_index(report) -> None:
    """Rewrite the index from the family modules, and record this release's module trees."""
    release = ".".join(report["transformers"].split(".")[:2])
    INDEX.write_text(index_text(_scan(), release))
    recorded = json.loads(RECORDED.read_text()) if RECORDED.exists() else {"modules": {}}
    recorded["transformers"] = report["transformers"]
    recorded["modules"] = {**recorded.get("modules", {}), **report["trees"]}
    RECORDED.write_text(json.dumps(recorded, indent=0, sort_keys=True) + "\n")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", help="write the catalogue (markdown) here")
    parser.add_argument("--write", action="store_true", help="rewrite the index and the recorded module trees")
    args = parser.parse_args(argv)
    report = survey()
    if args.write:
        write_index(report)
        report = survey()
    if args.out:
        Path(args.out).write_text(render_catalogue(report))
    print(render_report(report))
    return 1 if gaps(report) else 0


def command(args) -> None:
    """``nnterp catalogue [--out FILE] [--write]``."""
    sys.exit(main([*(["--out", args.out] if args.out else []), *(["--write"] if args.write else [])]))


if __name__ == "__main__":
    sys.exit(main())
