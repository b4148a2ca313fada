"""circuit-tracer's surface on ``attribution_graph``, under its names: attribution targets (ids, texts,
directions), ``zero_positions``, ``to_pt``/``from_pt``, the ``graph-metadata.json`` index, ``compute_graph_scores``
and the transcoders' scan name in the JSON."""

import json

import pytest
import torch
from torch.utils._python_dispatch import TorchDispatchMode

from nnterp import tiny
from nnterp.tools import LocalSAE
from nnterp.tools._common import ToolError
from nnterp.tools.frozen import circuit_tracer_tokens
from nnterp.tools.graph import (AttributionGraph, _normalized, attribution_graph, completeness_tolerance,
                                compute_graph_scores)
from nnterp.tools.graph_sweep import transcoders

PROMPT = "The Eiffel Tower is in"


@pytest.fixture(scope="module")
def setup():
    model = tiny.load("llama", attn_implementation="eager")
    saes = transcoders(model)
    return model, saes, attribution_graph(model, saes, PROMPT, progress=False, batch_size=128, zero_positions=None)


def _complete(model, graph):
    return graph.completeness() < completeness_tolerance(model, len(graph.adjacency), torch.float32)


def test_targets_given_as_ids_texts_and_directions_are_each_what_they_name(setup):
    """A token id and a token's text are that token's logit less the mean logit (the same rows as the default top
    logits' where the token is among them); a logit difference given over the vocabulary (+1, -1) and over the
    hidden size (the difference of the two unembedding rows, circuit-tracer's form) is the difference of the two
    targets' values, the clean run's, and its edges are the difference of theirs."""
    model, saes, top = setup
    first, second = top.logit_tokens[0][0], top.logit_tokens[1][0]
    text = top.tokens[-1]  # a prompt token's text, one token
    by_text = model.tokenizer(text, add_special_tokens=False).input_ids[0]
    over_vocab = torch.zeros(model.config.vocab_size)
    over_vocab[first], over_vocab[second] = 1, -1
    unembedding = model._module.get_output_embeddings().weight.detach()
    graph = attribution_graph(model, saes, PROMPT, progress=False, batch_size=128, zero_positions=None,
                              attribution_targets=[first, second, text, ("first - second", 0.5, over_vocab),
                                                   ("first - second", 0.25, unembedding[first] - unembedding[second])])
    vocab = model.config.vocab_size
    assert [index for index, _ in graph.logit_tokens] == [first, second, by_text, vocab + 3, vocab + 4]
    probabilities = torch.softmax(_clean_logits(model), -1)
    assert torch.allclose(graph.logit_probabilities[:3], probabilities[[first, second, by_text]])
    assert graph.logit_probabilities[3:].tolist() == [0.5, 0.25]
    assert _complete(model, graph)
    logits = len(graph.adjacency) - 5
    rows = graph.adjacency[logits:]
    tolerance = completeness_tolerance(model, len(graph.adjacency), torch.float32)
    # every latent is in both graphs, in the same order: the first target's edges are the default graph's top logit's
    assert torch.equal(graph.features, top.features)
    sources = logits  # latents, errors, tokens: the columns both graphs share
    top_row = top.adjacency[len(top.adjacency) - len(top.logit_tokens), :sources]
    assert float((rows[0, :sources] - top_row).abs().max()) < tolerance * float(top_row.abs().sum())
    difference = rows[0] - rows[1]
    scale = float(rows[:2].abs().sum())
    for row in (rows[3], rows[4]):
        assert float((row - difference).abs().max()) < tolerance * scale
    clean_difference = graph.clean[logits] - graph.clean[logits + 1]
    assert torch.allclose(graph.clean[logits + 3:], clean_difference.expand(2), atol=tolerance * scale)


def _clean_logits(model):
    with model.trace(circuit_tracer_tokens(model, PROMPT)[None]):
        logits = model.logits[0, -1].save()
    return logits.detach().float()


def test_a_target_that_is_not_one_token_or_not_a_direction_is_refused(setup):
    model, saes, _ = setup
    with pytest.raises(ToolError, match="not one: pass a single token's text or its id"):
        attribution_graph(model, saes, PROMPT, progress=False, attribution_targets=["The Eiffel Tower"])
    with pytest.raises(ToolError, match=r"has 3 entries: give one over the hidden size \(64\)"):
        attribution_graph(model, saes, PROMPT, progress=False, attribution_targets=[("x", 1.0, torch.ones(3))])


