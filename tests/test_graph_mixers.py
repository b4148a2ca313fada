"""Attribution graphs through the token mixers that are no softmax attention: a state-space scan (Jamba's Mamba,
Falcon-H1's Mamba-2 beside its attention, Nemotron-H's in blocks of one sublayer, Zamba's inside its
hybrid block, Mamba's alone), a delta rule (Qwen3-Next's gated DeltaNet), a gated short
convolution (LFM2), a lightning attention (MiniMax) and xLSTM's matrix memory, each frozen at its clean run's
coefficients (``frozen.KERNELS``): the graph is built, complete by a plain forward's hooks, the mixer is linear in
its input and still carries it, and the model is left as it was."""

import pytest
import torch

from nnterp import tiny
from nnterp.contract.numerics import UNIT_ROUNDOFF, roundings
from nnterp.declare.engine import module_of
from nnterp.tools.frozen import EMBED, _frozen_pass, fixed_inside, freeze
from nnterp.tools.frozen_gates import _hooked
from nnterp.tools.frozen_mixers import block_mixers
from nnterp.tools.graph import attribution_graph, completeness_tolerance
from nnterp.tools.graph_sweep import independent_completeness, transcoders

PROMPT = "The Eiffel Tower is in"
MIXERS = ("jamba", "falcon_h1", "nemotron_h", "qwen3_next", "lfm2", "minimax", "xlstm")


def _snapshot(model):
    root = module_of(model)
    return ({name: id(module) for name, module in root.named_modules()},
            {name: parameter.detach().clone() for name, parameter in root.named_parameters()})


@pytest.mark.parametrize("family", MIXERS)
def test_a_graph_through_a_frozen_mixer_is_complete_by_plain_hooks_and_leaves_the_model(family):
    model = tiny.load(family, attn_implementation="eager")
    modules, parameters = _snapshot(model)
    saes = transcoders(model)
    graph = attribution_graph(model, saes, PROMPT, progress=False, batch_size=128)
    allowed = completeness_tolerance(model, len(graph.adjacency), graph.adjacency.dtype)
    assert graph.stats["active_latents"] > 0
    assert independent_completeness(model, graph, saes) <= allowed
    after_modules, after_parameters = _snapshot(model)
    assert after_modules == modules
    assert after_parameters.keys() == parameters.keys()
    assert all(torch.equal(after_parameters[name], value) for name, value in parameters.items())


def test_a_mamba_graph_carries_every_position_to_the_logits_through_the_frozen_scans():
    """No block of Mamba has an MLP, so no transcoder (None a block) and no latent: the logits' edges are the
    embeddings', and those of the earlier positions reach the last one through the frozen scans alone."""
    model = tiny.load("mamba", attn_implementation="eager")
    saes = transcoders(model)
    assert saes == [None] * model.num_layers
    graph = attribution_graph(model, saes, PROMPT, progress=False)
    allowed = completeness_tolerance(model, len(graph.adjacency), graph.adjacency.dtype)
    assert graph.n_features == 0 and independent_completeness(model, graph, saes) <= allowed
    start = model.num_layers * graph.n_pos  # past the error nodes (no latents before them)
    tokens = graph.adjacency[-len(graph.logit_tokens):, start: start + graph.n_pos]
    earlier = tokens[:, :-1].abs().sum(-1)
    assert bool((earlier > 10 * allowed * tokens.abs().sum(-1)).all())   # well above rounding


@pytest.mark.parametrize("family", ("mamba", *MIXERS))
def test_the_frozen_mixer_is_linear_in_its_input_and_carries_it(family):
    """Under the frozen map, the stream entering block 0 on a line (clean, one step, two steps): each mixer's output
    is the clean run's at the clean input, its second difference is rounding, and its first is not (the input's path
    through the mixer is kept: only its coefficients are constants)."""
    model = tiny.load(family, attn_implementation="eager")
    frozen = freeze(model, PROMPT)
    mixers = [mixer for i in range(model.num_layers) for _, mixer in block_mixers(model, i) if mixer is not None]
    assert mixers
    clean, outputs = {}, {}
    with torch.no_grad(), _hooked(mixers, lambda module, _, args, output: clean.setdefault(module, output)):
        module_of(model)(**{k: v for k, v in frozen.batch.items() if k in ("input_ids", "attention_mask")},
                         use_cache=False)
    generator = torch.Generator().manual_seed(0)
    embed = frozen.inputs[EMBED]
    step = torch.randn(embed.shape, generator=generator) * embed.std()
    rows = {key: torch.cat([value] * 3) for key, value in frozen.inputs.items()}
    rows[EMBED] = torch.cat([embed, embed + step, embed + 2 * step])
    with torch.no_grad(), fixed_inside(frozen), \
            _hooked(mixers, lambda module, _, args, output: outputs.setdefault(module, output)):
        _frozen_pass(model, frozen, rows, "lm_head_output")
    allowed = 2 * roundings(model) * UNIT_ROUNDOFF[embed.dtype]
    for mixer in mixers:
        out = outputs[mixer][0] if isinstance(outputs[mixer], tuple) else outputs[mixer]
        ran = clean[mixer][0] if isinstance(clean[mixer], tuple) else clean[mixer]
        out = out.double().reshape(3, -1)
        magnitude = float(out.abs().max())
        assert float((out[0] - ran.double().reshape(-1)).abs().max()) <= allowed * magnitude
        assert float((out[2] - 2 * out[1] + out[0]).abs().max()) <= allowed * magnitude
        assert float((out[1] - out[0]).abs().max()) > 10 * allowed * magnitude   # well above rounding


def test_zambas_scan_inside_its_hybrid_block_is_frozen_and_its_graph_complete():
    """Zamba 2's hybrid block runs its shared transformer, then a Mamba decoder whose scan sits a level down
    (``mamba_decoder.mamba``): the scan is found there and frozen after the shared attention's pattern, and the
    shared MLP's activation is held as a gate; no site serves an MLP, so the graph has no latents, and it is
    complete by plain hooks."""
    model = tiny.load("zamba2", attn_implementation="eager")
    names = {module: path for path, module in module_of(model).named_modules()}
    hybrid = next(i for i in range(model.num_layers) if len(block_mixers(model, i)) == 2)
    assert [(name, names.get(mixer)) for name, mixer in block_mixers(model, hybrid)] == [
        ("self_attn", None), ("mamba_decoder.mamba", f"model.layers.{hybrid}.mamba_decoder.mamba")]
    saes = transcoders(model)
    graph = attribution_graph(model, saes, PROMPT, progress=False, batch_size=128)
    allowed = completeness_tolerance(model, len(graph.adjacency), graph.adjacency.dtype)
    assert graph.stats["active_latents"] == 0
    assert independent_completeness(model, graph, saes) <= allowed


def test_an_attention_whose_pattern_this_load_does_not_serve_is_no_mixer():
    """Under sdpa a hybrid's attention blocks serve no pattern: the refusal asks for eager, and the attention is not
    taken for a mixer to freeze."""
    from nnterp.tools._common import ToolError

    model = tiny.load("jamba", attn_implementation="sdpa")
    with pytest.raises(ToolError, match=r"needs attention_probabilities, .* at block 1: needs attn_implementation"):
        attribution_graph(model, transcoders(model), PROMPT, progress=False)
