"""Head loadings: an edge of an attribution graph split over each block's heads plus a bypass, whose parts give back
the graph's own edge; each head's share measured again without the tool's autograd (the source taken out of the
replacement model's inputs, one head's premix slot held at the run with it), and the check fails where a head is
dropped."""

import pytest
import torch

import nnterp.tools.heads as heads_module
from nnterp import tiny
from nnterp.contract.numerics import assert_close, roundings
from nnterp.tools import LocalCLT, head_loadings
from nnterp.tools._common import ToolError
from nnterp.tools.frozen import replacement_pass
from nnterp.tools.graph import IncompleteGraph, attribution_graph
from nnterp.tools.graph_replacement import replacement_sources
from nnterp.tools.graph_sweep import PROMPT, transcoders
from nnterp.tools.heads import head_loadings_tolerance, node_input, source_vector


def _graph(family, **config):
    model = tiny.load(family, attn_implementation="eager", **config)
    saes = transcoders(model)
    return model, saes, attribution_graph(model, saes, PROMPT, progress=False)


def _held(model, saes, graph, source, target, layer):
    """Without autograd: the target's input with the source taken out of the inputs, then again with block
    ``layer``'s premix held at the run with the source, one head's slot at a time and all at once. Each head's share
    is what holding its slot gives back; the bypass is what holding every slot does not. Returns (each head's
    share, the bypass, the edge as the difference with and without the source, the largest input: their scale)."""
    sources = replacement_sources(model, saes, graph.token_ids, slice(0, 1))
    dtype = sources.frozen.inputs["embed"].dtype
    embed_vector, leaf_vectors = source_vector(sources, source)
    projection, view = heads_module._premix_projection(model, layer)
    L = model.num_layers
    held = {}

    def run(without_source, hold=None):
        def at_projection(module, args):
            if hold is None:
                if not without_source:
                    held["premix"] = args[0].detach().clone()
                return None
            premix = args[0].clone()
            view(premix)[..., hold, :] = view(held["premix"])[..., hold, :]
            return (premix, *args[1:])

        embed = sources.embed - (embed_vector if without_source else 0)
        leaves = [sources.clean_leaves[i] - (leaf_vectors[i] if without_source else 0) for i in range(L)]
        handle = projection.register_forward_pre_hook(at_projection)
        try:
            with torch.no_grad():
                reads, logits = replacement_pass(model, sources.frozen, sources.replacement, embed[None].to(dtype),
                                                 [leaf[None].to(dtype) for leaf in leaves])
        finally:
            handle.remove()
        return float(node_input(sources.replacement, target, reads, logits)[0])

    full = run(False)  # keeps the premix with the source
    free = run(True)
    count = view(held["premix"]).shape[-2]
    shares = torch.tensor([run(True, hold=h) - free for h in range(count)])  # float32: the passes' dtype
    every = run(True, hold=slice(None))
    return shares, full - every, full - free, max(abs(full), abs(free), abs(every))


def _some_source(graph):
    """A block-0 latent at position 2 (past the zeroed first position; not the last, so its way to the last
    position's logits runs through an attention)."""
    return int(((graph.features[:, 0] == 0) & (graph.features[:, 1] == 2)).nonzero()[0])


