"""TransformerLens as an oracle for nnterp's TransformerLens names: a tiny checkpoint of an nnterp recipe, saved
locally, loaded by both (``HookedTransformer.from_pretrained_no_processing`` with ``hf_model=`` and ``tokenizer=``),
run on the same tokens; every key of TransformerLens's ``run_with_cache`` is looked up in nnterp's cache under the
same name and is equal (allclose), refused (with nnterp's reason), or different.

``python -m tests.oracle.transformerlens`` prints the count per architecture (``--bridge``: against TransformerLens
4.x's TransformerBridge, in an environment with transformer-lens 4.3; ``--record`` writes those results to
bridge_4.3.json, which tests/test_transformerlens_oracle.py holds nnterp's names to).
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field

import torch

from nnterp.declare.errors import NnterpError
from nnterp.declare.vocabulary import BY_NAME

#: (label, nnterp family, recipe overrides): the four architectures, each a kind of block TransformerLens converts
ARCHITECTURES = (
    ("gpt2", "gpt2", {"n_ctx": 1024, "n_inner": None}),  # LayerNorm, learned positions, Conv1D (TransformerLens reads
    #                                                     n_ctx and takes the MLP 4 · n_embd wide)
    ("llama", "llama", {}),                     # RMSNorm, rotary, grouped keys (4 query heads, 2 key-value heads)
    ("gemma2", "gemma2", {"sliding_window": 4}),  # post-norms, softcaps, a sliding window shorter than the prompt
    ("gpt_neox", "gpt_neox", {}),               # parallel block, partial rotary
    # two families whose names mean something else: BLOOM (hook_embed after the embedding norm, ALiBi scores)
    # and OPT (queries pre-scaled in nnterp, not in TransformerLens)
    ("bloom", "bloom", {}),
    ("opt", "opt", {}),
)

#: architectures TransformerLens 3.9 converts whose attention normalises queries and keys before the rotary (per
#: head on Qwen3, over the whole projection on OLMo 3): its hook_q and hook_k are before that norm, nnterp's unrotated
#: queries and keys after it (compared with 3.9 only: the bridge's run was recorded on the architectures above)
QK_NORM_ARCHITECTURES = (
    ("qwen3", "qwen3", {}),
    ("olmo3", "olmo3", {}),
)

#: every other architecture TransformerLens 3.9 converts from a tiny recipe as it stands (compared with 3.9 only):
#: grouped keys, sliding windows, experts, a fused gate_up, q/k norms with experts, attention sinks
MORE_ARCHITECTURES = (
    ("mistral", "mistral", {}), ("qwen2", "qwen2", {}), ("mixtral", "mixtral", {}), ("phi3", "phi3", {}),
    ("olmoe", "olmoe", {}), ("apertus", "apertus", {}), ("gpt_oss", "gpt_oss", {}),
)

#: the default run first (a key is compared in the first run that has it), then the hooks that are off by default
#: turned on: use_attn_in and use_split_qkv_input exclude each other, and give ln1's hooks a head axis
SETTINGS = ({}, {"use_attn_result": True, "use_hook_mlp_in": True}, {"use_split_qkv_input": True},
            {"use_attn_in": True})

PROMPT = "The Eiffel Tower is in the city of Paris. The Colosseum"
EPS = torch.finfo(torch.float32).eps


@dataclass
class Comparison:
    label: str
    equal: list = field(default_factory=list)
    refused: dict = field(default_factory=dict)
    different: dict = field(default_factory=dict)
    #: the largest relative error among the equal keys, and the tolerance
    worst: float = 0.0
    allowed: float = 0.0

    def judge(self, key: str, cache, tensor, rtol: float) -> None:
        """Sort one TransformerLens key: refused by nnterp's cache, equal to its tensor, or different."""
        try:
            ours = cache[key]
        except (KeyError, NnterpError) as refusal:
            self.refused[key] = str(refusal)
            return
        _close.last = 0.0
        why = _close(ours, tensor, rtol)
        (self.equal.append(key) if why is None else self.different.__setitem__(key, why))
        self.worst = max(self.worst, _close.last if why is None else 0.0)

    def line(self) -> str:
        return (f"{self.label}: {len(self.equal)} equal, {len(self.refused)} refused, "
                f"{len(self.different)} different (largest relative error {self.worst:.2g}, allowed {self.allowed:.2g})")


