"""TransformerLens 3.9 as the oracle of nnterp's TransformerLens names: on four tiny checkpoints loaded by both,
every key of HookedTransformer's ``run_with_cache`` is TransformerLens's tensor in nnterp's cache (allclose at the
float32 tolerance of ``tests.oracle.transformerlens.tolerance``) or refused with a reason; none is another quantity."""

import os

import pytest

if os.environ.get("CI"):  # CI installs the test extra, which has it: a missing oracle fails there
    import transformer_lens  # noqa: F401
else:
    pytest.importorskip("transformer_lens", reason="the test extra installs TransformerLens 3.9, the oracle")

from tests.oracle.transformerlens import ARCHITECTURES, compare  # noqa: E402

#: the names each architecture refuses, and the words of the reason: what nnterp cannot produce there
REFUSED = {
    "gpt2": {"hook_pos_embed": "position embeddings have no standard value"},
    "llama": {},
    "gemma2": {f"blocks.{i}.{norm}.{hook}": "no standard value" for i in (0, 1) for norm in ("ln1_post", "ln2_post")
               for hook in ("hook_scale", "hook_normalized")},
    "gpt_neox": {},
}


@pytest.mark.parametrize("label, family, overrides", ARCHITECTURES, ids=[a[0] for a in ARCHITECTURES])
def test_every_transformerlens_key_is_its_tensor_or_refused(label, family, overrides):
    found = compare(label, family, overrides)
    assert found.different == {}, found.line()
    assert set(found.refused) == set(REFUSED[label]), found.refused
    for key, words in REFUSED[label].items():
        assert words in found.refused[key]
    # the keys every such model has: the stream, the attention's layouts and the norms' conventions
    for key in ("blocks.1.hook_resid_post", "blocks.1.attn.hook_q", "blocks.1.attn.hook_attn_scores",
                "blocks.1.ln1.hook_scale", "blocks.1.ln1.hook_normalized", "ln_final.hook_normalized",
                "blocks.1.attn.hook_result", "blocks.1.hook_q_input"):
        assert key in found.equal, key
