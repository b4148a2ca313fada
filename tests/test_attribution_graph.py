"""Attribution graphs (circuit-tracer's method) on six families: complete, linear, in circuit-tracer's JSON."""

import json

import pytest
import torch

from nnterp import tiny
from nnterp.contract.numerics import assert_close, roundings
from nnterp.tools.frozen import freeze, frozen_logits
from nnterp.tools.graph import attribution_graph
from nnterp.tools.splice import LocalCLT, LocalSAE

PROMPT = "The Eiffel Tower is in"
#: a plain block, grouped keys, post-norms, a parallel block, a mixture of experts, partial rotary (and one norm)
FAMILIES = ("llama", "qwen2", "gemma2", "gpt_neox", "mixtral", "phi")
READS = {"mixtral": "mlp.hook_in", "qwen2": "hook_resid_mid"}  # the MLP's input, the stream, else ln2.hook_normalized
EPS = torch.finfo(torch.float32).eps


def transcoders(model, read="ln2.hook_normalized", threshold=0.6):
    width = model.hidden_size
    return [LocalSAE.random(width, 2 * width, seed=i, d_out=width, hook_name=f"blocks.{i}.{read}",
                            hook_name_out=f"blocks.{i}.hook_mlp_out", threshold=threshold)
            for i in range(model.num_layers)]


@pytest.fixture(scope="module", params=FAMILIES)
def built(request):
    model = tiny.load(request.param, attn_implementation="eager")
    read = READS.get(request.param, "ln2.hook_normalized")
    threshold = 0.6 if read != "hook_resid_mid" else 0.02
    return model, attribution_graph(model, transcoders(model, read, threshold), PROMPT, progress=False,
                                    batch_size=128)


def test_each_nodes_input_is_the_sum_of_its_incoming_edges(built):
    model, graph = built
    assert graph.stats["active_latents"] > 20 and graph.computed.all() == False  # noqa: E712 (tokens, errors)
    # each edge: a dot product of hidden_size terms from a gradient through 2 reductions a block (of at most
    # intermediate_size terms), then a sum over every node: the worst rounding, relative to the sum of |terms|
    width = max(model.hidden_size, model.config.intermediate_size)
    tolerance = ((2 * model.num_layers + 1) * width + len(graph.adjacency)) * EPS
    assert graph.completeness() < tolerance
    # and the replacement model's input of each target is the clean run's
    rows = graph.computed
    scale = graph.clean[rows].abs().max()
    assert float((graph.values[rows] - graph.clean[rows]).abs().max()) < tolerance * float(scale)
    # the error nodes carry something, and so do the latents
    errors = graph.adjacency[:, graph.n_features: graph.n_features + model.num_layers * graph.n_pos]
    assert bool(errors.abs().sum() > 0) and bool(graph.adjacency[:, : graph.n_features].abs().sum() > 0)


def test_the_frozen_replacement_is_linear(built):
    model, _ = built
    frozen = freeze(model, PROMPT)
    generator = torch.Generator().manual_seed(0)
    x = {k: torch.randn(v.shape, generator=generator) for k, v in frozen.inputs.items()}
    zero = frozen.zeros(1)
    rows = {k: torch.cat([x[k], 2 * x[k], -x[k], zero[k]]) for k in x}
    fx, f2x, fminus, f0 = frozen_logits(model, frozen, rows, readout="lm_head_output").double()
    torch.testing.assert_close(f2x - f0, 2 * (fx - f0), rtol=1e-4, atol=1e-4)
    torch.testing.assert_close(fminus - f0, -(fx - f0), rtol=1e-4, atol=1e-4)
    assert not torch.allclose(fx, f0)


def test_the_graph_is_circuit_tracers_json(built, tmp_path):
    model, graph = built
    path = graph.write(tmp_path, slug="g", scan="random")
    data = json.loads(path.read_text())
    assert set(data) == {"metadata", "qParams", "nodes", "links"}
    kinds = {node["feature_type"] for node in data["nodes"]}
    assert {"embedding", "logit"} <= kinds
    ids = {node["node_id"] for node in data["nodes"]}
    assert all(link["source"] in ids and link["target"] in ids for link in data["links"])
    assert data["metadata"]["prompt_tokens"] == graph.tokens
    logits = [node for node in data["nodes"] if node["feature_type"] == "logit"]
    assert logits[0]["is_target_logit"] and logits[0]["layer"] == str(model.num_layers + 1)
    graph_models = pytest.importorskip("circuit_tracer.frontend.graph_models")
    graph_models.Model(**data)  # circuit-tracer's own schema


