"""Attribution graphs on the families whose forward held something the frozen trace did not fix: what is frozen
now (a gated norm, a sum the block writes as two terms), and what is refused, with the reason measured."""

import pytest
import torch

from nnterp import tiny
from nnterp.tools._common import ToolError
from nnterp.tools.frozen import freeze
from nnterp.tools.frozen_probes import first_nonlinear
from nnterp.tools.graph import attribution_graph
from nnterp.tools.graph_sweep import transcoders

PROMPT = "The Eiffel Tower is in"


def test_axk2s_gated_norm_is_among_the_frozen_gates():
    model = tiny.load("axk2", attn_implementation="eager")
    frozen = freeze(model, PROMPT)
    gated = [module for module, calls in frozen.gates.items() if calls and "GatedRMSNorm" in type(module).__name__]
    # every block's input norm (and a sparse block's MLP norm, gated too): one sigmoid call each
    assert {block.input_layernorm for block in model._module.model.layers} <= set(gated)
    assert all(len(frozen.gates[module]) == 1 for module in gated)


def test_inkling2s_dynamic_convolution_taps_are_frozen_and_were_what_bent():
    """The taps are the clean run's (one record a call); without freezing them, the probe names the convolution."""
    import nnterp.tools.frozen as frozen_module

    model = tiny.load("inkling2_text", attn_implementation="eager")
    frozen = freeze(model, PROMPT)
    assert frozen.taps and all(len(calls) == 1 for calls in frozen.taps.values())
    assert first_nonlinear(model, frozen) is None
    frozen.taps = {}
    assert first_nonlinear(model, frozen) == ("model.layers.1.self_attn.k_proj.sconv",
                                              "Inkling2DynamicShortConvolution")
    assert frozen_module.tap_projections(tiny.load("llama")) == []


#: refused: what the frozen map's inputs do not cover (before anything is built), or its gradients do not reach
#: (named once the graph fails its completeness)
STRUCTURAL = {
    "hrm_text": r"hrm_text runs model.L_module with gradients off inside its own forward \(torch.no_grad\), so an "
                r"attribution graph's edges, which are gradients, miss every path through it",
}


@pytest.mark.parametrize("family", tuple(STRUCTURAL))
def test_what_the_frozen_maps_inputs_do_not_cover_is_refused(family):
    model = tiny.load(family, attn_implementation="eager")
    with pytest.raises(ToolError, match=STRUCTURAL[family]) as caught:
        attribution_graph(model, transcoders(model), PROMPT, progress=False)
    assert str(caught.value).count(". ") == 0  # one sentence


def test_a_module_still_not_linear_is_named_in_the_refusal():
    """A square added to block 0's value projection: the graph is refused, naming that module, not returned."""
    model = tiny.load("llama", attn_implementation="eager")
    values = model.layers[0].self_attn._module.v_proj
    handle = values.register_forward_hook(lambda module, args, output: output + output ** 2)
    try:
        with pytest.raises(ToolError, match=r"llama's forward is not linear in the stream .*: "
                                            r"model[.]layers[.]0[.]self_attn[.]v_proj \(Linear\) is the first module"):
            attribution_graph(model, transcoders(model), PROMPT, progress=False)
    finally:
        handle.remove()


def test_the_probe_finds_the_module_that_bends_and_nothing_where_none_does():
    """On llama nothing bends; a square added to block 0's value projection is found there, not in the modules
    it feeds (whose inputs already bend)."""
    model = tiny.load("llama", attn_implementation="eager")
    assert first_nonlinear(model, freeze(model, PROMPT)) is None
    values = model.layers[0].self_attn._module.v_proj
    handle = values.register_forward_hook(lambda module, args, output: output + output ** 2)
    try:
        assert first_nonlinear(model, freeze(model, PROMPT)) == ("model.layers.0.self_attn.v_proj", "Linear")
    finally:
        handle.remove()


def test_cpmants_learned_positions_attend_to_the_calls_tokens():
    """What the refusal says, measured: the positions ahead put weight on the call's positions in the clean run."""
    from nnterp.tools._common import encode, trace
    from nnterp.tools.frozen import recording_inside

    model = tiny.load("cpmant", attn_implementation="eager")
    ahead, gates = model.config.prompt_length, {}
    with recording_inside(model, {}, gates), trace(model, encode(model, PROMPT)):
        model.logits.save()
    pattern = next(calls[0] for calls in gates.values() if calls)
    assert float(pattern[..., :ahead, ahead:].sum(-1).mean()) > 0.1  # 0.56 of their weight on this prompt


