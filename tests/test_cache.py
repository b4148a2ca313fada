"""``model.cache``: every served value of a run, each the tensor a traced read gives."""

import pytest
import torch

from nnterp import NnterpError, NotCached, tiny
from nnterp.compat.names import Path
from nnterp.contract.conformance import read_block
from nnterp.declare.vocabulary import BY_NAME, FORWARD_ORDER, ON_REQUEST

PROMPTS = ["The Eiffel Tower is in the city of", "Hello world", "def f(x): return x + 1"]


def traced_model_values(model, prompt):
    """The model-level values, read in one trace in forward order."""
    found = {}
    with model.trace(prompt):
        for name in FORWARD_ORDER["model"]:
            if BY_NAME[name].group == "core":
                found[name] = getattr(model, name).save()
        for name in FORWARD_ORDER["readout"]:
            if model.serves(name) is None:
                found[name] = getattr(model, name).save()
    return found


def assert_cache_is_traced(model, cache, prompt):
    """Every value the conformance reads of the first and last blocks (one trace per block), and every model
    value, is in the cache and equal to it bit for bit; nothing the block serves is missing."""
    for index in sorted({0, model.num_layers - 1}):
        traced = {name: value for name, value in read_block(model, index, prompt).items() if not name.startswith("_")}
        assert traced, index
        for name, value in traced.items():
            assert torch.equal(cache[Path(name, index).key], value), (model.family.name, index, name)
        cached = {key.rsplit(".", 1)[-1] for key in cache.keys() if key.startswith(f"layers.{index}.")}
        assert cached == set(traced), (model.family.name, cached ^ set(traced))
    for name, value in traced_model_values(model, prompt).items():
        got = cache[name]
        assert (torch.equal(got, value) if isinstance(value, torch.Tensor) else tuple(got) == tuple(value)), name


@pytest.mark.parametrize("family", ["llama", "phi", "gpt_neox_japanese", "gemma2", "mixtral", "mamba", "zamba"])
def test_cache_holds_every_served_value_as_traced(family, prompt):
    model = tiny.load(family, attn_implementation="eager")
    cache = model.cache(prompt, values=list(BY_NAME))  # every value named, those computed on request included
    assert_cache_is_traced(model, cache, prompt)
    assert all(not value.requires_grad for value in cache.values() if isinstance(value, torch.Tensor))
    assert cache.estimated_bytes == cache.nbytes  # the estimate, from the layouts, is the size exactly


def test_a_cache_of_everything_leaves_out_what_the_forward_does_not_compute(llama, prompt):
    """The per-head contributions and the norm scales are computed beside the forward: a default cache holds the
    rest, says why they are missing, and holds them, the same tensors, where they are named."""
    default = llama.cache(prompt)
    named = llama.cache(prompt, values=list(BY_NAME))
    on_request = {key for key in named.keys() if key.rsplit(".", 1)[-1] in ON_REQUEST}
    assert on_request and {key.rsplit(".", 1)[-1] for key in on_request} == set(ON_REQUEST)
    assert set(default.keys()) == set(named.keys()) - on_request
    assert all(torch.equal(default[key], named[key]) for key in default.keys() if isinstance(default[key], torch.Tensor))
    with pytest.raises(NotCached, match=r"computed beside the forward, so a cache of everything leaves it out: name "
                                        r"it, values=\[\.\.\., 'attention_head_contributions'\], to keep it"):
        default.layers[1].self_attn.attention_head_contributions
    with pytest.raises(NotCached, match="computed beside the forward"):
        default["blocks.1.attn.hook_result"]
    assert default.nbytes < named.nbytes
    asked = llama.cache(prompt, values=["layer_output", "hook_result"])
    assert torch.equal(asked.layers[1].self_attn.attention_head_contributions,
                       named.layers[1].self_attn.attention_head_contributions)


def test_cache_on_a_hybrid_says_why_a_host_is_missing(prompt):
    model = tiny.load("mamba", attn_implementation="eager")
    cache = model.cache(prompt)
    assert "layers.0.layer_output" in cache and "layers.0.mlp.mlp_output" not in cache
    with pytest.raises(NotCached, match="unavailable on this model"):
        cache.layers[0].mlp.mlp_output
    with pytest.raises(NotCached, match="unavailable on this model"):
        cache["blocks.0.hook_mlp_out"]