def test_a_capped_graph_keeps_the_most_influential_latents(llama):
    graph = attribution_graph(llama, transcoders(llama), PROMPT, progress=False, max_feature_nodes=16)
    assert graph.n_features == 16 and graph.stats["active_latents"] > 16
    assert graph.computed[:16].all()


# --------------------------------------------------------------------------- a cross-layer transcoder as the input
CLT_READS = {"llama": ("ln2.hook_normalized", 0.6), "gemma2": ("hook_resid_mid", 0.02)}


@pytest.fixture(scope="module", params=tuple(CLT_READS))
def clt_built(request):
    model = tiny.load(request.param, attn_implementation="eager")
    read, threshold = CLT_READS[request.param]
    clt = LocalCLT.random(model.num_layers, model.hidden_size, 2 * model.hidden_size, threshold=threshold,
                          feature_input_hook=read, skip=request.param == "gemma2")
    return model, clt, attribution_graph(model, clt, PROMPT, progress=False, batch_size=128)


def test_a_cross_layer_transcoders_graph_is_complete(clt_built):
    model, clt, graph = clt_built
    assert graph.stats["active_latents"] > 20
    width = max(model.hidden_size, model.config.intermediate_size)
    tolerance = ((2 * model.num_layers + 1) * width + len(graph.adjacency)) * EPS
    assert graph.completeness() < tolerance
    rows = graph.computed
    assert float((graph.values[rows] - graph.clean[rows]).abs().max()) < tolerance * float(graph.clean[rows].abs().max())
    # block 0's latents write to block 1 too: their edges into block 1's latents go through both decoders
    first = graph.features[:, 0] == 0
    second = (graph.features[:, 0] == 1).nonzero().flatten()
    assert bool(graph.adjacency[second][:, first.nonzero().flatten()].abs().sum() > 0)


def test_a_cross_layer_transcoder_writing_its_own_block_alone_is_the_per_block_graph(llama):
    """With every decoder into a later block zero, a CLT is one transcoder a block: the same graph."""
    clt = LocalCLT.random(llama.num_layers, llama.hidden_size, 2 * llama.hidden_size, threshold=0.6,
                          feature_input_hook="ln2.hook_normalized")
    with torch.no_grad():
        for decoder in clt.W_dec:
            decoder[:, 1:] = 0
    per_block = [LocalSAE(clt.W_enc[l].T.clone(), clt.b_enc[l].clone(), clt.W_dec[l][:, 0].clone(),
                          clt.b_dec[l].clone(), f"blocks.{l}.ln2.hook_normalized", f"blocks.{l}.hook_mlp_out")
                 for l in range(llama.num_layers)]
    crossing = attribution_graph(llama, clt, PROMPT, progress=False, batch_size=128)
    single = attribution_graph(llama, per_block, PROMPT, progress=False, batch_size=128)
    assert torch.equal(crossing.features, single.features) and torch.equal(crossing.activations, single.activations)
    # the same sums (equal on this CPU), up to another order of the products a kernel sums: the model's blocks
    # and a decoder's latents
    assert_close(crossing.adjacency, single.adjacency, length=roundings(llama) + 2 * llama.hidden_size)


def test_circuit_tracers_cross_layer_transcoder_gives_the_local_ones_graph(llama, tmp_path):
    """circuit-tracer's CrossLayerTranscoder, saved in its layout and loaded lazily by its load_clt, as the input."""
    pytest.importorskip("circuit_tracer")
    from circuit_tracer.transcoder.cross_layer_transcoder import CrossLayerTranscoder, load_clt

    local = LocalCLT.random(llama.num_layers, llama.hidden_size, 2 * llama.hidden_size, threshold=0.6,
                            feature_input_hook="ln2.hook_normalized")
    clt = CrossLayerTranscoder(llama.num_layers, 2 * llama.hidden_size, llama.hidden_size, lazy_decoder=False,
                               feature_input_hook="ln2.hook_normalized", device=torch.device("cpu"),
                               dtype=torch.float32)
    with torch.no_grad():
        for name in ("W_enc", "b_enc", "b_dec"):
            getattr(clt, name).copy_(getattr(local, name))
        for theirs, ours in zip(clt.W_dec, local.W_dec):
            theirs.copy_(ours)
    clt.to_safetensors(str(tmp_path / "clt"))
    loaded = load_clt(str(tmp_path / "clt"), feature_input_hook="ln2.hook_normalized", device=torch.device("cpu"),
                      dtype=torch.float32, lazy_encoder=True)  # both read from the files as they are needed
    theirs = attribution_graph(llama, loaded, PROMPT, progress=False, batch_size=128)
    ours = attribution_graph(llama, local, PROMPT, progress=False, batch_size=128)
    assert torch.equal(theirs.features, ours.features)
    assert_close(theirs.adjacency, ours.adjacency, length=roundings(llama) + 2 * llama.hidden_size)  # equal here


