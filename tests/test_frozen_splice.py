"""Frozen traces (linear attribution) and SAEs spliced into the residual, on the toolkit's families."""

import pytest
import torch

from nnterp import tiny
from nnterp.tools.frozen import EMBED, MLP, freeze, frozen_logits
from nnterp.tools.frozen_probes import attribute
from nnterp.tools.splice import LocalSAE, splice

PROMPT = "The Eiffel Tower is in the city of"
FAMILIES = ("llama", "phi", "gpt_neox_japanese")


@pytest.fixture(scope="module", params=FAMILIES)
def model(request):
    return tiny.load(request.param, attn_implementation="eager")


@pytest.fixture(scope="module")
def frozen(model):
    return freeze(model, PROMPT)


def test_the_frozen_map_at_the_clean_inputs_is_the_clean_run(model, frozen):
    logits = frozen_logits(model, frozen, frozen.inputs)
    torch.testing.assert_close(logits, frozen.logits, rtol=1e-5, atol=1e-5)


def test_frozen_attribution_is_complete(model, frozen):
    token = int(frozen.logits[0, -1].argmax())
    split = attribute(model, PROMPT, token, frozen=frozen)
    assert len(split.terms) == (1 + model.num_layers) * frozen.seq_len
    # the terms and the constant add up to the logit of the frozen map, which is the clean run's
    assert abs(split.residual) < 1e-4 * max(1.0, abs(split.total))
    assert abs(split.total - split.clean) < 1e-4 * max(1.0, abs(split.clean))
    by_input = split.by_input()
    assert set(by_input) == {EMBED, *((MLP, i) for i in range(model.num_layers))}
    assert any(abs(value) > 1e-3 for value in by_input.values())


def test_the_frozen_map_is_linear(model, frozen):
    generator = torch.Generator().manual_seed(0)
    x = {k: torch.randn(v.shape, generator=generator) for k, v in frozen.inputs.items()}
    y = {k: torch.randn(v.shape, generator=generator) for k, v in frozen.inputs.items()}
    zero = frozen.zeros(1)
    a, b = 0.7, -1.3
    combined = {k: a * x[k] + b * y[k] for k in x}
    rows = {k: torch.cat([x[k], y[k], combined[k], zero[k]]) for k in x}
    fx, fy, fxy, f0 = frozen_logits(model, frozen, rows).double()
    torch.testing.assert_close(fxy - f0, a * (fx - f0) + b * (fy - f0), rtol=1e-4, atol=1e-4)
    assert not torch.allclose(fx, f0)


def test_unfrozen_the_map_is_not_linear(model, frozen):
    # the same check without freezing fails: the norms and the patterns depend on the inputs
    with model.trace([PROMPT] * 2):
        model.layers[0].layer_input = torch.cat([frozen.inputs[EMBED], 2 * frozen.inputs[EMBED]])
        logits = model.logits.save()
    assert not torch.allclose(logits[1] - logits[0], logits[0] - frozen_logits(
        model, frozen, frozen.zeros(1))[0], atol=1e-3)


@pytest.mark.parametrize("at", ["layers[1].layer_output", "blocks.0.hook_resid_post", "blocks.1.hook_resid_pre"])
def test_a_spliced_sae_keeps_the_logits_with_its_error_term(model, at):
    with model.trace(PROMPT):
        base = model.logits.save()
    spliced = splice(model, LocalSAE.random(model.hidden_size, 3 * model.hidden_size), at=at)
    with model.trace(PROMPT):
        latents = spliced.latents.save()
        logits = model.logits.save()
    assert torch.equal(logits, base)
    assert latents.shape[-1] == 3 * model.hidden_size and bool((latents >= 0).all())
    without_error = splice(model, spliced.sae, at=at, keep_error=False)
    with model.trace(PROMPT):
        without_error.latents
        changed = model.logits.save()
    assert not torch.allclose(changed, base)


