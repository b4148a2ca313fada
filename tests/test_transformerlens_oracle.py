"""TransformerLens as the oracle of nnterp's TransformerLens names, on four tiny checkpoints loaded by both.

3.9 (the test extra installs it): every key of HookedTransformer's ``run_with_cache`` is TransformerLens's tensor in
nnterp's cache (allclose at the float32 tolerance of ``tests.oracle.transformerlens.tolerance``) or refused with a
reason; none is another quantity. 4.3's TransformerBridge cannot share an environment with 3.9 (one package name):
its run was recorded (``python -m tests.oracle.transformerlens --bridge --record`` with transformer-lens 4.3), and
every recorded key's tensor is held to nnterp's cache by its fingerprint."""

import importlib.util
import json
import os

import pytest
import torch

from nnterp.declare.errors import NnterpError
from oracle.transformerlens import (  # tests/ is on the path, as for conftest
    ARCHITECTURES, MORE_ARCHITECTURES, QK_NORM_ARCHITECTURES, RECORD, compare, fingerprint, fingerprint_differs, nnterp_cache,
)

needs_transformer_lens = pytest.mark.skipif(
    not os.environ.get("CI") and importlib.util.find_spec("transformer_lens") is None,
    reason="the test extra installs TransformerLens 3.9, the oracle (CI runs it: there a missing oracle fails)")

#: the names each architecture refuses, and the words of the reason: what nnterp cannot produce there
REFUSED = {
    "gpt2": {"hook_pos_embed": "position embeddings have no standard value"},
    "llama": {},
    "gemma2": {f"blocks.{i}.{norm}.{hook}": "no standard value" for i in (0, 1) for norm in ("ln1_post", "ln2_post")
               for hook in ("hook_scale", "hook_normalized")},
    "gpt_neox": {},
    "bloom": {**{f"embed.ln.{hook}": "no standard value" for hook in ("hook_scale", "hook_normalized")},
              **{f"blocks.{i}.attn.hook_attn_scores": "slope · query position" for i in (0, 1)},
              **{f"blocks.{i}.attn.hook_result": "unavailable" for i in (0, 1)}},
    "opt": {"hook_pos_embed": "position embeddings have no standard value",
            **{f"blocks.{i}.attn.hook_q": "applies * self.scaling" for i in (0, 1)},
            **{f"blocks.{i}.{hook}": "unavailable" for i in (0, 1) for hook in ("ln2.hook_scale", "ln2.hook_normalized")}},
}
#: a norm on the queries and keys before the rotary: TransformerLens's hook_q and hook_k (and its own q_norm and k_norm
#: hooks) are before it, a tensor nnterp has no value of
_QK_NORMED = {f"blocks.{i}.attn.{hook}": words for i in (0, 1) for hook, words in (
    ("hook_q", "applies self.q_norm(...)"), ("hook_k", "applies self.k_norm(...)"),
    *((f"{norm}.{scale}", "has no standard value") for norm in ("q_norm", "k_norm")
      for scale in ("hook_scale", "hook_normalized")))}
REFUSED["qwen3"] = _QK_NORMED
REFUSED["olmo3"] = {**_QK_NORMED, **{f"blocks.{i}.{norm}.{hook}": "unavailable" for i in (0, 1)
                                     for norm in ("ln1", "ln2") for hook in ("hook_scale", "hook_normalized")}}
#: the keys every such model has (BLOOM's and OPT's refusals aside): the stream, the attention's layouts and the
#: norms' conventions
EVERYWHERE = ("blocks.1.hook_resid_post", "blocks.1.attn.hook_q", "blocks.1.attn.hook_attn_scores",
              "blocks.1.ln1.hook_scale", "blocks.1.ln1.hook_normalized", "ln_final.hook_normalized",
              "blocks.1.attn.hook_result", "blocks.1.hook_q_input")


@needs_transformer_lens
@pytest.mark.parametrize("label, family, overrides", ARCHITECTURES + QK_NORM_ARCHITECTURES,
                         ids=[a[0] for a in ARCHITECTURES + QK_NORM_ARCHITECTURES])
def test_every_transformerlens_key_is_its_tensor_or_refused(label, family, overrides):
    found = compare(label, family, overrides)
    assert found.different == {}, found.line()
    assert set(found.refused) == set(REFUSED[label]), found.refused
    for key, words in REFUSED[label].items():
        assert words in found.refused[key]
    for key in EVERYWHERE:
        assert key in found.equal or key in REFUSED[label], key
    if label == "bloom":
        assert "hook_embed" in found.equal  # after the embedding LayerNorm, as TransformerLens has it


#: the kinds of refusal on the other architectures, by the name's pattern, and the words of the reason: routing
#: hooks whose tensor nnterp has not (per expert, or TransformerLens's own routing layouts, which fire only for the
#: experts a prompt reaches), the projections' outputs before a q/k norm, and a fused gate_up's halves
REFUSAL_KINDS = (
    (r"mlp\.experts\.\d+\.", "nnterp has no per-expert value"),
    (r"mlp\.hook_expert_(weights|indices)$", "has no standard value"),
    (r"attn\.hook_q$", "applies self.q_norm(...)"), (r"attn\.hook_k$", "applies self.k_norm(...)"),
    (r"attn\.[qk]_norm\.", "has no standard value"),
    (r"mlp\.hook_pre_linear$", "unavailable on this model"),
)


