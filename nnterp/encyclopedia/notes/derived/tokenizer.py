"""The tokenizer a family's checkpoints ship: whether it adds a BOS or an EOS, its special tokens, its vocabulary
against the embedding rows, each fact read from a released tokenizer file (``nnterp/families/tokenizers/<family>.json``,
with the repository and path of the copy read), and what the tiny model can prove of it."""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources

#: the folder of the tokenizers' recorded facts, one JSON file per family (named as the family)
TOKENIZER_DATA = "tokenizers"

#: The tokenizer files a record may be read from whole (a key they lack is one the checkpoint's file does not set);
#: a record of another kind ("thread": what a thread printed of the loaded tokenizer; "page": the part of a
#: tokenizer_config.json a stored web page shows; "test": what a transformers test asserts the checkpoint's tokenizer
#: encodes) says nothing of the keys it lacks.
FILES = ("tokenizer_config.json", "gguf")

#: The special tokens a record may name, in the order the page lists them.
SPECIALS = ("bos", "eos", "pad", "unk")


@lru_cache(maxsize=None)
def _records(name: str) -> tuple:
    found = resources.files("nnterp.families").joinpath(TOKENIZER_DATA, f"{name}.json")
    if not found.is_file():
        return ()
    return tuple(json.loads(found.read_text())["tokenizers"])


def released_tokenizers(family) -> dict[str, dict]:
    """repo -> its recorded tokenizer entry (``facts``, ``source``, ``file``), for the family's named checkpoints."""
    named = {checkpoint.repo for checkpoint in family.checkpoints}
    return {entry["repo"]: entry for entry in _records(family.name) if entry["repo"] in named}


def _file_name(entry: dict) -> str:
    return {"gguf": "its GGUF metadata", "thread": "its tokenizer as a thread printed it",
            "page": "the part of its tokenizer_config.json a web page shows",
            "test": "its tokenizer as a transformers test encodes it"}.get(entry["file"], entry["file"])


def _token(facts: dict, name: str) -> str | None:
    """'`<s>` (1)', '`<s>`', 'null' or None where the file does not name it."""
    key = f"{name}_token"
    if key not in facts:
        return None
    if facts[key] is None:
        return "null"
    token = facts[key].replace("\n", "\\n").replace("\t", "\\t")
    return f"`{token}`" + (f" ({facts[f'{name}_token_id']})" if f"{name}_token_id" in facts else "")


def _adds(facts: dict, entry: dict) -> str:
    """What the file says the tokenizer adds around a text."""
    said = []
    if "add_bos_token" in facts:
        bos = _token(facts, "bos") or "the BOS"
        said.append(f"`add_bos_token` is {str(facts['add_bos_token']).lower()}: "
                    + (f"{bos} opens every text" if facts["add_bos_token"] else "no BOS is added"))
    if "add_eos_token" in facts:
        eos = _token(facts, "eos") or "the EOS"
        said.append(f"`add_eos_token` is {str(facts['add_eos_token']).lower()}: "
                    + (f"{eos} closes every text" if facts["add_eos_token"] else "no EOS is added"))
    if "encoded" in facts:
        encoded = facts["encoded"]
        said.append(f"it encodes {encoded['text']!r} as {encoded['ids']} with `add_special_tokens=True`: "
                    + (f"{encoded['added']} put before the text" if encoded["added"] else "no special token added"))
    if not said and entry["file"] not in FILES:
        return "what the tokenizer adds is not in this record"
    if not said:
        return ("it sets no `add_bos_token` or `add_eos_token`: what the tokenizer adds is then its tokenizer.json's "
                "and its class's, which are not recorded here")
    if "add_eos_token" not in facts and entry["file"] in FILES:
        said.append("it sets no `add_eos_token`")
    return "; ".join(said)


def _vocabulary(facts: dict, rows, repo: str) -> str | None:
    """The tokenizer's size against the embedding rows config.json gives (None where the file says neither)."""
    if "tokens" in facts:
        if rows is None:
            return f"the tokenizer has {facts['tokens']:,} tokens; no `vocab_size` of `{repo}` is recorded here"
        if facts["tokens"] == rows:
            return f"its {facts['tokens']:,} tokens are the {rows:,} embedding rows of config.json, one row each"
        return (f"{facts['tokens']:,} tokens against {rows:,} embedding rows in config.json: "
                f"{rows - facts['tokens']:,} rows no text encodes")
    if "highest_added_id" in facts and rows is not None:
        return (f"the size of its vocabulary is not in the file (its added tokens name ids up to "
                f"{facts['highest_added_id']:,}); config.json gives {rows:,} embedding rows")
    return None


def _rows(family, repo: str):
    checkpoint = next((c for c in family.checkpoints if c.repo == repo), None)
    config = checkpoint.config if checkpoint is not None else {}
    text = config.get("text_config") if isinstance(config.get("text_config"), dict) else {}
    for level in (config, text):
        for key in ("vocab_size", "n_vocab", "padded_vocab_size"):
            if isinstance(level.get(key), int):
                return key, level[key]
    return None, None


