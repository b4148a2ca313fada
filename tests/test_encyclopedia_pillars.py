"""Two pillars every family page stands on: the checkpoints table, each cell read from the checkpoint's recorded
config.json through the family's accessors (never the config class's default), and the tokenizer, each fact from a
released tokenizer file with its source."""

from __future__ import annotations

import html
import json
import re

import pytest

from nnterp.encyclopedia.notes.derived.checkpoints import COLUMNS, NOT_IN_FILE, NOT_RECORDED, checkpoint_row
from nnterp.encyclopedia.notes.derived.subject import _dig
from nnterp.family import Checkpoint

_ROW = re.compile(r'<tr data-repo="([^"]+)"><th[^>]*>.*?</th>(.*?)</tr>', re.S)
_CELL = re.compile(r'<td data-keys="([^"]*)"( class="absent")?>(.*?)</td>', re.S)


def table_of(site, name: str) -> dict[str, list[tuple[list, bool, str]]]:
    """The page's checkpoints table read back: repo -> its cells, (keys read, given, text), in COLUMNS order."""
    page = (site / f"{name}.html").read_text()
    table = re.search(r'<table class="checkpoint-table">(.*?)</table>', page, re.S)
    assert table, f"the {name} page has no checkpoints table"
    return {html.unescape(repo): [(json.loads(html.unescape(keys)), not absent, html.unescape(text))
                                  for keys, absent, text in _CELL.findall(cells)]
            for repo, cells in _ROW.findall(table.group(1))}


#: the columns one config key gives, and the key the config classes name it by
ONE_KEY = {"blocks": "num_hidden_layers", "hidden": "hidden_size", "vocabulary": "vocab_size",
           "context": "max_position_embeddings"}


def _names(family, key: str) -> set[str]:
    """The names a config.json may give ``key`` under, by the family's config class's attribute_map."""
    from nnterp.encyclopedia.configs import config_class

    mapped = getattr(config_class(family), "attribute_map", {}) or {}
    return {key, mapped.get(key, key), *(k for k, v in mapped.items() if v == key)}


def test_every_page_has_the_checkpoints_table_and_each_cell_is_its_recorded_config(site, record):
    """Every page shows a row per named checkpoint; each cell's keys are the recorded config's (path and value), a
    one-key column shows that key's value, and a column whose key the recorded config lacks is empty: no cell is the
    config class's default."""
    from nnterp.wrappers import every_family

    families = every_family()
    wrong = []
    for name in record["families"]:
        family = families[name]
        table = table_of(site, name)
        assert list(table) == [c.repo for c in family.checkpoints], name
        for checkpoint in family.checkpoints:
            facts = checkpoint.config
            text_level = facts.get("text_config") if isinstance(facts.get("text_config"), dict) else facts
            for column, (keys, given, text) in zip(COLUMNS, table[checkpoint.repo]):
                for path, value in keys:
                    if _dig(facts, tuple(path)) != value:
                        wrong.append((name, checkpoint.repo, column, path, value, "not the recorded value"))
                if not given:
                    assert text in (NOT_IN_FILE, NOT_RECORDED), (name, checkpoint.repo, column, text)
                    continue
                if column in ONE_KEY:
                    names = _names(family, ONE_KEY[column])
                    if not names & set(text_level) and not names & set(facts):
                        wrong.append((name, checkpoint.repo, column, text, "shown, but the file has no key for it"))
                    elif text not in {str(value) for _, value in keys}:
                        wrong.append((name, checkpoint.repo, column, text, keys, "not the value of its key"))
                if column == "tied embeddings" and "tie_word_embeddings" not in text_level \
                        and "tie_word_embeddings" not in facts:
                    wrong.append((name, checkpoint.repo, column, text, "shown, but the file has no key for it"))
    assert not wrong, wrong