#: llama (grouped queries: 4 heads, 2 key-value heads), gemma2 (soft cap, post-attention norms), qwen3 (a norm on
#: each head's queries and keys), gpt2 (Conv1D projections with biases), mixtral (an MoE MLP)
@pytest.mark.parametrize("family", ["llama", "gemma2", "qwen3", "gpt2", "mixtral"])
def test_the_heads_and_the_bypass_give_back_the_edge_and_each_head_is_its_held_slot(family):
    model, saes, graph = _graph(family)
    L = model.num_layers
    top_logit = graph.adjacency.shape[0] - len(graph.logit_tokens)
    last_latent = int((graph.features[:, 0] == L - 1).nonzero()[-1])
    for source, target in [(_some_source(graph), top_logit), (("embed", 1), last_latent)]:
        found = head_loadings(model, saes, graph, source, target)
        assert found.layers == list(range(L)) and found.heads.shape == (L, model.num_heads)
        assert found.edge == float(graph.adjacency[found.target, found.source])
        premix_width = model.num_heads * model.head_dim
        assert float(found.residuals.max()) < head_loadings_tolerance(model, graph.n_pos, premix_width, torch.float32)
        assert found.heads[L - 1].abs().min() > 0  # every head of the last block carries a part
        for layer in range(L):
            shares, bypass, edge, scale = _held(model, saes, graph, found.source_node, found.target_node, layer)
            # each side a forward pass (or a backward) over every block, then one difference
            assert_close(found.heads[layer].float(), shares, length=4 * roundings(model), magnitude=scale)
            assert_close(found.bypass[layer].float(), torch.tensor(bypass), length=4 * roundings(model),
                         magnitude=scale)
            assert_close(torch.tensor(found.edge), torch.tensor(edge), length=4 * roundings(model), magnitude=scale)
        heads, bypass = head_loadings(model, saes, graph, source, target, layer=L - 1).at(L - 1)
        assert_close(heads.float(), found.heads[L - 1].float(), length=4 * roundings(model),
                     magnitude=float(found.magnitude.max()))


def test_a_cross_layer_latent_writes_into_every_later_block_and_its_heads_are_its_held_slots():
    model = tiny.load("llama", attn_implementation="eager")
    clt = LocalCLT.random(model.num_layers, model.hidden_size, 2 * model.hidden_size, threshold=0.6,
                          feature_input_hook="ln2.hook_normalized")
    graph = attribution_graph(model, clt, PROMPT, progress=False)
    source = int((graph.features[:, 0] == 0).nonzero()[0])  # block 0's: it writes into blocks 0 and 1
    found = head_loadings(model, clt, graph, source, graph.adjacency.shape[0] - len(graph.logit_tokens))
    shares, bypass, edge, scale = _held(model, clt, graph, found.source_node, found.target_node, 1)
    assert shares.abs().min() > 0
    assert_close(found.heads[1].float(), shares, length=4 * roundings(model), magnitude=scale)
    assert_close(found.bypass[1].float(), torch.tensor(bypass), length=4 * roundings(model), magnitude=scale)
    assert_close(torch.tensor(found.edge), torch.tensor(edge), length=4 * roundings(model), magnitude=scale)


def test_a_hybrid_splits_at_its_attention_blocks_and_its_mixers_are_in_the_bypass():
    """Jamba: a Mamba block and an attention block; the mixer has no heads, its paths fall in the bypass."""
    model, saes, graph = _graph("jamba")
    attention = [i for i in range(model.num_layers) if model.serves("attention_premix", i) is None]
    found = head_loadings(model, saes, graph, ("embed", 1), graph.adjacency.shape[0] - len(graph.logit_tokens))
    assert found.layers == attention and len(attention) < model.num_layers
    for i, layer in enumerate(attention):
        shares, bypass, _, scale = _held(model, saes, graph, found.source_node, found.target_node, layer)
        assert shares.abs().min() > 0
        assert_close(found.heads[i].float(), shares, length=4 * roundings(model), magnitude=scale)
        assert_close(found.bypass[i].float(), torch.tensor(bypass), length=4 * roundings(model), magnitude=scale)
    mamba = next(i for i in range(model.num_layers) if i not in attention)
    with pytest.raises(ToolError, match=rf"does not serve at block {mamba}: a Mamba mixer"):
        head_loadings(model, saes, graph, ("embed", 1), found.target, layer=mamba)


