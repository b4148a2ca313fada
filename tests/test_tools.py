"""The toolkit on tiny models of the families: each tool checked for what it means, not only that it runs."""

import functools
import warnings

import pytest
import torch

from nnterp import tiny
from nnterp.registry import registry
from nnterp.tools import (
    ablate_heads, ablate_neurons, attention_patterns, attribution_patching, collect, direct_logit_attribution, generate,
    head_contributions, head_means, lens_logits, logit_difference, logit_lens, mean_difference, patch_heads,
    patch_positions, patchscope, probability, run, skip_blocks, steer, stream_norm_without_sink,
)
from nnterp.tools._common import ToolError, encode, why_not

PROMPT = "The Eiffel Tower is in the city of"
PROMPTS = [PROMPT, "Hello world"]          # of different lengths: the batch is left-padded
THREE = ("llama", "phi", "gpt_neox_japanese")


@functools.lru_cache(maxsize=None)
def load(family: str, attn_implementation: str | None = "eager", dtype=torch.float32):
    if dtype is torch.float32:
        return tiny.load(family, attn_implementation=attn_implementation)
    from nnterp import StandardizedTransformer

    hf, tok = tiny.build(family, attn_implementation, dtype=dtype)
    return StandardizedTransformer(hf, tokenizer=tok)


def corrupted(model, prompt=PROMPT):
    """The prompt's ids with three tokens replaced: a corrupt run of the same length."""
    ids = encode(model, prompt)["input_ids"].clone()
    ids[0, 1:4] = torch.tensor([5, 6, 7])
    return encode(model, prompt)["input_ids"], ids


def metric(logits):
    return logits[:, 10] - logits[:, 11]


# --------------------------------------------------------------------------- lenses
@pytest.mark.parametrize("family", sorted(registry()))
def test_lens_at_the_last_block_equals_the_logits(family):
    """Every family, softcaps, embedding scales and biases included; a padded batch."""
    try:
        model = tiny.load(family)
    except Exception as error:  # a family whose tiny model does not build is the family's own test's finding
        pytest.skip(f"{family}'s tiny model does not load: {error}")
    serving = [layer for layer in range(model.num_layers) if why_not(model, "layer_output", layer) is None]
    # a family whose forward reads no attention mask refuses a padded batch (tests/test_families.py): one length
    prompts = PROMPTS if model.family.positions.padding_ignored is None else [PROMPTS[0]] * len(PROMPTS)
    if not serving:  # a family whose blocks carry no single stream: the lens says why, in one sentence
        with pytest.raises(ToolError, match="no block of this model serves layer_output"):
            lens_logits(model, prompts)
        return
    projected, logits = lens_logits(model, prompts)              # every block that serves the stream
    assert projected.shape == (len(serving), *logits.shape)
    if serving[-1] == model.num_layers - 1 and model.family.readout.exact_lens:
        assert torch.equal(projected[-1], logits)
    elif serving[-1] == model.num_layers - 1:  # the logits mix more than the last block's output
        assert not torch.equal(projected[-1], logits)


@pytest.mark.parametrize("family", THREE)
def test_logit_lens_tables_agree_with_the_model(family):
    model = load(family)
    probs = run(model, PROMPT)[0].softmax(-1)
    lens = logit_lens(model, PROMPT, targets=[" city", 10])
    assert lens.top_ids.shape == (model.num_layers, len(lens.tokens), 5)
    assert torch.equal(lens.top_ids[-1, :, 0], probs.argmax(-1))
    torch.testing.assert_close(lens.target_probs[-1, :, 1], probs[:, 10])
    top = int(lens.top_ids[-1, -1, 0])
    assert int(lens.target_ranks[-1, -1, 1]) == (0 if top == 10 else int((probs[-1] > probs[-1, 10]).sum()))
    block = lens.first_top_block(" city")
    ranks = lens.target_ranks[:, -1, 0]
    assert block == (int((ranks == 0).nonzero()[0]) if (ranks == 0).any() else None)
    assert "block" in lens.table()


