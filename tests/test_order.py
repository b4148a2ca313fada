"""Reads in any order within a trace, edits in forward order, and gradients of every writable value.

A trace's code is read before its forward runs; what it names out of forward order is captured as the
forward passes it, so every read below must give the tensor an ordered read gives (torch.equal).
"""

import ast
import textwrap

import nnsight
import pytest
import torch

from nnterp import OrderError, UnavailableValue, tiny
from nnterp.contract.conformance import read_block
from nnterp.declare.locations import block_hosts
from nnterp.declare.vocabulary import FORWARD_ORDER
from nnterp.runtime.bridge import CaptureWorker
from nnterp.runtime.tracing import accesses, block_order, plan

PROMPT = "The Eiffel Tower is in the city of"


@pytest.fixture(scope="module")
def phi4():
    return tiny.load("phi", attn_implementation="eager", num_hidden_layers=4)


def test_readme_snippet_runs_as_written(phi4):
    model = phi4
    with model.trace(PROMPT):
        x = model.layers[1].input.save()
        attn = model.layers[1].self_attn.attention_output.save()
        p = model.layers[1].self_attn.attention_probabilities.save()
        mlp = model.layers[1].mlp.mlp_output.save()
        out = model.layers[1].layer_output.save()
        model.layers[3].self_attn.attention_output[:] = 0
        probs = model.next_token_probs.save()
    with model.trace(PROMPT):
        x2 = model.layers[1].input.save()
        p2 = model.layers[1].self_attn.attention_probabilities.save()
        attn2 = model.layers[1].self_attn.attention_output.save()
        mlp2 = model.layers[1].mlp.mlp_output.save()
        out2 = model.layers[1].layer_output.save()
        model.layers[3].self_attn.attention_output[:] = 0
        probs2 = model.next_token_probs.save()
    for a, b in ((x, x2), (attn, attn2), (p, p2), (mlp, mlp2), (out, out2), (probs, probs2)):
        a = a[0] if isinstance(a, tuple) else a
        b = b[0] if isinstance(b, tuple) else b
        assert torch.equal(a, b)
    with model.trace(PROMPT):
        plain = model.next_token_probs.save()
    assert not torch.equal(plain, probs)  # the edit reached the forward


@pytest.mark.parametrize("family", ["llama", "phi", "gpt_neox_japanese", "gemma2", "mixtral"])
def test_reverse_order_equals_ordered_reads(family):
    try:
        model = tiny.load(family, attn_implementation="eager")
    except Exception:
        model = tiny.load(family)
    ordered = read_block(model, 0, PROMPT)
    names = [name for name in ordered if not name.startswith("_")]
    # the with block spells every name (getattr would hide them from the reading): one exec'd source per family
    hosts = block_hosts(model.layers[0])
    order = block_order(model)
    lines = ["with model.trace(PROMPT):", "    logits = model.logits.save()"]
    paths = {"layer": "model.layers[0]", "attention": "model.layers[0].self_attn", "mlp": "model.layers[0].mlp"}
    spelled = [(host, name) for host, name in order if name in names and host in hosts]
    for host, name in reversed(spelled):
        lines.append(f"    got_{name} = {paths[host]}.{name}.save()")
    lines += ["    embeddings = model.token_embeddings.save()", "    ids = model.input_ids.save()"]
    got = _run_source(model, "\n".join(lines))
    with model.trace(PROMPT):
        ids = model.input_ids.save()
        embeddings = model.token_embeddings.save()
        logits = model.logits.save()
    assert torch.equal(got["logits"], logits) and torch.equal(got["ids"], ids)
    assert torch.equal(got["embeddings"], embeddings)
    assert spelled
    for _, name in spelled:
        assert torch.equal(got[f"got_{name}"], ordered[name]), name