def tolerance(config, positions: int = 32) -> float:
    """The relative error float32 allows between two implementations of the same arithmetic: each of the about 8
    reductions of a block (q, k, v, the scores, the mix, the output, the MLP's up and down) sums at most K terms,
    K the longest reduction (the hidden or MLP width, or the prompt's positions), and two orders of summation
    differ by up to K · eps of the magnitude; over the depth, plus the embedding and the final norm."""
    text = config.get_text_config()
    hidden = getattr(text, "hidden_size", None) or text.n_embd
    mlp = getattr(text, "intermediate_size", None) or getattr(text, "n_inner", None) or getattr(text, "ffn_dim", None) \
        or 4 * hidden
    depth = getattr(text, "num_hidden_layers", None) or text.n_layer
    return 8 * (depth + 1) * max(hidden, mlp, positions) * EPS


def _load(family: str, overrides: dict, directory: str):
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from nnterp import StandardizedTransformer, tiny

    model, tokenizer = tiny.build(family, attn_implementation="eager", **overrides)
    model.save_pretrained(directory)
    tokenizer.save_pretrained(directory)
    tokenizer = AutoTokenizer.from_pretrained(directory)  # TransformerLens reopens it by its name_or_path
    for_nnterp = AutoModelForCausalLM.from_pretrained(directory, attn_implementation="eager", dtype=torch.float32)
    for_tl = AutoModelForCausalLM.from_pretrained(directory, attn_implementation="eager", dtype=torch.float32)
    return StandardizedTransformer(for_nnterp.eval(), tokenizer=tokenizer), for_tl.eval(), tokenizer


def _close(ours: torch.Tensor, theirs: torch.Tensor, rtol: float) -> str | None:
    """None where ``ours`` is TransformerLens's tensor, else how it differs."""
    if not isinstance(ours, torch.Tensor):
        return f"not a tensor: {type(ours).__name__}"
    if tuple(ours.shape) != tuple(theirs.shape):
        return f"shape {list(ours.shape)}, TransformerLens's {list(theirs.shape)}"
    if not theirs.is_floating_point():
        return None if torch.equal(ours.to(theirs.dtype), theirs) else "other integers"
    ours = ours.to(theirs.dtype)
    masked = torch.isneginf(theirs)
    if not torch.equal(masked, torch.isneginf(ours)):
        return "-inf at other entries"
    ours, theirs = ours[~masked], theirs[~masked]
    scale = theirs.abs().max().item() if theirs.numel() else 0.0
    error = (ours - theirs).abs().max().item() if theirs.numel() else 0.0
    if error > rtol * max(scale, 1e-30):
        return f"max error {error:.3g} of magnitude {scale:.3g} (relative {error / max(scale, 1e-30):.3g}, allowed {rtol:.3g})"
    _close.last = error / max(scale, 1e-30)
    return None


def _local_names():
    """TransformerLens 3.9 reads a local directory's config.json, but from_pretrained first looks the name up in
    its list of official checkpoints: a local directory is its own official name."""
    from pathlib import Path

    from transformer_lens import loading_from_pretrained as loading

    official = loading.get_official_model_name
    if getattr(official, "_local", False):
        return

    def local_or_official(name):
        return name if (Path(name) / "config.json").exists() else official(name)

    local_or_official._local = True
    loading.get_official_model_name = local_or_official
    converted = loading.convert_hf_model_config

    def with_gemma2(name, **kwargs):
        config_file = Path(name) / "config.json"
        if config_file.exists() and "Gemma2ForCausalLM" in config_file.read_text():
            return _gemma2_config(name)
        return converted(name, **kwargs)

    loading.convert_hf_model_config = with_gemma2


