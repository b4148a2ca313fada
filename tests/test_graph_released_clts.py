"""Cross-layer transcoders as released, loaded through their real loading paths into ``attribution_graph``:
Gemma Scope 2's (``google/gemma-scope-2-*``: ``clt/<width_..._l0_...>/params_layer_{i}.safetensors``, each block's
JumpReLU latents with ``w_enc`` [d_model, d_sae], ``w_dec`` [d_sae, n_layers, d_model], ``b_enc``, ``b_dec``,
``threshold`` and, in the ``_affine`` sets, ``affine_skip_connection`` [d_model, d_model]; read at the
pre-feedforward norm's output and written at the post-feedforward norm's, circuit-tracer's ``mlp.hook_in`` and
``hook_mlp_out`` on Gemma 3) through circuit-tracer's ``load_gemma_scope_2_clt``, and circuit-tracer's own
(``W_enc_{i}``/``W_dec_{i}`` files) through its ``load_clt``. The files are written here, random, in exactly those
layouts (no hub is reachable)."""

import pytest
import torch
from safetensors.torch import save_file

from nnterp import tiny
from nnterp.contract.numerics import roundings
from nnterp.tools.graph import attribution_graph, completeness_tolerance
from nnterp.tools.splice import resolve_at

PROMPT = "The Eiffel Tower is in"
READS, WRITES = "mlp.hook_in", "hook_mlp_out"


@pytest.fixture(scope="module")
def gemma():
    return tiny.load("gemma3_text", attn_implementation="eager")


def _released(model, width: int, affine: bool, seed: int = 0) -> list:
    """One Gemma Scope 2 layer file's tensors a block: a block's latents write to itself and every later block
    (its decoder into an earlier block is zero, as a causal CLT's)."""
    generator = torch.Generator().manual_seed(seed)
    d, L = model.hidden_size, model.num_layers
    layers = []
    for layer in range(L):
        w_dec = torch.randn(width, L, d, generator=generator) / width ** 0.5
        w_dec[:, :layer] = 0
        params = {"w_enc": torch.randn(d, width, generator=generator) / d ** 0.5, "w_dec": w_dec,
                  "b_enc": torch.randn(width, generator=generator) * 0.1,
                  "b_dec": torch.randn(d, generator=generator) * 0.01,
                  "threshold": torch.rand(width, generator=generator) * 0.6}
        if affine:
            params["affine_skip_connection"] = torch.randn(d, d, generator=generator) / d
        layers.append(params)
    return layers


def _write_gemma_scope_2(layers, folder) -> dict:
    folder.mkdir(parents=True)
    paths = {}
    for layer, params in enumerate(layers):
        paths[layer] = str(folder / f"params_layer_{layer}.safetensors")
        save_file({name: tensor.contiguous() for name, tensor in params.items()}, paths[layer])
    return paths


def _load_gemma_scope_2(paths: dict):
    """circuit-tracer 0.5's loader. It reads the layers ``range(max(paths))``, one fewer than the keys 0..L-1 its
    own caching passes, so the last block's file is given again under key L, which it never reads."""
    from circuit_tracer.transcoder.cross_layer_transcoder import load_gemma_scope_2_clt

    last = max(paths)
    return load_gemma_scope_2_clt({**paths, last + 1: paths[last]}, feature_input_hook=READS,
                                  feature_output_hook=WRITES, device=torch.device("cpu"), dtype=torch.float32)


def test_a_gemma_scope_2_clt_gives_the_graph_of_the_same_weights_in_circuit_tracers_layout(gemma, tmp_path):
    pytest.importorskip("circuit_tracer")
    from circuit_tracer.transcoder.cross_layer_transcoder import CrossLayerTranscoder, load_clt

    L, d, width = gemma.num_layers, gemma.hidden_size, 2 * gemma.hidden_size
    layers = _released(gemma, width, affine=False)
    released = _load_gemma_scope_2(_write_gemma_scope_2(layers, tmp_path / "clt" / "width_128_l0_small"))
    assert released.n_layers == L
    # the same tensors in circuit-tracer's layout, placed by hand (not by the Gemma Scope 2 loader's remapping)
    theirs = CrossLayerTranscoder(L, width, d, activation_function="jump_relu", lazy_decoder=False,
                                  feature_input_hook=READS, device=torch.device("cpu"), dtype=torch.float32)
    with torch.no_grad():
        for layer, params in enumerate(layers):
            theirs.W_enc[layer] = params["w_enc"].T
            theirs.b_enc[layer], theirs.b_dec[layer] = params["b_enc"], params["b_dec"]
            theirs.activation_function.threshold[layer, 0] = params["threshold"]
            theirs.W_dec[layer].copy_(params["w_dec"][:, layer:])
    theirs.to_safetensors(str(tmp_path / "circuit-tracer"))
    native = load_clt(str(tmp_path / "circuit-tracer"), feature_input_hook=READS, feature_output_hook=WRITES,
                      device=torch.device("cpu"), dtype=torch.float32, lazy_decoder=False)

    from_release = attribution_graph(gemma, released, PROMPT, progress=False, batch_size=128)
    from_native = attribution_graph(gemma, native, PROMPT, progress=False, batch_size=128)
    assert from_release.stats["active_latents"] > 20
    assert torch.equal(from_release.features, from_native.features)
    assert torch.equal(from_release.activations, from_native.activations)
    # the same tensors on both sides: the same products, up to the order a kernel sums a block's and a decoder's
    scale = float(from_native.adjacency.abs().max())
    length = roundings(gemma) + 2 * d
    assert float((from_release.adjacency - from_native.adjacency).abs().max()) <= 4 * length * 2 ** -24 * scale
    # the latents are the JumpReLU of the pre-activations where they pass each latent's threshold
    layer, position, latent = (int(v) for v in from_release.features[0])
    point = resolve_at(gemma, f"blocks.{layer}.{READS}")
    ids = from_release.token_ids[None]
    with torch.no_grad(), gemma.trace(ids):
        read = point.read().save()
    pre = read[0, position].float() @ layers[layer]["w_enc"][:, latent] + layers[layer]["b_enc"][latent]
    assert pre > layers[layer]["threshold"][latent]
    assert abs(float(pre) - float(from_release.activations[0])) <= 2 * d * 2 ** -24 * float(pre.abs())


def test_a_gemma_scope_2_clt_with_its_affine_skip_makes_a_complete_graph(gemma, tmp_path):
    """The ``_affine`` sets' skip (x @ affine_skip_connection, circuit-tracer's W_skip) is part of the replacement,
    linear in what it reads, not a source: the graph is complete and its targets' values are the clean run's."""
    pytest.importorskip("circuit_tracer")
    layers = _released(gemma, 2 * gemma.hidden_size, affine=True, seed=1)
    released = _load_gemma_scope_2(_write_gemma_scope_2(layers, tmp_path / "clt" / "width_128_l0_small_affine"))
    assert released.W_skip is not None and tuple(released.W_skip.shape) == (gemma.num_layers, gemma.hidden_size,
                                                                           gemma.hidden_size)
    graph = attribution_graph(gemma, released, PROMPT, progress=False, batch_size=128)
    assert graph.stats["active_latents"] > 20
    assert graph.completeness() < completeness_tolerance(gemma, len(graph.adjacency), torch.float32)
    rows = graph.computed
    drift = (graph.values[rows] - graph.clean[rows]).abs().max() / graph.clean[rows].abs().max()
    assert float(drift) < completeness_tolerance(gemma, len(graph.adjacency), torch.float32)