def test_zero_positions_drops_the_latents_and_the_error_there_and_stays_complete(setup):
    """circuit-tracer's zero_positions, with its default slice(0, 1): no latent at position 0, the error nodes there
    carry nothing, and the graph is still complete (the MLP outputs there are constant, in each target's constant);
    None (the fixture's) keeps position 0's latents."""
    model, saes, full = setup
    graph = attribution_graph(model, saes, PROMPT, progress=False, batch_size=128)
    assert torch.equal(graph.adjacency, attribution_graph(model, saes, PROMPT, progress=False, batch_size=128,
                                                          zero_positions=slice(0, 1)).adjacency)
    assert int((full.features[:, 1] == 0).sum()) > 0 and int((graph.features[:, 1] == 0).sum()) == 0
    errors = graph.adjacency[:, graph.n_features: graph.n_features + model.num_layers * graph.n_pos]
    at_zero = errors.reshape(len(errors), model.num_layers, graph.n_pos)[:, :, 0]
    assert bool((at_zero == 0).all()) and bool(errors.abs().sum() > 0)
    assert _complete(model, graph)
    # the same latents elsewhere, with the same activations
    elsewhere = full.features[:, 1] != 0
    assert torch.equal(full.features[elsewhere], graph.features)
    assert torch.equal(full.activations[elsewhere], graph.activations)


def test_to_pt_and_from_pt_give_the_same_graph_back(setup, tmp_path):
    _, _, graph = setup
    graph.to_pt(tmp_path / "graph.pt")
    loaded = AttributionGraph.from_pt(tmp_path / "graph.pt")
    for name in graph.__dataclass_fields__:
        mine, theirs = getattr(graph, name), getattr(loaded, name)
        assert torch.equal(mine, theirs) if isinstance(mine, torch.Tensor) else mine == theirs, name
    assert loaded.to_json("g", scan="s") == graph.to_json("g", scan="s")


def test_write_indexes_each_graph_in_graph_metadata_json(setup, tmp_path):
    """The index circuit-tracer's frontend reads first: {"graphs": [metadata, ...]}, one entry a slug, rewritten in
    place when a slug is written again."""
    _, _, graph = setup
    graph.write(tmp_path, slug="one", scan="random-llama")
    graph.write(tmp_path, slug="two", scan="random-llama")
    graph.write(tmp_path, slug="one", scan="random-llama", node_threshold=0.5)
    index = json.loads((tmp_path / "graph-metadata.json").read_text())
    assert [entry["slug"] for entry in index["graphs"]] == ["two", "one"]
    assert index["graphs"][1] == json.loads((tmp_path / "one.json").read_text())["metadata"]
    assert index["graphs"][1]["node_threshold"] == 0.5 and index["graphs"][1]["scan"] == "random-llama"


def test_the_scan_is_the_transcoders_name(setup):
    """A transcoder set's scan goes into the JSON as it is; a list of names is circuit-tracer's transcoder_list under
    "custom-" and the hash of the names; transcoders without a name are refused a JSON unless one is passed."""
    model, saes, graph = setup
    assert graph.scan is None
    with pytest.raises(ToolError, match="pass scan="):
        graph.to_json("g")
    for sae, name in zip(saes, ("a", "b")):
        sae.scan = name
    try:
        named = attribution_graph(model, saes, PROMPT, progress=False, batch_size=128, max_feature_nodes=8)
    finally:
        for sae in saes:
            del sae.scan
    assert named.scan == ["a", "b"]
    metadata = named.to_json("g")["metadata"]
    assert metadata["transcoder_list"] == ["a", "b"] and metadata["scan"] == "custom-" + str(hash("a-b"))
    assert graph.to_json("g", scan="gemma-2-2b")["metadata"]["scan"] == "gemma-2-2b"


def test_graph_scores_are_circuit_tracers(setup):
    """Replacement: the tokens' share of the influence that tokens and errors have on the logits; completeness: the
    non-error share of each node's normalized inputs, weighted by its influence plus its logit weight. Recomputed
    here by the closed form of the influence, weights @ ((I - A)^-1 - I), rather than the tool's series."""
    model, _, graph = setup
    replacement, completeness = compute_graph_scores(graph)
    A = _normalized(graph.adjacency).double()
    weights = torch.zeros(len(A), dtype=torch.float64)
    weights[-len(graph.logit_tokens):] = graph.logit_probabilities.double()
    influence = weights @ (torch.linalg.inv(torch.eye(len(A), dtype=torch.float64) - A) - torch.eye(len(A)))
    errors = slice(graph.n_features, graph.n_features + model.num_layers * graph.n_pos)
    tokens = slice(errors.stop, errors.stop + graph.n_pos)
    expected_replacement = influence[tokens].sum() / (influence[tokens].sum() + influence[errors].sum())
    output = influence + weights
    expected_completeness = ((1 - A[:, errors].sum(-1)) * output).sum() / output.sum()
    # float32 series against the float64 closed form: each of about num_layers + 2 terms a product over the nodes
    tolerance = len(A) * (model.num_layers + 2) * torch.finfo(torch.float32).eps
    assert 0 < replacement < 1 and 0 < completeness < 1
    assert abs(replacement - float(expected_replacement)) < tolerance
    assert abs(completeness - float(expected_completeness)) < tolerance
    # and the graph's errors matter: with every error edge zero, both scores are 1
    clean = AttributionGraph(**{name: getattr(graph, name) for name in graph.__dataclass_fields__})
    clean.adjacency = graph.adjacency.clone()
    clean.adjacency[:, errors] = 0
    assert compute_graph_scores(clean) == pytest.approx((1.0, 1.0), abs=tolerance)


