"""Every misuse gets one sentence that names the fix, and a failed trace leaves the model as it was."""

import pytest
import torch
from transformers import BertConfig, BertLMHeadModel

from nnterp import (
    ConditionedValue, LayoutMismatch, NnterpError, OrderError, ReadOnlyValue, StandardizedTransformer, UnavailableValue,
    UnknownArchitecture, UnknownName, tiny,
)

from conftest import same_snapshot, snapshot


def one_sentence(error):
    text = str(error)
    assert "\n" not in text and len(text) < 600 and "Module(" not in text
    return text


def test_unknown_architecture():
    config = BertConfig(num_hidden_layers=1, hidden_size=32, num_attention_heads=2, intermediate_size=64,
                        vocab_size=300, is_decoder=True)
    with pytest.raises(UnknownArchitecture) as error:
        StandardizedTransformer(BertLMHeadModel(config), tokenizer=tiny.tokenizer())
    text = one_sentence(error.value)
    assert "BertLMHeadModel" in text and "llama" in text and "nnterp/families/bert.py" in text


def test_tiny_load_of_no_family_names_the_nearest_and_register():
    with pytest.raises(UnknownArchitecture) as error:
        tiny.load("lama")
    text = one_sentence(error.value)
    assert "'lama' is no family (did you mean llama" in text and "nnterp.register(Family(...))" in text


def test_misspelled_value_names_the_nearest(phi, prompt):
    with pytest.raises(UnknownName, match="did you mean 'layer_output'"):
        with phi.trace(prompt):
            phi.layers[0].layer_ouput.save()
    with pytest.raises(AttributeError, match="did you mean 'attention_scores'"):
        phi.layers[0].self_attn.attention_score
    assert not hasattr(phi.layers[0], "layer_ouput")


def test_unavailable_value_says_why(phi, prompt):
    with pytest.raises(UnavailableValue) as error:
        with phi.trace(prompt):
            phi.layers[0].layer_mid.save()
    assert "parallel block" in one_sentence(error.value)


def test_conditioned_value_names_the_load(llama_sdpa, prompt):
    with pytest.raises(ConditionedValue) as error:
        with llama_sdpa.trace(prompt):
            llama_sdpa.layers[0].self_attn.attention_scores.save()
    text = one_sentence(error.value)
    assert "attn_implementation='eager'" in text and "nn_functional_softmax_0 inside attention_interface_1" in text
    assert "it is read inside the forward, at the input of nn_functional_softmax_0" in text


def test_wrong_shape_and_dtype_writes_name_the_layout(llama, prompt):
    with pytest.raises(LayoutMismatch, match=r"Residual \[batch seq hidden_size\] = \[1, \d+, 64\]; got \[3\]"):
        with llama.trace(prompt):
            llama.layers[0].mlp.mlp_output = torch.zeros(3)
    with pytest.raises(LayoutMismatch, match="cast it with"):
        with llama.trace(prompt):
            out = llama.layers[0].mlp.mlp_output
            llama.layers[0].mlp.mlp_output = torch.zeros(out.shape, dtype=torch.float64)


def test_read_only_values(llama, prompt):
    for name in ("next_token_probs", "input_size"):
        with pytest.raises(ReadOnlyValue, match="read-only"):
            with llama.trace(prompt):
                setattr(llama, name, torch.zeros(1))


def test_read_only_values_refuse_slice_writes(llama, prompt):
    """A slice write to a derived value would be lost: the trace fails with the read-only sentence instead."""
    with pytest.raises(ReadOnlyValue, match="next_token_probs is read-only .*slice writes included"):
        with llama.trace(prompt):
            llama.next_token_probs[:] = 0
    with pytest.raises(ReadOnlyValue, match="input_size is read-only"):
        with llama.trace(prompt):
            llama.input_size[0] = 0
    moe = tiny.load("mixtral")
    with pytest.raises(ReadOnlyValue, match="router_choices is read-only"):
        with moe.trace(prompt):
            moe.layers[0].mlp.router_choices[:] = 0
    with llama.trace(prompt):  # reading them stays fine
        probs = llama.next_token_probs.save()
        size = llama.input_size.save()
    assert size[0] == 1 and probs.shape == (1, llama.vocab_size) and torch.allclose(probs.sum(-1), torch.ones(1))


@pytest.mark.parametrize("keyword, value, fix", [
    ("enable_attention_probs", True, 'attn_implementation="eager"'),
    ("check_renaming", False, "model.check()"),
    ("check_attn_probs_with_trace", False, "model.check()"),
    ("allow_dispatch", True, "dispatch=True"),
    ("rename_config", None, "family module declares its own renames"),
    ("tokenizer_kwargs", {}, "tokenizer=AutoTokenizer.from_pretrained"),
    ("rename", {"model.layers": "blocks"}, "the family module declares the renames"),
    ("use_cache", False, "means nothing for a model built in memory"),
])
def test_old_and_unknown_keywords_are_refused(keyword, value, fix):
    hf, tok = tiny.build("llama")
    with pytest.raises(NnterpError) as error:
        StandardizedTransformer(hf, tokenizer=tok, **{keyword: value})
    assert fix in one_sentence(error.value) and keyword in str(error.value)


