"""``attribution_graph(..., memory_budget=bytes)``: a batch's targets go through the backward in passes of as many
rows as the budget holds (the rows measured on a one- and a two-row forward), the decoder products a slice at a
time, so a long prompt's passes stay in a fixed budget; each row's gradient is its own, so the graph is the same."""

import pytest
import torch
from torch.utils._python_dispatch import TorchDispatchMode

from nnterp import tiny
from nnterp.contract.numerics import roundings
from nnterp.tools import LocalSAE
from nnterp.tools._common import ToolError
from nnterp.tools.graph import attribution_graph

MiB = 2 ** 20


class _Sizes(TorchDispatchMode):
    """The bytes of every tensor an op returns while it is on, by shape (the largest of each)."""

    def __init__(self) -> None:
        super().__init__()
        self.largest = {}

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        for tensor in torch.utils._pytree.tree_leaves(out):
            if isinstance(tensor, torch.Tensor):
                self.largest[tuple(tensor.shape)] = tensor.numel() * tensor.element_size()
        return out


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
    """Two rows a pass at most (a budget of a few rows) against 64: the same latents and, up to the order a kernel
    sums a batch's rows, the same edges; both complete (attribution_graph refuses a graph that is not)."""
    saes, batch = _transcoders(llama), _ids(llama, 96)
    whole = attribution_graph(llama, saes, batch, progress=False, max_feature_nodes=40, batch_size=64)
    chunked = attribution_graph(llama, saes, batch, progress=False, max_feature_nodes=40, batch_size=64,
                                memory_budget=3 * MiB)
    assert whole.stats["active_latents"] > 200 and whole.stats["selected_latents"] == 40
    assert whole.stats["rows_per_pass"] == 50 and chunked.stats["rows_per_pass"] <= 4
    assert torch.equal(whole.features, chunked.features)
    scale = float(whole.adjacency.abs().max())
    assert float((whole.adjacency - chunked.adjacency).abs().max()) <= 4 * roundings(llama) * 2 ** -24 * scale
    assert torch.equal(whole.computed, chunked.computed)


def test_a_long_prompt_runs_in_a_fixed_budget(llama):
    """2,000 tokens, 10 logits and 16 latents, batch_size 64: one pass a batch would hold 26 rows of the forward's
    graph, each block's frozen pattern copied to every row ([26, heads, 2000, 2000] floats, 1.6 GiB a block). Within
    a 1 GiB budget the passes take one row (a row's graph holds its blocks' patterns, 64 MiB each, and what the
    eager attention keeps beside them), no tensor the call creates but the graph it returns (the adjacency,
    circuit-tracer's dense layout over every position's error and token nodes) is larger than the budget, and the
    graph is complete."""
    budget = 1024 * MiB
    sizes = _Sizes()
    with sizes:
        graph = attribution_graph(llama, _transcoders(llama), _ids(llama, 2000), progress=False, max_feature_nodes=16,
                                  batch_size=64, memory_budget=budget)
    assert graph.n_pos == 2000 and graph.stats["selected_latents"] == 16 and graph.stats["rows_per_pass"] == 1
    sizes.largest.pop(tuple(graph.adjacency.shape))
    shape, most = max(sizes.largest.items(), key=lambda item: item[1])
    assert most <= budget, (shape, most / MiB)


def test_a_budget_below_one_row_is_refused_with_the_figure(llama):
    with pytest.raises(ToolError, match=r"one row of the attribution's backward pass needs about \d+ MiB here, "
                                        r"more than memory_budget \(1 MiB\): raise memory_budget to \d+ MiB"):
        attribution_graph(llama, _transcoders(llama), _ids(llama, 400), progress=False, max_feature_nodes=16,
                          memory_budget=MiB)