def _gemma2_config(directory: str) -> dict:
    """TransformerLens 3.9 knows Gemma 2 only by its checkpoints' names (it writes google/gemma-2-2b's config out
    by hand): the same entries, read from the tiny checkpoint's config."""
    from transformers import AutoConfig

    config = AutoConfig.from_pretrained(directory)
    return {
        "d_model": config.hidden_size, "d_head": config.head_dim, "n_heads": config.num_attention_heads,
        "d_mlp": config.intermediate_size, "n_layers": config.num_hidden_layers,
        "n_ctx": config.max_position_embeddings, "eps": config.rms_norm_eps, "d_vocab": config.vocab_size,
        "act_fn": config.hidden_activation, "initializer_range": config.initializer_range,
        "normalization_type": "RMS", "rotary_base": config.rope_parameters["rope_theta"],
        "positional_embedding_type": "rotary", "use_attn_scale": True,
        "attn_scale": config.query_pre_attn_scalar ** 0.5, "n_key_value_heads": config.num_key_value_heads,
        "window_size": config.sliding_window, "use_local_attn": True,
        "attn_types": ["local" if kind == "sliding_attention" else "global" for kind in config.layer_types],
        "attn_scores_soft_cap": config.attn_logit_softcapping,
        "output_logits_soft_cap": config.final_logit_softcapping, "gated_mlp": True, "final_rms": True,
        "use_normalization_before_and_after": True, "original_architecture": "Gemma2ForCausalLM",
        "tokenizer_name": directory,
    }


PROBES = 4


