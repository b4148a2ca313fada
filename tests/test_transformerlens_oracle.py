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

from nnterp.errors import NnterpError
from oracle.transformerlens import (  # tests/ is on the path, as for conftest
    ARCHITECTURES, RECORD, compare, fingerprint, fingerprint_differs, nnterp_cache,
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
            **{f"blocks.{i}.attn.hook_q": "pre-scaled" for i in (0, 1)},
            **{f"blocks.{i}.{hook}": "unavailable" for i in (0, 1) for hook in ("ln2.hook_scale", "ln2.hook_normalized")}},
}
#: the keys every such model has (BLOOM's and OPT's refusals aside): the stream, the attention's layouts and the
#: norms' conventions
EVERYWHERE = ("blocks.1.hook_resid_post", "blocks.1.attn.hook_q", "blocks.1.attn.hook_attn_scores",
              "blocks.1.ln1.hook_scale", "blocks.1.ln1.hook_normalized", "ln_final.hook_normalized",
              "blocks.1.attn.hook_result", "blocks.1.hook_q_input")


@needs_transformer_lens
@pytest.mark.parametrize("label, family, overrides", ARCHITECTURES, ids=[a[0] for a in ARCHITECTURES])
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


#: the one name whose tensor differs between the generations: HookedTransformer fills masked scores with -inf, the
#: bridge keeps the kernel's mask (the dtype's minimum; on OPT it hooks the scores before the mask); nnterp gives
#: 3.x's, equal to the bridge's at every unmasked entry. BLOOM refuses the name (its ALiBi rows differ).
BRIDGE_MASK = {f"blocks.{i}.attn.hook_attn_scores" for i in (0, 1)}
BRIDGE_DIFFERENT = {label: set() if label == "bloom" else BRIDGE_MASK for label, _, _ in ARCHITECTURES}


@pytest.mark.parametrize("label, family, overrides", ARCHITECTURES, ids=[a[0] for a in ARCHITECTURES])
def test_every_bridge_key_is_its_tensor_or_refused(label, family, overrides):
    record = json.loads(RECORD.read_text())["architectures"][label]
    cache, rtol = nnterp_cache(family, overrides)
    assert set(record["different"]) == BRIDGE_DIFFERENT[label], record["different"]
    for key, theirs in record["fingerprints"].items():
        if key in record["refused"]:
            with pytest.raises((KeyError, NnterpError)):
                cache[key]
            continue
        ours = fingerprint(cache[key])
        if key in record["different"]:
            assert ours["masked_as"] == "-inf" and theirs["masked_as"] in ("min", None), key
            if theirs["masked_as"] is None:  # OPT's bridge: the scores before the mask, nothing to compare masked
                continue
        else:
            assert ours["masked_as"] == theirs["masked_as"], key
        why = fingerprint_differs(ours, theirs, rtol)
        assert why is None, f"{key}: {why}"