def _run_source(model, source, **names):
    """Run a trace written as source text from a real file (nnsight reads with blocks back from their file)."""
    import importlib.util
    import tempfile

    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as handle:
        handle.write("def run(model, PROMPT, **names):\n    globals().update(names)\n")
        handle.write(textwrap.indent(source, "    ") + "\n    return dict(locals())\n")
        path = handle.name
    spec = importlib.util.spec_from_file_location("spelled_trace", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.run(model, PROMPT, **names)


def test_inputs_read_anywhere(phi4):
    model = phi4
    with model.trace(PROMPT):
        logits = model.logits.save()
        size = model.input_size.save()
        mask = model.attention_mask.save()
        ids = model.input_ids.save()
    with model.trace(PROMPT):
        ids2 = model.input_ids.save()
        mask2 = model.attention_mask.save()
    assert tuple(size) == tuple(ids.shape) and torch.equal(ids, ids2) and torch.equal(mask, mask2)
    assert logits.shape[:2] == ids.shape


def test_loops_in_any_order(phi4):
    model = phi4
    with model.trace(PROMPT):
        outs, ins = nnsight.save([]), nnsight.save([])
        for layer in model.layers:  # within one block, the output before the input
            outs.append(layer.layer_output.save())
            ins.append(layer.layer_input.save())
        backwards = nnsight.save([])
        for i in reversed(range(model.num_layers)):  # blocks from the last
            backwards.append(model.layers[i].self_attn.attention_output.save())
    with model.trace(PROMPT):
        ordered = [(layer.layer_input.save(), layer.self_attn.attention_output.save(), layer.layer_output.save())
                   for layer in model.layers].save()
    for i, (x, a, o) in enumerate(ordered):
        assert torch.equal(ins[i], x) and torch.equal(outs[i], o)
        assert torch.equal(backwards[model.num_layers - 1 - i], a)


def test_invokes_each_in_any_order(phi4):
    model = phi4
    with model.trace() as tracer:
        with tracer.invoke("The Eiffel Tower is in"):
            a_out = model.layers[2].layer_output.save()
            a_q = model.layers[0].self_attn.attention_queries.save()
        with tracer.invoke("Hello world, the city"):
            b_logits = model.logits.save()
            b_in = model.layers[1].layer_input.save()
    with model.trace() as tracer:
        with tracer.invoke("The Eiffel Tower is in"):
            a_q2 = model.layers[0].self_attn.attention_queries.save()
            a_out2 = model.layers[2].layer_output.save()
        with tracer.invoke("Hello world, the city"):
            b_in2 = model.layers[1].layer_input.save()
            b_logits2 = model.logits.save()
    assert torch.equal(a_out, a_out2) and torch.equal(a_q, a_q2)
    assert torch.equal(b_logits, b_logits2) and torch.equal(b_in, b_in2)


def test_generation_steps_in_any_order(phi4):
    model = phi4
    with model.generate(PROMPT, max_new_tokens=3, min_new_tokens=3, do_sample=False) as tracer:
        outs, queries = nnsight.save([]), nnsight.save([])
        for step in tracer.iter[:3]:
            outs.append(model.layers[1].self_attn.attention_output.save())
            queries.append(model.layers[1].self_attn.attention_queries.save())
    with model.generate(PROMPT, max_new_tokens=3, min_new_tokens=3, do_sample=False) as tracer:
        outs2, queries2 = nnsight.save([]), nnsight.save([])
        for step in tracer.iter[:3]:
            queries2.append(model.layers[1].self_attn.attention_queries.save())
            outs2.append(model.layers[1].self_attn.attention_output.save())
    assert len(queries) == 3 and [q.shape[2] for q in queries] == [q.shape[2] for q in queries2]
    assert all(torch.equal(a, b) for a, b in zip(queries, queries2))
    assert all(torch.equal(a, b) for a, b in zip(outs, outs2))


def test_out_of_order_edits_are_refused(phi4):
    model = phi4
    with pytest.raises(OrderError) as error:
        with model.trace(PROMPT):
            out = model.layers[1].layer_output.save()
            model.layers[0].mlp.mlp_output = torch.zeros_like(out)
    assert str(error.value).startswith(
        "model.layers[0].mlp.mlp_output is written after the forward computed it: the trace asked for "
        "model.layers[1].layer_output first, which the forward computes later")
    with pytest.raises(OrderError) as error:
        with model.trace(PROMPT):
            model.layers[1].layer_output.save()
            model.layers[0].self_attn.attention_output[:] = 0
    assert str(error.value).startswith(
        "model.layers[0].self_attn.attention_output was edited after the forward had passed it (the trace asked "
        "for model.layers[1].layer_output first)")
    with model.trace(PROMPT):  # the failed traces left nothing behind
        model.layers[0].self_attn.attention_output[:] = 0
        edited = model.logits.save()
    with model.trace(PROMPT):
        plain = model.logits.save()
    assert not torch.equal(edited, plain)


def _plan_of(source, layers=4):
    node = ast.parse(textwrap.dedent(source)).body[0]
    return plan(accesses(node), FORWARD_ORDER["block"], layers)


def test_code_in_forward_order_makes_no_plan():
    assert _plan_of("""
        with model.trace(p):
            e = model.token_embeddings.save()
            for layer in model.layers:
                a = layer.self_attn.attention_queries.save()
                b = layer.layer_output.save()
            outs = [model.layers[i].mlp.mlp_output.save() for i in range(4)]
            l = model.logits.save()
    """) is not None  # the comprehension's blocks come after the loop's: out of order
    assert _plan_of("""
        with model.trace(p):
            ids = model.input_ids.save()
            e = model.token_embeddings.save()
            for i, layer in enumerate(model.layers):
                a = layer.self_attn.attention_queries.save()
                model.layers[i].mlp.mlp_output[:] = 0
                b = model.layers[i].layer_output.save()
            l = model.logits.save()
            with l.sum().backward():
                g = b.grad.save()
    """) is None
    found = _plan_of("""
        with model.trace(p):
            o = model.layers[1].self_attn.attention_output.save()
            q = model.layers[1].self_attn.attention_queries.save()
            for i in reversed(range(4)):
                x = model.layers[i].layer_input.save()
    """)
    assert found.captures == {(1, "attention_queries"), (None, "layer_input")}


def test_an_ordered_trace_runs_no_capture_worker(phi4):
    model = phi4
    seen = []
    original = CaptureWorker.__init__

    def spy(self, *args, **kwargs):
        seen.append(self)
        original(self, *args, **kwargs)

    CaptureWorker.__init__ = spy
    try:
        with model.trace(PROMPT):
            model.layers[0].self_attn.attention_queries.save()
            model.layers[0].layer_output.save()
        assert seen == []
        with model.trace(PROMPT):
            model.layers[0].layer_output.save()
            model.layers[0].self_attn.attention_queries.save()
        assert len(seen) == 1
    finally:
        CaptureWorker.__init__ = original


# --------------------------------------------------------------------------- gradients
def _writable_served(model):
    for host_name, host in [("model", model), *block_hosts(model.layers[0]).items()]:
        for name in host._nnterp_sites_names():
            spec = type(host).__dict__.get(name) or getattr(type(host), name)
            if spec.spec.read_only or name in ("input_ids", "attention_mask"):
                continue
            if model.serves(name) is None:
                yield host, name


def _loss(model):
    return model.logits[0, -1].log_softmax(-1)[7]


#: values that are a tensor another reader consumed before them (Phi's parallel block calls the attention and the
#: MLP with one normed tensor; Falcon and CodeGen too): .grad is that tensor's, through both readers
ONE_TENSOR_TWO_READERS = {("phi", "mlp_input"), ("falcon", "mlp_input"), ("codegen", "mlp_input")}


#: the norms' scales are computed beside the forward from the norm's input (the model never holds the factor),
#: so no gradient of the model's reaches them; a gradient with respect to one needs the norm recomputed from it
COMPUTED_BESIDE_THE_FORWARD = {"attention_norm_scale", "mlp_norm_scale", "final_norm_scale"}


@pytest.mark.parametrize("family", ["llama", "phi", "granite", "falcon", "gpt2", "codegen"])
def test_gradient_of_every_writable_value(family):
    """value.grad is the derivative of the loss with respect to the value where the forward computes it: the
    gradient reaching a zero added to the value at that point, computed by torch separately."""
    model = tiny.load(family, attn_implementation="eager")  # granite scales, falcon and gpt2 copy some values
    checked = []
    for host, name in _writable_served(model):
        if name in COMPUTED_BESIDE_THE_FORWARD:
            continue
        with model.trace(PROMPT):
            value = getattr(host, name)
            loss = _loss(model)
            with loss.backward():
                grad = value.grad.save()
        with model.trace(PROMPT):
            value = getattr(host, name)
            zero = torch.zeros_like(value, requires_grad=True)
            value[:] += zero
            reference = torch.autograd.grad(_loss(model), zero)[0].save()
        if (family, name) in ONE_TENSOR_TWO_READERS:
            # the MLP is called with the tensor the attention read too: a tensor has one gradient, the sum of both
            assert not torch.allclose(grad, reference, rtol=1e-5, atol=1e-8), name
            continue
        assert torch.allclose(grad, reference, rtol=1e-5, atol=1e-8), name
        checked.append(name)
    assert "layer_output" in checked and len(checked) >= 12
    assert family not in ("llama", "phi") or "attention_premix" in checked


# --------------------------------------------------------------------------- the block's own order
def test_gpt_neox_caches_its_mlp_norm_beside_the_attention_interior():
    """GPT-NeoX's parallel block calls post_attention_layernorm after self.attention: a cache of the MLP's norm and
    of values inside the attention reads each where the forward computes it, equal to a trace of each alone."""
    model = tiny.load("gpt_neox", attn_implementation="eager")
    order = [name for _, name in block_order(model)]
    assert order.index("mlp_norm_output") > order.index("attention_output")
    cache = model.cache(PROMPT, values=["mlp_norm_output", "mlp_norm_scale", "attention_queries_unrotated",
                                        "attention_probabilities"])
    everything = model.cache(PROMPT)  # every value together, too
    with model.trace(PROMPT):
        norm = model.layers[1].mlp_norm_output.save()
    with model.trace(PROMPT):
        probabilities = model.layers[1].self_attn.attention_probabilities.save()
    assert torch.equal(cache.layers[1].mlp_norm_output, norm)
    assert torch.equal(everything.layers[1].mlp_norm_output, norm)
    assert torch.equal(cache.layers[1].self_attn.attention_probabilities, probabilities)


def test_one_norm_parallel_blocks_put_the_mlp_norm_before_the_attention(phi4):
    order = [name for _, name in block_order(phi4)]
    assert order.index("mlp_norm_output") < order.index("attention_queries")


def test_without_a_rotary_the_unrotated_keys_then_the_queries():
    """CPM-Ant has no rotary and projects queries before keys: attention_keys_unrotated is attention_keys, read
    after attention_queries by the forward, so a trace asking for it first is served the captured keys."""
    model = tiny.load("cpmant", attn_implementation="eager")
    with model.trace(PROMPT):
        keys = model.layers[0].self_attn.attention_keys_unrotated.save()
        queries = model.layers[0].self_attn.attention_queries.save()
    with model.trace(PROMPT):
        queries_first = model.layers[0].self_attn.attention_queries.save()
        keys_second = model.layers[0].self_attn.attention_keys.save()
    assert torch.equal(keys, keys_second) and torch.equal(queries, queries_first)


def test_the_contract_fails_a_block_order_the_forward_does_not_follow(monkeypatch):
    """Declared with the MLP's norm before the attention (as a one-norm parallel block computes it), GPT-NeoX's
    order is not the order its forward reaches the values, and the contract says which value comes first."""
    from nnterp.contract.conformance import order_run, visit_log

    model = tiny.load("gpt_neox", attn_implementation="eager")
    assert model.check(raise_on_failure=False).ok
    reached = order_run(model, 0, visit_log(model, PROMPT))
    assert [at for _, at, _ in reached] == sorted(at for _, at, _ in reached) and len(reached) >= 20
    moved = [("layer", "mlp_norm_scale"), ("layer", "mlp_norm_output")]
    rest = [item for item in FORWARD_ORDER["block"] if item not in moved]
    at = rest.index(("layer", "attention_norm_output")) + 1
    monkeypatch.setattr(model.family.block, "order", tuple(rest[:at] + moved + rest[at:]))
    report = model.check(raise_on_failure=False)
    failed = [r for r in report.failures if r.check.startswith("the declared forward order")]
    assert [r.where for r in failed] == ["layers[0]", "layers[1]"]
    assert "attention_queries_unrotated is declared after mlp_norm_scale" in failed[0].detail


# --------------------------------------------------------------------------- any order has no holes
@pytest.mark.parametrize("name", ["gemma3", "llava", "qwen2_vl", "paligemma", "idefics3"])
def test_a_wrappers_image_mask_after_its_image_features(name):
    model = tiny.load(name)
    inputs = tiny.image_call(name)
    with model.trace(inputs):
        features = model.image_features.save()
        mask = model.image_mask.save()
    with model.trace(inputs):
        mask_first = model.image_mask.save()
        features_second = model.image_features.save()
    assert bool(mask.any()) and torch.equal(mask, mask_first) and torch.equal(features, features_second)


def test_names_given_as_text_in_any_order(phi4):
    model = phi4
    with model.trace(PROMPT):
        stream = model.value("blocks.2.hook_resid_post").save()
        pattern = model.value("layers.2.self_attn.attention_probabilities").save()
    with model.trace(PROMPT):
        pattern_first = model.layers[2].self_attn.attention_probabilities.save()
        stream_second = model.layers[2].layer_output.save()
    assert torch.equal(stream, stream_second) and torch.equal(pattern, pattern_first)


def test_a_read_after_a_tool_that_reads_further(phi4):
    """skip_blocks reads layer_output; the block's layer_input read after the tool is what the block received."""
    from nnterp.tools import skip_blocks

    model = phi4
    with model.trace(PROMPT):
        skip_blocks([2])(model)
        entering = model.layers[2].layer_input.save()
        logits = model.logits.save()
    with model.trace(PROMPT):
        entering_first = model.layers[2].layer_input.save()
        skip_blocks([2])(model)
        logits_ordered = model.logits.save()
    assert torch.equal(entering, entering_first) and torch.equal(logits, logits_ordered)


def test_splice_latents_in_reverse_order(phi4):
    from nnterp.tools.splice import LocalSAE, splice

    model = phi4
    early = splice(model, LocalSAE.random(model.hidden_size, 32, seed=1), at="layers[1].layer_output")
    late = splice(model, LocalSAE.random(model.hidden_size, 32, seed=2), at="layers[2].layer_output")
    with model.trace(PROMPT):
        late_latents = late.latents.save()
        early_latents = early.latents.save()
    with model.trace(PROMPT):
        early_first = early.latents.save()
        late_second = late.latents.save()
    assert torch.equal(late_latents, late_second) and torch.equal(early_latents, early_first)


def test_a_native_module_inside_a_forward_before_a_value_read_in_it():
    """q_proj runs inside the attention's forward: the value the code names next is instrumented before the run."""
    model = tiny.load("llama", attn_implementation="eager")  # never traced: nothing instrumented yet
    with model.trace(PROMPT):
        projected = model.layers[0].self_attn.q_proj.output.save()
        unrotated = model.layers[0].self_attn.attention_queries_unrotated.save()
    assert torch.equal(unrotated, projected.unflatten(-1, (model.num_heads, -1)).transpose(1, 2))


# --------------------------------------------------------------------------- gradients in any order
def test_gradients_in_forward_order_equal_torch_autograd(phi4):
    """Inside loss.backward(), .grad of values bound in the trace and of standard values named there, asked for in
    forward order (the backward computes them in reverse), equal torch.autograd.grad of the same loss."""
    model = phi4
    with model.trace(PROMPT):
        early = model.layers[0].layer_output
        premix = model.layers[1].self_attn.attention_premix
        loss = _loss(model)
        with loss.backward():
            early_grad = early.grad.save()
            premix_grad = premix.grad.save()
            late_grad = model.layers[3].layer_output.grad.save()
            mlp_grad = model.layers[2].mlp.mlp_output.grad.save()
    with model.trace(PROMPT):
        early = model.layers[0].layer_output
        premix = model.layers[1].self_attn.attention_premix
        mlp = model.layers[2].mlp.mlp_output
        late = model.layers[3].layer_output
        references = nnsight.save(torch.autograd.grad(_loss(model), [early, premix, mlp, late]))
    for got, reference in zip((early_grad, premix_grad, mlp_grad, late_grad), references):
        assert torch.equal(got, reference)


#: a model named as a module's global inside a function's trace (nnsight's block scope reaches such a name only by
#: subscript, through its __missing__)
GLOBAL_MODEL = None


def test_forward_order_gradients_of_a_global_model_and_of_names_bound_in_the_block(phi4):
    """A trace in a function whose model is a global, and a backward block that binds a value to a name before its
    .grad: asked for in forward order, both gradients equal torch.autograd.grad of the same loss."""
    global GLOBAL_MODEL
    GLOBAL_MODEL = phi4
    with GLOBAL_MODEL.trace(PROMPT):
        loss = _loss(GLOBAL_MODEL)
        with loss.backward():
            early_grad = GLOBAL_MODEL.layers[0].layer_output.grad.save()
            late = GLOBAL_MODEL.layers[3].layer_output
            late_grad = late.grad.save()
    with phi4.trace(PROMPT):
        early, late = phi4.layers[0].layer_output, phi4.layers[3].layer_output
        references = nnsight.save(torch.autograd.grad(_loss(phi4), [early, late]))
    assert torch.equal(early_grad, references[0]) and torch.equal(late_grad, references[1])


def test_an_edit_of_a_gradient_that_had_flowed_fails(phi4):
    model = phi4
    with pytest.raises(OrderError, match="too late to reach the backward"):
        with model.trace(PROMPT):
            early = model.layers[0].layer_output
            late = model.layers[3].layer_output
            loss = _loss(model)
            with loss.backward():
                early.grad.save()
                late.grad[:] = 0


# --------------------------------------------------------------------------- partial rotary
@pytest.mark.parametrize("family,overrides", [("phi", {}), ("phi", {"qk_layernorm": True}), ("stablelm", {}),
                                              ("persimmon", {})])
def test_partial_rotary_unrotated_values_are_the_whole_heads(family, overrides):
    """Past the rotary dims the unrotated queries and keys are attention_queries' and attention_keys'; their rotary
    dims, rotated with the model's own cos and sin, are the rotated ones' rotary dims."""
    import importlib

    model = tiny.load(family, attn_implementation="eager", **overrides)
    modeling = importlib.import_module(type(model._module).__module__)
    attention = model.layers[1].self_attn
    with model.trace(PROMPT):
        queries_unrotated = attention.attention_queries_unrotated.save()
        keys_unrotated = attention.attention_keys_unrotated.save()
        queries = attention.attention_queries.save()
        keys = attention.attention_keys.save()
    rotary = attention._module.rotary_ndims
    assert 0 < rotary < queries.shape[-1] and queries_unrotated.shape == queries.shape
    assert torch.equal(queries_unrotated[..., rotary:], queries[..., rotary:])
    assert torch.equal(keys_unrotated[..., rotary:], keys[..., rotary:])
    positions = torch.arange(queries.shape[-2])[None]
    cos, sin = model._module.model.rotary_emb(queries_unrotated, positions)
    queries_rotated, keys_rotated = modeling.apply_rotary_pos_emb(
        queries_unrotated[..., :rotary], keys_unrotated[..., :rotary], cos, sin)
    assert torch.equal(queries_rotated, queries[..., :rotary]) and torch.equal(keys_rotated, keys[..., :rotary])
    assert not torch.equal(queries_unrotated[..., 1:, :rotary], queries[..., 1:, :rotary])  # the rotary turned them


@pytest.mark.parametrize("family", ["deepseek_v3", "minicpm3", "glm4_moe_lite"])
def test_latent_attention_unrotated_queries_are_the_whole_heads(family):
    """MLA's queries before the rotary: each head's non-rotary dims, then its rotary dims (last), which the model's
    own rotary (interleaved where the config says so) turns into attention_queries' last dims. Its keys have no
    such tensor (their rotary dims come from the latent, shared by every head), and say so."""
    import importlib

    model = tiny.load(family, attn_implementation="eager")
    modeling = importlib.import_module(type(model._module).__module__)
    attention = model.layers[1].self_attn
    with model.trace(PROMPT):
        unrotated = attention.attention_queries_unrotated.save()
        queries = attention.attention_queries.save()
    rotary = attention._module.qk_rope_head_dim
    assert 0 < rotary < queries.shape[-1] and unrotated.shape == queries.shape
    assert torch.equal(unrotated[..., :-rotary], queries[..., :-rotary])
    positions = torch.arange(queries.shape[-2])[None]
    cos, sin = model._module.model.rotary_emb(unrotated, positions)
    interleaved = getattr(model._module.config, "rope_interleave", False)
    rotate = modeling.apply_rotary_pos_emb_interleave if interleaved else modeling.apply_rotary_pos_emb
    rotated, _ = rotate(unrotated[..., -rotary:], unrotated[..., -rotary:], cos, sin)
    assert torch.equal(rotated, queries[..., -rotary:])
    assert not torch.equal(unrotated[..., 1:, -rotary:], queries[..., 1:, -rotary:])  # the rotary turned them
    with pytest.raises(UnavailableValue, match="no one tensor holds the whole keys before the rotary"):
        with model.trace(PROMPT):
            attention.attention_keys_unrotated.save()
