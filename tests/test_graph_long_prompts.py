"""``attribution_graph(..., memory_budget=bytes)``: a batch's targets go through the backward in passes of as many
rows as the budget holds (the rows measured on a one- and a two-row forward), the decoder products a slice at a time,
and every attention a query chunk at a time, its frozen pattern recomputed chunk by chunk in the backward
(``nnterp.tools.frozen_attention``), so a long prompt's whole call stays in a fixed budget; each row's gradient is
its own and each pattern row the kernel's, so the graph is the same."""

import pytest
import torch

from nnterp import tiny
from nnterp.contract.numerics import UNIT_ROUNDOFF, roundings
from nnterp.tools import LocalSAE
from nnterp.tools._common import ToolError
from nnterp.tools.frozen import freeze, frozen_logits
from nnterp.tools.frozen_attention import LiveBytes
from nnterp.tools.graph import attribution_graph

MiB = 2 ** 20


@pytest.fixture(scope="module")
def llama():
    return tiny.load("llama", attn_implementation="eager")


def _transcoders(model):
    width = model.hidden_size
    return [LocalSAE.random(width, 2 * width, seed=i, d_out=width, hook_name=f"blocks.{i}.ln2.hook_normalized",
                            hook_name_out=f"blocks.{i}.hook_mlp_out", threshold=1.5)
            for i in range(model.num_layers)]


def _ids(model, n: int) -> dict:
    ids = torch.randint(0, model.config.vocab_size, (1, n), generator=torch.Generator().manual_seed(0))
    return {"input_ids": ids, "attention_mask": torch.ones_like(ids)}


def test_passes_within_a_budget_give_the_graph_of_one_pass_a_batch(llama):
    """A few rows a pass (a budget of a few rows) against 64: the same latents and, up to the order a kernel
    sums a batch's rows, the same edges; both complete (attribution_graph refuses a graph that is not)."""
    saes, batch = _transcoders(llama), _ids(llama, 96)
    whole = attribution_graph(llama, saes, batch, progress=False, max_feature_nodes=40, batch_size=64)
    chunked = attribution_graph(llama, saes, batch, progress=False, max_feature_nodes=40, batch_size=64,
                                memory_budget=3 * MiB)
    assert whole.stats["active_latents"] > 200 and whole.stats["selected_latents"] == 40
    assert whole.stats["rows_per_pass"] == 50 and chunked.stats["rows_per_pass"] <= 10
    assert torch.equal(whole.features, chunked.features)
    scale = float(whole.adjacency.abs().max())
    assert float((whole.adjacency - chunked.adjacency).abs().max()) <= 4 * roundings(llama) * 2 ** -24 * scale
    assert torch.equal(whole.computed, chunked.computed)


@pytest.mark.parametrize("family", ["qwen4_exp_text", "deepseek_v4"])
def test_a_budget_serves_attentions_that_index_the_mask_by_row_or_replay_their_own_softmax(family):
    """Under a budget a pass's mask is made for one row and expanded to the rows (Qwen4-Exp's indexer reads it row by
    row), and an attention whose pattern no site serves keeps replaying its own softmax, unchunked (DeepSeek-V4):
    the graph is the one without a budget, in passes of a few rows."""
    from nnterp.tools.graph_sweep import transcoders

    model = tiny.load(family, attn_implementation="eager")
    saes, batch = transcoders(model, threshold=2.0), _ids(model, 24)
    whole = attribution_graph(model, saes, batch, progress=False, batch_size=64)
    budgeted = attribution_graph(model, saes, batch, progress=False, batch_size=64, memory_budget=8 * MiB)
    assert budgeted.stats["rows_per_pass"] < whole.stats["rows_per_pass"]
    assert torch.equal(whole.features, budgeted.features)
    scale = float(whole.adjacency.abs().max())
    assert float((whole.adjacency - budgeted.adjacency).abs().max()) <= 4 * roundings(model) * 2 ** -24 * scale


