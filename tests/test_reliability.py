"""Reliability: faults leave nothing behind, threads take turns, hazards are named, remote and
multi-device loads pass through, and properties hold on random prompts and edits."""

import threading
import warnings

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nnterp import EmptyPrompt, OrderError, StandardizedTransformer, tiny
from nnterp.contract.numerics import assert_close, roundings
from nnterp.runtime.status import status_of

from conftest import same_snapshot, snapshot

MODELS = {}


def model_of(family):
    if family not in MODELS:
        MODELS[family] = tiny.load(family, attn_implementation="eager")
    return MODELS[family]


def test_threads_take_turns_on_one_model(llama, prompt):
    with llama.trace(prompt):
        reference = llama.logits.save()
    outcomes, errors = [], []

    def work():
        for _ in range(4):
            try:
                with llama.trace(prompt):
                    llama.layers[1].layer_output.save()
                    logits = llama.logits.save()
                outcomes.append(torch.equal(logits, reference))
            except Exception as error:  # recorded: the assertion below shows it
                errors.append(repr(error))

    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors and len(outcomes) == 16 and all(outcomes)


def test_interrupted_generation_leaves_nothing_behind(llama, prompt):
    before = snapshot(llama)
    with llama.trace(prompt):
        reference = llama.logits.save()
    with pytest.raises(RuntimeError, match="stop here"):
        with llama.generate(prompt, max_new_tokens=3, do_sample=False):
            llama.layers[0].self_attn.attention_output[:] = 0
            raise RuntimeError("stop here")
    assert same_snapshot(before, snapshot(llama))
    with llama.trace(prompt):
        after = llama.logits.save()
    assert torch.equal(reference, after)


def test_skipped_site_told_apart_from_order(llama, prompt):
    with pytest.raises(OrderError, match="did not run in this forward"):
        with llama.trace(prompt):
            llama.layers[0].skip(llama.layers[0].input)
            llama.layers[0].mlp.mlp_output.save()
    name = "layer_output"  # named through getattr, so not captured
    with pytest.raises(OrderError, match="after the forward had passed it, where nnterp could not see it coming"):
        with llama.trace(prompt):
            llama.layers[1].layer_output.save()
            getattr(llama.layers[0], name).save()


def test_empty_prompt(llama):
    with pytest.raises(EmptyPrompt, match="no token"):
        with llama.trace(""):
            llama.logits.save()


def test_float16_eager_overflow_is_found_and_warned():
    """The phi-2 mechanism on a tiny Phi: eager multiplies queries by keys before scaling, and the unscaled
    product passes float16's largest value at unmasked positions (a masked score of -inf is no hazard)."""
    hf, tok = tiny.build("phi")
    attention = hf.model.layers[1].self_attn
    with torch.no_grad():
        for projection in (attention.q_proj, attention.k_proj):
            projection.weight.mul_(400)
            projection.bias.mul_(400)
    hf = hf.to(torch.float16)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = StandardizedTransformer(hf, tokenizer=tok, attn_implementation="eager")
    assert any("float16 under eager attention" in str(w.message) for w in caught)
    found = model.find_nonfinite("The Eiffel Tower is in the city of Paris and it is tall")
    assert found is not None and found.block == 1 and found.value == "attention_scores"
    assert "model.layers[1].self_attn.attention_scores" in str(found)
    hf.set_attn_implementation("sdpa")
    assert StandardizedTransformer(hf, tokenizer=tok).find_nonfinite("The Eiffel Tower is in the city of Paris") is None


def test_remote_local_round_trip(llama, prompt):
    # the local trace first: what it leaves on the envoys (instrumented forwards, resolved locations)
    # travels with the request and must still hold on the far side
    with llama.trace(prompt):
        reference_queries = llama.layers[1].self_attn.attention_queries.save()
        reference = llama.logits.save()
    with llama.trace(prompt, remote="local"):
        queries = llama.layers[1].self_attn.attention_queries.save()
        out = llama.layers[1].self_attn.attention_output.save()
        logits = llama.logits.save()
    assert torch.equal(logits, reference) and out.shape[-1] == llama.hidden_size
    assert torch.equal(queries, reference_queries)


