"""A splice's latents and error terms are values of the cache: the latents a trace reads, the SAE's encode of the
cached input, and the error the written value less the reconstruction."""

import pytest
import torch

from nnterp import tiny
from nnterp.contract.numerics import assert_close, roundings
from nnterp.tools.splice import LocalCLT, LocalSAE, splice

PROMPT = "The Eiffel Tower is in the city of"
PROMPTS = ["The Eiffel Tower is in", "Rome is the capital of Italy and"]


@pytest.fixture(scope="module", params=("llama", "gemma2"))
def model(request):
    return tiny.load(request.param, attn_implementation="eager")


def _sae(model):
    return LocalSAE.random(model.hidden_size, 3 * model.hidden_size, hook_name="blocks.1.hook_mlp_out")


def _transcoder(model):
    width = model.hidden_size
    return LocalSAE.random(width, 4 * width, d_out=width, hook_name="blocks.1.ln2.hook_normalized",
                           hook_name_out="blocks.1.hook_mlp_out", seed=1, threshold=0.3)


def test_the_cached_latents_are_those_a_trace_reads_and_the_encode_of_the_cached_input(model):
    sae = _sae(model)
    spliced = splice(model, sae)
    plain = model.cache(PROMPT)
    cache = model.cache(PROMPT, splices=[spliced])
    with torch.no_grad(), model.trace(PROMPT):
        read = spliced.latents.save()
    latents = cache["layers.1.mlp.mlp_output.latents"]
    x = cache["layers.1.mlp.mlp_output"]
    assert torch.equal(latents, read) and torch.equal(latents, sae.encode(x)) and bool((latents > 0).any())
    assert cache["model.layers[1].mlp.mlp_output.latents"] is latents  # the path a trace reads it by
    assert cache["blocks.1.hook_mlp_out.hook_sae_acts_post"] is latents  # SAELens's names
    assert cache["blocks.1.hook_mlp_out.hook_sae_error"] is cache["layers.1.mlp.mlp_output.error"]
    assert torch.equal(cache["layers.1.mlp.mlp_output.error"], x - sae.decode(latents))
    # with the error term kept the spliced forward is the model's: every value as without the splice
    assert set(plain.keys()) < set(cache.keys())
    assert all(torch.equal(plain[key], cache[key]) if isinstance(plain[key], torch.Tensor) else plain[key] == cache[key]
               for key in plain.keys())


def test_a_transcoders_latents_are_its_encode_of_what_it_reads(model):
    transcoder = _transcoder(model)
    spliced = splice(model, transcoder)
    cache = model.cache(PROMPT, values=["layer_output", "mlp_output", "blocks.1.ln2.hook_normalized"],
                        splices=spliced)
    latents, error = cache["layers.1.mlp_norm_output.latents"], cache["layers.1.mlp_norm_output.error"]
    with torch.no_grad(), model.trace(PROMPT):
        read = spliced.latents.save()
    assert torch.equal(latents, read) and bool((latents > 0).any())
    # the transcoder reads TransformerLens's hook_normalized, computed again by the cache from the norm's output:
    # (output - bias) / gain in float32, then hidden_size products a latent, so a few ulps of the sum of |terms|
    x = cache["blocks.1.ln2.hook_normalized"]
    scale = (x.abs() @ transcoder.W_enc.abs()).max().detach()
    torch.testing.assert_close(latents, transcoder.encode(x), rtol=0,
                               atol=float(8 * model.hidden_size * torch.finfo(torch.float32).eps * scale))
    torch.testing.assert_close(error, cache["layers.1.mlp.mlp_output"] - transcoder.decode(latents), rtol=0,
                               atol=float(8 * 4 * model.hidden_size * torch.finfo(torch.float32).eps * scale))


def test_without_the_error_term_the_cache_holds_the_spliced_forward(model):
    sae = _sae(model)
    cache = model.cache(PROMPT, values=["mlp_output", "logits"], splices=[splice(model, sae, keep_error=False)])
    latents = cache["layers.1.mlp.mlp_output.latents"]
    with torch.no_grad(), model.trace(PROMPT):
        model.layers[1].mlp.mlp_output = sae.decode(sae.encode(model.layers[1].mlp.mlp_output))
        expected = model.logits.save()
    assert torch.equal(cache.logits, expected)
    # the MLP's own output is cached where the reconstruction replaces it: the error is what it drops
    assert torch.equal(cache["layers.1.mlp.mlp_output.error"], cache["layers.1.mlp.mlp_output"] - sae.decode(latents))