def fingerprint(tensor: torch.Tensor) -> dict:
    """A tensor in a few numbers, enough to tell another quantity from it: its shape, its masked entries (-inf, or
    the dtype's minimum a kernel adds) and how they are written, and the projections of the rest (masked entries
    as 0), in float64, onto ``PROBES`` fixed Gaussian directions, with its norm."""
    values = tensor.detach().double()
    if not tensor.is_floating_point():
        masked = torch.zeros_like(values, dtype=torch.bool)
    else:
        masked = torch.isneginf(values) | (values <= torch.finfo(tensor.dtype).min / 2)
    values = values.masked_fill(masked, 0).flatten()
    probes = torch.randn(PROBES, values.numel(), generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    return {
        "shape": list(tensor.shape), "masked": int(masked.sum()),
        "masked_as": "-inf" if bool(torch.isneginf(tensor.double()).any()) else "min" if bool(masked.any()) else None,
        "mask_projection": (probes @ masked.flatten().double()).tolist(),
        "projections": (probes @ values).tolist(), "norm": float(values.norm()),
    }


def fingerprint_differs(ours: dict, theirs: dict, rtol: float) -> str | None:
    """None where two fingerprints are of one tensor (their masks written alike or not), else how they differ: a
    projection of the difference onto a unit-variance direction is at most its norm, so each may differ by
    rtol · norm · sqrt(numel)."""
    if ours["shape"] != theirs["shape"] or ours["masked"] != theirs["masked"]:
        return f"shape {ours['shape']} with {ours['masked']} masked, recorded {theirs['shape']} with {theirs['masked']}"
    if any(abs(a - b) > 1e-6 for a, b in zip(ours["mask_projection"], theirs["mask_projection"])):
        return "other entries masked"
    numel = max(1, int(torch.tensor(theirs["shape"]).prod()))
    allowed = rtol * max(theirs["norm"], 1e-30) * numel ** 0.5
    worst = max(abs(a - b) for a, b in zip(ours["projections"], theirs["projections"]))
    return None if worst <= allowed else f"projections differ by {worst:.3g}, allowed {allowed:.3g}"


def nnterp_cache(family: str, overrides: dict, transformerlens: int = 3):
    """nnterp's cache of the tiny checkpoint on the prompt, as the oracle reads it (its TransformerLens names in
    ``transformerlens``'s generation), and the tolerance."""
    with tempfile.TemporaryDirectory() as parent:
        import os

        model, hf_model, tokenizer = _load(family, overrides, os.path.join(parent, "checkpoint"))
    tokens = tokenizer(PROMPT, return_tensors="pt")["input_ids"]
    with torch.no_grad():
        # every value: run_with_cache's keys include hook_scale, which a cache of everything leaves out
        return (model.cache(tokens, values=list(BY_NAME), transformerlens=transformerlens),
                tolerance(hf_model.config, tokens.shape[-1]))


def compare_bridge(label: str, family: str, overrides: dict, prints: dict | None = None) -> Comparison:
    """The same comparison against TransformerLens 4.x's TransformerBridge (booted from the local directory)."""
    import os

    from transformer_lens.model_bridge import TransformerBridge


    result = Comparison(label)
    with tempfile.TemporaryDirectory() as parent:
        directory = os.path.join(parent, "checkpoint")
        model, hf_model, tokenizer = _load(family, overrides, directory)
        bridge = TransformerBridge.boot_transformers(directory, device="cpu", dtype=torch.float32)
    tokens = tokenizer(PROMPT, return_tensors="pt")["input_ids"]
    rtol = result.allowed = tolerance(hf_model.config, tokens.shape[-1])
    with torch.no_grad():
        # the bridge's names mean the bridge's tensors; every value, hook_scale's among them
        cache = model.cache(tokens, values=list(BY_NAME), transformerlens=4)
        _, theirs = bridge.run_with_cache(tokens)
    for key, tensor in theirs.items():
        if prints is not None:
            prints[key] = fingerprint(tensor)
        result.judge(key, cache, tensor, rtol)
    return result


def compare(label: str, family: str, overrides: dict) -> Comparison:
    import os

    from transformer_lens import HookedTransformer


    _local_names()
    result = Comparison(label)
    with tempfile.TemporaryDirectory() as parent:
        directory = os.path.join(parent, "checkpoint")  # a neutral name: TransformerLens reads architectures in names
        model, hf_model, tokenizer = _load(family, overrides, directory)
        tl = HookedTransformer.from_pretrained_no_processing(directory, hf_model=hf_model, tokenizer=tokenizer,
                                                            dtype=torch.float32, device="cpu")
    tokens = tokenizer(PROMPT, return_tensors="pt")["input_ids"]
    rtol = result.allowed = tolerance(hf_model.config, tokens.shape[-1])
    with torch.no_grad():
        # every value named: TransformerLens's use_attn_result (a setting below) computes hook_result, which a
        # cache of everything leaves out as run_with_cache's default does
        cache = model.cache(tokens, values=list(BY_NAME))
        for setting in SETTINGS:
            try:
                for name in setting:
                    getattr(tl, f"set_{name}")(True)
            except AssertionError:  # use_attn_in on grouped keys: TransformerLens refuses it
                continue
            _, theirs = tl.run_with_cache(tokens)
            for name in setting:
                getattr(tl, f"set_{name}")(False)
            for key, tensor in theirs.items():
                if key not in result.equal and key not in result.refused and key not in result.different:
                    result.judge(key, cache, tensor, rtol)
    return result


RECORD = __import__("pathlib").Path(__file__).with_name("bridge_4.3.json")

if __name__ == "__main__":
    import json
    import sys

    run = compare_bridge if "--bridge" in sys.argv else compare
    record = {}
    for label, family, overrides in ARCHITECTURES:
        prints = {}
        found = run(label, family, overrides, prints) if run is compare_bridge else run(label, family, overrides)
        record[label] = {"equal": sorted(found.equal), "refused": dict(sorted(found.refused.items())),
                         "different": dict(sorted(found.different.items())), "fingerprints": prints}
        print(found.line())
        for key, why in found.different.items():
            print("   different", key, why)
        if "-v" in sys.argv:
            for key, why in found.refused.items():
                print("   refused", key, why)
    if "--record" in sys.argv:  # TransformerLens 4.x cannot share CI's environment with 3.9: its results are kept
        import transformer_lens

        record = {"transformer_lens": transformer_lens.__version__ if hasattr(transformer_lens, "__version__")
                  else __import__("importlib.metadata").metadata.version("transformer-lens"),
                  "prompt": PROMPT, "architectures": record}
        import re

        text = json.dumps(record, indent=1, ensure_ascii=False)
        text = re.sub(r"\[\s+([^\[\]{}]*?)\s+\]", lambda found: "[" + " ".join(found.group(1).split()) + "]", text)
        RECORD.write_text(text + "\n")  # a list of numbers on one line