def test_device_map_and_offline_local_directory(tmp_path, prompt):
    hf, tok = tiny.build("llama")
    hf.save_pretrained(tmp_path)
    tok.save_pretrained(tmp_path)
    model = StandardizedTransformer(str(tmp_path), dispatch=True, device_map="cpu")
    with model.trace(prompt):
        logits = model.logits.save()
    with torch.no_grad():
        expected = hf(**tok(prompt, return_tensors="pt")).logits
    assert torch.equal(logits, expected)
    assert model._module.config._attn_implementation in ("sdpa", "eager")


def test_lazy_load_dispatches_on_first_trace(tmp_path, prompt):
    hf, tok = tiny.build("phi")
    hf.save_pretrained(tmp_path)
    tok.save_pretrained(tmp_path)
    model = StandardizedTransformer(str(tmp_path))
    assert next(model._module.parameters()).device.type == "meta"
    with model.trace(prompt):
        out = model.layers[0].layer_output.save()
    assert out.device.type == "cpu" and torch.isfinite(out).all()


WRITABLE = {
    "layer": ("layer_input", "attention_norm_output", "layer_mid", "mlp_input", "layer_output"),
    "attention": ("attention_queries", "attention_values", "attention_scores", "attention_probabilities",
                  "attention_head_outputs", "attention_premix", "attention_output"),
    "mlp": ("mlp_activation", "mlp_neurons", "mlp_output"),
}
texts = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=60)


def host(model, kind, block):
    layer = model.layers[block]
    return {"layer": layer, "attention": layer.self_attn, "mlp": layer.mlp}[kind]


@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
@given(family=st.sampled_from(["llama", "phi", "gpt_neox_japanese"]), text=texts,
       kind=st.sampled_from(sorted(WRITABLE)), pick=st.integers(0, 10), block=st.integers(0, 1),
       scale=st.floats(-2, 2))
def test_random_prompts_and_edits(family, text, kind, pick, block, scale):
    model = model_of(family)
    name = WRITABLE[kind][pick % len(WRITABLE[kind])]
    if not status_of(host(model, kind, block), name, model).available:
        return
    with model.trace(text):
        x = model.layers[block].layer_input.save()
        attn = model.layers[block].self_attn.attention_output.save()
        mlp = model.layers[block].mlp.mlp_output.save()
        out = model.layers[block].layer_output.save()
        base = model.logits.save()
    assert torch.equal(model.family.block.sum(x, attn, mlp), out)
    with model.trace(text):
        getattr(host(model, kind, block), name)
        read = model.logits.save()
    assert torch.equal(read, base)  # reads never change logits
    with model.trace(text):
        value = getattr(host(model, kind, block), name)
        value.mul_(scale)
        inplace = model.logits.save()
    with model.trace(text):
        value = getattr(host(model, kind, block), name)
        setattr(host(model, kind, block), name, value * scale)
        assigned = model.logits.save()
    # edits carried back exactly (a negative scale on masked scores overflows to NaN in both, alike)
    torch.testing.assert_close(inplace, assigned, rtol=1e-5, atol=1e-6, equal_nan=True)
    if scale == 1.0:
        assert torch.equal(inplace, base)


@settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck))
@given(family=st.sampled_from(["llama", "phi", "gpt_neox_japanese"]), first=texts, second=texts)
def test_left_padded_invokes_align_positions(family, first, second):
    model = model_of(family)
    singles = []
    for text in (first, second):
        with model.trace(text):
            singles.append(model.layers[1].layer_output.save())
    with model.trace() as tracer:
        with tracer.invoke(first):
            mask_a = model.attention_mask.save()  # the model's input comes first in the forward
            a = model.layers[1].layer_output.save()
        with tracer.invoke(second):
            b = model.layers[1].layer_output.save()
    for batched, single in ((a, singles[0]), (b, singles[1])):
        n = single.shape[1]
        assert_close(batched[:, -n:], single, length=roundings(model, 2))  # left padding: real tokens last
    assert int(mask_a.sum()) == singles[0].shape[1]


def test_remote_code_is_off_unless_asked():
    import inspect

    assert inspect.signature(StandardizedTransformer.__init__).parameters["trust_remote_code"].default is False