def test_live_bytes_counts_the_storages_alive_at_once():
    """The tracker the budget is measured with: a view and an in-place result are their input's storage, a released
    tensor no longer counts."""
    with LiveBytes() as live:
        first, second = torch.ones(1024), torch.ones(2048)
        del first
        third, view = torch.ones(512), second[:10]
        second.add_(1)
    assert live.peak == 4 * (1024 + 2048) and live.largest == (4 * 2048, (2048,))
    assert live.live == 4 * (2048 + 512)
    del second, third, view
    assert live.live == 0


@pytest.mark.parametrize("family, overrides", [("llama", {}), ("gemma2", {"sliding_window": 16}),
                                               ("gpt_oss", {"sliding_window": 16})])
def test_the_chunked_pattern_is_the_stored_one(family, overrides):
    """Each block's pattern recomputed 7 query rows at a time from the clean queries and keys is the pattern the
    eager kernel stores whole: Llama's causal mask, Gemma 2's soft cap and sliding window (every other block),
    GPT-OSS's sinks and sliding window. Each entry differs by the rounding of a head_dim-long dot product of queries
    and keys (the softmax at most doubles a score's error)."""
    model = tiny.load(family, attn_implementation="eager", **overrides)
    ids = _ids(model, 45)["input_ids"]
    stored, chunked = freeze(model, ids), freeze(model, ids, chunk_bytes=1)
    calls = [call for block_calls in chunked.attention_calls.values() for call in block_calls]
    patterns = [pattern for pattern in stored.patterns if pattern is not None]
    assert len(calls) == len(patterns) == model.num_layers and all(p is None for p in chunked.patterns)
    if overrides:  # the window bites: the last query reads none of the first keys in some block
        assert any(bool((pattern[0, :, -1, :-16] == 0).all()) for pattern in patterns)
    for call, pattern in zip(calls, patterns):
        rows = torch.cat([call.pattern(start, start + 7) for start in range(0, 45, 7)], dim=2)
        assert rows.shape == pattern.shape
        head_dim = call.queries.shape[-1]
        score = float(call.queries.abs().max() * call.keys.abs().max()) * call.scaling
        allowed = 2 * head_dim * UNIT_ROUNDOFF[torch.float32] * score
        assert float((rows - pattern).abs().max()) <= allowed


@pytest.mark.parametrize("family", ["bloom", "granite_swa"])
def test_a_pattern_that_cannot_be_recomputed_is_kept_stored(family):
    """Bloom's attention computes its pattern in its own code (ALiBi in its scores, no attention_interface), Granite
    SWA's kernel scales its output by a sink gate after the pattern (no pattern times values to replay): with
    chunk_bytes their frozen traces keep every pattern stored, whole, and record no call."""
    model = tiny.load(family, attn_implementation="eager")
    chunked = freeze(model, _ids(model, 30)["input_ids"], chunk_bytes=1)
    assert not chunked.attention_calls
    assert all(pattern is not None and pattern.shape[-2:] == (30, 30) for pattern in chunked.patterns)


def test_the_frozen_map_of_recomputed_patterns_is_the_stored_ones(llama):
    """The frozen map on other inputs (three random rows), its values and its gradients, with the patterns stored
    and with them recomputed 23 query rows at a time (``FrozenMix``): the same up to the order a kernel sums. A
    pattern recomputed from the pass's own queries and keys, or a backward that drops a chunk, is far off."""
    ids = _ids(llama, 200)["input_ids"]
    stored, chunked = freeze(llama, ids), freeze(llama, ids, chunk_bytes=4 * 4 * 200 * 23)
    generator = torch.Generator().manual_seed(1)
    inputs = {key: torch.randn(3, *value.shape[1:], generator=generator) for key, value in stored.inputs.items()}

    def logits_and_gradients(frozen):
        leaves = {key: value.clone().requires_grad_(True) for key, value in inputs.items()}
        logits = frozen_logits(llama, frozen, leaves)
        return logits.detach(), torch.autograd.grad(logits[:, -1].sum(), list(leaves.values()))

    (a, grads_a), (b, grads_b) = logits_and_gradients(stored), logits_and_gradients(chunked)
    bound = 4 * roundings(llama) * UNIT_ROUNDOFF[torch.float32]
    assert float((a - b).abs().max()) <= bound * float(a.abs().max())
    for grad_a, grad_b in zip(grads_a, grads_b):
        assert float((grad_a - grad_b).abs().max()) <= bound * float(grad_a.abs().max())