def test_cli_refuses_a_name_that_is_no_family_at_once(capsys):
    from nnterp import cli

    with pytest.raises(SystemExit) as exit_:
        cli.main(["show", "lama"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "'lama' is not a family (nearest: llama" in err


def test_cli_repo_id_without_a_hub_is_one_line(capsys, monkeypatch):
    from nnterp import cli, hub

    monkeypatch.setattr(hub, "reachable", lambda timeout=3.0: False)
    with pytest.raises(SystemExit):
        cli.main(["show", "org/no-such-model"])
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "the Hugging Face hub cannot be reached" in err


def test_out_of_order_read_nnterp_cannot_see_is_explained(llama, prompt):
    """A read out of order in code the trace's with block does not spell (a getattr) cannot be captured: the
    sentence says so and how to write it instead."""
    name = "layer_output"
    with pytest.raises(OrderError) as error:
        with llama.trace(prompt):
            llama.layers[1].layer_output.save()
            getattr(llama.layers[0], name).save()
    message = one_sentence(error.value)
    assert "model.layers[0].layer_output was asked for after the forward had passed it" in message
    assert "write it in the with block, or in forward order" in message and "instrument" not in message


def test_value_outside_a_trace(llama):
    with pytest.raises(NnterpError, match="served inside a trace"):
        llama.layers[0].layer_output


def test_failed_trace_leaves_the_model_as_it_was(llama, prompt):
    before = snapshot(llama)
    with llama.trace(prompt):
        reference = llama.logits.save()
    with pytest.raises(ZeroDivisionError):
        with llama.trace(prompt):
            llama.layers[0].self_attn.attention_output[:] = 0
            llama.layers[1].mlp.mlp_output[:] = 1.0 / 0 if False else llama.layers[1].mlp.mlp_output * 2
            1 / 0
    with pytest.raises(LayoutMismatch):
        with llama.trace(prompt):
            llama.layers[0].layer_output = torch.zeros(2)
    assert same_snapshot(before, snapshot(llama))
    with llama.trace(prompt):
        after = llama.logits.save()
    assert torch.equal(reference, after)


def test_a_batch_the_model_cannot_take_is_refused_with_the_reason():
    """Reformer computes its own positions, so a left-padded batch (which needs position_ids) is refused before
    the forward, and the model runs the next trace as before."""
    model = tiny.load("reformer")
    before = snapshot(model)
    with pytest.raises(NnterpError) as error:
        with model.trace() as tracer:
            with tracer.invoke("Paris"):
                model.logits.save()
            with tracer.invoke("The Eiffel Tower is in the city of"):
                model.logits.save()
    text = one_sentence(error.value)
    assert "position_ids" in text and "one length" in text
    assert same_snapshot(snapshot(model), before)
    with model.trace() as tracer:
        with tracer.invoke("Paris is"):
            first = model.logits.save()
        with tracer.invoke("Paris is"):
            second = model.logits.save()
    assert torch.equal(first, second)


def test_a_block_index_past_the_end_says_the_range(llama, prompt):
    n = llama.num_layers
    for index in (n, -n - 1):
        with pytest.raises(IndexError) as error:
            llama.layers[index]
        assert one_sentence(error.value) == (f"model.layers[{index}] is out of range: it holds {n} blocks, "
                                             f"index 0 to {n - 1} (or -{n} to -1)")
    with pytest.raises(IndexError, match=f"model.layers\\[{n}\\] is out of range"):
        with llama.trace(prompt):
            llama.layers[n].layer_output.save()
    assert llama.layers[-1] is llama.layers[n - 1] and len(list(llama.layers)) == n


@pytest.mark.parametrize("given", [123, None, 1.5])
def test_a_trace_of_what_is_not_a_prompt_says_what_a_prompt_is(llama, given):
    with pytest.raises(TypeError) as error:
        with llama.trace(given):
            llama.logits.save()
    assert one_sentence(error.value) == (
        f"model.trace was given {given!r}, which is not a prompt: pass a string, a list of strings, token ids "
        f"(a list of ints or a tensor) or the tokenizer's output")


def test_a_value_on_the_wrong_host_names_the_right_path(llama, prompt):
    mamba = tiny.load("mamba")
    with pytest.raises(UnknownName) as error:
        with mamba.trace(prompt):
            mamba.layers[0].attention_output.save()
    assert one_sentence(error.value) == ("model.layers[0] has no 'attention_output': it is a value of "
                                         "model.layers[i].self_attn; did you mean "
                                         "model.layers[0].self_attn.attention_output?")
    with mamba.trace(prompt):  # the suggestion reads
        mamba.layers[0].self_attn.attention_output.save()
    with pytest.raises(UnknownName, match=r"did you mean model\.layers\[1\]\.layer_output\?"):
        llama.layers[1].mlp.layer_output
    with pytest.raises(UnknownName, match=r"did you mean model\.logits\?"):
        llama.layers[1].logits


def test_a_hub_repo_offline_fails_at_once_with_the_way_out(monkeypatch, tmp_path):
    import time

    import huggingface_hub.constants as constants

    from nnterp.declare.errors import HubUnreachable

    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path))
    started = time.monotonic()
    with pytest.raises(HubUnreachable) as error:
        StandardizedTransformer("microsoft/phi-2")
    assert time.monotonic() - started < 2.0  # no retries: the hub is not asked at all
    text = one_sentence(error.value)
    assert text.startswith("'microsoft/phi-2' is a hub repo id, HF_HUB_OFFLINE is set") and "nnterp.real.load()" in text
    assert isinstance(error.value, OSError)


