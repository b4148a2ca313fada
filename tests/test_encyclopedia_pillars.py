"""Two pillars every family page stands on: the checkpoints table, each cell read from the checkpoint's recorded
config.json through the family's accessors (never the config class's default), and the tokenizer, each fact from a
released tokenizer file with its source."""

from __future__ import annotations

import html
import json
import re

import pytest

from nnterp.declare.family import Checkpoint
from nnterp.encyclopedia.configs import sourced
from nnterp.encyclopedia.notes.derived.checkpoints import (
    COLUMNS, NOT_IN_FILE, NOT_RECORDED, NO_SOURCE, checkpoint_row, checkpoint_table,
)
from nnterp.encyclopedia.notes.derived.subject import _dig

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


def _class_default(family, key: str):
    """What the family's config class gives ``key`` when built with no arguments (its text config's)."""
    from nnterp.encyclopedia.configs import config_class

    try:
        return getattr(config_class(family)().get_text_config(), key, None)
    except Exception:
        return None


def _wrong_cells(family, checkpoint, cells) -> list:
    """What is wrong with one checkpoint's cells, ``cells`` as (keys read, given, text) in COLUMNS order: a key whose
    value is not the recorded one, a one-key column not showing its key's value, a cell shown whose key the recorded
    config lacks (the config class's default), an empty cell not saying why."""
    facts = checkpoint.config
    text_level = facts.get("text_config") if isinstance(facts.get("text_config"), dict) else facts
    wrong = []
    if facts and not sourced(checkpoint):  # no number of a record without its file: every cell says so
        return [(family.name, checkpoint.repo, column, text, "a number of a record without a source")
                for column, (keys, given, text) in zip(COLUMNS, cells) if given or text != NO_SOURCE]
    facts = checkpoint.released or facts  # the whole config.json where it is recorded: the cells read it
    text_level = facts.get("text_config") if isinstance(facts.get("text_config"), dict) else facts
    for column, (keys, given, text) in zip(COLUMNS, cells):
        where = (family.name, checkpoint.repo, column, text)
        for path, value in keys:
            if _dig(facts, tuple(path)) != value:
                wrong.append((*where, path, value, "not the recorded value"))
        if not given:
            if text not in (NOT_IN_FILE, NOT_RECORDED):
                wrong.append((*where, "an empty cell that does not say why"))
            continue
        if column in ONE_KEY:
            names = _names(family, ONE_KEY[column])
            if not names & set(text_level) and not names & set(facts):
                # derived from other keys of the file (LongCat's blocks are 2 * num_layers), never the default
                if not keys and text == str(_class_default(family, ONE_KEY[column])):
                    wrong.append((*where, "the config class's default, the file having no key for it"))
            elif text not in {str(level[n]) for level in (text_level, facts) for n in names if n in level} | {
                    str(value) for _, value in keys}:  # the family's accessor may read another key (output_vocab_size)
                wrong.append((*where, "not the value of its key in the file"))
        if column == "tied embeddings" and "tie_word_embeddings" not in text_level \
                and "tie_word_embeddings" not in facts:
            wrong.append((*where, "shown, but the file has no key for it"))
    return wrong


def test_no_cell_of_any_family_s_table_is_a_class_default():
    """Every family's table, as checkpoint_table makes it (the same cells the pages show): each cell is its recorded
    config's value, and a column whose key the recorded config lacks is empty."""
    from nnterp.registry import every_family

    wrong, shown = [], 0
    for family in every_family().values():
        for checkpoint, row in checkpoint_table(family):
            cells = [([[list(path), value] for path, value in cell.keys], cell.given, cell.text) for cell in row]
            shown += sum(cell.given for cell in row)
            wrong += _wrong_cells(family, checkpoint, cells)
    assert not wrong, wrong[:20]
    assert shown > 500, shown  # the recorded configs fill the tables


def test_every_page_has_the_checkpoints_table_and_each_cell_is_its_recorded_config(site, record):
    """Every page shows a row per named checkpoint, read back from the built page: each cell's keys are the recorded
    config's (path and value), a one-key column shows that key's value, and a column whose key the recorded config
    lacks is empty: no cell is the config class's default."""
    from nnterp.registry import every_family

    families = every_family()
    wrong = []
    for name in record["families"]:
        family = families[name]
        if not family.checkpoints:  # the page says the family module names none
            assert "The family module names no checkpoint." in (site / f"{name}.html").read_text(), name
            continue
        table = table_of(site, name)
        assert list(table) == [c.repo for c in family.checkpoints], name
        for checkpoint in family.checkpoints:
            wrong += _wrong_cells(family, checkpoint, table[checkpoint.repo])
    assert not wrong, wrong