def recorded_lines(family, repo: str, entry: dict) -> tuple[str, list[str]]:
    """The sentence a page says of one checkpoint's recorded tokenizer, and the snippet lines that assert it, both
    made from the same facts (so the assertion fails where the sentence is false)."""
    facts = entry["facts"]
    label = next(c.label for c in family.checkpoints if c.repo == repo)
    key, rows = _rows(family, repo)
    specials = [f"{name} {said}" for name in SPECIALS if (said := _token(facts, name)) is not None]
    said = [f"From {entry['source']}"]
    if "tokenizer_class" in facts:
        said.append(f"{label}'s tokenizer is `{facts['tokenizer_class']}`")
    said.append(_adds(facts, entry))
    if specials:
        said.append("its special tokens: " + ", ".join(specials))
    vocabulary = _vocabulary(facts, rows, repo)
    if vocabulary:
        said.append(vocabulary)
    sentence = f"{said[0]}: " + "; ".join(said[1:]) + "."
    code = [f"tok = released_tokenizer({repo!r})   # {_file_name(entry)}, as recorded with its source"]
    for fact in ("tokenizer_class", "add_bos_token", "add_eos_token", *(f"{n}_token" for n in SPECIALS),
                 *(f"{n}_token_id" for n in SPECIALS), "tokens", "highest_added_id", "encoded"):
        if fact in facts:
            code.append(f"assert tok[{fact!r}] == {facts[fact]!r}")
    for fact in ("add_bos_token", "add_eos_token"):
        if fact not in facts and entry["file"] in FILES:
            code.append(f"assert {fact!r} not in tok   # the file sets none")
    if rows is not None and ("tokens" in facts or "highest_added_id" in facts):
        code.append(f"assert released({repo!r})[{key!r}] == {rows!r}   # the embedding rows, from config.json")
    return sentence, code


#: The tokenizer table's columns, in order.
TABLE = ("tokenizer class", "adds BOS", "adds EOS", "BOS", "EOS", "pad", "unk", "tokens / embedding rows")

#: What a cell says where the recorded file does not give it, and where no file is recorded.
NOT_IN_FILE, NO_FILE = "not in the file", "no file recorded"


def _adds_bos(facts: dict):
    """Whether the record says a BOS is added: its add_bos_token, or what a printed encoding shows; None: unsaid."""
    if "add_bos_token" in facts:
        return facts["add_bos_token"]
    if "encoded" not in facts:
        return None
    added = facts["encoded"]["added"]
    if added and "bos_token_id" in facts and added != [facts["bos_token_id"]]:
        return None  # what it puts first is not its BOS (BioGPT's </s>): no heading may call it one
    return bool(added)


def _observed(facts: dict) -> str | None:
    """What an encoding a thread printed shows the tokenizer puts before a text (None where none is recorded)."""
    if "encoded" not in facts:
        return None
    added = facts["encoded"]["added"]
    return f"{added} (seen encoding {facts['encoded']['text']!r})" if added else \
        f"nothing (seen encoding {facts['encoded']['text']!r})"


def tokenizer_table(family) -> tuple[tuple, list]:
    """(columns, rows): per named checkpoint, (checkpoint, [(text, given), ...], source), each cell a recorded
    fact of its released tokenizer file, or said absent."""
    recorded = released_tokenizers(family)
    rows = []
    for checkpoint in family.checkpoints:
        entry = recorded.get(checkpoint.repo)
        if entry is None or "facts" not in entry:
            rows.append((checkpoint, [(NO_FILE, False)] * len(TABLE), "no tokenizer file recorded"))
            continue
        facts = entry["facts"]

        def cell(value):
            return (NOT_IN_FILE, False) if value is None else (str(value), True)

        _, embedding = _rows(family, checkpoint.repo)
        tokens = None
        if "tokens" in facts:
            tokens = f"{facts['tokens']:,} / {embedding:,}" if embedding else f"{facts['tokens']:,} / not recorded"
        cells = [cell(facts.get("tokenizer_class")),
                 cell(str(facts["add_bos_token"]).lower() if "add_bos_token" in facts else _observed(facts)),
                 cell(str(facts["add_eos_token"]).lower() if "add_eos_token" in facts else None),
                 *(cell(_token(facts, name) and _token(facts, name).replace("`", "")) for name in SPECIALS),
                 cell(tokens)]
        rows.append((checkpoint, cells, f"{_file_name(entry)}: {entry['source']}"))
    return TABLE, rows


def _number(value) -> str:
    return f"{value:.3g}" if isinstance(value, float) and (value >= 1e4 or value < 1e-2) else f"{value:g}"