def test_patchscope_of_a_prompt_into_itself_is_the_plain_run():
    model = load("llama")
    result = patchscope(model, PROMPT, PROMPT)
    probs = run(model, PROMPT)[0, -1].softmax(-1)
    top_probs, top_ids = probs.topk(5)
    for row in range(model.num_layers):
        assert torch.equal(result.top_ids[row], top_ids)
        torch.testing.assert_close(result.top_probs[row], top_probs)


def test_patchscope_generates_from_the_patched_run():
    model = load("phi")
    result = patchscope(model, PROMPT, layers=[0], max_new_tokens=3)
    assert len(result.generations) == 1 and isinstance(result.generations[0], str)


# --------------------------------------------------------------------------- steering
@pytest.mark.parametrize("family", THREE)
def test_steering_by_zero_changes_nothing(family):
    model = load(family)
    plain = run(model, PROMPTS)
    zero = torch.zeros(model.hidden_size)
    assert torch.equal(run(model, PROMPTS, steer(zero, layers=range(model.num_layers))), plain)
    assert torch.equal(run(model, PROMPTS, steer(zero, layers=[0, -1], relative=True, coefficient=8.0)), plain)
    for value in ("layer_input", "attention_output", "mlp_output"):
        assert torch.equal(run(model, PROMPTS, steer(zero, layers=[1], value=value)), plain)


def test_steering_by_zero_leaves_generation_as_it_was():
    model = load("llama")
    zero = torch.zeros(model.hidden_size)
    assert generate(model, PROMPTS, steer(zero, layers=[1]), max_new_tokens=4) == generate(model, PROMPTS, max_new_tokens=4)


def test_steering_reaches_only_the_chosen_rows_and_positions():
    model = load("llama")
    plain = run(model, PROMPTS)
    steered = run(model, PROMPTS, steer(torch.randn(model.hidden_size), layers=[-1], rows=[1], positions=[-1],
                                        coefficient=5.0))
    assert torch.equal(steered[0], plain[0])
    assert torch.equal(steered[1, :-1], plain[1, :-1])      # the last block: nothing else sees the edit
    assert not torch.allclose(steered[1, -1], plain[1, -1])


def test_relative_steering_measures_the_stream_without_position_zero():
    stream = torch.ones(2, 4, 3)
    stream[:, 0] = 1000.0                                    # the first-position outlier
    stream[1, :2] = 0.0                                       # row 1: two positions of padding, the sink at 2
    sink = torch.tensor([0, 2])
    norms = stream_norm_without_sink(stream, sink)
    torch.testing.assert_close(norms, torch.full((2,), 3 ** 0.5))

    model = load("llama")
    direction = torch.randn(model.hidden_size)
    batch = encode(model, PROMPT)
    with torch.no_grad():
        with model.trace(PROMPT):
            before = model.layers[1].layer_output.clone().save()
        with model.trace(PROMPT):
            steer(direction, layers=[1], relative=True, coefficient=2.0)(model)   # reads the mask, then edits
            after = model.layers[1].layer_output.save()
    expected_scale = 2.0 * before[0, 1:].norm(dim=-1).mean()
    added = after[0, 3] - before[0, 3]
    torch.testing.assert_close(added, expected_scale * direction / direction.norm(), rtol=1e-4, atol=1e-5)
    assert batch["input_ids"].shape[1] > 3


# --------------------------------------------------------------------------- ablation
@pytest.mark.parametrize("family", THREE)
def test_ablating_nothing_changes_nothing(family):
    model = load(family)
    plain = run(model, PROMPTS)
    for nothing in (ablate_heads([]), ablate_neurons({}), skip_blocks([]), ablate_heads({0: []})):
        assert torch.equal(run(model, PROMPTS, nothing), plain)
    assert not torch.allclose(run(model, PROMPTS, ablate_heads([(0, 1)])), plain)


def test_a_head_ablated_in_the_premix_is_ablated_in_the_head_outputs():
    model = load("llama")
    heads = [(0, 1), (1, 3)]
    torch.testing.assert_close(run(model, PROMPT, ablate_heads(heads)),
                               run(model, PROMPT, ablate_heads(heads, value="attention_head_outputs")))


