"""Attribution graphs on a residual of several streams: hyper-connections (DeepSeek-V4, HY-V4, Qwen4-Exp), AltUp (Gemma
3n) and a reversible residual (Reformer). The map's first input is the token embedding the streams are made from; the
weights that collapse, spread, predict and correct the streams are fixed at the clean run's
(``tools.frozen_streams``); each graph is complete and agrees with a plain forward's hooks, and without those weights
fixed the map bends again."""

import pytest
import torch

from nnterp import tiny
from nnterp.declare.engine import module_of
from nnterp.tools.frozen import (
    EMBED,
    _frozen_pass,
    circuit_tracer_tokens,
    fixed_inside,
    freeze,
    gating_activations,
)
from nnterp.tools.frozen_probes import first_nonlinear
from nnterp.tools.frozen_streams import (
    magnitude_hosts,
    map_input,
    stream_mixers,
    stream_routers,
)
from nnterp.tools.graph import (
    IncompleteGraph,
    _check_complete,
    attribution_graph,
    completeness_tolerance,
)
from nnterp.tools.graph_sweep import independent_completeness, transcoders

PROMPT = "The Eiffel Tower is in"
#: each family and the frozen trace's record of what mixes its streams: the functions a hyper-connection's gates
#: replay (the rsqrt is its norm's of the streams: DeepSeek-V4's and HY-V4's feeds only the weights, Qwen4-Exp's is
#: mixed), or, for AltUp, None (its routers and the magnitudes matched in the model's own forward)
STREAMS = {
    "deepseek_v4": ["rsqrt", "sigmoid", "softmax"],
    "hy_v4": ["rsqrt", "sigmoid"],
    "qwen4_exp_text": ["rsqrt", "sigmoid"],
    "gemma3n_text": None,
    "reformer": None,
}


def _path(model, module) -> str:
    return {m: name for name, m in module_of(model).named_modules()}[module]


@pytest.mark.parametrize("family", tuple(STREAMS))
def test_a_graph_over_several_streams_is_complete_by_plain_hooks(family):
    model = tiny.load(family, attn_implementation="eager")
    assert model.serves("layer_input", 0) is not None and map_input(model) == "token_embeddings"
    saes = transcoders(model)
    graph = attribution_graph(model, saes, PROMPT, progress=False, batch_size=128)
    allowed = completeness_tolerance(model, len(graph.adjacency), graph.adjacency.dtype)
    assert graph.stats["active_latents"] > 0 and graph.stats["completeness_over_every_active_latent"] <= allowed
    assert independent_completeness(model, graph, saes) <= allowed
    # the embedding nodes are the token embedding, one [hidden_size] vector a position, as on one stream
    with torch.no_grad():
        embedded = module_of(model).get_input_embeddings()(graph.token_ids[None])[0]
    frozen = freeze(model, circuit_tracer_tokens(model, PROMPT))
    assert tuple(frozen.inputs[EMBED].shape) == (1, graph.n_pos, model.hidden_size)
    assert torch.equal(frozen.inputs[EMBED][0], embedded)


@pytest.mark.parametrize("family", [family for family, names in STREAMS.items() if names])
def test_a_hyper_connections_weights_are_replayed_and_were_what_bent(family):
    """Two hyper-connections a block (before the mixer and before the MLP) and the head's: each records its gates'
    calls in the clean run; left live, the probe names a hyper-connection (or the map's logits bend)."""
    model = tiny.load(family, attn_implementation="eager")
    mixers = stream_mixers(model)
    assert len(mixers) == 2 * model.num_layers + 1
    frozen = freeze(model, PROMPT)
    assert sorted({name for mixer in mixers for name in frozen.gates[mixer].names}) == STREAMS[family]
    assert first_nonlinear(model, frozen) is None
    for mixer in mixers:
        frozen.gates[mixer] = []
    bent = first_nonlinear(model, frozen)
    assert bent is not None and type(model._module.get_submodule(bent[0])) in {type(m) for m in mixers} | {
        type(m) for mixer in mixers for m in mixer.modules()}