def test_saelens_skip_transcoders_make_a_complete_graph_of_the_models_values(llama):
    """The skip is part of the replacement model (linear in what it reads), not a source: the clean pass keeps the
    MLP outputs as they are."""
    sae_lens = pytest.importorskip("sae_lens")  # in the test extra
    width, generator = llama.hidden_size, torch.Generator().manual_seed(0)
    skipping = []
    for layer in range(llama.num_layers):
        config = sae_lens.SkipTranscoderConfig(d_in=width, d_sae=2 * width, d_out=width, dtype="float32",
                                               device="cpu", apply_b_dec_to_input=False)
        config.metadata.hook_name = f"blocks.{layer}.ln2.hook_normalized"
        config.metadata.hook_name_out = f"blocks.{layer}.hook_mlp_out"
        transcoder = sae_lens.SkipTranscoder(config)
        with torch.no_grad():
            for parameter in transcoder.parameters():
                parameter.normal_(0, 0.1, generator=generator)
        skipping.append(transcoder)
    graph = attribution_graph(llama, skipping, PROMPT, progress=False, batch_size=128)
    width = max(llama.hidden_size, llama.config.intermediate_size)
    tolerance = ((2 * llama.num_layers + 1) * width + len(graph.adjacency)) * EPS
    assert graph.stats["active_latents"] > 20 and graph.completeness() < tolerance
    rows = graph.computed
    assert float((graph.values[rows] - graph.clean[rows]).abs().max()) < tolerance * float(graph.clean[rows].abs().max())


def test_a_graph_that_is_not_complete_is_refused_with_its_figure(llama):
    """A gradient that is not the forward's (block 0's values unchanged, their gradient that of a square) breaks
    completeness where the forward's own probe (``first_nonlinear``) sees nothing: the tool refuses the graph, in
    one sentence with the residual, rather than returning it."""
    from nnterp.tools.graph import IncompleteGraph, completeness_tolerance

    values = llama.layers[0].self_attn._module.v_proj
    handle = values.register_forward_hook(lambda module, args, output: output + output ** 2 - output.detach() ** 2)
    try:
        with pytest.raises(IncompleteGraph, match=r"llama's attribution graph is not complete: .* by \S+ of .* "
                                                  r"first at block 0's latents") as caught:
            attribution_graph(llama, transcoders(llama), PROMPT, progress=False, batch_size=128)
    finally:
        handle.remove()
    assert caught.value.residual > 100 * caught.value.allowed
    assert f"{caught.value.residual:.1e}" in str(caught.value) and str(caught.value).count(". ") == 0
    # without the square the same graph is built, complete
    graph = attribution_graph(llama, transcoders(llama), PROMPT, progress=False, batch_size=128)
    assert graph.completeness() < completeness_tolerance(llama, len(graph.adjacency), torch.float32)


# --------------------------------------------------------------------------- what the clean run fixes beyond the sites
#: latent attention's norms of its compressed queries and keys-values, a sub-norm on the heads' output, a second
#: softmax map (differential attention), a sigmoid gate on the heads' output
FIXED_INSIDE = ("deepseek_v2", "bitnet", "diffllama", "afmoe")


@pytest.mark.parametrize("family", FIXED_INSIDE)
def test_norms_and_gates_inside_the_attention_are_frozen(family):
    from nnterp.tools.graph_sweep import transcoders as sweep_transcoders

    model = tiny.load(family, attn_implementation="eager")
    frozen = freeze(model, PROMPT)
    assert frozen.inner or any(frozen.gates.values())
    generator = torch.Generator().manual_seed(0)
    x = {k: torch.randn(v.shape, generator=generator) for k, v in frozen.inputs.items()}
    zero = frozen.zeros(1)
    rows = {k: torch.cat([x[k], 2 * x[k], zero[k]]) for k in x}
    fx, f2x, f0 = frozen_logits(model, frozen, rows, readout="lm_head_output").detach()
    assert_close(f2x - f0, 2 * (fx - f0), length=2 * roundings(model), magnitude=float(f2x.abs().max()))
    # the graph is built (attribution_graph refuses an incomplete one) and its targets' inputs are the clean run's
    graph = attribution_graph(model, sweep_transcoders(model), PROMPT, progress=False, batch_size=128)
    assert graph.stats["active_latents"] > 20
    rows = graph.computed
    assert_close(graph.values[rows], graph.clean[rows], length=2 * roundings(model))


