"""circuit-tracer's interventions on the replacement model (``nnterp.tools.replacement``), checked against the
graph: a latent set to its own value changes nothing, a latent zeroed with attention frozen and every block
constrained moves each logit by minus its direct edge, and generation is greedy decoding of the intervened forward."""

import pytest
import torch

from nnterp import tiny
from nnterp.contract.numerics import assert_close, roundings
from nnterp.tools._common import ToolError
from nnterp.tools.graph import attribution_graph
from nnterp.tools.graph_sweep import transcoders as random_transcoders
from nnterp.tools.replacement import ReplacementModel
from nnterp.tools.splice import LocalCLT

PROMPT = "The Eiffel Tower is in"


@pytest.fixture(scope="module")
def model():
    return tiny.load("llama", attn_implementation="eager")


@pytest.fixture(scope="module", params=["per-block", "cross-layer"])
def setup(request, model):
    width = model.hidden_size
    transcoders = random_transcoders(model, read="ln2.hook_normalized") if request.param == "per-block" else \
        LocalCLT.random(model.num_layers, width, 2 * width, threshold=0.6, feature_input_hook="ln2.hook_normalized")
    graph = attribution_graph(model, transcoders, PROMPT, progress=False, batch_size=128)
    return ReplacementModel(model, transcoders), graph


def _logit_edges(graph):
    """[logit targets, latents] edges, and the latent (its graph index) with the largest one."""
    start = graph.adjacency.shape[0] - len(graph.logit_tokens)
    edges = graph.adjacency[start:, :graph.n_features]
    return edges, int(edges.abs().max(0).values.argmax())


def test_the_activations_are_the_graphs(setup):
    replacement, graph = setup
    _, activations = replacement.get_activations(PROMPT)
    layers, positions, latents = graph.features.T
    assert torch.equal(activations[layers, positions, latents], graph.activations)
    # the graph zeroes position 0 (circuit-tracer's zero_positions); the replacement model's activations keep it
    assert int((activations[:, 1:] > 0).sum()) == graph.stats["active_latents"]


def test_without_the_activation_function_the_activations_are_the_pre_activations(setup):
    replacement, _ = setup
    _, activations = replacement.get_activations(PROMPT)
    _, pre = replacement.get_activations(PROMPT, apply_activation_function=False)
    assert bool((pre < 0).any())  # the ReLU has something to cut
    # x @ W_enc + b_enc: a sum of hidden_size terms, in the transcoder's own order or this one's
    assert_close(torch.relu(pre), activations, length=replacement.model.hidden_size + 1,
                 magnitude=float(pre.abs().max()))


def test_a_latent_set_to_its_own_value_changes_nothing(setup):
    replacement, graph = setup
    clean, activations = replacement.get_activations(PROMPT)
    for layer, position, latent in graph.features[:3].tolist():
        value = float(activations[layer, position, latent])
        for constrained in (None, range(replacement.model.num_layers)):
            logits, _ = replacement.feature_intervention(PROMPT, [(layer, position, latent, value)],
                                                         constrained_layers=constrained)
            assert torch.equal(logits, clean)


def _zeroed_moves_logits_by_minus_the_edge(replacement, graph):
    """Zeroes the latent with the largest direct edge into the logits, every block constrained, and checks each
    logit node moves by minus that edge; returns the latent, the clean logits and the expected moves."""
    model = replacement.model
    edges, chosen = _logit_edges(graph)
    layer, position, latent = graph.features[chosen].tolist()
    clean, _ = replacement.get_activations(PROMPT)
    constrained, _ = replacement.feature_intervention(PROMPT, [(layer, position, latent, 0.0)],
                                                      constrained_layers=range(model.num_layers))
    change = (constrained - clean)[0, -1]
    tokens = [token for token, _ in graph.logit_tokens]
    moved = change[tokens] - change.mean()  # a logit node is the logit less the mean logit
    expected = -edges[:, chosen]
    assert float(expected.abs().max()) > 0.1  # a latent that matters
    # two forward passes differenced, and the edge's forward and backward pass: each value rounded through
    # roundings(model) operations at the logits' and the edges' magnitude
    magnitude = max(float(clean.abs().max()), float(constrained.abs().max()), float(expected.abs().max()))
    assert_close(moved, expected, length=4 * roundings(model), magnitude=magnitude)
    return (layer, position, latent), clean, tokens, expected