def _cells(family_name: str, config: dict, partial: bool = False) -> dict[str, str]:
    from nnterp.registry import family_named

    row = checkpoint_row(family_named(family_name), Checkpoint("a/checkpoint", "A", config, partial=partial,
                                                               source="this test's own config"))
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


# --------------------------------------------------------------------------- the tokenizer
FACT_KEYS = {"tokenizer_class", "add_bos_token", "add_eos_token", "add_prefix_space", "bos_token", "eos_token",
             "pad_token", "unk_token", "bos_token_id", "eos_token_id", "pad_token_id", "unk_token_id", "tokens",
             "highest_added_id", "added_tokens", "encoded"}


def _tokenizer_files():
    from pathlib import Path

    import nnterp

    return sorted((Path(nnterp.__file__).parent / "families" / "tokenizers").glob("*.json"))


def test_every_recorded_tokenizer_fact_carries_its_source_and_names_a_checkpoint_of_its_family():
    """Each record names one of its family's checkpoints, the file read (a tokenizer_config.json copy or a GGUF's
    metadata) and where the copy is, and holds only the facts the pages read."""
    from nnterp.registry import every_family

    families = every_family()
    files = _tokenizer_files()
    assert files, "no tokenizer records"
    for path in files:
        family = families[path.stem]
        entries = json.loads(path.read_text())["tokenizers"]
        named = {c.repo for c in family.checkpoints}
        for entry in entries:
            assert entry["repo"] in named, (path.name, entry["repo"])
            assert set(entry) - {"repo"} and set(entry) <= {"repo", "file", "source", "facts", "bos_measured"}, entry
            if "facts" in entry:  # a released tokenizer file's facts, and where the copy read is
                assert entry["file"] in ("tokenizer_config.json", "gguf", "thread", "page", "test"), entry
                assert entry["source"] and (" copied in " in entry["source"] or ".gguf" in entry["source"]
                                            or re.search(r"[\w.-]+/[\w.-]+ (pull request|issue) #\d+",
                                                         entry["source"])
                                            or entry["file"] in ("page", "test")), entry
                assert entry["file"] != "test" or re.search(r"^huggingface/transformers tests/[\w/]+\.py ",
                                                            entry["source"]), entry  # the test file, named
                assert entry["file"] != "page" or "https://" in entry["source"], entry  # the page's address
                assert entry["facts"] and set(entry["facts"]) <= FACT_KEYS, set(entry["facts"]) - FACT_KEYS
                for name in ("bos", "eos", "pad", "unk"):  # an id is the id of the token the record names
                    assert f"{name}_token_id" not in entry["facts"] or entry["facts"].get(f"{name}_token"), entry
            if "bos_measured" in entry:  # what a missing BOS did, as a source measured it: its thread named
                measured = entry["bos_measured"]
                assert re.search(r"^[\w.-]+/[\w.-]+ (pull request|issue) #\d+", measured["source"]), measured
                assert measured["task"] and measured["without"], measured
                assert set(measured.get("with", {})) <= set(measured["without"]), measured


def test_the_assertions_of_a_recorded_tokenizer_fail_when_a_fact_is_changed():
    """The note's sentence and its snippet are made from the same facts: each fact changed, the snippet fails."""
    from nnterp.encyclopedia.notes.derived.tokenizer import recorded_lines, released_tokenizers
    from nnterp.registry import family_named

    family = family_named("mistral")
    entry = released_tokenizers(family)["mistralai/Mistral-7B-v0.1"]
    sentence, code = recorded_lines(family, "mistralai/Mistral-7B-v0.1", entry)
    assert "`add_bos_token` is true: `<s>` (1) opens every text" in sentence
    assert "janhvi2806/Lanchain_rag Mistral-7B-v0.1/tokenizer_config.json" in sentence
    config = {c.repo: c.config for c in family.checkpoints}

    def run(facts):
        scope = {"released_tokenizer": lambda repo: dict(facts), "released": lambda repo: config[repo]}
        exec("\n".join(code), scope)

    run(entry["facts"])
    stated = set(entry["facts"]) - {"add_prefix_space", "added_tokens"}  # the two the page does not state
    for fact, value in ((k, v) for k, v in entry["facts"].items() if k in stated):
        changed = {**entry["facts"], fact: "changed" if not isinstance(value, bool) else not value}
        with pytest.raises(AssertionError):
            run(changed)