@needs_transformer_lens
@pytest.mark.parametrize("label, family, overrides", MORE_ARCHITECTURES, ids=[a[0] for a in MORE_ARCHITECTURES])
def test_no_transformerlens_key_is_another_tensor_on_the_other_architectures(label, family, overrides):
    import re

    found = compare(label, family, overrides)
    assert found.different == {}, found.line()
    for key, reason in found.refused.items():
        words = next((words for pattern, words in REFUSAL_KINDS if re.search(pattern, key)), None)
        assert words is not None and words in reason, (key, reason)
    assert {"blocks.1.hook_resid_post", "blocks.1.attn.hook_pattern", "blocks.1.hook_mlp_out"} <= set(found.equal)


#: the one name whose tensor differs between the generations: HookedTransformer fills masked scores with -inf, the
#: bridge keeps the kernel's mask (the dtype's minimum; on OPT it hooks the scores before the mask, which nnterp has
#: no value of). A cache made with transformerlens=4 gives the bridge's; BLOOM's bridge hooks BLOOM's own scores.
BRIDGE_SCORES = {f"blocks.{i}.attn.hook_attn_scores" for i in (0, 1)}
BRIDGE_REFUSED = {"opt": BRIDGE_SCORES}


@pytest.mark.parametrize("label, family, overrides", ARCHITECTURES, ids=[a[0] for a in ARCHITECTURES])
def test_every_bridge_key_is_its_tensor_or_refused(label, family, overrides):
    record = json.loads(RECORD.read_text())["architectures"][label]
    cache, rtol = nnterp_cache(family, overrides, transformerlens=4)
    assert record["different"] == {}, record["different"]
    assert BRIDGE_REFUSED.get(label, set()) <= set(record["refused"])
    for key in BRIDGE_SCORES - BRIDGE_REFUSED.get(label, set()):
        assert key in record["equal"] and record["fingerprints"][key]["masked_as"] == "min", key
    for key, theirs in record["fingerprints"].items():
        if key in record["refused"]:
            with pytest.raises((KeyError, NnterpError)):
                cache[key]
            continue
        ours = fingerprint(cache[key])
        assert ours["masked_as"] == theirs["masked_as"], key
        why = fingerprint_differs(ours, theirs, rtol)
        assert why is None, f"{key}: {why}"


def test_the_generations_differ_only_where_transformerlens_does():
    """On the same run, HookedTransformer's hook_attn_scores (3, the default) is the bridge's (4) with -inf where
    the bridge keeps the kernel's mask; every other name gives one tensor in both; OPT's bridge scores are refused,
    saying why."""
    label, family, overrides = ARCHITECTURES[1]  # llama
    third, _ = nnterp_cache(family, overrides)
    fourth, _ = nnterp_cache(family, overrides, transformerlens=4)
    scores3, scores4 = third["blocks.1.attn.hook_attn_scores"], fourth["blocks.1.attn.hook_attn_scores"]
    masked = scores4 <= torch.finfo(scores4.dtype).min / 2
    assert masked.any() and not torch.isinf(scores4).any()
    assert torch.isneginf(scores3[masked]).all() and torch.equal(scores3[~masked], scores4[~masked])
    assert torch.equal(third["blocks.1.attn.hook_q"], fourth["blocks.1.attn.hook_q"])
    opt = nnterp_cache("opt", {}, transformerlens=4)[0]
    with pytest.raises(KeyError, match="scores before the mask"):
        opt["blocks.0.attn.hook_attn_scores"]
    assert torch.isneginf(nnterp_cache("opt", {})[0]["blocks.0.attn.hook_attn_scores"]).any()


@pytest.mark.parametrize("label, family, overrides", ARCHITECTURES, ids=[a[0] for a in ARCHITECTURES])
def test_the_bridge_api_caches_the_recorded_bridge_s_tensors(label, family, overrides):
    """nnterp.transformerlens.TransformerBridge's run_with_cache holds, under every key TransformerBridge 4.3
    recorded, that key's tensor (by fingerprint), or leaves out what the record refused."""
    import os
    import tempfile

    from nnterp.transformerlens import TransformerBridge
    from oracle.transformerlens import PROMPT, _load, tolerance

    record = json.loads(RECORD.read_text())["architectures"][label]
    with tempfile.TemporaryDirectory() as parent:
        model, hf_model, tokenizer = _load(family, overrides, os.path.join(parent, "checkpoint"))
    bridge = TransformerBridge(model)
    tokens = tokenizer(PROMPT, return_tensors="pt")["input_ids"]
    with torch.no_grad():
        _, cache = bridge.run_with_cache(tokens)
    rtol = tolerance(hf_model.config, tokens.shape[-1])
    for key, theirs in record["fingerprints"].items():
        assert key in cache or key in record["refused"], key
        if key not in cache:
            continue
        why = fingerprint_differs(fingerprint(cache[key]), theirs, rtol)
        assert why is None, f"{key}: {why}"