@pytest.mark.parametrize("n", [1000, 4000])
def test_a_long_prompt_runs_in_a_fixed_budget(llama, n):
    """1,000 and 4,000 tokens in 256 MiB, 10 logits and 16 latents, batch_size 64. At 4,000 tokens one row's frozen
    patterns alone ([heads, 4000, 4000] floats a block, 488 MiB in all) are more than the budget, and one block's
    eager scores nearly all of it; within it every attention runs a query chunk at a time and the backward recomputes the patterns chunk by chunk, so the tensors the call creates, but
    the graph it returns (the adjacency, circuit-tracer's dense layout over every position's error and token
    nodes), never hold more than the budget at once, and none is larger; the graph is complete."""
    budget, heads = 256 * MiB, llama.config.num_attention_heads
    assert n < 4000 or llama.num_layers * heads * n * n * 4 > budget
    graph_sized = n * (llama.num_layers + 1)  # the adjacency is square, over at least every error and token node
    with LiveBytes(ignored=lambda t: t.dim() == 2 and t.shape[0] == t.shape[1] >= graph_sized) as live:
        graph = attribution_graph(llama, _transcoders(llama), _ids(llama, n), progress=False, max_feature_nodes=16,
                                  batch_size=64, memory_budget=budget)
    assert graph.n_pos == n and graph.stats["selected_latents"] == 16 and graph.stats["rows_per_pass"] >= 1
    assert live.peak <= budget, live.peak / MiB
    assert live.largest[0] <= budget, live.largest


def test_a_budget_below_one_row_is_refused_with_the_figure(llama):
    with pytest.raises(ToolError, match=r"one row of the attribution's backward pass needs about \d+ MiB here, "
                                        r"more than memory_budget \(1 MiB\): raise memory_budget to \d+ MiB"):
        attribution_graph(llama, _transcoders(llama), _ids(llama, 400), progress=False, max_feature_nodes=16,
                          memory_budget=MiB)


@pytest.mark.parametrize("cap", [None, 200])
def test_edges_beyond_a_quarter_of_the_budget_are_kept_on_disk_and_are_the_same(llama, cap):
    """Under a budget, an edge matrix larger than a quarter of it is a temporary file mapped into memory (removed from
    its folder at once), the capped ranking reads it a slice of rows at a time (``RowNormalized``), and the graph is
    the one held in memory; without a budget, or when it fits, it is an ordinary tensor."""
    from nnterp.tools.graph_influence import RowNormalized, _normalized
    from nnterp.tools.graph_sweep import transcoders

    saes, prompt = transcoders(llama, threshold=0.6), "The Eiffel Tower is in the city of Paris, which is"
    whole = attribution_graph(llama, saes, prompt, progress=False, max_feature_nodes=cap)
    budgeted = attribution_graph(llama, saes, prompt, progress=False, max_feature_nodes=cap, memory_budget=2 * MiB)
    assert whole.adjacency.untyped_storage().filename is None
    assert torch.equal(whole.features, budgeted.features)
    scale = float(whole.adjacency.abs().max())
    assert float((whole.adjacency - budgeted.adjacency).abs().max()) <= 4 * roundings(llama) * 2 ** -24 * scale
    if cap is None:  # the adjacency is the edge matrix itself, 4 bytes an entry, beyond a quarter of 2 MiB
        assert whole.adjacency.numel() * 4 > MiB // 2
        assert budgeted.adjacency.untyped_storage().filename is not None
    matrix = torch.randn(37, 53)
    vector = torch.randn(37)
    product = vector @ RowNormalized(matrix, elements=100)
    # each entry a sum over the 37 rows, each term divided once (before the product or after): that many roundings,
    # relative to the sum of the terms' magnitudes
    magnitude = float((vector.abs() @ _normalized(matrix)).max())
    assert torch.allclose(product, vector @ _normalized(matrix), rtol=0, atol=(37 + 2) * 2 ** -24 * magnitude)