def test_what_a_missing_bos_did_is_stated_and_asserted_from_one_record():
    """Gemma-7B's measured runs without and with a BOS: the heading, the sentence and the assertions are made from
    the recorded numbers, and each changed number fails the assertions."""
    from nnterp.encyclopedia.notes.derived.tokenizer import measured_lines, released_tokenizers
    from nnterp.registry import family_named

    family = family_named("gemma")
    entry = released_tokenizers(family)["google/gemma-7b"]
    heading, sentence, code = measured_lines(family, "google/gemma-7b", entry)
    assert heading == "Without a BOS, Gemma-7B's lambada_openai accuracy is 0.0037, against 0.6707 with one"
    assert "EleutherAI/lm-evaluation-harness pull request #1465" in sentence
    assert "acc 0.0037 and perplexity 5.91e+09" in sentence and "acc 0.6707 and perplexity 3.464 with one" in sentence

    def run(measured):
        exec("\n".join(code), {"released_tokenizer": lambda repo: {"bos_measured": measured}})

    run(entry["bos_measured"])
    for side in ("without", "with"):
        for name, value in entry["bos_measured"][side].items():
            changed = {**entry["bos_measured"], side: {**entry["bos_measured"][side], name: value * 2}}
            with pytest.raises(AssertionError):
                run(changed)


def _tokenizer_table_of(site, name: str) -> dict[str, list[str]]:
    page = (site / f"{name}.html").read_text()
    table = re.search(r'<table class="checkpoint-table tokenizer-table">(.*?)</table>', page, re.S)
    assert table, f"the {name} page has no tokenizer table"
    return {html.unescape(repo): [html.unescape(text) for text in re.findall(r"<td[^>]*>(.*?)</td>", cells)]
            for repo, cells in _ROW.findall(table.group(1))}


def test_every_page_has_the_tokenizer_table_and_the_recorded_facts_are_on_it(site, record):
    """Every page shows a tokenizer row per named checkpoint: the recorded facts where a file was read (the
    class, what it adds, the special tokens as the file names them), 'no file recorded' where none was; a page with
    derived notes says, in its tokenizer note, what the file says and where the copy is."""
    from nnterp.encyclopedia.notes.derived.tokenizer import NO_FILE, NOT_IN_FILE, TABLE, released_tokenizers
    from nnterp.registry import every_family

    families = every_family()
    with_data = 0
    for name, fam in record["families"].items():
        family = families[name]
        if not family.checkpoints:  # the page says the family module names none
            assert "The family module names no checkpoint." in (site / f"{name}.html").read_text(), name
            continue
        table = _tokenizer_table_of(site, name)
        recorded = released_tokenizers(family)
        for checkpoint in family.checkpoints:
            cells = dict(zip(TABLE, table[checkpoint.repo]))
            if "facts" not in recorded.get(checkpoint.repo, {}):
                assert set(cells.values()) == {NO_FILE}, (name, checkpoint.repo, cells)
                continue
            facts = recorded[checkpoint.repo]["facts"]
            assert cells["tokenizer class"] == facts.get("tokenizer_class", NOT_IN_FILE)
            for key, column in (("add_bos_token", "adds BOS"), ("add_eos_token", "adds EOS")):
                if key in facts:
                    assert cells[column] == str(facts[key]).lower(), (name, column)
                elif key == "add_bos_token" and "encoded" in facts:  # what a printed encoding shows put before
                    added = facts["encoded"]["added"]
                    assert cells[column].startswith(str(added) if added else "nothing"), (name, cells[column])
                else:
                    assert cells[column] == NOT_IN_FILE, (name, column)
            for special in ("bos", "eos", "pad", "unk"):
                shown = cells[special.upper() if special in ("bos", "eos") else special]
                if f"{special}_token" not in facts:
                    assert shown == NOT_IN_FILE
                elif facts[f"{special}_token"] is not None:
                    assert shown.startswith(facts[f"{special}_token"].replace("\n", "\\n").replace("\t", "\\t"))
        if recorded and fam["kinds"]["feature"] + fam["kinds"]["generic"]:  # a page with derived notes
            with_data += 1
            notes = (site / f"{name}.html").read_text()
            for entry in recorded.values():
                for source in (entry.get("source"), entry.get("bos_measured", {}).get("source")):
                    assert source is None or html.escape(source, quote=False) in notes, (name, source)
    assert with_data or not any(released_tokenizers(families[n]) for n in record["families"]), with_data
