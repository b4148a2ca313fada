"""Attribution graphs on the families whose forward held something the frozen trace did not fix: what is frozen
now (a gated norm, a sum the block writes as two terms), and what is refused, with the reason measured."""

import pytest

from nnterp import tiny
from nnterp.tools._common import ToolError
from nnterp.tools.frozen import first_nonlinear, freeze
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


#: refused before anything is built: what the frozen map's inputs do not cover
STRUCTURAL = {
    "cpmant": r"cpmant's blocks also run over 32 learned positions ahead of the call's",
    "dory": r"dory runs block 1 2 times in one forward \(looped depth\)",
    "hrm_text": r"hrm_text runs block 0 2 times in one forward \(looped depth\)",
}


@pytest.mark.parametrize("family", tuple(STRUCTURAL))
def test_what_the_frozen_maps_inputs_do_not_cover_is_refused(family):
    model = tiny.load(family, attn_implementation="eager")
    with pytest.raises(ToolError, match=STRUCTURAL[family]) as caught:
        attribution_graph(model, transcoders(model), PROMPT, progress=False)
    assert str(caught.value).count(". ") == 0  # one sentence


#: refused by measurement: the first module whose output is not affine in the map's inputs, with everything frozen
MEASURED = {
    "longcat_flash": "model.layers.0.mlps.0.act_fn",     # a dense MLP beside the MoE, its output not replaced
    "modernbert-decoder": "lm_head.act",                  # a GELU in the prediction head, past the final norm
}


@pytest.mark.parametrize("family", tuple(MEASURED))
def test_a_module_still_not_linear_is_named_in_the_refusal(family):
    model = tiny.load(family, attn_implementation="eager")
    with pytest.raises(ToolError, match=rf"{family}'s forward is not linear in the stream .*: "
                                        rf"{MEASURED[family].replace('.', '[.]')} \(\w+\) is the first module"):
        attribution_graph(model, transcoders(model), PROMPT, progress=False)


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
