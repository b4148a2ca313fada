"""nnterp.transformerlens against TransformerLens 3.9 itself: the same classic script (the main demo's logit
difference, accumulated and decomposed residuals, head attribution, activation patching with hooks, an induction
score) run through both on the tiny checkpoints the oracle shares, and the numbers agree; the same script runs on
families TransformerLens 3.9 does not load, where the stream's own identities check it."""

import importlib.util
import os
import tempfile
import warnings

import pytest
import torch

from nnterp import tiny
from nnterp.declare.errors import NnterpError, UnavailableValue
from nnterp.transformerlens import ActivationCache, HookedTransformer, utils
from oracle.transformerlens import ARCHITECTURES, MORE_ARCHITECTURES, _close, _load, _local_names, tolerance

needs_transformer_lens = pytest.mark.skipif(
    not os.environ.get("CI") and importlib.util.find_spec("transformer_lens") is None,
    reason="the test extra installs TransformerLens 3.9 (CI runs it: there a missing oracle fails)")

EPS = torch.finfo(torch.float32).eps
PROMPT = "The Eiffel Tower is in the city of Paris. The Colosseum is in the city of"


def classic_script(model) -> dict:
    """What a TransformerLens tutorial computes, written once against TransformerLens's API."""
    tokens = model.to_tokens(PROMPT)
    logits, cache = model.run_with_cache(tokens)
    answer, wrong = int(tokens[0, -1]), int(tokens[0, 1])
    out = {"tokens": tokens, "logits": logits, "loss": model(tokens, return_type="loss"),
           "str_tokens": model.to_str_tokens(PROMPT)}
    direction = model.tokens_to_residual_directions(torch.tensor([answer, wrong]))
    out["logit_diff_direction"] = direction[0] - direction[1]
    accumulated, labels = cache.accumulated_resid(layer=-1, incl_mid=False, pos_slice=-1, apply_ln=True,
                                                  return_labels=True)
    out["accumulated"], out["accumulated_labels"] = accumulated, labels
    decomposed = cache.decompose_resid(layer=-1, pos_slice=-1)
    out["decomposed_ln"] = cache.decompose_resid(layer=1, mlp_input=True, pos_slice=-1, apply_ln=True)
    out["decomposed_attrs"] = cache.logit_attrs(decomposed, answer, wrong, pos_slice=-1)
    heads = cache.stack_head_results(layer=-1, pos_slice=-1)
    out["head_attrs"] = cache.logit_attrs(heads, answer, wrong, pos_slice=-1)
    out["pattern"] = cache["pattern", 1]
    out["scale"] = cache["scale", 1, "ln1"]

    # activation patching: a corrupted run with one head's output restored from the clean run
    corrupted = tokens.clone()
    corrupted[0, 1] = int(tokens[0, 2])
    clean_z = cache["z", 0]

    def restore_head(z, hook):
        z[:, :, 1] = clean_z[:, :, 1]
        return z

    out["patched"] = model.run_with_hooks(corrupted, fwd_hooks=[(utils.get_act_name("z", 0), restore_head)])

    def ablate_scores(scores, hook):  # a computed tensor edited in place, as TransformerLens code does
        scores[:, :, -1, 0] = -1e4

    out["ablated"] = model.run_with_hooks(tokens, fwd_hooks=[(lambda name: name.endswith("attn_scores"),
                                                               ablate_scores)])
    # an induction score: attention from each repeated token to the token after its first occurrence
    half = torch.randint(10, 200, (1, 6), generator=torch.Generator().manual_seed(0))
    repeated = torch.cat([half, half], dim=1)
    _, repeated_cache = model.run_with_cache(repeated, names_filter=lambda name: name.endswith("hook_pattern"))
    pattern = repeated_cache["pattern", model.cfg.n_layers - 1]
    out["induction"] = pattern.diagonal(offset=-(half.shape[1] - 1), dim1=-2, dim2=-1).mean(-1)
    out["keys"] = sorted(cache.keys())
    return out


def _both(family, overrides, ours=HookedTransformer, original=None):
    """The tiny checkpoint as the StandardizedTransformer, TransformerLens's model (original: HookedTransformer 3.9,
    or SAELens's subclass) and this layer's ``ours`` over the StandardizedTransformer."""
    if original is None:
        from transformer_lens import HookedTransformer as original
    _local_names()
    with tempfile.TemporaryDirectory() as directory, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        std, for_tl, tokenizer = _load(family, overrides, directory)
        theirs = original.from_pretrained_no_processing(directory, hf_model=for_tl, tokenizer=tokenizer, device="cpu",
                                                        dtype=torch.float32)
    return std, theirs, ours(std)


@needs_transformer_lens
@pytest.mark.parametrize("label, family, overrides", ARCHITECTURES[:4], ids=[a[0] for a in ARCHITECTURES[:4]])
def test_the_classic_script_agrees_with_transformerlens(label, family, overrides):
    std, original, model = _both(family, overrides)
    theirs, ours = classic_script(original), classic_script(model)
    rtol = tolerance(std.config)
    assert torch.equal(ours["tokens"], theirs["tokens"]) and ours["str_tokens"] == theirs["str_tokens"]
    assert ours["accumulated_labels"] == theirs["accumulated_labels"]
    refused = {"gemma2": {f"blocks.{i}.{n}.{h}" for i in (0, 1) for n in ("ln1_post", "ln2_post")
                          for h in ("hook_scale", "hook_normalized")}}.get(label, set())
    assert set(ours["keys"]) == set(theirs["keys"]) - refused
    for key in ("logits", "loss", "logit_diff_direction", "accumulated", "decomposed_ln", "decomposed_attrs",
                "head_attrs", "pattern", "scale", "patched", "ablated", "induction"):
        scale = theirs[key].abs().max().item()
        assert (ours[key] - theirs[key]).abs().max().item() <= rtol * max(scale, 1.0), key
    assert not torch.allclose(ours["patched"], ours["logits"])       # the hooks changed the forward
    assert not torch.allclose(ours["ablated"], ours["logits"])