def test_cpmants_learned_positions_mlp_outputs_are_held_and_the_graph_is_complete():
    """The MLP outputs over the 32 learned positions ahead of the call's are held at the clean run's (what a plain
    hook on each MLP sees there); without that hold the probe names the feed-forward block again. The graph is
    complete, agrees with plain hooks, and says how much of a target those held outputs carry (a share of its
    constant, as zero_positions' is): at least what they carry of the top logit, measured on the frozen map."""
    from nnterp.declare.engine import module_of
    from nnterp.tools.frozen import HeldAhead, ahead_at_zero, block_mlps, frozen_logits
    from nnterp.tools.graph import completeness_tolerance
    from nnterp.tools.graph_sweep import independent_completeness

    model = tiny.load("cpmant", attn_implementation="eager")
    ahead = model.config.prompt_length
    saes = transcoders(model)
    graph = attribution_graph(model, saes, PROMPT, progress=False, batch_size=128)
    allowed = completeness_tolerance(model, len(graph.adjacency), torch.float32)
    assert graph.stats["completeness_over_every_active_latent"] < allowed
    assert independent_completeness(model, graph, saes) < allowed
    frozen = freeze(model, graph.token_ids)
    seen = {}
    handles = [mlp.register_forward_hook(lambda module, args, output: seen.setdefault(module, output))
               for mlp in block_mlps(model)]
    try:
        with torch.no_grad():
            module_of(model)(input_ids=graph.token_ids[None])
    finally:
        for handle in handles:
            handle.remove()
    for mlp in block_mlps(model):
        (held,) = frozen.taps[mlp]
        assert isinstance(held, HeldAhead) and torch.equal(held.clean, seen[mlp][:, :ahead])
    top = graph.logit_tokens[0][0]
    rows = len(graph.adjacency) - len(graph.logit_tokens)

    @torch.no_grad()
    def top_logit():
        logits = frozen_logits(model, frozen, frozen.inputs, "lm_head_output")[0, -1].double()
        return logits[top] - logits.mean()

    held_share = float(top_logit())
    with ahead_at_zero(frozen):
        held_share -= float(top_logit())
    magnitude = float(graph.adjacency[rows].double().abs().sum() + graph.constants[rows].abs())
    assert 0 < abs(held_share) / magnitude <= graph.stats["held_ahead_share"] * (1 + allowed)
    for mlp in block_mlps(model):
        frozen.taps.pop(mlp)
    assert first_nonlinear(model, frozen) == ("cpmant.encoder.layers.0.ffn", "CpmAntFFNBlock")


#: a non-linearity outside the MLPs, frozen as a constant of the clean run: the module, and how it is frozen
FROZEN_ACTIVATIONS = {
    "longcat_flash": ("model.layers.0.mlps.0.act_fn", "gating"),  # a dense gated MLP beside the experts: its gate
    "modernbert-decoder": ("lm_head.act", "head"),                # a GELU in the prediction head: its clean slope
}


@pytest.mark.parametrize("family", tuple(FROZEN_ACTIVATIONS))
def test_an_activation_outside_the_mlps_is_frozen_and_the_graph_is_complete(family):
    """The graph is built (its completeness held) and agrees with plain hooks; with the activation left live, the
    probe names it again."""
    from nnterp.tools.frozen import gating_activations, head_activations
    from nnterp.tools.frozen_gates import FrozenSlope
    from nnterp.tools.graph import completeness_tolerance
    from nnterp.tools.graph_sweep import independent_completeness

    model = tiny.load(family, attn_implementation="eager")
    path, how = FROZEN_ACTIVATIONS[family]
    module = model._module.get_submodule(path)
    assert module in (gating_activations if how == "gating" else head_activations)(model)
    saes = transcoders(model)
    graph = attribution_graph(model, saes, PROMPT, progress=False, batch_size=128)
    allowed = completeness_tolerance(model, len(graph.adjacency), torch.float32)
    assert graph.stats["completeness_over_every_active_latent"] < allowed
    assert independent_completeness(model, graph, saes) < allowed
    frozen = freeze(model, PROMPT)
    if how == "gating":
        assert len(frozen.taps[module]) == 1
        frozen.taps.pop(module)
    else:
        assert isinstance(frozen.inner[module][0], FrozenSlope)
        frozen.inner.pop(module)
    assert first_nonlinear(model, frozen)[0] == path


#: looped depth: the family, a transcoder threshold at which latents fire on its tiny model, the looped block
LOOPED = {
    "dory": (0.05, 1),                # an nGPT: its stream is on the unit sphere, its pre-activations small
    "inkling2_loop_text": (0.6, 2),
}


@pytest.mark.parametrize("family", tuple(LOOPED))
def test_a_looped_blocks_later_calls_are_held_and_the_graph_is_complete(family):
    """The sites fix a looped block's first call; its later calls' MLP outputs are held at the clean run's (taps
    with None for the first call) and their served norms frozen call by call; the graph is complete, and agrees with
    plain hooks."""
    from nnterp.declare.engine import module_of
    from nnterp.tools.frozen import _looped_mlp
    from nnterp.tools.graph import completeness_tolerance
    from nnterp.tools.graph_sweep import independent_completeness

    threshold, looped = LOOPED[family]
    model = tiny.load(family, attn_implementation="eager")
    frozen = freeze(model, PROMPT)
    held = frozen.taps[_looped_mlp(model.layers[looped])]
    assert held[0] is None and len(held) > 1 and all(isinstance(call, torch.Tensor) for call in held[1:])
    norm = module_of(model.layers[looped]).input_layernorm
    assert frozen.inner[norm][0] is None and frozen.inner[norm][-1] is not None
    saes = transcoders(model, threshold=threshold)
    graph = attribution_graph(model, saes, PROMPT, progress=False, batch_size=128)
    allowed = completeness_tolerance(model, len(graph.adjacency), torch.float32)
    assert graph.n_features > 0 and graph.stats["completeness_over_every_active_latent"] < allowed
    assert independent_completeness(model, graph, saes) < allowed
    frozen.taps.pop(_looped_mlp(model.layers[looped]))  # the later calls' MLPs computed: the probe finds them
    assert first_nonlinear(model, frozen) is not None


