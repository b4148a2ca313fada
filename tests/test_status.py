"""One status of a value: what support(), serves(), the tools and the cache say comes from nnterp.runtime.status."""

import pytest

from nnterp import tiny
from nnterp.declare.errors import ConditionedValue, UnavailableValue
from nnterp.declare.locations import block_hosts
from nnterp.declare.vocabulary import HOST_PATHS
from nnterp.runtime.status import CONDITIONED, SERVED, UNAVAILABLE, status_of
from nnterp.tools._common import why_not


@pytest.fixture(scope="module")
def phi_sdpa():
    return tiny.load("phi", attn_implementation="sdpa")


def _hosts(model):
    return {"model": model, **block_hosts(model.layers[0])}


def test_the_three_kinds_on_phi_under_sdpa_and_eager(phi_sdpa, phi):
    sdpa_attention, eager_attention = _hosts(phi_sdpa)["attention"], _hosts(phi)["attention"]
    pattern = status_of(sdpa_attention, "attention_probabilities", phi_sdpa)
    assert pattern.kind == CONDITIONED and not pattern.available and "eager" in pattern.note
    assert status_of(eager_attention, "attention_probabilities", phi) == (CONDITIONED, True, pattern.note)
    mid = status_of(phi_sdpa.layers[0], "layer_mid", phi_sdpa)
    assert mid.kind == UNAVAILABLE and not mid.available and mid.note
    assert status_of(phi_sdpa.layers[0], "layer_output", phi_sdpa) == (SERVED, True, "")


def test_support_serves_and_the_tools_say_what_the_status_says(phi_sdpa):
    rows = {(row.host, row.name): row for row in phi_sdpa.support()}
    checked = set()
    for host, envoy in _hosts(phi_sdpa).items():
        for spec in envoy._nnterp_specs():
            found = status_of(envoy, spec.name, phi_sdpa)
            row = rows[(HOST_PATHS[host], spec.name)]
            assert (row.status, row.available, row.note) == tuple(found), spec.name
            layer = None if host == "model" else 0
            assert phi_sdpa.serves(spec.name, layer) == (None if found.available else found.note), spec.name
            assert why_not(phi_sdpa, spec.name, layer) == (None if found.available else found.note), spec.name
            checked.add(found.kind)
    assert checked == {SERVED, CONDITIONED, UNAVAILABLE}


def test_a_read_refuses_as_the_status_says(phi_sdpa, prompt):
    with pytest.raises(ConditionedValue):
        with phi_sdpa.trace(prompt):
            phi_sdpa.layers[0].self_attn.attention_probabilities.save()
    with pytest.raises(UnavailableValue):
        with phi_sdpa.trace(prompt):
            phi_sdpa.layers[0].layer_mid.save()


def test_the_cache_leaves_out_what_the_status_refuses_with_its_reason(phi_sdpa, prompt):
    cache = phi_sdpa.cache(prompt, values=["layer_output", "attention_probabilities", "layer_mid"], layers=[0])
    left_out = cache.left_out
    pattern = status_of(_hosts(phi_sdpa)["attention"], "attention_probabilities", phi_sdpa)
    mid = status_of(phi_sdpa.layers[0], "layer_mid", phi_sdpa)
    assert any(pattern.note in why and "eager" in why for why in left_out.values())
    assert any(why == f"unavailable on this model: {mid.note}" for why in left_out.values())