#: the shared architectures, and those whose attention or MLP projections are fused: GPT-NeoX's and BLOOM's
#: query_key_value (per head), Phi-3's qkv_proj (grouped keys) and gate_up_proj; OPT's MLP, fc1 and fc2 on its block;
#: GPT-J's fc_in and fc_out and GPT-Neo's c_fc (their MLPs 4 · hidden wide, the width TransformerLens reads)
WEIGHT_ARCHITECTURES = ARCHITECTURES + tuple(a for a in MORE_ARCHITECTURES if a[0] == "phi3") + (
    ("gptj", "gptj", {"n_inner": None}), ("gpt_neo", "gpt_neo", {"intermediate_size": None}))


@needs_transformer_lens
@pytest.mark.parametrize("label, family, overrides", WEIGHT_ARCHITECTURES, ids=[a[0] for a in WEIGHT_ARCHITECTURES])
def test_weights_are_transformerlens_s_layouts_of_the_model_s_own(label, family, overrides):
    std, theirs, ours = _both(family, overrides)
    names = ["W_U", "W_Q", "W_K", "W_V", "W_O", "b_Q", "b_K", "b_V", "b_O", "W_in", "W_out", "b_in", "b_out"]
    if label != "bloom":        # BLOOM's hook_embed is after its embedding norm, and W_E is the embedding's
        names.append("W_E")
    if theirs.cfg.gated_mlp:
        names.append("W_gate")
    for name in names:
        assert torch.equal(getattr(ours, name), getattr(theirs, name)), name
    for name in ("QK", "OV"):   # TransformerLens's FactoredMatrix, of the same factors
        factored, original = getattr(ours, name), getattr(theirs, name)
        assert type(factored) is type(original), name
        assert torch.equal(factored.A, original.A) and torch.equal(factored.B, original.B), name
    if theirs.cfg.n_key_value_heads is not None:  # TransformerLens keeps grouped keys and values on each block
        for name in ("_W_K", "_W_V", "_b_K", "_b_V"):
            assert torch.equal(getattr(ours, name), torch.stack([getattr(b.attn, name) for b in theirs.blocks])), name
    for field in ("n_layers", "d_model", "n_heads", "d_head", "d_mlp", "d_vocab", "normalization_type",
                  "positional_embedding_type"):
        assert getattr(ours.cfg, field) == getattr(theirs.cfg, field), field


#: ten families whose architectures TransformerLens 3.9's loading_from_pretrained does not convert (it names GPT-2,
#: GPT-J, GPT-Neo(X), BLOOM, OPT, Gemma 1-3, Llama, Mistral, Mixtral, Phi, Phi-3, Qwen 1-3, OLMo 1-3, OLMoE,
#: Apertus and GPT-OSS): experts (Qwen2-MoE, Qwen3-MoE), latent attention with experts (DeepSeek-V3), parallel
#: blocks (Cohere, Falcon), Granite's multipliers, partial rotary (StableLM), ALiBi (MPT), biases (StarCoder2), NoPE
#: layers (SmolLM3)
TRANSFORMERLENS_LACKS = ("qwen2_moe", "qwen3_moe", "deepseek_v3", "cohere", "falcon", "granite", "stablelm", "mpt",
                         "starcoder2", "smollm3")
#: what the model does to lm_head's output (unembed.hook_out) to make the logits, where it does something: W_U is
#: lm_head's, and TransformerLens's bridge applies these after the unembedding too
READOUTS = {"cohere": lambda config, out: out * config.logit_scale,
            "granite": lambda config, out: out / config.logits_scaling}


def _dot_bound(x, W, terms: int) -> torch.Tensor:
    """Per entry, how far two float32 orders of summing x @ W can be apart: twice ``terms`` eps of sum |x_i W_ij|."""
    return 2 * terms * EPS * (x.abs() @ W.abs())