def test_hrm_builds_when_loaded_as_its_refusal_says(tmp_path):
    """The refusal names the load that keeps gradients on (the family's gradients_on at the model's config: L_bp_cycles
    covering every low-level cycle); a saved checkpoint loaded so runs no module with gradients off, and its graph
    (the low-level stack's MLPs held, as a looped block's later calls) is complete and agrees with plain hooks."""
    from nnterp import StandardizedTransformer
    from nnterp.declare.engine import module_of
    from nnterp.tools.frozen_probes import gradients_off
    from nnterp.tools.graph import completeness_tolerance
    from nnterp.tools.graph_sweep import independent_completeness

    model = tiny.load("hrm_text", attn_implementation="eager")
    with pytest.raises(ToolError) as caught:
        attribution_graph(model, transcoders(model), PROMPT, progress=False)
    keywords = model.family.gradients_on(model.config)
    assert keywords == {"L_bp_cycles": [model.config.L_cycles] * model.config.H_cycles}
    assert str(caught.value).endswith(f"load it as StandardizedTransformer(repo, L_bp_cycles={keywords['L_bp_cycles']}), "
                                      "which keeps gradients on there")
    module_of(model).save_pretrained(tmp_path)
    model.tokenizer.save_pretrained(tmp_path)
    loaded = StandardizedTransformer(str(tmp_path), attn_implementation="eager", dispatch=True, **keywords)
    assert gradients_off(loaded, freeze(loaded, PROMPT)) is None
    saes = transcoders(loaded)
    graph = attribution_graph(loaded, saes, PROMPT, progress=False, batch_size=128)
    allowed = completeness_tolerance(loaded, len(graph.adjacency), torch.float32)
    assert graph.stats["completeness_over_every_active_latent"] < allowed
    assert independent_completeness(loaded, graph, saes) < allowed


def test_inkling2_loops_message_gate_is_frozen_with_its_tanh():
    """A module whose class names it a gate has its tanh frozen as a gate; without them the probe names the first
    gate (the queries', though its bend reaches nothing past the frozen pattern: the values' gate's does)."""
    from nnterp.tools.frozen_gates import _is_gate

    model = tiny.load("inkling2_loop_text", attn_implementation="eager")
    frozen = freeze(model, PROMPT)
    gates = [module for module in frozen.gates if _is_gate(module)]
    assert len(gates) == 8 and all(len(frozen.gates[gate]) == 2 for gate in gates)  # forget and message tanh
    for gate in gates:
        frozen.gates[gate] = []
    assert first_nonlinear(model, frozen) == ("model.layers.2.q_message_gate", "Inkling2LoopMessageGate")


@pytest.mark.parametrize("family", ["llama", "opt", "gpt2"])
def test_nothing_is_held_where_no_block_loops_and_no_mlp_runs_outside_the_blocks(family):
    """The later calls' hold touches a looped block's MLP and an MLP of a block's class outside the blocks only: a
    plain stack holds no module's output (OPT's MLP is a flat Linear, the class of its projections and its head)."""
    model = tiny.load(family, attn_implementation="eager")
    assert freeze(model, PROMPT).taps == {}


def test_a_block_the_call_skips_has_no_latents_no_errors_and_the_graph_is_complete():
    """Mllama's cross-attention block (block 1 of its tiny model) does not run on a text call: its transcoder is
    given, with a positive encoder bias that fires on any input, and a decoder bias, yet no latent is there, its
    error nodes carry nothing, and the graph is complete and agrees with plain hooks."""
    from nnterp.tools.graph import completeness_tolerance
    from nnterp.tools.graph_sweep import independent_completeness

    model = tiny.load("mllama", attn_implementation="eager")
    frozen = freeze(model, PROMPT)
    assert [frozen.runs(i) for i in range(model.num_layers)] == [True, False, True]
    assert frozen.patterns[1] is None and not frozen.inputs[("mlp", 1)].any()
    saes = transcoders(model)
    saes[1].b_enc.data.fill_(1.0)
    saes[1].b_dec.data.fill_(1.0)
    graph = attribution_graph(model, saes, PROMPT, progress=False, batch_size=128)
    assert set(graph.features[:, 0].tolist()) == {0, 2}
    assert graph.stats["blocks_not_run"] == [1]
    errors = graph.n_features + 1 * graph.n_pos
    assert not graph.adjacency[:, errors:errors + graph.n_pos].any()
    allowed = completeness_tolerance(model, len(graph.adjacency), torch.float32)
    assert graph.stats["completeness_over_every_active_latent"] < allowed
    assert independent_completeness(model, graph, saes) < allowed