def test_zeroing_a_latent_moves_each_logit_by_minus_its_direct_edge(setup):
    replacement, graph = setup
    (layer, position, latent), clean, tokens, expected = _zeroed_moves_logits_by_minus_the_edge(replacement, graph)
    # without the constraint the change goes through the later MLPs too: not the direct edge alone
    free, _ = replacement.feature_intervention(PROMPT, [(layer, position, latent, 0.0)], freeze_attention=False)
    loose = (free - clean)[0, -1]
    assert float(((loose[tokens] - loose.mean()) - expected).abs().max()) > 1e-3


@pytest.mark.parametrize("family,read", [("phi", "ln2.hook_normalized"), ("mixtral", "mlp.hook_in")])
def test_the_direct_edge_holds_on_a_parallel_block_and_a_mixture_of_experts(family, read):
    """Phi's MLP reads the attention's norm (read before the attention); Mixtral's router is a gate held frozen."""
    model = tiny.load(family, attn_implementation="eager")
    transcoders = random_transcoders(model, read=read)
    graph = attribution_graph(model, transcoders, PROMPT, progress=False, batch_size=128)
    _zeroed_moves_logits_by_minus_the_edge(ReplacementModel(model, transcoders), graph)


def test_generation_is_greedy_decoding_of_the_intervened_forward(setup):
    replacement, graph = setup
    _, chosen = _logit_edges(graph)
    layer, position, latent = graph.features[chosen].tolist()
    interventions = [(layer, slice(position, None), latent, 0.0), (layer, 1, latent, 5.0)]
    steps = 4
    text, logits, activations = replacement.feature_intervention_generate(PROMPT, interventions, max_new_tokens=steps,
                                                                          freeze_attention=False)
    ids = replacement._batch(PROMPT)["input_ids"][0]
    expected_logits = []
    for _ in range(steps):  # the whole sequence again each step, no cache
        full, full_activations = replacement.feature_intervention(ids, interventions, freeze_attention=False)
        expected_logits.append(full[0, -1])
        ids = torch.cat([ids, full[0, -1].argmax()[None]])
    assert text == replacement.model.tokenizer.decode(ids)
    magnitude = float(torch.stack(expected_logits).abs().max())
    assert_close(logits, torch.stack(expected_logits), length=2 * roundings(replacement.model), magnitude=magnitude)
    # every position run, the prompt's in the first step and one a step after: the last full forward's
    assert_close(activations, full_activations, length=2 * roundings(replacement.model))


def test_the_first_generated_token_is_the_frozen_forwards(setup):
    replacement, graph = setup
    _, chosen = _logit_edges(graph)
    layer, position, latent = graph.features[chosen].tolist()
    interventions = [(layer, position, latent, 0.0)]
    constrained = range(replacement.model.num_layers)
    _, logits, _ = replacement.feature_intervention_generate(PROMPT, interventions, constrained_layers=constrained,
                                                             max_new_tokens=2)
    full, _ = replacement.feature_intervention(PROMPT, interventions, constrained_layers=constrained)
    assert_close(logits[0], full[0, -1], length=2 * roundings(replacement.model))


def test_an_intervention_outside_the_blocks_is_refused(setup):
    replacement, _ = setup
    with pytest.raises(ToolError, match="blocks 0 to"):
        replacement.feature_intervention(PROMPT, [(replacement.model.num_layers, 0, 0, 0.0)])