# --------------------------------------------------------------------------- completeness, recomputed without the tool
#: a plain block, a post-norm on the attention's output, latent attention, a gate, post-norm blocks (on the
#: contributions, on the residual path), a sandwich with multipliers, a cross-attention outside the blocks, an MLP
#: output the model sums from a shared expert and the routed ones, a parallel block whose MLP output is computed;
#: AX-K2's input norm times a sigmoid gate (the gate frozen), Gemma 4's mlp_output written as two terms (the first's
#: norm left as it runs), Inkling 2's convolution taps computed from its input (the taps recorded and replayed)
INDEPENDENT = ("llama", "gemma2", "deepseek_v2", "afmoe", "olmo2", "openai-gpt", "doge", "hyperclovax", "blt",
               "granitemoeshared", "falcon", "axk2", "gemma4_text", "inkling2_text", "mpt")


def test_a_block_whose_mlp_is_no_module_of_its_own_builds_its_graph():
    """OPT's fc1 and fc2 sit on the block: the graph's forward leaves them running (the sites read there), and the
    graph builds, complete by its own check."""
    model = tiny.load("opt", attn_implementation="eager")
    from nnterp.tools.graph_sweep import transcoders as sweep_transcoders

    graph = attribution_graph(model, sweep_transcoders(model), PROMPT, progress=False, batch_size=128)
    assert graph.stats["active_latents"] > 0


@pytest.mark.parametrize("family", INDEPENDENT)
def test_completeness_holds_against_plain_hooks_on_the_transformers_model(family):
    """Each target's clean input read by torch hooks on the transformers modules (the MLP's input, lm_head's
    output), not by the tool, equals its constant plus its incoming edges; the full sweep is
    ``python -m nnterp.tools.graph_sweep``."""
    from nnterp.tools.graph import completeness_tolerance
    from nnterp.tools.graph_sweep import independent_completeness, transcoders as sweep_transcoders

    model = tiny.load(family, attn_implementation="eager")
    saes = sweep_transcoders(model)
    graph = attribution_graph(model, saes, PROMPT, progress=False, batch_size=128)
    allowed = completeness_tolerance(model, len(graph.adjacency), torch.float32)
    assert graph.stats["active_latents"] > 20
    assert independent_completeness(model, graph, saes) < allowed
    # the check has teeth: one edge of the top logit off by a tenth of the magnitude of its terms breaks it
    node = len(graph.adjacency) - len(graph.logit_tokens)
    graph.adjacency[node, 0] += 0.1 * graph.adjacency[node].abs().sum()
    assert independent_completeness(model, graph, saes) > 100 * allowed


def test_the_sweep_says_complete_refused_or_incomplete_per_family():
    """``python -m nnterp.tools.graph_sweep``'s rows: a built graph with both residuals, a refusal with its reason."""
    from nnterp.tools.graph_sweep import sweep_one

    built, refused = sweep_one("llama"), sweep_one("hrm_text")
    # complete: the tool built it (its own check held) and the plain hooks agree (else "disagrees")
    assert built["status"] == "complete" and "recomputed by plain hooks" in built["detail"]
    # HRM runs its first low-level cycles with gradients off, which a graph's edges (gradients) would miss
    assert refused["status"] == "refused" and "gradients off" in refused["detail"]


@pytest.mark.parametrize("family", ["llama", "qwen4_exp_text"])
def test_a_forward_that_raises_in_a_frozen_pass_leaves_no_gate_replaying(family):
    """The frozen passes replay an attention's gates under a torch function mode entered at its forward's start and
    left at its end; a forward that raises in between never reaches its end, and the mode must still be gone after,
    or every later softmax anywhere in the process would be answered from this run (a KeyError, or a wrong value)."""
    from nnterp.tools.frozen import EMBED
    from nnterp.tools.frozen_modules import attentions

    model = tiny.load(family, attn_implementation="eager")
    frozen = freeze(model, PROMPT)
    assert any(frozen.gates.values())  # gates replayed inside the attentions: the mode is entered on this pass
    inner = next(child for child in attentions(model)[0].modules() if isinstance(child, torch.nn.Linear))

    def fail(module, args):  # an index out of range, raised by a torch function the replaying mode sees
        return torch.zeros(1)[torch.tensor([5])]

    handle = inner.register_forward_pre_hook(fail)
    try:
        with pytest.raises(IndexError, match="out of bounds"):
            frozen_logits(model, frozen, frozen.zeros(2) | {EMBED: frozen.inputs[EMBED].expand(2, -1, -1)})
    finally:
        handle.remove()
    assert torch.overrides._get_current_function_mode_stack() == []
    assert torch.equal(torch.softmax(torch.zeros(3), -1), torch.full((3,), 1 / 3))
