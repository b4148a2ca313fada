"""Collecting values over a dataset, the pictures, and the toolkit's commands, on tiny models."""

import functools
import os

import pytest
import torch

from nnterp import tiny
from nnterp.cli import main
from nnterp.contract.numerics import assert_close, roundings
from nnterp.tools import (
    attention_html, attention_patterns, collect, direct_logit_attribution, first_position_sink, induction_ablation,
    induction_heads, logit_lens, patch_positions, plot_attention, save_attention,
)
from nnterp.tools._common import ToolError, encode

PROMPTS = ["The Eiffel Tower is in the city of", "Hello world", "def f(x):\n    return x + 1", "Rome", "東京は日本の首都です。"]


@functools.lru_cache(maxsize=None)
def load(family: str, attn_implementation: str | None = "eager"):
    return tiny.load(family, attn_implementation=attn_implementation)


def alone(model, prompt, names, **kwargs):
    return collect(model, [prompt], names, progress=False, **kwargs)


# --------------------------------------------------------------------------- collect
@pytest.mark.parametrize("family", ("llama", "phi", "gpt_neox_japanese"))
def test_a_padded_batch_collects_what_each_prompt_gives_alone(family):
    model = load(family)
    names = ["layer_output", "attention_probabilities", "mlp_neurons", "next_token_probs"]
    data = collect(model, PROMPTS, names, batch_size=3, progress=False)
    assert data["layer_output"].shape == (len(PROMPTS), model.num_layers, model.hidden_size)
    assert data["next_token_probs"].shape == (len(PROMPTS), model.vocab_size)
    for index, prompt in enumerate(PROMPTS):
        single = alone(model, prompt, names)
        for name in ("layer_output", "mlp_neurons", "next_token_probs"):  # another batch shape: other kernels
            assert_close(data[name][index], single[name][0], length=roundings(model))
        keys = single["attention_probabilities"].shape[-1]          # the pattern's keys, zeros on the left
        assert_close(data["attention_probabilities"][index, ..., -keys:], single["attention_probabilities"][0],
                     length=roundings(model))
        assert float(data["attention_probabilities"][index, ..., :-keys].abs().sum()) == 0


def test_positions_line_up_from_the_end_and_from_the_first_real_token():
    model = load("llama")
    data = collect(model, PROMPTS, ["layer_output"], positions=[0, -2, -1], layers=[1], batch_size=5, progress=False)
    every = collect(model, PROMPTS, ["layer_output"], positions="all", layers=[1], batch_size=5, progress=False)
    assert data["layer_output"].shape == (len(PROMPTS), 1, 3, model.hidden_size)
    for index, prompt in enumerate(PROMPTS):
        length = encode(model, prompt)["input_ids"].shape[1]
        rows = every["layer_output"][index]
        assert rows.shape == (1, length, model.hidden_size)                # padding removed
        torch.testing.assert_close(data["layer_output"][index, 0], rows[0, [0, length - 2, length - 1]])
        assert_close(rows, alone(model, prompt, ["layer_output"], positions="all", layers=[1])["layer_output"][0],
                     length=roundings(model, 2))


def test_collecting_to_disk_resumes_after_the_last_finished_batch(tmp_path):
    model = load("phi")
    first = collect(model, PROMPTS, ["mlp_output", "logits"], layers=[0], batch_size=2, path=tmp_path, progress=False)
    files = sorted(p.name for p in tmp_path.glob("batch_*.pt"))
    assert files == ["batch_000000.pt", "batch_000001.pt", "batch_000002.pt"]
    kept = (tmp_path / "batch_000000.pt").stat().st_mtime_ns
    (tmp_path / "batch_000002.pt").unlink()                                   # as if stopped before the last batch
    again = collect(model, PROMPTS, ["mlp_output", "logits"], layers=[0], batch_size=2, path=tmp_path, progress=False)
    assert (tmp_path / "batch_000000.pt").stat().st_mtime_ns == kept          # finished batches are not redone
    assert (tmp_path / "batch_000002.pt").exists()
    assert torch.equal(first["mlp_output"], again["mlp_output"])
    assert again["mlp_output"].shape == (len(PROMPTS), 1, model.hidden_size)
    assert again["logits"].shape == (len(PROMPTS), model.vocab_size)
    with pytest.raises(ToolError, match="other prompts or values"):
        collect(model, PROMPTS[:2], ["mlp_output"], path=tmp_path, progress=False)