@pytest.mark.parametrize("family", TRANSFORMERLENS_LACKS)
def test_the_classic_script_runs_where_transformerlens_does_not_and_its_identities_hold(family):
    """No oracle here: each step of the script is checked by what its numbers mean."""
    std = tiny.load(family, attn_implementation="eager")
    model = HookedTransformer(std)
    out = classic_script(model)
    tokens = out["tokens"]
    logits, cache = model.run_with_cache(tokens)
    n_layers, n_heads = model.cfg.n_layers, model.cfg.n_heads
    assert torch.equal(logits, out["logits"])

    # the logit difference: the last stream through ln_final and W_U is lm_head's output, which the readout makes
    # the logits; along logit_diff_direction it is the logit difference
    normalized = model.ln_final(cache["resid_post", -1])
    unembedded = normalized @ model.W_U + model.b_U
    lm_head = cache["unembed.hook_out"]
    assert ((unembedded - lm_head).abs() <= _dot_bound(normalized, model.W_U, model.cfg.d_model)).all()
    assert torch.equal(READOUTS.get(family, lambda config, x: x)(std.config, lm_head), logits)
    answer, wrong = int(tokens[0, -1]), int(tokens[0, 1])
    along = normalized[0, -1] @ out["logit_diff_direction"] + model.b_U[answer] - model.b_U[wrong]
    torch.testing.assert_close(along, lm_head[0, -1, answer] - lm_head[0, -1, wrong], rtol=0,
                               atol=2 * _dot_bound(normalized[0, -1], model.W_U[:, [answer, wrong]],
                                                   model.cfg.d_model).sum().item())

    # the accumulated stream runs from the embedding to the last block's output; the embedding and every block's
    # writes add up to it (each partial sum of P float32 terms within 2 P eps of the terms' magnitudes)
    accumulated = cache.accumulated_resid(layer=-1, incl_mid=False)
    assert torch.equal(accumulated[0], cache["resid_pre", 0]) and torch.equal(accumulated[-1], cache["resid_post", -1])
    assert torch.equal(model.W_E[tokens], cache["hook_embed"])
    parts = cache.decompose_resid(layer=-1, incl_embeds=True)
    final = cache["resid_post", -1]
    assert ((parts.sum(0) - final).abs() <= 2 * len(parts) * EPS * parts.abs().sum(0)).all()

    # head attribution: each head's write (z @ W_O) summed over the heads, plus b_O, is the attention's output
    heads = cache.stack_head_results(layer=-1)
    heads = heads.reshape(n_layers, n_heads, *heads.shape[1:])
    for layer in range(n_layers):
        z = cache["z", layer].flatten(-2)
        bound = _dot_bound(z, model.W_O[layer].flatten(0, 1), z.shape[-1]) + 4 * EPS * model.b_O[layer].abs()
        written = heads[layer].sum(0) + model.b_O[layer]
        assert ((written - cache["attn_out", layer]).abs() <= bound).all(), layer
    # the same heads as the run gives them, hook_result (use_attn_result), with hooks running or not
    model.cfg.use_attn_result = True
    results = lambda name: name.endswith("hook_result")
    _, served = model.run_with_cache(tokens, names_filter=results)
    with model.hooks(fwd_hooks=[(results, lambda result, hook: None)]):
        _, hooked = model.run_with_cache(tokens, names_filter=results)
    model.cfg.use_attn_result = False
    for layer in range(n_layers):
        z = cache["z", layer].flatten(-2)
        bound = _dot_bound(z, model.W_O[layer].flatten(0, 1), z.shape[-1])
        for run in (served, hooked):
            assert ((run["result", layer, "attn"] - heads[layer].movedim(0, -2)).abs() <= bound[..., None, :]).all()

    # a dense MLP's neurons through W_out, plus b_out, are its output; experts have no one W_out, refused
    if all(f"blocks.{layer}.mlp.hook_post" in cache for layer in range(n_layers)):
        for layer in range(n_layers):
            post = cache["post", layer]
            bound = _dot_bound(post, model.W_out[layer], post.shape[-1]) + 4 * EPS * model.b_out[layer].abs()
            assert ((post @ model.W_out[layer] + model.b_out[layer] - cache["mlp_out", layer]).abs() <= bound).all()
    else:
        with pytest.raises(UnavailableValue, match="a mixture of experts"):
            model.W_out

    # activation patching: the clean stream at every position entering the last block gives the clean logits, and
    # every head's clean z gives the clean attention output (the same arithmetic on the same inputs: equal)
    corrupted = tokens.clone()
    corrupted[0, 1] = int(tokens[0, 2])
    last = n_layers - 1
    patched = model.run_with_hooks(corrupted, fwd_hooks=[(f"blocks.{last}.hook_resid_pre",
                                                          lambda resid, hook: cache["resid_pre", last])])
    assert torch.equal(patched, logits) and not torch.equal(model(corrupted), logits)
    with model.hooks(fwd_hooks=[("blocks.0.attn.hook_z", lambda z, hook: cache["z", 0].clone())]):
        _, restored = model.run_with_cache(corrupted, names_filter="blocks.0.hook_attn_out")
    assert torch.equal(restored["attn_out", 0], cache["attn_out", 0])
    assert not torch.allclose(out["patched"], out["logits"])

    # the induction search reads attention patterns: each query's row is a distribution over the keys before it
    pattern = cache["pattern", 1]
    keys = pattern.shape[-1]
    assert torch.equal(pattern.triu(1), torch.zeros_like(pattern))
    assert ((pattern.sum(-1) - 1).abs() <= keys * EPS).all()
    assert out["induction"].shape == (1, n_heads)

    # the stream entering block 1, and the rest of the forward from it, are the whole run's
    resid = model(tokens, stop_at_layer=1)
    assert torch.equal(resid, cache["resid_pre", 1])
    assert torch.equal(model(resid, start_at_layer=1), out["logits"])


@pytest.mark.parametrize("family", TRANSFORMERLENS_LACKS)
def test_an_sae_runs_with_saelens_s_methods_where_transformerlens_does_not(family):
    """With its error term an SAE hands the model its input back (up to rounding: the clean logits); without it,
    the model reads the reconstruction; the cache holds the SAE's input (the stream) and its latents."""
    pytest.importorskip("sae_lens")
    from nnterp.transformerlens import HookedSAETransformer

    std = tiny.load(family, attn_implementation="eager")
    model = HookedSAETransformer(std)
    hook_name = "blocks.0.hook_resid_post"
    sae = _sae(std.hidden_size, hook_name)
    tokens = model.to_tokens(PROMPT)
    logits, clean = model.run_with_cache(tokens, names_filter=hook_name)
    rtol = tolerance(std.config)
    kept = model.run_with_saes(tokens, saes=[sae], use_error_term=True)
    assert (kept - logits).abs().max() <= rtol * max(logits.abs().max().item(), 1.0)
    assert not torch.allclose(model.run_with_saes(tokens, saes=[sae]), logits)
    _, cache = model.run_with_cache_with_saes(tokens, saes=[sae])
    assert torch.equal(cache[f"{hook_name}.hook_sae_input"], clean[hook_name])
    assert cache[f"{hook_name}.hook_sae_acts_post"].shape[-1] == sae.cfg.d_sae
    assert not model.acts_to_saes