def test_paths_tensors_and_transformerlens_names_reach_the_same_tensor(llama, prompt):
    cache = llama.cache(prompt)
    last = llama.num_layers - 1
    assert cache.layers[1].self_attn.attention_probabilities is cache["layers.1.self_attn.attention_probabilities"]
    assert cache["blocks.1.attn.hook_pattern"] is cache["model.layers[1].self_attn.attention_probabilities"]
    assert cache["blocks.-1.hook_resid_post"] is cache.layers[last].layer_output is cache.layers[-1].layer_output
    assert cache["hook_embed"] is cache.token_embeddings
    # the norm's scale is computed beside the forward: a cache of everything leaves it out, and says how to keep it
    with pytest.raises(NotCached, match=r"name it, values=\[\.\.\., 'ln_final.hook_normalized'\]"):
        cache["ln_final.hook_normalized"]
    named = llama.cache(prompt, values=["ln_final.hook_normalized", "final_norm_output"])
    # TransformerLens's hook_normalized is before the final norm's gain: the gain times it is nnterp's output
    gain = llama.norm._module.weight
    torch.testing.assert_close(gain * named["ln_final.hook_normalized"], named.final_norm_output)
    assert named["ln_final.hook_normalized"] is named["ln_final.hook_normalized"]  # computed once
    assert torch.equal(cache["blocks.0.attn.hook_q"], cache.layers[0].self_attn.attention_queries_unrotated.transpose(1, 2))
    stacked = cache.stack("layer_output")
    assert stacked.shape[0] == llama.num_layers
    assert all(torch.equal(stacked[i], cache.layers[i].layer_output) for i in range(llama.num_layers))
    assert torch.equal(cache.stack("hook_resid_pre"), cache.stack("layer_input"))
    assert torch.equal(llama.project_on_vocab(cache.layers[-1].layer_output), cache.logits)


def test_a_transformerlens_name_asks_for_the_values_its_tensor_is_computed_from(llama, prompt):
    cache = llama.cache(prompt, values=["ln_final.hook_normalized", "hook_q"])
    last = llama.num_layers - 1
    assert set(cache.keys()) == {f"layers.{last}.layer_output", "final_norm_scale",
                                 *(f"layers.{i}.self_attn.attention_queries_unrotated" for i in range(llama.num_layers))}
    assert cache.stack("hook_q").shape[-2:] == (llama.num_heads, llama.qk_head_dim)  # [layers batch pos heads d_head]
    with pytest.raises(NotCached, match="'blocks.1.attn.hook_v' is TransformerLens's tensor, computed from "
                                        "layers.1.self_attn.attention_values; .* not asked for"):
        cache["blocks.1.attn.hook_v"]


def test_a_parallel_blocks_mlp_in_is_its_layer_input(phi, prompt):
    cache = phi.cache(prompt, values=["layer_input", "hook_mlp_in"])
    assert cache["blocks.0.hook_mlp_in"] is cache.layers[0].layer_input


def test_what_was_not_cached_says_why(llama_sdpa, prompt):
    cache = llama_sdpa.cache(prompt, values=["layer_output", "attention_probabilities"], layers=[1])
    assert list(cache.keys()) == ["layers.1.layer_output"]
    with pytest.raises(NotCached, match="not asked for"):
        cache.layers[0].layer_output
    with pytest.raises(NotCached, match="not asked for"):
        cache.logits
    with pytest.raises(NotCached, match="attn_implementation='eager'"):
        cache.layers[1].self_attn.attention_probabilities
    with pytest.raises(KeyError, match="did you mean"):
        cache["layers.1.layer_outptu"]
    with pytest.raises(AttributeError, match="self_attn.attention_probabilities"):
        cache.layers[1].attention_probabilities
    assert torch.equal(cache.stack("layer_output"), cache.layers[1].layer_output[None])  # the cached blocks
    with pytest.raises(NotCached, match="attn_implementation='eager'"):
        cache.stack("attention_probabilities")


def test_pending_values_resolve_or_say_they_are_not_served_yet(llama, prompt):
    """The TransformerLens names of values the vocabulary is gaining (hook_pre, hook_scale) resolve to them; until
    they are in it, the cache says so."""
    cache = llama.cache(prompt, values=["hook_pre", "layer_output"])
    if "mlp_preactivation" in BY_NAME:
        assert cache["blocks.0.mlp.hook_pre"] is cache.layers[0].mlp.mlp_preactivation
    else:
        with pytest.raises(NotCached, match="does not serve yet"):
            cache["blocks.0.mlp.hook_pre"]


def test_a_padded_prompt_list_in_batches_is_each_batch_traced(llama):
    whole = llama.cache(PROMPTS)  # one batch: the prompts as a trace takes them
    outputs = []
    with llama.trace(PROMPTS):
        mask = llama.attention_mask.save()
        for layer in llama.layers:
            outputs.append(layer.layer_output.save())
    assert (mask == 0).any(), "the prompts must differ in length"
    assert torch.equal(whole.attention_mask, mask)
    assert all(torch.equal(whole.layers[i].layer_output, outputs[i]) for i in range(llama.num_layers))

    batched = llama.cache(PROMPTS, batch_size=2, progress=False)
    encoded = llama.tokenizer(PROMPTS, return_tensors="pt", padding=True)
    assert torch.equal(batched.input_ids, encoded["input_ids"]) and batched.input_size == tuple(encoded["input_ids"].shape)
    for start in (0, 2):
        rows = {key: tensor[start:start + 2] for key, tensor in encoded.items()}
        with llama.trace(rows):
            probabilities = llama.layers[1].self_attn.attention_probabilities.save()
            logits = llama.logits.save()
        assert torch.equal(batched.layers[1].self_attn.attention_probabilities[start:start + 2], probabilities)
        assert torch.equal(batched.logits[start:start + 2], logits)