def test_gemma3n_altup_routers_and_magnitudes_are_fixed_and_were_what_bent():
    """AltUp's router, a call for the prediction and one for the correction a block, is held at its clean outputs,
    and the square roots that match the streams' magnitudes in the model's own forward (three as it makes the streams,
    three as it brings them back, and the target's power of one half each time) at the clean run's. Left live, the
    routers bend the map; the magnitudes are degree zero, so the map still scales, but the origin (every input zero,
    the graph's constants) is off the line: f(0), f(x), f(2x) are not collinear."""
    model = tiny.load("gemma3n_text", attn_implementation="eager")
    frozen = freeze(model, PROMPT)
    routers = stream_routers(model)
    assert len(routers) == model.num_layers and all(len(frozen.taps[router]) == 2 for router in routers)
    (host,) = magnitude_hosts(model)
    altup = model.config.altup_num_inputs
    assert frozen.magnitudes[host].names.count("sqrt") == 2 * (altup - 1)
    assert first_nonlinear(model, frozen) is None

    def second_difference(frozen):
        rows = {key: torch.cat([0 * value, value, 2 * value]) for key, value in frozen.inputs.items()}
        with torch.no_grad(), fixed_inside(frozen):
            out = _frozen_pass(model, frozen, rows, "lm_head_output").double()
        return float((out[2] - 2 * out[1] + out[0]).abs().max() / out.abs().max())

    allowed = completeness_tolerance(model, 0, torch.float32)
    assert second_difference(frozen) <= allowed
    live = freeze(model, PROMPT)
    live.magnitudes = {}
    assert second_difference(live) > 100 * allowed
    # the per-layer input's gate, an activation of the corrected stream, is held too: left live, the probe names it
    gate = module_of(model.layers[0]).act_fn
    assert gate in gating_activations(model) and len(frozen.taps[gate]) == 1
    taps = dict(frozen.taps)
    frozen.taps.pop(gate)
    assert first_nonlinear(model, frozen)[0] == "model.layers.0.act_fn"
    frozen.taps = taps
    for router in routers:
        frozen.taps.pop(router)
    assert _path(model, routers[0]).startswith("model.layers.0.altup") and first_nonlinear(model, frozen) is not None


def test_an_indexers_loop_over_the_rows_replays_each_rows_top_k():
    """Qwen4-Exp's indexer takes a top-k once a row and a position that has a complete block behind it: a pass of three
    rows makes three times the clean run's calls, each row given the clean run's choices, so each row of the
    clean inputs gives the clean logits."""
    model = tiny.load("qwen4_exp_text", attn_implementation="eager")
    frozen = freeze(model, PROMPT)
    attention = module_of(model.layers[1].self_attn)
    assert 0 < frozen.gates[attention].names.count("topk") <= frozen.seq_len
    rows = {key: value.expand(3, *value.shape[1:]).clone() for key, value in frozen.inputs.items()}
    with torch.no_grad(), fixed_inside(frozen):
        out = _frozen_pass(model, frozen, rows, "logits")
    magnitude = float(frozen.logits.abs().max())
    assert float((out - frozen.logits).abs().max()) <= completeness_tolerance(model, 0, torch.float32) * magnitude


def test_a_nan_residual_is_refused_not_passed():
    model = tiny.load("llama", attn_implementation="eager")
    nan = torch.tensor([float("nan")], dtype=torch.float64)
    with pytest.raises(IncompleteGraph, match="is not complete"):
        _check_complete(model, nan, torch.ones(1), torch.ones(1), torch.zeros(1, dtype=torch.long), 1, torch.float32)


def test_reformers_reversible_blocks_run_differentiably_and_its_buckets_are_replayed():
    """Reformer's blocks run inside _ReversibleFunction, whose backward recomputes them (in training mode only): the
    frozen passes call its forward as a plain function, so the map's gradient is its change along a step; without
    that, a backward through the eval-mode model fails as transformers' assertion says. Its LSH attention's buckets
    (argmax, argsort) and written-out softmax (exp, logsumexp) are replayed."""
    from nnterp.tools.frozen_probes import gradients_off
    from nnterp.tools.frozen_streams import reversible_functions

    model = tiny.load("reformer", attn_implementation="eager")
    assert [function.__name__ for function in reversible_functions(model)] == ["_ReversibleFunction"]
    frozen = freeze(model, PROMPT)
    lsh = module_of(model.layers[1].self_attn)
    assert {"argmax", "argsort", "exp", "logsumexp"} <= set(frozen.gates[lsh].names)
    assert gradients_off(model, frozen) is None
    frozen.reversible = ((), ())
    with pytest.raises(AssertionError, match="training mode"):
        gradients_off(model, frozen)