def test_spliced_values_batch_and_keep_the_positions_asked_for(llama):
    sae = _sae(llama)
    spliced = splice(llama, sae)
    whole = llama.cache(PROMPTS, values=["mlp_output"], splices=[spliced])
    batched = llama.cache(PROMPTS, values=["mlp_output"], splices=[spliced], batch_size=1, progress=False)
    last = llama.cache(PROMPTS, values=["mlp_output"], splices=[spliced], positions=[-1])
    key = "layers.1.mlp.mlp_output.latents"
    assert batched[key].shape == whole[key].shape == (2, whole["layers.1.mlp.mlp_output"].shape[1], 3 * 64)
    # one row alone or two in a padded batch: other kernels, so the input differs by the rounding of two blocks,
    # carried through the encoder (at the magnitude of |x| @ |W_enc|)
    x = whole["layers.1.mlp.mlp_output"]
    assert_close(batched[key], whole[key], length=roundings(llama, 2) + llama.hidden_size,
                 magnitude=float((x.abs() @ sae.W_enc.detach().abs()).max()))
    assert torch.equal(last[key], whole[key][:, -1:])


def test_an_sae_on_every_head_keeps_latents_of_heads_times_head_dim(llama):
    width = llama.num_heads * llama.head_dim
    sae = LocalSAE.random(width, 2 * width, hook_name="blocks.0.attn.hook_z")
    cache = llama.cache(PROMPT, values=["attention_premix"], splices=[splice(llama, sae)])
    premix = cache["layers.0.self_attn.attention_premix"]
    latents = cache["layers.0.self_attn.attention_premix.latents"]
    assert torch.equal(latents, sae.encode(premix.flatten(-2)))
    error = cache["layers.0.self_attn.attention_premix.error"]
    assert error.shape == premix.shape
    assert torch.equal(error, premix - sae.decode(latents).reshape(premix.shape))


@pytest.mark.parametrize("kind", ["local", "circuit_tracer"])
def test_a_cross_layer_transcoders_latents_and_errors_are_cached_at_every_block(llama, kind):
    width = llama.hidden_size
    if kind == "local":
        clt = LocalCLT.random(llama.num_layers, width, 4 * width)
    else:
        pytest.importorskip("circuit_tracer")
        from circuit_tracer.transcoder.cross_layer_transcoder import CrossLayerTranscoder

        clt = CrossLayerTranscoder(llama.num_layers, 4 * width, width, device=torch.device("cpu"),
                                   dtype=torch.float32, lazy_decoder=False)
        with torch.no_grad():
            for parameter in clt.parameters():
                parameter.normal_(0, 0.1, generator=torch.Generator().manual_seed(0))
    crossing = splice(llama, clt)
    plain = llama.cache(PROMPT, values=["layer_mid", "mlp_output", "logits"])
    cache = llama.cache(PROMPT, values=["layer_mid", "mlp_output", "logits"], splices=[crossing])
    assert torch.equal(cache.logits, plain.logits)
    latents = [cache[f"layers.{layer}.layer_mid.latents"] for layer in range(llama.num_layers)]
    for layer in range(llama.num_layers):
        assert torch.equal(latents[layer], clt.encode_layer(cache[f"layers.{layer}.layer_mid"], layer))
        assert bool((latents[layer] > 0).any())
        decoders = [clt.W_dec[source][:, layer - source].detach() for source in range(layer + 1)]
        reconstruction = clt.b_dec[layer] + sum(latents[source] @ decoder for source, decoder in enumerate(decoders))
        # the same sums in another order: rounding of (blocks × latents) terms, relative to the sum of |terms|
        magnitude = clt.b_dec[layer].abs() + sum(latents[source].abs() @ decoder.abs()
                                                  for source, decoder in enumerate(decoders))
        terms = (layer + 1) * 4 * width
        torch.testing.assert_close(cache[f"layers.{layer}.layer_mid.error"],
                                   cache[f"layers.{layer}.mlp.mlp_output"] - reconstruction, rtol=0,
                                   atol=float(terms * torch.finfo(torch.float32).eps * magnitude.max().detach()))


def test_the_size_estimate_counts_the_latents_and_errors(llama):
    spliced = splice(llama, _sae(llama))
    plain = llama.cache(PROMPT, values=["mlp_output"])
    cache = llama.cache(PROMPT, values=["mlp_output"], splices=[spliced])
    kept = cache["layers.1.mlp.mlp_output.latents"].nbytes + cache["layers.1.mlp.mlp_output.error"].nbytes
    assert cache.nbytes == plain.nbytes + kept
    assert cache.estimated_bytes - plain.estimated_bytes == kept