def test_a_name_a_cache_lacks_is_a_key_error_that_says_why():
    """EXAONE 4's blocks norm each sublayer's output, not its input: no ln2 scale for apply_ln to divide by."""
    model = HookedTransformer(tiny.load("exaone4"))
    _, cache = model.run_with_cache(PROMPT)
    with pytest.raises(KeyError, match="blocks.1.ln2.hook_scale is not in this cache: .* no norm before the MLP"):
        cache.decompose_resid(layer=1, mlp_input=True, apply_ln=True)
    with pytest.raises(KeyError, match="set model.cfg.use_attn_result = True before the run"):
        cache["result", 0, "attn"]
    _, resid = model.run_with_cache(PROMPT, names_filter=lambda name: "resid" in name)
    with pytest.raises(KeyError, match="keep it in names_filter"):
        resid["z", 0]


@needs_transformer_lens
def test_a_cache_taken_with_hooks_on_a_parallel_block_reads_its_one_norm_once():
    """GPT-J's block runs one norm for both sublayers: ln1's and ln2's names are its one tensor, read once where the
    forward passes it, in a run with hooks as in TransformerLens's."""
    std, theirs, ours = _both("gptj", {"n_inner": None})
    tokens = ours.to_tokens(PROMPT)
    rtol = tolerance(std.config)

    def halve(resid, hook):
        return resid * 0.5

    names = lambda name: ".ln" in name or name.endswith("resid_post")
    with ours.hooks(fwd_hooks=[("blocks.0.hook_resid_post", halve)]):
        logits, cache = ours.run_with_cache(tokens, names_filter=names)
    with theirs.hooks(fwd_hooks=[("blocks.0.hook_resid_post", halve)]):
        their_logits, their_cache = theirs.run_with_cache(tokens, names_filter=names)
    assert _close(logits, their_logits, rtol) is None
    assert {f"blocks.1.ln{i}.hook_scale" for i in (1, 2)} <= set(cache.keys())
    for key in cache.keys():
        assert _close(cache[key], their_cache[key], rtol) is None, (key, _close(cache[key], their_cache[key], rtol))


def test_a_cache_is_transformerlens_s_cache_object(llama, prompt):
    model = HookedTransformer(llama)
    logits, cache = model.run_with_cache(prompt, names_filter=["blocks.0.hook_resid_post", "ln_final.hook_scale"])
    assert isinstance(cache, ActivationCache) and set(cache.keys()) == {"blocks.0.hook_resid_post",
                                                                        "ln_final.hook_scale"}
    assert cache["resid_post", 0] is cache[("resid_post", 0)] is cache["blocks.0.hook_resid_post"]
    _, plain = model.run_with_cache(prompt, names_filter="blocks.0.hook_resid_post", return_cache_object=False,
                                    remove_batch_dim=True)
    assert isinstance(plain, dict) and plain["blocks.0.hook_resid_post"].ndim == 2
    tokens = model.to_tokens(prompt)            # TransformerLens prepends BOS; the tokenizer alone does not here
    assert tokens[0, 0] == llama.tokenizer.bos_token_id and not torch.equal(tokens[0, 1:2], tokens[0, :1])
    with llama.trace(tokens):
        stream = llama.layers[0].layer_output.save()
    assert torch.equal(cache["resid_post", 0], stream)


@pytest.mark.parametrize("family", ["llama", "gpt2", "gpt_neox"])
def test_a_default_cache_holds_the_norms_scales_computed_when_read(family):
    model = HookedTransformer(tiny.load(family))
    tokens = torch.randint(10, 200, (2, 7), generator=torch.Generator().manual_seed(0))
    _, cache = model.run_with_cache(tokens)
    first = cache.apply_slice_to_batch_dim(0)   # a slice of the norms' inputs, the norms computed from them
    norms = [name for name in model.hook_names() if name.endswith(("hook_scale", "hook_normalized"))]
    assert {f"blocks.1.ln{i}.{hook}" for i in (1, 2) for hook in ("hook_scale", "hook_normalized")} < set(norms)
    assert "ln_final.hook_scale" in norms and "ln_final.hook_normalized" in norms
    # listed, and not held until read: the cache holds what a cache without them holds
    _, without = model.run_with_cache(tokens, names_filter=lambda name: name not in norms)
    assert set(cache.keys()) == set(without.keys()) | set(norms) and len(cache) == len(without) + len(norms)
    assert not set(norms) & set(cache.cache_dict) and cache.cache_dict.keys() == without.cache_dict.keys()
    # read, each is the tensor the run reads at the norm (a cache of the norms alone saves them in the run)
    _, saved = model.run_with_cache(tokens, names_filter=norms)
    assert set(saved.cache_dict) == set(norms)
    for name in norms:
        assert torch.equal(cache[name], saved[name]), name
    # and the norms' analyses run on a default cache, with the scale the forward divided by
    stack = cache.decompose_resid(layer=1, apply_ln=True)
    torch.testing.assert_close(stack.sum(0), cache["normalized", 1, "ln1"], rtol=0,
                               atol=1e-4 * max(cache["normalized", 1, "ln1"].abs().max().item(), 1.0))
    _, plain = model.run_with_cache(tokens, return_cache_object=False)
    assert list(plain) == list(cache.keys()) and all(torch.equal(plain[name], cache[name]) for name in norms)
    assert "blocks.1.ln2.hook_scale" not in first.cache_dict
    assert torch.equal(first["blocks.1.ln2.hook_scale"], saved["blocks.1.ln2.hook_scale"][0])