def test_editing_the_latents_reaches_the_logits_in_place_or_assigned(model):
    sae = LocalSAE.random(model.hidden_size, 2 * model.hidden_size, hook_name="blocks.0.hook_resid_post")
    spliced = splice(model, sae)  # where: its cfg.hook_name
    assert spliced.path == "model.layers[0].layer_output"
    with model.trace(PROMPT):
        base = model.logits.save()
    with model.trace(PROMPT):
        spliced.latents[:] = 0
        in_place = model.logits.save()
    with model.trace(PROMPT):
        spliced.latents = torch.zeros_like(spliced.latents)
        assigned = model.logits.save()
    with model.trace(PROMPT):  # zero latents leave the error term (and the decoder's bias) as the residual
        x = model.layers[0].layer_output.save()
    with model.trace(PROMPT):
        model.layers[0].layer_output = x - sae.decode(sae.encode(x)) + sae.b_dec
        expected = model.logits.save()
    torch.testing.assert_close(in_place, assigned)
    torch.testing.assert_close(in_place, expected, rtol=1e-5, atol=1e-5)
    assert not torch.allclose(in_place, base)


def test_an_identity_sae_reconstructs_exactly(model):
    sae = LocalSAE.identity(model.hidden_size)
    with model.trace(PROMPT):
        base = model.logits.save()
    spliced = splice(model, sae, at="layers[0].layer_output", keep_error=False)
    with model.trace(PROMPT):
        latents = spliced.latents.save()
        logits = model.logits.save()
    torch.testing.assert_close(logits, base, rtol=1e-6, atol=1e-6)
    assert latents.shape[-1] == 2 * model.hidden_size


def test_splice_refuses_what_it_cannot_take(llama):
    with pytest.raises(ValueError, match="mlp_output is served on layers.{i}.mlp"):
        splice(llama, LocalSAE.identity(llama.hidden_size), at="layers[0].mlp_output")
    with pytest.raises(ValueError, match="block 9"):
        splice(llama, LocalSAE.identity(llama.hidden_size), at="blocks.9.hook_resid_post")


def test_splice_takes_transformerlens_names_of_the_tensors_the_model_holds(llama):
    assert splice(llama, LocalSAE.identity(llama.hidden_size), at="blocks.1.ln2.hook_out").path == \
        "model.layers[1].mlp_norm_output"  # TransformerLens 4.x's name of the norm's output
    assert splice(llama, LocalSAE.identity(llama.hidden_size), at="blocks.1.hook_mlp_in").path == \
        "model.layers[1].layer_mid"
    assert splice(llama, LocalSAE.identity(llama.hidden_size), at="ln_final.hook_out").path == \
        "model.final_norm_output"


def test_a_saelens_sae_splices_as_it_is(llama):
    sae_lens = pytest.importorskip("sae_lens")  # not a dependency: run where SAELens is installed
    config = sae_lens.StandardSAEConfig(d_in=llama.hidden_size, d_sae=4 * llama.hidden_size, dtype="float32",
                                        device="cpu")
    config.metadata.hook_name = "blocks.1.hook_resid_post"
    sae = sae_lens.StandardSAE(config)
    with torch.no_grad():
        for parameter in sae.parameters():
            parameter.normal_(0, 0.1, generator=torch.Generator().manual_seed(0))
    with llama.trace(PROMPT):
        base = llama.logits.save()
    spliced = splice(llama, sae)
    assert spliced.path == "model.layers[1].layer_output"
    with llama.trace(PROMPT):
        latents = spliced.latents.save()
        logits = llama.logits.save()
    assert torch.equal(logits, base) and latents.shape[-1] == 4 * llama.hidden_size


def test_a_gate_called_in_each_of_two_calls_of_a_module_replays_each_calls_clean_output():
    """A module run twice in one forward (a looped block): its second call's gates replay the second call's."""
    from nnterp.tools.frozen_gates import _gated

    class Gate(torch.nn.Module):
        def forward(self, x):
            return x * torch.sigmoid(x)

    gate = Gate()
    calls = {}
    x = torch.tensor([[1.0, -2.0]])
    with _gated([gate], calls, replay=False):
        first = gate(x)
        second = gate(first)
    assert len(calls[gate]) == 2
    y = torch.tensor([[3.0, 0.5], [0.0, 1.0]])  # two rows of other inputs: the gates are the clean run's
    with _gated([gate], calls, replay=True):
        replay_first, replay_second = gate(y), gate(y)
    assert torch.equal(replay_first, y * torch.sigmoid(x)) and torch.equal(replay_second, y * torch.sigmoid(first))
