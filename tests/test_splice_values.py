"""SAEs and transcoders spliced at any served value, by standard path or TransformerLens name, on three families."""

import pytest
import torch

from nnterp import tiny
from nnterp.tools.splice import LocalSAE, resolve_at, splice

PROMPT = "The Eiffel Tower is in the city of"
POINTS = ("blocks.1.hook_attn_out", "blocks.1.hook_mlp_out", "blocks.1.attn.hook_z", "blocks.1.mlp.hook_post",
          "blocks.1.ln2.hook_normalized", "blocks.1.hook_resid_mid", "layers[0].mlp.mlp_output")


@pytest.fixture(scope="module", params=("llama", "gemma2", "gpt_neox"))
def model(request):
    return tiny.load(request.param, attn_implementation="eager")


@pytest.fixture(scope="module")
def base(model):
    with model.trace(PROMPT):
        logits = model.logits.save()
    return logits


def _width(model, at):
    """The width an SAE at ``at`` reads (heads × head_dim for a per-head value), from the value itself."""
    point = resolve_at(model, at)
    with model.trace(PROMPT):
        x = point.read().save()
    return x.shape[-2] * x.shape[-1] if x.shape[-1] == model.head_dim and x.dim() == 4 else x.shape[-1]


@pytest.mark.parametrize("at", POINTS)
def test_an_sae_splices_at_any_served_value_with_the_logits_exact(model, base, at):
    if at.endswith("hook_resid_mid") and model.family.block.kind(model._nnterp_state.config) == "parallel":
        with pytest.raises(ValueError, match="no stream between them"):
            splice(model, LocalSAE.identity(model.hidden_size), at=at)
        return
    width = _width(model, at)
    sae = LocalSAE.random(width, 3 * width)
    spliced = splice(model, sae, at=at)
    with model.trace(PROMPT):  # gradients on: the forward consumes the latents, the value is still the model's
        latents = spliced.latents.save()
        logits = model.logits.save()
    with torch.no_grad(), model.trace(PROMPT):
        spliced.latents
        model_logits_no_grad = model.logits.save()
    assert torch.equal(logits, base) and torch.equal(model_logits_no_grad, base)
    assert latents.shape[-1] == 3 * width and bool((latents >= 0).all()) and bool((latents > 0).any())
    with model.trace(PROMPT):
        spliced.latents[..., : width // 2] = 0
        edited = model.logits.save()
    assert not torch.allclose(edited, base)
    without_error = splice(model, sae, at=at, keep_error=False)
    with model.trace(PROMPT):
        without_error.latents
        reconstructed = model.logits.save()
    assert not torch.allclose(reconstructed, base)


def test_an_edit_writes_the_reconstruction_plus_the_error(model, base):
    """Zeroed latents at hook_mlp_out leave mlp_output - decode(encode(x)) + b_dec: the error and the decoder's bias."""
    sae = LocalSAE.random(model.hidden_size, 2 * model.hidden_size, hook_name="blocks.0.hook_mlp_out")
    spliced = splice(model, sae)
    assert spliced.path == "model.layers[0].mlp.mlp_output"
    with model.trace(PROMPT):
        spliced.latents = torch.zeros_like(spliced.latents)
        assigned = model.logits.save()
    with model.trace(PROMPT):
        x = model.layers[0].mlp.mlp_output
        model.layers[0].mlp.mlp_output = x - sae.decode(sae.encode(x)) + sae.b_dec
        expected = model.logits.save()
    torch.testing.assert_close(assigned, expected, rtol=1e-5, atol=1e-5)


def test_hook_normalized_is_the_norm_output_before_its_gain(model):
    """Under TransformerLens's ln2.hook_normalized the SAE reads x_c · scale, before the gain and bias."""
    spliced = splice(model, LocalSAE.identity(model.hidden_size), at="blocks.1.ln2.hook_normalized")
    with model.trace(PROMPT):
        value = model.value("blocks.1.ln2.hook_normalized").save()
        seen = spliced.reads.read().save()
    torch.testing.assert_close(seen, value, rtol=1e-5, atol=1e-5)


def test_a_transcoder_reads_at_one_value_and_writes_at_another(model, base):
    width = model.hidden_size
    transcoder = LocalSAE.random(width, 4 * width, d_out=width, hook_name="blocks.1.ln2.hook_normalized",
                                 hook_name_out="blocks.1.hook_mlp_out")
    spliced = splice(model, transcoder)
    assert (spliced.reads.path, spliced.writes.path) == ("model.layers[1].mlp_norm_output",
                                                         "model.layers[1].mlp.mlp_output")
    with model.trace(PROMPT):
        spliced.latents.save()
        logits = model.logits.save()
    assert torch.equal(logits, base)
    with model.trace(PROMPT):
        spliced.latents[:] = 0
        edited = model.logits.save()
    with model.trace(PROMPT):
        x = model.value("blocks.1.ln2.hook_normalized")
        model.layers[1].mlp.mlp_output = model.layers[1].mlp.mlp_output - transcoder.decode(
            transcoder.encode(x)) + transcoder.b_dec
        expected = model.logits.save()
    torch.testing.assert_close(edited, expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("at", ["blocks.1.hook_mlp_out", "blocks.0.attn.hook_z"])
def test_the_latents_gradients_are_torch_autograds(model, at):
    width = _width(model, at)
    spliced = splice(model, LocalSAE.random(width, 3 * width), at=at)
    with model.trace(PROMPT):
        latents = spliced.latents.save()
        loss = model.logits[0, -1].logsumexp(-1).save()
    expected = torch.autograd.grad(loss, latents)[0]
    with model.trace(PROMPT):
        latents = spliced.latents.save()
        loss = model.logits[0, -1].logsumexp(-1)
        with loss.backward():
            grad = latents.grad.save()
    assert torch.equal(grad, expected) and bool(expected.abs().sum() > 0)


def test_splice_refuses_what_it_cannot_take(llama):
    identity = LocalSAE.identity(llama.hidden_size)
    with pytest.raises(ValueError, match="cfg.hook_name is unset"):
        splice(llama, identity)
    with pytest.raises(ValueError, match="block 9 does not exist"):
        splice(llama, identity, at="blocks.9.hook_resid_post")
    with pytest.raises(ValueError, match="not a tensor the model holds"):  # heads second: TransformerLens's layout
        splice(llama, identity, at="blocks.0.attn.hook_q")
    with pytest.raises(ValueError, match="reads before it writes"):
        splice(llama, identity, at="blocks.1.hook_mlp_out", to="blocks.0.hook_mlp_out")


def test_saelens_transcoders_splice_as_they_are(llama):
    sae_lens = pytest.importorskip("sae_lens")  # in the test extra
    width = llama.hidden_size
    with llama.trace(PROMPT):
        base = llama.logits.save()
        x = llama.layers[1].layer_mid.save()
        out = llama.layers[1].mlp.mlp_output.save()
    for architecture in (sae_lens.Transcoder, sae_lens.SkipTranscoder):
        config = (sae_lens.SkipTranscoderConfig if architecture is sae_lens.SkipTranscoder else
                  sae_lens.TranscoderConfig)(d_in=width, d_sae=4 * width, d_out=width, dtype="float32", device="cpu",
                                                             apply_b_dec_to_input=False)
        config.metadata.hook_name, config.metadata.hook_name_out = "blocks.1.hook_resid_mid", "blocks.1.hook_mlp_out"
        transcoder = architecture(config)
        with torch.no_grad():
            for parameter in transcoder.parameters():
                parameter.normal_(0, 0.1, generator=torch.Generator().manual_seed(0))
        spliced = splice(llama, transcoder)
        with llama.trace(PROMPT):
            spliced.latents.save()
            logits = llama.logits.save()
        assert torch.equal(logits, base)
        spliced_alone = splice(llama, transcoder, keep_error=False)
        with llama.trace(PROMPT):
            spliced_alone.latents
            alone = llama.logits.save()
        with llama.trace(PROMPT):
            llama.layers[1].mlp.mlp_output = transcoder(x)  # SAELens's forward: decode, plus the skip if it has one
            expected = llama.logits.save()
        torch.testing.assert_close(alone, expected, rtol=1e-5, atol=1e-5)
        assert not torch.allclose(alone, base) and not torch.equal(transcoder(x), out)


def test_circuit_tracers_transcoders_load_and_splice(llama, tmp_path):
    """circuit-tracer's per-layer (with a skip) and cross-layer transcoders, saved in its safetensors layout and
    loaded through its own loaders."""
    pytest.importorskip("circuit_tracer")
    from circuit_tracer.transcoder.cross_layer_transcoder import CrossLayerTranscoder, load_clt
    from circuit_tracer.transcoder.single_layer_transcoder import SingleLayerTranscoder, load_transcoder_set

    width, cpu, generator = llama.hidden_size, torch.device("cpu"), torch.Generator().manual_seed(0)
    with llama.trace(PROMPT):
        base = llama.logits.save()
    paths = {}
    for layer in range(llama.num_layers):
        transcoder = SingleLayerTranscoder(width, 4 * width, torch.relu, layer, skip_connection=True, device=cpu,
                                           dtype=torch.float32)
        with torch.no_grad():
            for parameter in transcoder.parameters():
                parameter.normal_(0, 0.1, generator=generator)
        paths[layer] = str(tmp_path / f"layer_{layer}.safetensors")
        transcoder.to_safetensors(paths[layer])
    transcoders = load_transcoder_set(paths, "test", "hook_resid_mid", "hook_mlp_out", device=cpu)
    spliced = splice(llama, transcoders[1], at="blocks.1.hook_resid_mid", to="blocks.1.hook_mlp_out")
    with llama.trace(PROMPT):
        spliced.latents.save()
        logits = llama.logits.save()
    assert torch.equal(logits, base)
    with llama.trace(PROMPT):
        spliced.latents[:] = 0
        edited = llama.logits.save()
    with llama.trace(PROMPT):
        x = llama.layers[1].layer_mid
        tc = transcoders[1]
        llama.layers[1].mlp.mlp_output = llama.layers[1].mlp.mlp_output - tc.forward(x) + tc.b_dec + tc.compute_skip(x)
        expected = llama.logits.save()
    torch.testing.assert_close(edited, expected, rtol=1e-5, atol=1e-5)

    clt = CrossLayerTranscoder(llama.num_layers, 4 * width, width, device=cpu, dtype=torch.float32, lazy_decoder=False)
    with torch.no_grad():
        for parameter in clt.parameters():
            parameter.normal_(0, 0.1, generator=generator)
    clt.to_safetensors(str(tmp_path / "clt"))
    clt = load_clt(str(tmp_path / "clt"), device=cpu, dtype=torch.float32)  # lazy decoder, read from the files
    crossing = splice(llama, clt)
    with llama.trace(PROMPT):
        crossing.latents[0].save()
        crossing.latents[1].save()
        logits = llama.logits.save()
    assert torch.equal(logits, base)
    with llama.trace(PROMPT):  # block 0's latents write to block 0's and block 1's MLP outputs
        crossing.latents[0][:] = 0
        crossing.finish()
        edited = llama.logits.save()
    decoder = clt._get_decoder_vectors(0)
    with llama.trace(PROMPT):
        first = clt.encode_layer(llama.layers[0].layer_mid, 0)
        llama.layers[0].mlp.mlp_output = llama.layers[0].mlp.mlp_output - first @ decoder[:, 0]
        llama.layers[1].mlp.mlp_output = llama.layers[1].mlp.mlp_output - first @ decoder[:, 1]
        expected = llama.logits.save()
    torch.testing.assert_close(edited, expected, rtol=1e-5, atol=1e-5)
    assert not torch.allclose(edited, base)
    with llama.trace(PROMPT):  # block 0's latents reach the loss through both blocks' MLP outputs
        first = crossing.latents[0].save()
        crossing.latents[1].save()
        loss = llama.logits[0, -1].logsumexp(-1).save()
    expected_grad = torch.autograd.grad(loss, first)[0]
    with llama.trace(PROMPT):
        first = crossing.latents[0].save()
        crossing.latents[1]
        loss = llama.logits[0, -1].logsumexp(-1)
        with loss.backward():
            grad = first.grad.save()
    assert torch.equal(grad, expected_grad) and bool(expected_grad.abs().sum() > 0)


@pytest.mark.parametrize("reshape", ["none", "hook_z"])
def test_a_saelens_hook_z_sae_reads_every_head(llama, reshape):
    """SAELens's hook_z SAEs take heads × head_dim, flattened by nnterp or (reshape_activations="hook_z") by SAELens."""
    sae_lens = pytest.importorskip("sae_lens")
    width = llama.num_heads * llama.head_dim
    config = sae_lens.StandardSAEConfig(d_in=width, d_sae=4 * width, dtype="float32", device="cpu",
                                        reshape_activations=reshape)
    config.metadata.hook_name = "blocks.1.attn.hook_z"
    sae = sae_lens.StandardSAE(config)
    with torch.no_grad():
        for parameter in sae.parameters():
            parameter.normal_(0, 0.1, generator=torch.Generator().manual_seed(0))
    spliced = splice(llama, sae)
    with llama.trace(PROMPT):
        premix = llama.layers[1].self_attn.attention_premix.save()
        base = llama.logits.save()
    with llama.trace(PROMPT):
        latents = spliced.latents.save()
        logits = llama.logits.save()
    assert torch.equal(logits, base)
    torch.testing.assert_close(latents, sae.encode(premix if reshape == "hook_z" else premix.flatten(-2)))