def test_hook_names_follow_the_config_s_flags_between_calls(llama, prompt):
    model = HookedTransformer(llama)
    seen = []

    def note(tensor, hook):
        seen.append(hook.name)

    every = (lambda name: name.endswith("hook_result"), note)
    model.run_with_hooks(prompt, fwd_hooks=[every])
    assert seen == [] and "blocks.0.attn.hook_result" not in model.hook_names()
    model.cfg.use_attn_result = True            # TransformerLens's switch: the names found before do not stay
    model.run_with_hooks(prompt, fwd_hooks=[every])
    assert seen == [f"blocks.{i}.attn.hook_result" for i in range(model.cfg.n_layers)]
    model.cfg.use_attn_result = False
    assert "blocks.0.attn.hook_result" not in model.hook_names()


def test_what_nnterp_cannot_do_is_refused_in_a_sentence(llama, prompt):
    model = HookedTransformer(llama)
    with pytest.raises(NnterpError, match="keeps no key-value cache"):
        model(prompt, past_kv_cache=object())
    with pytest.raises(NnterpError, match="pass it, not text or tokens"):
        model(prompt, start_at_layer=1)
    # TransformerLens's ln1 runs thrice and keeps the queries' gradient: another quantity, refused, naming the
    # gradients to read instead (each served)
    with pytest.raises(UnavailableValue, match=r"sees three gradients and a cache keeps the queries', .* hook blocks\.0\.hook_resid_pre "
                                               r"\(ln1's input, the three together\) or blocks\.0\.attn\.hook_q, hook_k"):
        with model.hooks(bwd_hooks=[("blocks.0.ln1.hook_scale", lambda g, hook: None)]):
            model(prompt, return_type="loss").backward()
    seen = []
    with model.hooks(bwd_hooks=[(f"blocks.0.{name}", lambda g, hook: seen.append(hook.name))
                                for name in ("hook_resid_pre", "attn.hook_q", "attn.hook_k", "attn.hook_v")]):
        model(prompt, return_type="loss").backward()
    assert sorted(seen) == ["blocks.0.attn.hook_k", "blocks.0.attn.hook_q", "blocks.0.attn.hook_v",
                            "blocks.0.hook_resid_pre"]
    with pytest.raises(NnterpError, match="nnterp never changes weights"):
        HookedTransformer.from_pretrained("gpt2", refactor_factored_attn_matrices=True)
    with pytest.raises(UnavailableValue, match="before its gain and bias"):  # hook_normalized has no write-back
        model.run_with_hooks(prompt, fwd_hooks=[("blocks.0.ln1.hook_normalized", lambda x, hook: x * 2)])


def test_a_cache_taken_with_hooks_holds_each_value_after_its_hooks(llama, prompt):
    model = HookedTransformer(llama)
    tokens = model.to_tokens(prompt)

    def double(resid, hook):
        return resid * 2

    with model.hooks(fwd_hooks=[("blocks.0.hook_resid_post", double)]):
        logits, cache = model.run_with_cache(tokens, names_filter=lambda name: "resid" in name)
    _, clean = model.run_with_cache(tokens, names_filter=lambda name: "resid" in name)
    assert torch.equal(cache["resid_post", 0], clean["resid_post", 0] * 2)    # cached after the hook
    assert torch.equal(cache["resid_pre", 1], cache["resid_post", 0])         # and the forward went on from it
    assert torch.equal(cache["resid_pre", 0], clean["resid_pre", 0])
    assert not model._hooks                                                    # the context removed it


def _sae(width, hook_name, seed=0):
    import sae_lens

    config = sae_lens.StandardSAEConfig(d_in=width, d_sae=4 * width, dtype="float32", device="cpu",
                                        reshape_activations="hook_z" if hook_name.endswith("hook_z") else "none")
    config.metadata.hook_name = hook_name
    sae = sae_lens.StandardSAE(config)
    with torch.no_grad():
        for parameter in sae.parameters():
            parameter.normal_(0, 0.1, generator=torch.Generator().manual_seed(seed))
    return sae