def test_hub_unreachable_is_detected_without_retries(monkeypatch, tmp_path):
    import huggingface_hub.constants as constants

    from nnterp import hub
    from nnterp.declare.errors import HubUnreachable

    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path))
    monkeypatch.setattr(hub, "reachable", lambda timeout=3.0: False)
    with pytest.raises(HubUnreachable, match="the Hugging Face hub cannot be reached from here"):
        StandardizedTransformer("microsoft/phi-2")


def test_the_native_model_has_one_public_name():
    hf, tok = tiny.build("llama")
    model = StandardizedTransformer(hf, tokenizer=tok)
    assert model.hf_model is hf  # the object given, not a copy
    with pytest.raises(AttributeError, match="use model.hf_model"):
        model._model
    assert not hasattr(model, "_model")


@pytest.mark.parametrize("inner", ["trace", "cache", "tool"])
def test_a_trace_inside_a_trace_of_the_same_model_says_so(llama, prompt, inner):
    """nnsight runs one forward of a model at a time: a trace of it opened in another trace's body (directly, or
    by model.cache or a tool, each of which runs one) was an AttributeError about 'event'; a trace of another
    model inside it still runs."""
    from nnterp import NestedTrace
    from nnterp.tools import logit_lens

    other = tiny.load("phi")
    before = snapshot(llama)
    with pytest.raises(NestedTrace) as error:
        with llama.trace(prompt):
            if inner == "trace":
                with llama.trace(prompt):
                    llama.layers[0].layer_output.save()
            elif inner == "cache":
                llama.cache(prompt)
            else:
                logit_lens(llama, prompt)
    assert "open it after the outer `with` block ends" in one_sentence(error.value)
    assert same_snapshot(before, snapshot(llama))
    with llama.trace(prompt):
        with other.trace(prompt):
            inside = other.layers[0].layer_output.save()
        outside = llama.layers[0].layer_output.save()
    assert inside.shape[-1] == other.hidden_size and outside.shape[-1] == llama.hidden_size


@pytest.mark.parametrize("given, fix", [
    (lambda model, text: model(text), "not text: read the logits in a trace"),
    (lambda model, text: model([text, text]), "not text: read the logits in a trace"),
    (lambda model, text: model(model.tokenizer(text, return_tensors="pt")), "model(**inputs)"),
    (lambda model, text: model(model.tokenizer(text)["input_ids"]), "model(torch.tensor([ids]))"),
])
def test_calling_the_model_on_what_a_trace_takes_names_the_call(llama, prompt, given, fix):
    """model(...) runs the transformers forward, which takes a tensor of ids: text (was torch's 'embedding():
    argument indices must be Tensor, not str'), the tokenizer's output as one argument, or a list of ids is refused
    with the call that takes it; the calls it names run."""
    from nnterp import BadPrompt

    with pytest.raises(BadPrompt) as error:
        given(llama, prompt)
    assert fix in one_sentence(error.value)
    ids = llama.tokenizer(prompt, return_tensors="pt")
    with torch.no_grad(), llama.trace(prompt):
        traced = llama.logits.save()
    assert torch.equal(llama(**ids).logits, traced) and torch.equal(llama(ids["input_ids"]).logits, traced)


class _DictionaryLearningSAE(torch.nn.Module):
    """dictionary_learning's AutoEncoder layout: an encoder and a decoder Linear, no width attribute."""

    def __init__(self, width: int, latents: int) -> None:
        super().__init__()
        self.encoder = torch.nn.Linear(width, latents)
        self.decoder = torch.nn.Linear(latents, width, bias=False)

    def encode(self, x):
        return torch.relu(self.encoder(x))

    def decode(self, latents):
        return self.decoder(latents)