def _cells(family_name: str, config: dict, partial: bool = False) -> dict[str, str]:
    from nnterp.family import family_named

    row = checkpoint_row(family_named(family_name), Checkpoint("a/checkpoint", "A", config, partial=partial))
    return {column: cell.text for column, cell in zip(COLUMNS, row)}


LLAMA = {"num_hidden_layers": 16, "hidden_size": 2048, "num_attention_heads": 32, "num_key_value_heads": 8,
         "head_dim": 64, "intermediate_size": 8192, "vocab_size": 128256, "max_position_embeddings": 131072,
         "tie_word_embeddings": True, "torch_dtype": "bfloat16"}


def test_a_cell_is_read_from_the_file_and_left_empty_where_the_file_lacks_its_key():
    """The same config with a key dropped: the cell it gives is empty, where the config class would fill in its
    default (LlamaConfig's max_position_embeddings 2048, tie_word_embeddings False, GemmaConfig's head_dim 256)."""
    cells = _cells("llama", LLAMA)
    assert cells == {"blocks": "16", "hidden": "2048", "heads × head_dim (query / key-value)": "32 × 64 / 8 × 64",
                     "intermediate": "8192", "vocabulary": "128256", "context": "131072",
                     "file dtype or format": "bfloat16", "tied embeddings": "tied"}
    for key, column in (("max_position_embeddings", "context"), ("tie_word_embeddings", "tied embeddings"),
                        ("torch_dtype", "file dtype or format"), ("num_hidden_layers", "blocks"),
                        ("intermediate_size", "intermediate")):
        dropped = _cells("llama", {k: v for k, v in LLAMA.items() if k != key})
        assert dropped[column] == NOT_IN_FILE, (key, dropped)
    assert _cells("llama", {k: v for k, v in LLAMA.items() if k != "max_position_embeddings"},
                  partial=True)["context"] == NOT_RECORDED
    # a head_dim the class derives (hidden_size / heads, a None default) is the file's; one it defaults is not
    derived = _cells("llama", {k: v for k, v in LLAMA.items() if k != "head_dim"})
    assert derived["heads × head_dim (query / key-value)"] == "32 × 64 / 8 × 64"
    gemma = {"num_hidden_layers": 18, "hidden_size": 2048, "num_attention_heads": 8, "num_key_value_heads": 1,
             "head_dim": 256, "intermediate_size": 16384, "vocab_size": 256000}
    assert _cells("gemma", gemma)["heads × head_dim (query / key-value)"] == "8 × 256 / 1 × 256"
    no_head_dim = _cells("gemma", {k: v for k, v in gemma.items() if k != "head_dim"})
    assert no_head_dim["heads × head_dim (query / key-value)"] == NOT_IN_FILE


def test_nested_keys_and_renamed_keys_are_read_through_the_family_accessors():
    """DBRX's key-value heads sit in attn_config (its accessor reads attn_config.kv_n_heads), GPT-2's width is
    n_embd (GPT2Config's attribute_map); a quantized file's format is its quantization_config's."""
    dbrx = {"n_layers": 40, "d_model": 6144, "n_heads": 48, "vocab_size": 100352, "max_seq_len": 32768,
            "attn_config": {"kv_n_heads": 8}, "ffn_config": {"ffn_hidden_size": 10752}}
    cells = _cells("dbrx", dbrx)
    assert cells["heads × head_dim (query / key-value)"] == "48 × 128 / 8 × 128"
    assert cells["intermediate"] == "10752"
    assert _cells("dbrx", {**dbrx, "attn_config": {}})["heads × head_dim (query / key-value)"] == NOT_IN_FILE
    gpt2 = _cells("gpt2", {"n_layer": 12, "n_embd": 768, "n_head": 12, "vocab_size": 50257, "n_positions": 1024,
                           "quantization_config": {"quant_method": "gptq", "bits": 4}})
    assert (gpt2["blocks"], gpt2["hidden"], gpt2["context"]) == ("12", "768", "1024")
    assert gpt2["file dtype or format"] == "gptq 4-bit"