@needs_transformer_lens
@pytest.mark.parametrize("hook_name", ["blocks.0.hook_resid_post", "blocks.1.attn.hook_z"])
def test_saes_run_as_saelens_runs_them(hook_name):
    pytest.importorskip("sae_lens")
    from sae_lens import HookedSAETransformer as Original

    from nnterp.transformerlens import HookedSAETransformer

    label, family, overrides = ARCHITECTURES[0]   # GPT-2
    std, theirs, ours = _both(family, overrides, HookedSAETransformer, Original)
    width = std.hidden_size if "resid" in hook_name else std.num_heads * std.head_dim
    sae = _sae(width, hook_name)
    tokens = ours.to_tokens(PROMPT)
    rtol = tolerance(std.config)
    clean = ours(tokens)
    for error_term in (False, True):
        a = ours.run_with_saes(tokens, saes=[sae], use_error_term=error_term)
        b = theirs.run_with_saes(tokens, saes=[sae], use_error_term=error_term)
        assert (a - b).abs().max() <= rtol * max(b.abs().max().item(), 1.0), error_term
    assert not torch.allclose(a := ours.run_with_saes(tokens, saes=[sae]), clean)
    _, cache = ours.run_with_cache_with_saes(tokens, saes=[sae])
    _, their_cache = theirs.run_with_cache_with_saes(tokens, saes=[sae])
    for point in ("hook_sae_acts_post", "hook_sae_input", "hook_sae_recons"):
        key = f"{hook_name}.{point}"
        scale = their_cache[key].abs().max().item()
        assert (cache[key] - their_cache[key]).abs().max() <= rtol * max(scale, 1.0), key
    assert not ours.acts_to_saes    # reset at the end, as SAELens does

    def kill_latent(acts, hook):    # a hook on the SAE's own point edits its latents
        acts[..., 0] = 0
        return acts
    edited = ours.run_with_hooks_with_saes(tokens, saes=[sae], fwd_hooks=[(f"{hook_name}.hook_sae_acts_post",
                                                                            kill_latent)])
    their_edited = theirs.run_with_hooks_with_saes(tokens, saes=[sae], fwd_hooks=[(f"{hook_name}.hook_sae_acts_post",
                                                                                    kill_latent)])
    assert (edited - their_edited).abs().max() <= rtol * max(their_edited.abs().max().item(), 1.0)


def test_generate_follows_the_hooks_at_every_step(llama, prompt):
    model = HookedTransformer(llama)
    greedy = model.generate(prompt, max_new_tokens=4, do_sample=False, return_type="tokens")
    prompt_length = model.to_tokens(prompt).shape[1]
    assert greedy.shape[1] <= prompt_length + 4
    step = model(greedy[:, :prompt_length])[:, -1].argmax(-1)
    assert int(greedy[0, prompt_length]) == int(step[0])
    with model.hooks(fwd_hooks=[("blocks.1.hook_resid_post", lambda resid, hook: resid * 0)]):
        steered = model.generate(prompt, max_new_tokens=4, do_sample=False, return_type="tokens")
    assert not torch.equal(steered, greedy)
    assert isinstance(model.generate(prompt, max_new_tokens=2, do_sample=False), str)


@needs_transformer_lens
@pytest.mark.parametrize("label, family, overrides", ARCHITECTURES, ids=[a[0] for a in ARCHITECTURES])
def test_writes_under_transformerlens_names_equal_transformerlens_s_hooks(label, family, overrides):
    """The same hook function, on the same name, changes the logits as TransformerLens's does: a write under
    hook_q, hook_k, hook_v, hook_z, hook_pattern, hook_attn_scores, hook_resid_pre and hook_mlp_out."""
    std, theirs, ours = _both(family, overrides)
    tokens = ours.to_tokens(PROMPT)
    rtol = tolerance(std.config)

    def halve(tensor, hook):
        return tensor * 0.5

    def uniform_last_row(pattern, hook):
        pattern[:, :, -1, :] = 1.0 / pattern.shape[-1]
        return pattern

    hooks = {"blocks.1.attn.hook_q": halve, "blocks.1.attn.hook_k": halve, "blocks.1.attn.hook_v": halve,
             "blocks.0.attn.hook_z": halve, "blocks.1.attn.hook_pattern": uniform_last_row,
             "blocks.0.attn.hook_attn_scores": halve, "blocks.1.hook_resid_pre": halve, "blocks.0.hook_mlp_out": halve}
    clean = ours(tokens)
    for name, hook in hooks.items():
        if name not in ours.hook_names():   # refused here, with its reason (OPT's pre-scaled queries)
            with pytest.raises((KeyError, NnterpError)):
                ours.run_with_hooks(tokens, fwd_hooks=[(name, hook)])
            continue
        a = ours.run_with_hooks(tokens, fwd_hooks=[(name, hook)])
        b = theirs.run_with_hooks(tokens, fwd_hooks=[(name, hook)])
        assert (a - b).abs().max().item() <= rtol * max(b.abs().max().item(), 1.0), name
        assert not torch.allclose(a, clean), name


#: (family, overrides, the TransformerLens names of its queries, keys and values): every fused q/k/v layout nnterp
#: cuts; Falcon with ALiBi has no rotary, so its rotated queries and keys are the projection's; Persimmon's hook_q
#: and hook_k are after its q_layernorm and k_layernorm, so only its values are the projection's
FUSED = (
    ("gpt_neox", {}, "qkv"), ("bloom", {}, "qkv"), ("phi3", {}, "qkv"), ("codegen", {}, "qkv"), ("mpt", {}, "qkv"),
    ("dbrx", {}, "qkv"), ("gpt_bigcode", {}, "qkv"), ("gpt_bigcode", {"multi_query": False}, "qkv"),
    ("openai-gpt", {}, "qkv"), ("gpt_neox_japanese", {}, "qkv"), ("persimmon", {}, "v"),
    ("falcon", {"alibi": True}, "qkv"), ("falcon", {"alibi": True, "multi_query": False, "num_kv_heads": 4}, "qkv"),
    ("falcon", {"alibi": True, "new_decoder_architecture": True, "num_kv_heads": 2}, "qkv"),
)


@pytest.mark.parametrize("family, overrides, which", FUSED,
                         ids=[f"{f}-{'-'.join(f'{k}={v}' for k, v in o.items())}" for f, o, _ in FUSED])