@pytest.mark.parametrize("make, at, said", [
    (lambda width: __import__("nnterp").tools.LocalSAE.random(2 * width, 8), "blocks.1.hook_mlp_out", "cfg.d_in"),
    (lambda width: _DictionaryLearningSAE(2 * width, 8), "layers[1].layer_output", "encoder's in_features"),
])
def test_an_sae_of_another_width_is_refused_by_splice(llama, make, at, said):
    """An SAE whose width is not the value's was accepted by splice(), and the trace failed inside its encode
    (a size mismatch); the width is read from what the SAE carries, a plain module's encoder too."""
    from nnterp.tools import splice
    from nnterp.tools._common import ToolError

    with pytest.raises(ToolError) as error:
        splice(llama, make(llama.hidden_size), at=at)
    text = one_sentence(error.value)
    assert f"reads vectors of width {2 * llama.hidden_size} (its {said})" in text
    assert f"is {llama.hidden_size} wide: splice one trained on this model's" in text
    assert splice(llama, make(llama.hidden_size // 2), at=at).d_in == llama.hidden_size  # the right width splices


def test_an_sae_of_another_width_is_refused_where_the_trace_meets_the_value(llama, prompt):
    """Where the value's width is known only from the forward (the MLP's neurons, a transcoder's output), the
    trace fails with the same sentence at the splice, before the SAE's arithmetic."""
    from nnterp.tools import LocalSAE, splice
    from nnterp.tools._common import ToolError

    spliced = splice(llama, LocalSAE.random(llama.intermediate_size + 1, 8), at="layers[0].mlp.mlp_neurons")
    with pytest.raises(ToolError, match=rf"reads vectors of width {llama.intermediate_size + 1} \(its cfg.d_in\) "
                                        rf"but model.layers\[0\].mlp.mlp_neurons is {llama.intermediate_size} wide"):
        with llama.trace(prompt):
            spliced.latents.save()
    transcoder = LocalSAE.random(llama.hidden_size, 8, d_out=llama.hidden_size + 3)
    with pytest.raises(ToolError, match=rf"the transcoder writes vectors of width {llama.hidden_size + 3} "
                                        r"\(its cfg.d_out\).* \(to=\)"):
        splice(llama, transcoder, at="blocks.0.ln2.hook_normalized", to="blocks.0.hook_mlp_out")


def test_a_plain_backward_in_a_trace_keeps_the_gradients_the_trace_reads(llama, prompt):
    """loss.backward() without `with` in a trace runs the whole backward at once: a value whose .grad the trace
    reads after it, bound to a name or named as a standard value, has its gradient (was None and torch's warning
    about non-leaf tensors), equal to torch.autograd.grad's."""
    import warnings

    import nnsight

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # torch's non-leaf .grad warning fails the test
        with llama.trace(prompt):
            early = llama.layers[0].layer_output
            loss = llama.logits[0, -1].logsumexp(-1)
            loss.backward()
            early_grad = early.grad.save()
            late_grad = llama.layers[1].layer_output.grad.save()
    with llama.trace(prompt):
        early, late = llama.layers[0].layer_output, llama.layers[1].layer_output
        reference = nnsight.save(torch.autograd.grad(llama.logits[0, -1].logsumexp(-1), [early, late]))
    assert torch.equal(early_grad, reference[0]) and torch.equal(late_grad, reference[1])
    llama.hf_model.zero_grad(set_to_none=True)  # the plain backward reached the parameters too


def test_a_cache_too_large_names_the_limit_it_was_held_to(llama, prompt, monkeypatch):
    """The refusal names the limit as given (max_bytes= was said to be 'the 10.0 MB free on cpu') and suggests
    only what would help: no device='cpu' on a run already on the CPU, a larger max_bytes= only where one was
    given."""
    from nnterp.runtime import cache as cache_module

    with pytest.raises(NnterpError) as error:
        llama.cache([prompt] * 8, max_bytes=10_000)
    text = one_sentence(error.value)
    assert "more than max_bytes=10,000 (10.0 kB): name fewer values=, layers= or positions=" in text
    assert text.endswith("or pass a smaller dtype= or a larger max_bytes=") and "free on" not in text
    monkeypatch.setattr(cache_module, "_available_bytes", lambda device: 10_000)  # a machine with 10 kB free
    with pytest.raises(NnterpError) as error:
        llama.cache([prompt] * 8)
    text = one_sentence(error.value)
    assert "more than the 10.0 kB free on cpu" in text and text.endswith("or pass a smaller dtype=")
