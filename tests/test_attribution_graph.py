"""Attribution graphs (circuit-tracer's method) on six families: complete, linear, in circuit-tracer's JSON."""

import json

import pytest
import torch

from nnterp import tiny
from nnterp.tools.frozen import freeze, frozen_logits
from nnterp.tools.graph import attribution_graph
from nnterp.tools.splice import LocalSAE

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
    path = graph.write(tmp_path, slug="g")
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