def test_fused_projections_cut_into_the_heads_the_forward_uses(family, overrides, which):
    """W_Q, W_K, W_V cut from a fused projection: the attention's input times each, plus its bias, is the model's
    own queries, keys and values (grouped keys and values against _W_K and _W_V)."""
    from nnterp.runtime.status import status_of

    std = tiny.load(family, attn_implementation="eager", **overrides)
    model = HookedTransformer(std)
    tokens = model.to_tokens(PROMPT)
    pre_norm = status_of(std.layers[1], "attention_norm_output", std).available
    with std.trace(tokens):     # post-norm blocks (OpenAI GPT) give the attention the block's input
        attention_input = (std.layers[1].attention_norm_output if pre_norm else std.layers[1].layer_input).save()
    falcon = family == "falcon"
    hooks = {"q": "hook_rot_q" if falcon else "hook_q", "k": "hook_rot_k" if falcon else "hook_k", "v": "hook_v"}
    _, cache = model.run_with_cache(tokens, names_filter=[f"blocks.1.attn.{hooks[part]}" for part in which])
    d_model = std.hidden_size
    for part in which:
        name = "W_Q" if part == "q" else f"_W_{part.upper()}"
        weight, bias = getattr(model, name)[1], getattr(model, name.replace("W", "b"))[1]
        ours = torch.einsum("bpd,hde->bphe", attention_input, weight) + bias
        theirs = cache[f"blocks.1.attn.{hooks[part]}"]
        assert ours.shape == theirs.shape, part
        # one reduction over d_model, summed in another order than the model's own matmul
        assert (ours - theirs).abs().max() <= d_model * EPS * theirs.abs().max(), part
    W = model.W_Q
    assert W.shape == (std.num_layers, std.num_heads, d_model, std.qk_head_dim)


#: MLPs whose projections are fused (Phi-3's and GLM's gate_up_proj, ModernBERT's Wi: the activated half first) or
#: keep other names (Phi's fc1 and fc2, OPT's on its block, GPT-NeoX-Japanese's dense_h_to_4h, LFM2's w1, w3, w2)
MLPS = ("phi3", "glm", "modernbert-decoder", "phi", "opt", "gpt_neox_japanese", "lfm2", "gpt2", "llama")


@pytest.mark.parametrize("family", MLPS)
def test_w_in_w_gate_and_w_out_compute_the_mlp(family):
    """act(x W_gate) * (x W_in + b_in) @ W_out + b_out (act(x W_in + b_in) @ W_out + b_out ungated) is the MLP's
    output, with the model's own activation."""
    from transformers.activations import ACT2FN

    std = tiny.load(family, attn_implementation="eager")
    model = HookedTransformer(std)
    tokens = model.to_tokens(PROMPT)
    with std.trace(tokens):
        mlp_in = std.layers[0].mlp_input.save()
        mlp_out = std.layers[0].mlp.mlp_output.save()
    act = ACT2FN[model.cfg.act_fn or "silu"]   # LFM2's forward calls silu itself
    hidden = mlp_in @ model.W_in[0] + model.b_in[0]
    if model.cfg.gated_mlp:
        hidden = act(mlp_in @ model.W_gate[0]) * hidden
    else:
        hidden = act(hidden)
    ours = hidden @ model.W_out[0] + model.b_out[0]
    width = model.cfg.d_mlp
    assert (ours - mlp_out).abs().max() <= 2 * width * EPS * mlp_out.abs().max()


def test_qk_and_ov_without_transformerlens_name_its_install(llama, monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_transformer_lens(name, *args, **kwargs):
        if name.startswith("transformer_lens"):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_transformer_lens)
    model = HookedTransformer(llama)
    with pytest.raises(NnterpError, match="pip install transformer-lens"):
        model.OV


@needs_transformer_lens
@pytest.mark.parametrize("label, family, overrides", ARCHITECTURES, ids=[a[0] for a in ARCHITECTURES])
def test_start_and_stop_at_layer_are_transformerlens_s(label, family, overrides):
    """stop_at_layer returns the residual entering that block (no later hook runs); start_at_layer takes it as the
    input (no earlier hook runs), on the model call, run_with_hooks and run_with_cache alike."""
    std, theirs, ours = _both(family, overrides)
    tokens = ours.to_tokens(PROMPT)
    rtol = tolerance(std.config)

    def agree(a, b, what):  # -inf at the same entries (masked scores), the rest within rtol of the magnitude
        assert _close(a.detach(), b.detach(), rtol) is None, (what, _close(a.detach(), b.detach(), rtol))

    last = std.num_layers
    for stop in (0, 1, -1, last):
        agree(ours(tokens, stop_at_layer=stop), theirs(tokens, stop_at_layer=stop), f"stop_at_layer={stop}")
    residual = theirs(tokens, stop_at_layer=1)
    agree(ours(residual, start_at_layer=1), theirs(residual, start_at_layer=1), "start_at_layer=1")
    embedded = theirs(tokens, stop_at_layer=0)
    agree(ours(embedded, start_at_layer=0, stop_at_layer=1), residual, "start_at_layer=0, stop_at_layer=1")
    assert ours(residual, start_at_layer=1, stop_at_layer=1) is residual
    agree(ours(residual, start_at_layer=1, tokens=tokens, return_type="loss"),
          theirs(residual, start_at_layer=1, tokens=tokens, return_type="loss"), "loss from start_at_layer=1")

    ran = {"ours": [], "theirs": []}

    def hooks(who):
        def note(tensor, hook):
            ran[who].append(hook.name)
            return tensor * 0.5
        return [("blocks.0.hook_resid_post", note), ("blocks.1.hook_resid_pre", note), ("ln_final.hook_scale", note)]

    agree(ours.run_with_hooks(tokens, fwd_hooks=hooks("ours"), stop_at_layer=1),
          theirs.run_with_hooks(tokens, fwd_hooks=hooks("theirs"), stop_at_layer=1), "hooks, stop_at_layer=1")
    agree(ours.run_with_hooks(residual, fwd_hooks=hooks("ours"), start_at_layer=1),
          theirs.run_with_hooks(residual, fwd_hooks=hooks("theirs"), start_at_layer=1), "hooks, start_at_layer=1")
    assert ran["ours"] == ran["theirs"] == ["blocks.0.hook_resid_post", "blocks.1.hook_resid_pre",
                                            "ln_final.hook_scale"]

    # what nnterp refuses on a whole run (Gemma 2's post-norms, BLOOM's embedding norm, ...) it refuses here too
    refused = set(theirs.run_with_cache(tokens)[1].keys()) - set(ours.run_with_cache(tokens)[1].keys())
    for kwargs, given in (({"stop_at_layer": 1}, tokens), ({"start_at_layer": 1}, residual)):
        out, cache = ours.run_with_cache(given, **kwargs)
        their_out, their_cache = theirs.run_with_cache(given, **kwargs)
        agree(out, their_out, f"run_with_cache {kwargs}")
        assert set(cache.keys()) == set(their_cache.keys()) - refused, kwargs
        for key in cache.keys():
            agree(cache[key], their_cache[key], f"{key} {kwargs}")