def test_a_source_past_the_block_is_all_bypass_and_the_names_find_the_nodes():
    model, saes, graph = _graph("llama")
    source = _some_source(graph)
    layer, position, latent = graph.features[source].tolist()
    top = graph.logit_tokens[0][0]
    found = head_loadings(model, saes, graph, ("latent", layer, position, latent), ("logit", top), layer=0)
    # a block-0 latent is written after block 0's attention: none of its paths runs through it
    assert found.layers == [0] and not found.heads.any() and found.edge != 0
    assert_close(found.bypass.float(), torch.tensor([found.edge]), length=2 * roundings(model),
                 magnitude=float(found.magnitude[0]))  # a forward pass against the graph's backward
    assert found.source == source and found.target == graph.adjacency.shape[0] - len(graph.logit_tokens)
    every = head_loadings(model, saes, graph, source, found.target)
    (where, _, share), *_ = every.top(3)
    assert where == 1 and share != 0
    one_at_a_time = head_loadings(model, saes, graph, source, found.target, batch_size=1)  # a pass a block's bypass
    assert_close(one_at_a_time.bypass.float(), every.bypass.float(), length=2 * roundings(model),
                 magnitude=float(every.magnitude.max()))


def test_dropping_a_head_is_caught(monkeypatch):
    """Block 1's premix seen without its last head: the heads no longer add up to the edge."""
    model, saes, graph = _graph("llama")
    original = heads_module._premix_projection

    def without_the_last_head(model, layer):
        projection, view = original(model, layer)
        return projection, lambda flat: view(flat)[..., :-1, :]

    monkeypatch.setattr(heads_module, "_premix_projection", without_the_last_head)
    with pytest.raises(IncompleteGraph, match=r"llama's head loadings of the edge from .* are not complete at block 1"):
        head_loadings(model, saes, graph, _some_source(graph), graph.adjacency.shape[0] - 1)


def test_heads_grouped_wrongly_still_add_up_but_are_not_the_held_slots(monkeypatch):
    """The premix cut into heads the wrong way (interleaved, not one contiguous slot a head): the parts still add up
    to the edge, so the tool's own check cannot see it; the held slots, which the family's layout defines, can."""
    model, saes, graph = _graph("llama")
    source, target = _some_source(graph), graph.adjacency.shape[0] - len(graph.logit_tokens)
    original = heads_module._premix_projection

    def interleaved(model, layer):
        projection, _ = original(model, layer)
        return projection, lambda flat: flat.unflatten(-1, (-1, model.num_heads)).transpose(-1, -2)

    right = head_loadings(model, saes, graph, source, target)
    monkeypatch.setattr(heads_module, "_premix_projection", interleaved)
    wrong = head_loadings(model, saes, graph, source, target)  # complete: every path still counted once
    monkeypatch.setattr(heads_module, "_premix_projection", original)
    shares, *_ = _held(model, saes, graph, right.source_node, right.target_node, 1)
    assert float((wrong.heads[1] - shares).abs().max()) > 100 * float((right.heads[1] - shares).abs().max())


def test_nodes_without_edges_and_other_transcoders_are_refused():
    model, saes, graph = _graph("llama")
    logit = graph.adjacency.shape[0] - 1
    with pytest.raises(ToolError, match=r"is a logit node, which has no outgoing edges: give a latent"):
        head_loadings(model, saes, graph, logit, logit)
    with pytest.raises(ToolError, match=r"is an error or token node, which has no incoming edges"):
        head_loadings(model, saes, graph, 0, ("embed", 1))
    with pytest.raises(ToolError, match=r"\('error', 0, 11\) is not a node of this graph: .* position below 11"):
        head_loadings(model, saes, graph, ("error", 0, 11), logit)
    other = [type(t).random(model.hidden_size, 2 * model.hidden_size, seed=10 + i, d_out=model.hidden_size,
                            hook_name=t.cfg.hook_name, hook_name_out=t.cfg.hook_name_out, threshold=0.6)
             for i, t in enumerate(saes)]
    with pytest.raises(ToolError, match=r"pass the transcoders and zero_positions the graph was built with"):
        head_loadings(model, other, graph, _some_source(graph), logit)