def test_collect_reads_only_the_blocks_that_serve_a_value():
    model = load("recurrent_gemma")                      # recurrent, recurrent, attention
    data = collect(model, PROMPTS[:2], ["attention_probabilities", "layer_output"], progress=False)
    assert data.blocks == {"attention_probabilities": [2], "layer_output": [0, 1, 2]}
    assert data["attention_probabilities"].shape[:3] == (2, 1, model.num_heads)


# --------------------------------------------------------------------------- pictures
def _is_png(path):
    return path.exists() and path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and path.stat().st_size > 2000


def test_every_picture_is_written_by_one_call(tmp_path):
    model = load("llama")
    prompt = PROMPTS[0]
    ids = encode(model, prompt)["input_ids"]
    corrupt = ids.clone()
    corrupt[0, 1:4] = torch.tensor([5, 6, 7])
    logit_lens(model, prompt).plot(tmp_path / "lens.png")
    patch_positions(model, ids, corrupt, lambda logits: logits[:, 10] - logits[:, 11]).plot(tmp_path / "patch.png")
    direct_logit_attribution(model, prompt, 10).plot(tmp_path / "dla.png")
    plot_attention(model, prompt, 1, path=tmp_path / "heads.png", html=tmp_path / "heads.html")
    written = save_attention(model, prompt, tmp_path / "all")
    for name in ("lens.png", "patch.png", "dla.png", "heads.png", "all/attention_block00.png", "all/attention_block01.png"):
        assert _is_png(tmp_path / name), name
    assert [p.name for p in written][-1] == "attention.html"


def test_the_attention_page_is_self_contained_and_carries_the_patterns(tmp_path):
    model = load("gpt_neox_japanese")
    patterns, tokens = attention_patterns(model, PROMPTS[0])
    page = attention_html(patterns, tokens, tmp_path / "a.html").read_text()
    assert "http" not in page and "<script src" not in page
    assert '"Ġ' not in page and "Eiffel"[:2] in page
    assert page.count("[[") >= model.num_layers


# --------------------------------------------------------------------------- mechanisms on tiny models
def test_mechanisms_run_on_a_hybrid_model_and_mark_blocks_without_attention():
    model = load("recurrent_gemma")
    sink = first_position_sink(model)
    assert sink.norms.shape[0] == model.num_layers
    assert torch.isnan(sink.key0_share[0]).all() and not torch.isnan(sink.key0_share[2]).any()
    induction = induction_heads(model, length=6, batch=2)
    assert all(layer == 2 for layer, _, _ in induction.top(3))
    ablation = induction_ablation(model, induction, k=1, draws=1)
    assert ablation.random_heads[0][0][0] == 2


def test_mechanisms_refuse_a_model_without_attention_in_one_sentence():
    model = load("mamba", None)
    with pytest.raises(ToolError, match="no block of this model serves attention_probabilities: a Mamba mixer"):
        induction_heads(model)


# --------------------------------------------------------------------------- the commands
def test_the_commands_print_tables_and_write_plots(tmp_path, capsys):
    clean = "The Eiffel Tower is in the city of"
    corrupt = "The Eiffel Tower is in the city in"                  # the same length in the tiny tokenizer
    main(["lens", "llama", "--plot", str(tmp_path / "lens.png")])
    main(["patch", "phi", "--clean", clean, "--corrupt", corrupt, "--answer", " city", "--wrong", " is",
          "--plot", str(tmp_path / "patch.png")])
    main(["patch", "phi", "--clean", clean, "--corrupt", corrupt, "--answer", " city", "--wrong", " is", "--heads",
          "--attribution"])
    main(["heads", "gpt_neox_japanese", "--top", "2", "--attention", str(tmp_path / "heads")])
    main(["induction", "llama", "--length", "6", "--batch", "2", "--k", "1", "--draws", "1"])
    main(["sink", "phi", "--plot", str(tmp_path / "sink.png")])
    main(["attention", "llama", "--layers", "1", "--out", str(tmp_path / "attention")])
    out = capsys.readouterr().out
    for expected in ("logit lens at position -1", "activation patching of layer_output",
                     "attribution patching of attention_premix", "direct logit attribution", "induction heads on 2",
                     "top 1 induction heads removed", "first-position sink", "attention_block01.png"):
        assert expected in out, expected
    for name in ("lens.png", "patch.png", "sink.png", "heads/attention.html", "attention/attention.html"):
        assert (tmp_path / name).exists(), name
    assert any(name.endswith(".png") for name in os.listdir(tmp_path / "heads"))