def test_mean_ablation_with_the_run_s_own_means_of_a_constant_head():
    model = load("phi")
    means = head_means(model, PROMPT)
    assert set(means) == set(range(model.num_layers)) and means[0].shape == (model.num_heads, model.head_dim)
    assert not torch.allclose(run(model, PROMPT, ablate_heads([(1, 0)], means=means)),
                              run(model, PROMPT, ablate_heads([(1, 0)])))


@pytest.mark.parametrize("family", THREE)
def test_skipping_every_block_reads_the_embeddings_through_the_readout(family):
    model = load(family)
    with torch.no_grad():
        with model.trace(PROMPT):
            entering = model.layers[0].layer_input.save()
    skipped = run(model, PROMPT, skip_blocks(range(model.num_layers)))
    with torch.no_grad():
        assert torch.equal(skipped, model.project_on_vocab(entering))


def test_interventions_compose_in_forward_order_whatever_the_order_given():
    model = load("llama")
    a = steer(torch.randn(model.hidden_size), layers=[1])
    b = ablate_heads([(0, 2)])
    assert torch.equal(run(model, PROMPT, a + b), run(model, PROMPT, b + a))


# --------------------------------------------------------------------------- patching
@pytest.mark.parametrize("family", THREE)
def test_patching_the_clean_run_into_itself_changes_nothing(family):
    model = load(family)
    clean, _ = corrupted(model)
    for result in (patch_positions(model, clean, clean, metric), patch_heads(model, clean, clean, metric),
                   patch_positions(model, clean, clean, metric, value="mlp_output", batch_size=5)):
        assert result.scores.shape[0] == model.num_layers
        torch.testing.assert_close(result.scores, torch.full_like(result.scores, result.clean), rtol=0, atol=1e-6)


@pytest.mark.parametrize("family", THREE)
def test_patching_the_last_block_at_the_last_position_restores_the_clean_answer(family):
    model = load(family)
    clean, corrupt = corrupted(model)
    result = patch_positions(model, clean, corrupt, metric)
    assert result.scores.shape == (model.num_layers, clean.shape[1])
    torch.testing.assert_close(result.scores[-1, -1], torch.tensor(result.clean), rtol=0, atol=1e-5)
    torch.testing.assert_close(result.normalized[-1, -1], torch.tensor(1.0), rtol=0, atol=1e-3)
    # before the first corrupted position nothing differs, so patching there changes nothing
    torch.testing.assert_close(result.scores[:, 0], torch.full((model.num_layers,), result.corrupt), rtol=0, atol=1e-5)


# --------------------------------------------------------------------------- attribution
def _expected_bias(model, layer):
    """What the attention adds besides its heads: o_proj's bias, and GPT-NeoX-Japanese's dense_bias."""
    attention = model.layers[layer].self_attn._module
    bias = torch.zeros(model.hidden_size)
    o_proj = model.layers[layer].self_attn.o_proj._module
    if getattr(o_proj, "bias", None) is not None:
        bias = bias + o_proj.bias.detach()
    if getattr(attention, "dense_bias", None) is not None:
        bias = bias + attention.dense_bias.detach()
    return bias