def measured_lines(family, repo: str, entry: dict) -> tuple[str, str, list[str]]:
    """What a missing BOS did to one checkpoint, as a source measured it: (heading, sentence, snippet lines), all
    made from the recorded numbers."""
    measured = entry["bos_measured"]
    label = next(c.label for c in family.checkpoints if c.repo == repo)
    metric = "acc" if "acc" in measured["without"] else next(iter(measured["without"]))
    without = " and ".join(f"{name} {_number(value)}" for name, value in measured["without"].items())
    said = f"Measured in {measured['source']}, not here: without a BOS, {label} scores {without} on {measured['task']}"
    if "with" in measured:
        said += ", against " + " and ".join(f"{name} {_number(value)}" for name, value in measured["with"].items()) \
            + " with one"
    sentence = said + "."
    word = {"acc": "accuracy"}.get(metric, metric)
    task = measured["task"].split(" (")[0]
    heading = f"Without a BOS, {label}'s {task} {word} is {_number(measured['without'][metric])}" + (
        f", against {_number(measured['with'][metric])} with one" if "with" in measured else "")
    code = [f"run = released_tokenizer({repo!r})['bos_measured']   # {measured['task']}, as its source measured it"]
    for side in ("without", "with"):
        for name, value in measured.get(side, {}).items():
            code.append(f"assert run[{side!r}][{name!r}] == {value!r}")
    return heading, sentence, code


def tokenizer_note(subject) -> str | None:
    """What the family's released tokenizers add, their special tokens and their vocabulary against the embedding
    rows, from the recorded files, and what a missing BOS did where a source measured it; what no file is recorded
    for is said so; and, on the tiny model, that a trace of text is tokenized exactly as ``model.tokenizer`` does,
    so whatever the checkpoint's tokenizer adds is in it."""
    family = subject.family
    wrapper = getattr(family, "wrapper", None)
    if wrapper is not None and getattr(wrapper, "image_required", None):
        return None  # every call needs an image: no trace of text alone
    recorded = released_tokenizers(family)
    files = {repo: entry for repo, entry in recorded.items() if "facts" in entry}
    measured = {repo: entry for repo, entry in recorded.items() if "bos_measured" in entry}
    adds = [_adds_bos(entry["facts"]) for entry in files.values()]
    missing = [c for c in family.checkpoints if c.repo not in files]
    # a heading says of the family only what every named checkpoint's record says; else it names whose it is
    owner = "The tokenizer" if not missing else "The tokenizer of " + " and ".join(
        c.label for c in family.checkpoints if c.repo in files)
    if measured:
        heading = measured_lines(family, *next(iter(measured.items())))[0]
    elif adds and all(value is True for value in adds):
        bos = next(iter(files.values()))["facts"].get("bos_token")
        heading = f"{owner} puts `{bos}` before every text" if bos else f"{owner} adds a BOS"
    elif adds and all(value is False for value in adds):
        heading = f"{owner} adds no BOS"
    elif files:
        heading = "The tokenizer, from what is recorded of it"
    else:
        heading = "The tokenizer decides what a trace of text holds"
    text = [f"## {heading}", ""]
    codes = []
    for repo, entry in measured.items():
        _, sentence, code = measured_lines(family, repo, entry)
        text += [sentence, ""]
        codes += code
    for repo, entry in files.items():
        sentence, code = recorded_lines(family, repo, entry)
        text += [sentence, ""]
        codes += code
    if missing:
        names = ", ".join(f"`{c.repo}`" for c in missing)
        text += [f"No tokenizer file of {names} is recorded here, so this page says nothing of "
                 f"{'its' if len(missing) == 1 else 'their'} tokenizer files: what the tokenizer adds, its special "
                 "tokens and its vocabulary are not checked.", ""]
    if codes:
        text += ["```python", *codes, "```", ""]
    if measured:
        text += ["The tiny model shows only why a BOS can matter, not how much: every later position attends to "
                 "position 0, so the token there changes the prediction at the last position:", "",
                 "```python", "ids = model.tokenizer(prompt, return_tensors=\"pt\").input_ids",
                 "bos = torch.tensor([[model.tokenizer.bos_token_id]])",
                 "with model.trace(ids):", "    without = model.logits[0, -1].save()",
                 "with model.trace(torch.cat([bos, ids], dim=1)):", "    with_bos = model.logits[0, -1].save()", "",
                 "assert not torch.allclose(without, with_bos)   # position 0 is context for every later position",
                 "```", ""]
    text += ["A trace of text is tokenized by `model.tokenizer` and nothing else, so a BOS or EOS the checkpoint's "
             "tokenizer adds is in every trace of text, at position 0 for a BOS; a trace of token ids runs them as "
             "given, so ids built without the tokenizer's special tokens lack them. The logits have one entry per "
             "embedding row, `model.vocab_size`, however many of the rows are tokens. The tiny model's tokenizer is "
             "built locally (no checkpoint's) and adds no BOS:", "",
             "```python", "with model.trace(prompt):", "    ids = model.input_ids.save()",
             "    logits = model.logits.save()", "",
             "assert ids[0].tolist() == model.tokenizer(prompt).input_ids   # the trace's tokens are the tokenizer's",
             "assert logits.shape[-1] == model.vocab_size   # one logit per embedding row",
             "assert int(ids.max()) < len(model.tokenizer) <= model.vocab_size", "",
             "given = ids[:, 1:]   # token ids, the first one dropped",
             "with model.trace(given):", "    run = model.input_ids.save()", "",
             "assert torch.equal(run, given)   # ids are run as given: nothing is added to them", "```", ""]
    return "\n".join(text)