def test_update_interval_ranks_the_latents_again_after_that_many_batches(setup):
    """circuit-tracer's update_interval: with a cap, batches of 4 ranked once every 4 batches choose what one batch
    of 16 chooses (one ranking, from the logits' rows); ranked again after every batch, they choose otherwise here
    (3 of the 16 differ on this prompt), so the interval is what decides."""
    model, saes, _ = setup

    def chosen(batch_size, update_interval):
        graph = attribution_graph(model, saes, PROMPT, progress=False, batch_size=batch_size,
                                  update_interval=update_interval, max_feature_nodes=16)
        return {tuple(feature) for feature in graph.features.tolist()}

    once = chosen(4, 4)
    assert len(once) == 16 and once == chosen(16, 1)
    assert once != chosen(4, 1)


def test_a_string_prompt_starts_with_a_special_token_as_circuit_tracers_does(setup):
    """circuit-tracer's ensure_tokenized: the words without the tokenizer's own specials, one special token (BOS)
    first unless one is there, so zero_positions=slice(0, 1) zeroes that token and the first word keeps its
    latents; a prompt already starting with a special token gets no second one."""
    model, saes, full = setup
    words = model.tokenizer(PROMPT, add_special_tokens=False)["input_ids"]
    assert full.token_ids.tolist() == [model.tokenizer.bos_token_id, *words]
    zeroed = attribution_graph(model, saes, PROMPT, progress=False, batch_size=128, zero_positions=slice(0, 1))
    assert int((zeroed.features[:, 1] == 1).sum()) > 0  # the first word's latents are kept
    special = model.tokenizer.decode([model.tokenizer.bos_token_id])
    assert circuit_tracer_tokens(model, special + PROMPT).tolist() == [model.tokenizer.bos_token_id, *words]


class _LargestTensor(TorchDispatchMode):
    """The most elements of any tensor an op returns while it is on."""

    def __init__(self) -> None:
        super().__init__()
        self.most = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        for tensor in torch.utils._pytree.tree_leaves(out):
            if isinstance(tensor, torch.Tensor):
                self.most = max(self.most, tensor.numel())
        return out


def test_memory_grows_with_the_cap_not_with_the_active_latents():
    """circuit-tracer's edge_matrix: rows only for the logits and the latents the cap visits. With ~12k active
    latents and a cap of 16, no tensor is near the square over every node (the old adjacency, 1.6 GiB peak here)."""
    model = tiny.load("llama", attn_implementation="eager")
    width = model.hidden_size
    wide = [LocalSAE.random(width, 64 * width, seed=i, d_out=width, hook_name=f"blocks.{i}.mlp.hook_in",
                            hook_name_out=f"blocks.{i}.hook_mlp_out", threshold=1.75) for i in range(model.num_layers)]
    largest = _LargestTensor()
    with largest:
        graph = attribution_graph(model, wide, "The Eiffel Tower is in the city of Paris, which is the capital of",
                                  progress=False, max_feature_nodes=16, batch_size=16)
    active = graph.stats["active_latents"]
    assert active > 5000 and graph.stats["selected_latents"] == 16
    every_node = active + len(graph.adjacency) - 16
    assert largest.most < every_node ** 2 // 16
    assert graph.stats["completeness_over_every_active_latent"] < completeness_tolerance(
        model, every_node, torch.float32)


@pytest.mark.parametrize("where", ["cpu", "disk"])
def test_offload_is_refused_and_the_weights_stay_where_they_are(setup, where):
    """circuit-tracer's offload copies and replaces the user's modules' weights: refused, in one sentence, before
    anything runs; the model's parameters are the same objects with the same values."""
    model, saes, _ = setup
    before = [(p, p.detach().clone()) for p in model.parameters()]
    with pytest.raises(ToolError, match=f"offload='{where}' is refused: .* leave offload=None"):
        attribution_graph(model, saes, PROMPT, progress=False, offload=where)
    assert all(p is q and torch.equal(p, value) for (p, value), q in zip(before, model.parameters()))