def test_positions_device_and_dtype_select_and_convert(llama, prompt):
    full = llama.cache(prompt)
    last = llama.cache(prompt, positions=-1, dtype=torch.float16, device="cpu")
    assert torch.equal(last.layers[0].layer_output, full.layers[0].layer_output[:, -1:].half())
    assert torch.equal(last.layers[0].self_attn.attention_probabilities,
                       full.layers[0].self_attn.attention_probabilities[:, :, -1:].half())  # the query axis
    assert torch.equal(last.layers[0].self_attn.attention_keys, full.layers[0].self_attn.attention_keys[:, :, -1:].half())
    assert torch.equal(last.input_ids, full.input_ids[:, -1:])  # token ids keep their dtype
    assert torch.equal(last.next_token_probs, full.next_token_probs.half())
    assert last.estimated_bytes == last.nbytes
    some = llama.cache(prompt, positions=slice(0, 3), values=["layer_output"])
    assert torch.equal(some.layers[1].layer_output, full.layers[1].layer_output[:, :3])


def test_a_cache_too_large_is_refused_before_it_runs(llama, prompt):
    with pytest.raises(NnterpError, match="would hold about .* values=, layers= or positions="):
        llama.cache(prompt, max_bytes=1000)


def test_value_reads_and_writes_by_path_and_transformerlens_name(llama, prompt):
    with llama.trace(prompt):
        by_name = llama.value("blocks.0.attn.hook_pattern").save()
        by_path = llama.value("layers.0.self_attn.attention_probabilities").save()
        attribute = llama.layers[0].self_attn.attention_probabilities.save()
        llama.value("blocks.0.hook_resid_post", torch.zeros_like(llama.layers[0].layer_output))
        edited = llama.logits.save()
    assert torch.equal(by_name, attribute) and torch.equal(by_path, attribute)
    with llama.trace(prompt):
        llama.layers[0].layer_output = torch.zeros_like(llama.layers[0].layer_output)
        expected = llama.logits.save()
    assert torch.equal(edited, expected)
    with llama.trace(prompt):
        clean = llama.logits.save()
    assert not torch.equal(clean, edited)


def test_batches_run_behind_a_progress_bar_naming_the_size(llama, capsys):
    cache = llama.cache(PROMPTS, values=["layer_output"], batch_size=1, progress=True)
    shown = capsys.readouterr().err
    assert "caching 2 values (about" in shown and "3/3" in shown
    assert cache.layers[0].layer_output.shape[0] == len(PROMPTS)


def _gate_outputs(model):
    """The tensors the gate projections return in the next forward, caught by torch hooks on the native modules."""
    caught, handles = [], []
    for layer in model.layers:
        gate = layer.mlp.gate_proj._module
        handles.append(gate.register_forward_hook(lambda module, args, output: caught.append(output)))
    return caught, handles


def test_a_cache_serves_the_forwards_tensor_where_a_copy_only_guards_an_edit(llama, prompt):
    """mlp_preactivation is copied where a trace reads it (an edit of it is carried back); a cache edits nothing,
    so it keeps the gate projection's own tensor, the value a trace reads."""
    caught, handles = _gate_outputs(llama)
    try:
        cache = llama.cache(prompt, values=["mlp_preactivation"])
    finally:
        for handle in handles:
            handle.remove()
    traced = []
    with llama.trace(prompt):
        for layer in llama.layers:
            traced.append(layer.mlp.mlp_preactivation.save())
    for index, gate in enumerate(caught):
        assert cache.layers[index].mlp.mlp_preactivation is gate
        assert torch.equal(gate, traced[index]) and gate.data_ptr() != traced[index].data_ptr()


def test_a_value_the_forward_changes_in_place_after_its_read_is_cached_as_read():
    """With an in-place ReLU the forward overwrites the gate's output after mlp_preactivation is read: the cache
    sees the changed version, reruns the batch with the copy, and the model's later caches copy from the start."""
    model = tiny.load("llama", attn_implementation="eager", hidden_act="relu")
    for layer in model.layers:
        layer.mlp.act_fn._module.inplace = True
    prompt = "The Eiffel Tower is in the city of"
    traced = []
    with model.trace(prompt):
        for layer in model.layers:
            traced.append(layer.mlp.mlp_preactivation.save())
    assert all((value < 0).any() for value in traced), "the pre-activations must have negatives for a ReLU to change"
    for forwards in (2, 1):  # the first cache finds the change and reruns; the second copies from the start
        caught, handles = _gate_outputs(model)
        try:
            cache = model.cache(prompt, values=list(BY_NAME))
        finally:
            for handle in handles:
                handle.remove()
        assert len(caught) == forwards * model.num_layers
        for index, gate in enumerate(caught[-model.num_layers:]):
            assert torch.equal(cache.layers[index].mlp.mlp_preactivation, traced[index])
            assert not (gate < 0).any()  # the forward's own tensor, overwritten by the ReLU
        assert_cache_is_traced(model, cache, prompt)