@needs_transformer_lens
@pytest.mark.parametrize("label, family, overrides", ARCHITECTURES, ids=[a[0] for a in ARCHITECTURES])
def test_backward_hooks_and_incl_bwd_are_transformerlens_s(label, family, overrides):
    """A backward hook sees TransformerLens's gradient at its name, and what it returns replaces the gradient for
    what lies before; run_with_cache(incl_bwd=True) caches each name's gradient under name + "_grad"."""
    std, theirs, ours = _both(family, overrides)
    tokens = ours.to_tokens(PROMPT)
    rtol = tolerance(std.config)
    seen = {"ours": {}, "theirs": {}}

    def keep(who):
        def hook(gradient, hook):
            seen[who][hook.name] = gradient.detach().clone()
        return hook

    def halve(gradient, hook):
        return gradient * 0.5

    for who, model in (("ours", ours), ("theirs", theirs)):
        hooks = [("blocks.1.hook_mlp_out", halve), ("blocks.1.hook_resid_pre", keep(who)),
                 ("blocks.0.attn.hook_z", keep(who)), ("blocks.0.attn.hook_pattern", keep(who))]
        with model.hooks(bwd_hooks=hooks):
            model(tokens, return_type="loss").backward()
        # removed at the end of the run, yet the backward of its forward calls it, as TransformerLens's
        model.run_with_hooks(tokens, return_type="loss", bwd_hooks=[("blocks.0.hook_resid_post", keep(who))]
                             ).backward()
    assert not ours._hooks
    assert set(seen["ours"]) == set(seen["theirs"]) == {"blocks.1.hook_resid_pre", "blocks.0.attn.hook_z",
                                                       "blocks.0.attn.hook_pattern", "blocks.0.hook_resid_post"}
    for name, gradient in seen["theirs"].items():
        assert _close(seen["ours"][name], gradient, rtol) is None, (name, _close(seen["ours"][name], gradient, rtol))
    with ours.hooks(bwd_hooks=[("blocks.1.hook_resid_pre", keep("ours"))]):
        ours(tokens, return_type="loss").backward()
    assert not torch.allclose(seen["ours"]["blocks.1.hook_resid_pre"], seen["theirs"]["blocks.1.hook_resid_pre"])

    loss, cache = ours.run_with_cache(tokens, return_type="loss", incl_bwd=True)
    their_loss, their_cache = theirs.run_with_cache(tokens, return_type="loss", incl_bwd=True)
    assert _close(loss, their_loss, rtol) is None
    ours_grads = {key for key in cache.keys() if key.endswith("_grad")}
    theirs_grads = {key for key in their_cache.keys() if key.endswith("_grad")}
    assert ours_grads <= theirs_grads
    # left out: what nnterp refuses forward too (Gemma 2's post-norms, BLOOM's embedding norm, OPT's queries), what
    # cannot be written back (before a norm's gain, the learned positions), and ln1's, which TransformerLens runs
    # once per q, k and v input
    refused = {key for key in their_cache.keys() if not key.endswith("_grad")} - set(cache.keys())
    for key in theirs_grads - ours_grads:
        assert key[:-len("_grad")] in refused or key.endswith("hook_normalized_grad") or \
            key == "hook_pos_embed_grad" or ".ln1.hook_scale" in key, key
    for key in ours_grads:
        assert _close(cache[key], their_cache[key], rtol) is None, (key, _close(cache[key], their_cache[key], rtol))
    with pytest.raises(NnterpError, match="must be a scalar"):
        ours.run_with_cache(tokens, incl_bwd=True)
    with pytest.raises(NnterpError, match="gradients are off"), torch.no_grad():
        ours.run_with_cache(tokens, return_type="loss", incl_bwd=True)


@pytest.mark.parametrize("family, name, reason", [
    ("mamba", "W_Q", "no attention heads"), ("deepseek_v3", "W_Q", "latent attention"),
    ("gemma4_text", "W_O", "do not stack"), ("olmo_hybrid", "W_Q", "do not stack"),
    ("inkling2_text", "W_Q", "keeps no weight matrix"), ("mixtral", "W_in", "mixture of experts")])
def test_a_family_without_the_matrix_refuses_it_in_a_sentence(family, name, reason):
    model = HookedTransformer(tiny.load(family))
    with pytest.raises(UnavailableValue, match=reason):
        getattr(model, name)