@pytest.mark.parametrize("family", THREE)
def test_head_attributions_sum_to_the_attention_output(family):
    model = load(family)
    premixes, outputs = [], []
    with torch.no_grad():
        with model.trace(PROMPT):
            for layer in range(model.num_layers):
                premixes.append(model.layers[layer].self_attn.attention_premix.save())
                outputs.append(model.layers[layer].self_attn.attention_output.save())
    for layer in range(model.num_layers):
        parts = head_contributions(model, layer, premixes[layer])               # [batch seq heads hidden]
        weight = model.layers[layer].self_attn.o_proj._module.weight.detach()
        head_dim = model.head_dim
        for head in range(model.num_heads):                                     # each head: its slice of o_proj
            slice_ = weight[:, head * head_dim:(head + 1) * head_dim]
            torch.testing.assert_close(parts[:, :, head], premixes[layer][:, :, head] @ slice_.T, rtol=1e-5, atol=1e-6)
        torch.testing.assert_close(parts.sum(2) + _expected_bias(model, layer), outputs[layer], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("family", THREE + ("recurrent_gemma", "mamba"))
def test_direct_logit_attribution_parts_sum_to_the_logit(family):
    """Heads, biases, MLPs and the embeddings through the frozen final norm add up to lm_head_output,
    on LayerNorm and RMSNorm, a (1 + w) gain and soft-capped logits (recurrent_gemma), and blocks without heads."""
    model = load(family, None if family == "mamba" else "eager")
    result = direct_logit_attribution(model, PROMPT, 10)
    assert result.stream_error < 1e-4
    assert abs(result.total - result.lm_head_output) < 1e-4 * (1 + abs(result.lm_head_output))
    with torch.no_grad():
        with model.trace(PROMPT):
            head_logits = model.lm_head_output[0, -1, 10].save()
    assert abs(result.lm_head_output - float(head_logits)) < 1e-6
    with_heads = result.attention_biases.isfinite()          # NaN on blocks whose mixer has no heads
    torch.testing.assert_close(result.heads[with_heads].sum(-1) + result.attention_biases[with_heads],
                               result.attentions[with_heads])
    pair = direct_logit_attribution(model, PROMPT, (10, 11))
    assert abs(pair.total - (result.total - direct_logit_attribution(model, PROMPT, 11).total)) < 1e-4


def test_attribution_patching_is_zero_when_the_runs_are_the_same():
    model = load("llama")
    clean, _ = corrupted(model)
    for value in ("layer_output", "attention_premix"):
        result = attribution_patching(model, clean, clean, metric, value=value)
        assert torch.equal(result.scores, torch.full_like(result.scores, result.corrupt))


def test_attribution_patching_is_the_gradient_of_the_metric_times_the_difference():
    """Against autograd on the bare model: (clean - corrupt) · d metric / d layer_output of block 0."""
    model = load("llama")
    clean, corrupt = corrupted(model)
    result = attribution_patching(model, clean, corrupt, metric, layers=[0])
    block = model.layers[0]._module
    kept = {}

    def keep(module, args, output):
        kept["stream"] = output[0] if isinstance(output, tuple) else output
        if kept["stream"].requires_grad:
            kept["stream"].retain_grad()

    handle = block.register_forward_hook(keep)
    try:
        metric(model._module(input_ids=corrupt, use_cache=False).logits[:, -1]).sum().backward()
        corrupt_stream, gradient = kept["stream"].detach(), kept["stream"].grad
        with torch.no_grad():
            model._module(input_ids=clean, use_cache=False)
        clean_stream = kept["stream"].detach()
    finally:
        handle.remove()
        model._module.zero_grad(set_to_none=True)
    expected = ((clean_stream - corrupt_stream) * gradient)[0].sum(-1)
    torch.testing.assert_close(result.scores[0] - result.corrupt, expected, rtol=1e-4, atol=1e-7)


def test_attribution_patching_is_the_first_order_term_of_patching():
    """A small step along (clean - corrupt) at one (block, position), taken with steering, moves the metric
    by the estimate times the step (float64, LayerNorm)."""
    model = load("phi", "eager", torch.float64)
    clean, corrupt = corrupted(model)
    result = attribution_patching(model, clean, corrupt, metric)
    with torch.no_grad():
        with model.trace(clean):
            clean_stream = model.layers[0].layer_output.save()
        with model.trace(corrupt):
            corrupt_stream = model.layers[0].layer_output.save()
    base = float(metric(run(model, corrupt)[:, -1]))
    step = 1e-3
    for position in (1, 2, -1):
        delta = (clean_stream - corrupt_stream)[0, position]
        moved = float(metric(run(model, corrupt, steer(step * delta, layers=[0], positions=[position]))[:, -1]))
        estimate = float(result.scores[0, position] - result.corrupt)
        assert abs((moved - base) / step - estimate) <= 0.05 * abs(estimate)


# --------------------------------------------------------------------------- the first hour's toolkit bugs
def test_metrics_read_the_last_position_of_run_s_logits():
    """``logit_difference(model, a, b)(run(model, prompts))``: [batch seq vocab] in, the last position read."""
    model = load("llama")
    logits = run(model, PROMPTS)                                  # [batch seq vocab], left-padded
    difference, p = logit_difference(model, 10, 11), probability(model, 10)
    assert torch.equal(difference(logits), logits[:, -1, 10] - logits[:, -1, 11])
    assert torch.equal(difference(logits), difference(logits[:, -1]))
    assert torch.equal(p(logits), logits[:, -1].float().softmax(-1)[:, 10])
    assert torch.equal(p(logits), p(logits[:, -1]))
    with pytest.raises(ToolError, match=r"\[batch seq vocab\] or \[batch vocab\]"):
        difference(logits[0, -1])


def test_patchscope_keeps_each_source_block_with_its_target_block():
    """Row i patches ``layers[i]`` into ``target_layers[i]``: the same as that pair patched alone."""
    model = load("llama")
    source, target = PROMPT, "Hello world, how are you"
    both = patchscope(model, source, target, layers=[1, 0], target_layers=[0, 1])
    assert both.layers == [1, 0] and both.target_layers == [0, 1]
    for row, (layer, into) in enumerate([(1, 0), (0, 1)]):
        alone = patchscope(model, source, target, layers=[layer], target_layers=[into])
        assert torch.equal(both.top_ids[row], alone.top_ids[0])
        torch.testing.assert_close(both.top_probs[row], alone.top_probs[0], rtol=0, atol=1e-6)
    assert "block   1 ->   0" in both.table()
    swapped = patchscope(model, source, target, layers=[0, 1], target_layers=[0, 1])   # other pairs, other rows
    assert not torch.allclose(swapped.top_probs[0], both.top_probs[0])


def test_the_lens_returns_blocks_in_the_order_asked():
    model = load("llama")
    forward, _ = lens_logits(model, PROMPTS, layers=[0, 1])
    backward, _ = lens_logits(model, PROMPTS, layers=[-1, 0])
    assert torch.equal(backward, forward.flip(0))


def test_relative_steering_of_a_learned_vector_warns_nothing_and_keeps_its_gradient():
    """A vector that requires grad (one being learned): no conversion warning, and since a relative steer
    depends only on the vector's direction, its gradient is orthogonal to it."""
    model = load("llama")
    vector = torch.nn.Parameter(torch.randn(model.hidden_size))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        run(model, PROMPTS, steer(vector, layers=[0], relative=True, coefficient=3.0))
        try:
            with model.trace(PROMPT):
                steer(vector, layers=[0], relative=True, coefficient=3.0)(model)
                loss = model.logits[0, -1, 10].save()
            loss.backward()
        finally:
            model._module.zero_grad(set_to_none=True)
    assert vector.grad is not None and float(vector.grad.norm()) > 0
    grad, direction = vector.grad, vector.detach()
    assert abs(float(grad @ direction)) < 1e-4 * float(grad.norm() * direction.norm())


@pytest.mark.parametrize("value", ["layer_output", "attention_premix"])
def test_attribution_patching_leaves_no_gradient_on_the_model(value):
    """No parameter gains a .grad, and one the caller had is left exactly as it was."""
    model = load("llama")
    clean, corrupt = corrupted(model)
    parameters = dict(model._module.named_parameters())
    kept_name = next(iter(parameters))
    kept = torch.randn_like(parameters[kept_name])
    parameters[kept_name].grad = kept.clone()
    try:
        attribution_patching(model, clean, corrupt, metric, value=value)
        assert torch.equal(parameters[kept_name].grad, kept)
        assert [n for n, p in parameters.items() if n != kept_name and p.grad is not None] == []
    finally:
        parameters[kept_name].grad = None


def test_tools_that_need_no_gradient_build_no_graph():
    """With gradients on (torch's default), what the forward-only tools return carries no autograd graph."""
    model = load("llama")
    assert torch.is_grad_enabled()
    clean, corrupt = corrupted(model)
    tensors = {
        "run": run(model, PROMPTS),
        "lens_logits": lens_logits(model, PROMPTS)[0],
        "logit_lens": logit_lens(model, PROMPT).top_probs,
        "patchscope": patchscope(model, PROMPT, "Hello world").top_probs,
        "mean_difference": mean_difference(model, PROMPT, "Hello world", 0),
        "head_means": head_means(model, PROMPTS)[0],
        "patch_positions": patch_positions(model, clean, corrupt, metric).scores,
        "direct_logit_attribution": direct_logit_attribution(model, PROMPT, 10).heads,
        "head_contributions": head_contributions(model, 0, torch.randn(1, 3, model.num_heads, model.head_dim)),
        "collect": collect(model, PROMPTS, ["layer_output"], progress=False)["layer_output"],
        "attribution_patching": attribution_patching(model, clean, corrupt, metric).scores,
    }
    assert [name for name, tensor in tensors.items() if tensor.requires_grad] == []
    assert all(p.grad is None for p in model._module.parameters())


# --------------------------------------------------------------------------- bad input
def test_bad_input_gets_one_sentence_naming_the_fix():
    model = load("llama")
    sdpa = load("llama", "sdpa")
    with pytest.raises(ToolError, match="not one: pass a single token"):
        logit_lens(model, PROMPT, targets=[" Paris"])
    with pytest.raises(ToolError, match="same length"):
        patch_positions(model, PROMPT, "Hello world", metric)
    with pytest.raises(ToolError, match='attn_implementation="eager"'):
        attention_patterns(sdpa, PROMPT)
    with pytest.raises(ToolError, match="stream has 64"):
        run(model, PROMPT, steer(torch.ones(3), layers=[0]))
    with pytest.raises(ToolError, match="heads \\[9\\] do not exist"):
        run(model, PROMPT, ablate_heads([(0, 9)]))
    with pytest.raises(ToolError, match="block 7 does not exist"):
        lens_logits(model, PROMPT, layers=[7])
    with pytest.raises(ToolError, match="not served"):
        run(load("phi"), PROMPT, steer(torch.ones(64), layers=[0], value="layer_mid"))


# --------------------------------------------------------------------------- on an accelerator
@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device")
def test_the_tools_run_where_the_model_lives():
    """The same calls on a model on the GPU: inputs, vectors, indices and results follow the model."""
    from nnterp import StandardizedTransformer
    from nnterp.tools import collect, induction_heads

    hf, tok = tiny.build("llama", "eager")
    model = StandardizedTransformer(hf.to("cuda"), tokenizer=tok)
    cpu = load("llama")
    torch.testing.assert_close(run(model, PROMPTS).cpu(), run(cpu, PROMPTS), rtol=1e-4, atol=1e-4)
    edit = steer(torch.randn(model.hidden_size), layers=[0], relative=True) + ablate_heads([(1, 2)])
    torch.testing.assert_close(run(model, PROMPTS, edit).cpu(), run(cpu, PROMPTS, edit), rtol=1e-4, atol=1e-4)
    clean, corrupt = corrupted(cpu)
    for tool in (patch_positions, patch_heads, attribution_patching):
        torch.testing.assert_close(tool(model, clean, corrupt, metric).scores, tool(cpu, clean, corrupt, metric).scores,
                                   rtol=1e-3, atol=1e-4)
    gpu_dla, cpu_dla = direct_logit_attribution(model, PROMPT, 10), direct_logit_attribution(cpu, PROMPT, 10)
    assert abs(gpu_dla.total - cpu_dla.total) < 1e-4
    data = collect(model, PROMPTS, ["layer_output"], positions=[0, -1], device="cuda", progress=False)
    assert data["layer_output"].device.type == "cuda"
    assert induction_heads(model, length=6, batch=2).scores.shape == (model.num_layers, model.num_heads)
    assert logit_lens(model, PROMPT).top_ids.device.type == "cpu"
    assert len(generate(model, PROMPTS, edit, max_new_tokens=3)) == 2


def test_a_tool_leaves_out_a_block_its_text_call_skips():
    """Mllama's cross-attention blocks run only on a call with an image: a tool's text call reads every other block,
    and asking for a skipped one says why."""
    model = tiny.load("mllama")
    skipped = [layer for layer in range(model.num_layers) if why_not(model, "layer_output", layer) is not None]
    assert skipped and all("a text call skips this block" in why_not(model, "layer_output", layer) for layer in skipped)
    projected, logits = lens_logits(model, PROMPTS)
    assert projected.shape[0] == model.num_layers - len(skipped)
    with pytest.raises(ToolError, match="skips this block"):
        lens_logits(model, PROMPTS, layers=skipped[:1])
