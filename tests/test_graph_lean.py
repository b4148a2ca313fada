"""The lean pass an attribution graph's backward passes share (``replacement_pass(..., lean=True)``): the same map as
the plain pass, and a graph that keeps no norm's input for a backward."""

from __future__ import annotations

import torch

from nnterp import tiny
from nnterp.contract.numerics import assert_close, roundings
from nnterp.declare.engine import module_of
from nnterp.tools.frozen import replacement_pass
from nnterp.tools.graph import _saved_bytes
from nnterp.tools.graph_replacement import replacement_sources
from nnterp.tools.splice import LocalSAE

PROMPT = "The Eiffel Tower is in"


def _sources(model):
    width = model.hidden_size
    transcoders = [LocalSAE.random(width, 2 * width, seed=i, d_out=width, hook_name=f"blocks.{i}.ln2.hook_normalized",
                                   hook_name_out=f"blocks.{i}.hook_mlp_out", threshold=0.6)
                   for i in range(model.num_layers)]
    return replacement_sources(model, transcoders, PROMPT, None)


def _pass(model, sources, rows: int, lean: bool, grad: bool = False):
    embed = sources.frozen.inputs["embed"].expand(rows, -1, -1).clone().requires_grad_(grad)
    leaves = [leaf[None].expand(rows, -1, -1).clone().requires_grad_(grad) for leaf in sources.clean_leaves]
    with torch.set_grad_enabled(grad):
        return replacement_pass(model, sources.frozen, sources.replacement, embed, leaves, lean=lean)


def test_the_lean_pass_is_the_plain_pass():
    """The norms run as gain · x · scale, the MLPs skipped and lm_head on the last position: what each transcoder
    reads and the last position's logits are the plain pass's, to the rounding of the blocks' reductions."""
    model = tiny.load("llama", attn_implementation="eager")
    sources = _sources(model)
    plain_reads, plain_logits = _pass(model, sources, 2, lean=False)
    lean_reads, lean_logits = _pass(model, sources, 2, lean=True)
    assert lean_logits.shape[1] == 1  # lm_head ran on the last position alone
    assert_close(lean_logits[:, -1], plain_logits[:, -1], roundings(model))
    for lean_read, plain_read in zip(lean_reads, plain_reads):
        assert_close(lean_read, plain_read, roundings(model))


def test_the_lean_pass_keeps_no_norm_input_for_the_backward():
    """Per row, the plain pass's graph keeps each served norm's input and its input times its scale (the site's
    scale write, output × new / old, differentiates through both); the lean pass keeps neither: it saves less than
    the plain one by at least those two [positions hidden] tensors a norm."""
    model = tiny.load("llama", attn_implementation="eager")
    sources = _sources(model)

    def per_row(lean):
        saved = [_saved_bytes(lambda: _pass(model, sources, rows, lean, grad=True)) for rows in (1, 2)]  # noqa: B023
        return saved[1] - saved[0]

    parameters = [p for p in module_of(model).parameters() if p.requires_grad]
    for parameter in parameters:  # as attribution_graph differentiates: by the inputs alone
        parameter.requires_grad_(False)
    try:
        kept = per_row(False) - per_row(True)
    finally:
        for parameter in parameters:
            parameter.requires_grad_(True)
    norms = 2 * model.num_layers + 1
    assert kept >= 2 * norms * sources.frozen.seq_len * model.hidden_size * 4
