"""Every code block of README.md and docs/*.md runs as written.

The python blocks of one page run in order in one namespace, as a reader runs them in a notebook; the
``nnterp ...`` lines of the bash blocks run the command line in this process (a synopsis line, with
``[...]`` options, is checked against the command's parser instead). Models are shared: the embedded
SmolLM2 and the tiny models load once per process. A hub repo id that a page loads
(``StandardizedTransformer("microsoft/phi-2", ...)``) is served offline, through the real hub-loading
path, from the tiny model of the family whose checkpoints name it. What is not run says why, below.
"""

from __future__ import annotations

import contextlib
import functools
import html.parser
import importlib.util
import io
import linecache
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

import pytest
import torch

ROOT = Path(__file__).resolve().parents[1]
PAGES = ["README.md", *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "docs").glob("*.md"))]

#: Blocks that do not run yet, by page and a piece of their code: each says why.
XFAIL: dict = {}

#: Blocks that do not run while their condition holds (then they run, and must pass).
SKIP: dict = {
    ("docs/toolkit.md", "import sae_lens"): (
        "SAELens is not installed: it is in the test extra (pip install -e '.[test]')",
        lambda: importlib.util.find_spec("sae_lens") is None),
    ("docs/toolkit.md", "from circuit_tracer"): (
        "circuit-tracer is not installed: it needs transformers <= 4.57.3, so it goes in with "
        "pip install --no-deps circuit-tracer==0.5.0", lambda: importlib.util.find_spec("circuit_tracer") is None),
}
#: Command lines that are not run, by their start: each says why.
LINES_NOT_RUN = {
    "make demo": "sets up .venv and converts the GGUF file: the environment this suite already runs in",
    "make test": "runs this test suite",
    "nnterp show org/name": "a placeholder repo id, and the hub is not reachable from the tests",
    ".venv/bin/nnterp induction": "about a minute on two shared cores; tests/test_tools_real.py checks the "
                                  "mechanism at a smaller size",
}
#: What a command's output must show: the numbers its line's comment gives.
OUTPUT = {
    "nnterp lens --target": [r"block  28: ' Paris' 0\.072", r"block  29: ' Paris' 0\.656"],
    "nnterp sink": [r"\n\s+11\s+22712\.\d\s+148\.\d"],
    "nnterp check gpt_neox_japanese": [r"(\d+)/\1 checks passed"],
    "nnterp demo": [r"' Paris'\s+0\.656"],
    "nnterp show phi": [r"model\.layers\[i\]\.self_attn PhiAttention"],
}


@dataclass(frozen=True)
class Block:
    page: str
    index: int
    language: str
    line: int
    code: str

    @property
    def id(self) -> str:
        return f"{self.page}:{self.line}"

    def mark(self, table: dict) -> str | None:
        """The reason ``table`` gives for this block, if it names the block (and its condition, if any, holds)."""
        for (page, piece), why in table.items():
            if page == self.page and piece in self.code:
                if isinstance(why, tuple):
                    why, holds = why
                    return why if holds() else None
                return why
        return None


FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.S | re.M)


@functools.lru_cache(maxsize=None)
def blocks_of(page: str) -> tuple[Block, ...]:
    text = (ROOT / page).read_text()
    return tuple(Block(page, i, m.group(1), text[:m.start()].count("\n") + 1, m.group(2))
                 for i, m in enumerate(FENCE.finditer(text)))


ALL = [block for page in PAGES for block in blocks_of(page)]
PYTHON = [block for block in ALL if block.language == "python"]
BASH = [block for block in ALL if block.language == "bash"]


def test_every_block_is_python_bash_or_text():
    assert [b.id for b in ALL if b.language not in ("python", "bash", "text")] == []


def test_every_mark_names_one_block():
    """A mark whose block was rewritten or removed would silently stop applying."""
    for table in (XFAIL, SKIP):
        for page, piece in table:
            if (ROOT / page).exists():
                assert len([b for b in blocks_of(page) if piece in b.code]) == 1, (page, piece)
    lines = [line.strip() for block in BASH for line in block.code.splitlines()]
    for start in LINES_NOT_RUN:
        assert any(line.startswith(start) for line in lines), start


# --------------------------------------------------------------------------- shared models, the hub served offline
def _hub_repos() -> set[str]:
    found = set()
    for block in PYTHON:
        found |= set(re.findall(r"StandardizedTransformer\(\s*[\"']([\w.-]+/[\w.-]+)[\"']", block.code))
    return found


def _serve_from_tiny(cache: Path, repo: str) -> None:
    """An offline hub cache entry for ``repo``: the tiny model of the family whose checkpoints name it,
    with enough blocks for the pages' indices."""
    from nnterp import tiny
    from nnterp.registry import registry

    family = next((name for name, fam in registry().items() if any(c.repo == repo for c in fam.checkpoints)), None)
    assert family is not None, f"{repo} is no family's checkpoint: a page loads a model the tests cannot serve"
    model, tokenizer = tiny.build(family, num_hidden_layers=4)
    entry = cache / f"models--{repo.replace('/', '--')}"
    commit = "0" * 40
    snapshot = entry / "snapshots" / commit
    model.save_pretrained(snapshot)
    tokenizer.save_pretrained(snapshot)
    (entry / "refs").mkdir(parents=True, exist_ok=True)
    (entry / "refs" / "main").write_text(commit)


@pytest.fixture(scope="module")
def pages_world(tmp_path_factory):
    """Shared models, hub repos served offline from tiny models, and a scratch folder to write pictures in."""
    import huggingface_hub.constants as hub
    from nnterp import registry as family
    from nnterp import real, tiny

    cache = tmp_path_factory.mktemp("hub")
    for repo in sorted(_hub_repos()):
        _serve_from_tiny(cache, repo)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(hub, "HF_HUB_CACHE", str(cache))
        patch.setattr(hub, "HF_HUB_OFFLINE", True)
        patch.setattr(real, "load", _shared(real.load))
        patch.setattr(tiny, "load", _shared(tiny.load))
        patch.chdir(tmp_path_factory.mktemp("pages"))
        before = set(family._REGISTERED)
        yield
        for name in set(family._REGISTERED) - before:  # a page's own family stays out of the other tests
            family.unregister(name)


def _shared(load):
    models = {}

    @functools.wraps(load)
    def shared(*args, **kwargs):
        key = (args, tuple(sorted(kwargs.items())))
        if key not in models:
            models[key] = load(*args, **kwargs)
        return models[key]

    return shared


# --------------------------------------------------------------------------- python blocks
_namespaces: dict[str, dict] = {}
_ran: dict[str, set[int]] = {}


def _execute(block: Block) -> None:
    namespace = _namespaces.setdefault(block.page, {"__name__": "__page__"})
    filename = str(ROOT / f"{block.page}:{block.line}")
    # nnsight reads a trace's body back from its source: register the block's, as a notebook cell does
    linecache.cache[filename] = (len(block.code), None, block.code.splitlines(True), filename)
    exec(compile(block.code, filename, "exec"), namespace)


def _run_in_order(block: Block) -> None:
    """Run the page's earlier blocks (once per process), then this one."""
    ran = _ran.setdefault(block.page, set())
    for earlier in PYTHON:
        if earlier.page != block.page or earlier.index >= block.index or earlier.index in ran:
            continue
        ran.add(earlier.index)
        if earlier.mark(SKIP):
            continue
        try:
            _execute(earlier)
        except Exception:
            if not earlier.mark(XFAIL):
                raise
    ran.add(block.index)
    _execute(block)


def _param(block: Block):
    marks = []
    if why := block.mark(XFAIL):
        marks.append(pytest.mark.xfail(strict=True, reason=why))
    if why := block.mark(SKIP):
        marks.append(pytest.mark.skip(reason=why))
    return pytest.param(block, id=block.id, marks=marks)


@pytest.mark.parametrize("block", [_param(b) for b in PYTHON])
def test_python_block_runs(block, pages_world):
    _run_in_order(block)
    for check in AFTER.get(block.id.split(":")[0], ()):
        check(block, _namespaces[block.page])


def _families_block_is_the_module(block, namespace):
    """The family the guide shows is the registered one, field by field."""
    from nnterp.families import _index
    from nnterp.registry import registry

    if "FAMILY" not in namespace or namespace["FAMILY"].name not in _index.MODULES:
        return  # a family of the reader's own, registered at run time, is the one the page shows

    shown, real = namespace["FAMILY"], registry()[namespace["FAMILY"].name]
    for field in ("name", "model_types", "summary", "tags", "tiny", "rename", "readout", "loads"):
        assert getattr(shown, field) == getattr(real, field), field
    assert not shown.checkpoints and real.checkpoints  # the module declares none: its data file names them
    assert list(shown.sites) == list(real.sites) and shown.description_changes() == real.description_changes()
    assert type(shown.block) is type(real.block) and (shown.block is None or shown.block.describe() == real.block.describe())


AFTER = {"docs/families.md": (_families_block_is_the_module,)}


# --------------------------------------------------------------------------- command lines
def _command_lines():
    for block in BASH:
        for raw in block.code.splitlines():
            line = raw.split(" #", 1)[0].strip()
            if line and not line.startswith("#"):
                yield pytest.param(block, line, id=f"{block.id}:{line.split('[', 1)[0].strip()}")


def _cli(argv) -> str:
    """What ``nnterp ARGV`` prints (``--help`` included, which exits)."""
    from nnterp import cli

    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.suppress(SystemExit):
        cli.main(argv)
    return out.getvalue()


@pytest.mark.parametrize("block,line", list(_command_lines()))
def test_command_line_runs(block, line, pages_world):
    reason = next((why for start, why in LINES_NOT_RUN.items() if line.startswith(start)), None)
    if reason:
        pytest.skip(reason)
    words = shlex.split(line)
    assert Path(words[0]).name == "nnterp", f"{line!r}: a page's command line is an nnterp command or says why not"
    if "[" in line:  # a synopsis: every option it shows is one the command takes
        shown = set(re.findall(r"--[\w-]+", line))
        assert shown and shown <= set(re.findall(r"--[\w-]+", _cli([words[1], "--help"]))), line
        return
    printed = _cli(words[1:])
    command = " ".join(["nnterp", *words[1:]])
    for start, patterns in OUTPUT.items():
        if command.startswith(start):
            for pattern in patterns:
                assert re.search(pattern, printed), f"{command}: {pattern!r} not in its output"


# --------------------------------------------------------------------------- tables that cannot drift
def test_readme_vocabulary_table_is_the_vocabulary():
    """The README's table is ``python -m nnterp.declare.vocabulary``'s output: a value added to the vocabulary is in it."""
    from nnterp.declare.vocabulary import ALL_VALUES, markdown_table

    text = (ROOT / "README.md").read_text()
    table = markdown_table()
    assert table in text, "README.md's vocabulary table is stale: paste `python -m nnterp.declare.vocabulary`'s output"
    assert all(f"`{spec.name}`" in table for spec in ALL_VALUES)


def test_the_counts_the_docs_state_are_the_code_s():
    """A count the README or the docs state (families, structural variants, wrapped image-text-to-text types) is
    the registry's or FAMILIES.md's now: adding a family or a wrapper without the prose fails here."""
    from nnterp.registry import registry

    families = registry()
    variants = sum(len(family.variants) for family in families.values())
    served = re.search(r"(\d+) of the (\d+) image-text-to-text model types", (ROOT / "FAMILIES.md").read_text())
    expected = {r"of the (\d+) families": len(families), r"all (\d+) decoder-only\s+families": len(families),
                r"the (\d+) structural config variants": variants,
                r"(\d+) of the \d+ image-text-to-text\s+model types": int(served.group(1)),
                r"\d+ of the (\d+) image-text-to-text\s+model types": int(served.group(2))}
    stated = []
    for page in PAGES:
        text = (ROOT / page).read_text()
        for pattern, count in expected.items():
            stated += [(page, match.group(0), int(match.group(1)), count) for match in re.finditer(pattern, text)]
    assert len({pattern for pattern in expected if any(re.search(pattern, (ROOT / page).read_text())
                                                       for page in PAGES)}) == len(expected), \
        "a count the docs stated is no longer found: the patterns no longer match their sentences"
    wrong = [(page, said, count) for page, said, number, count in stated if number != count]
    assert not wrong, wrong


# --------------------------------------------------------------------------- support() in a notebook
class _Cells(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.rows, self.captions, self._cell, self._in = [], [], None, None

    def handle_starttag(self, tag, attrs):
        if tag == "tr":
            self.rows.append([])
        elif tag in ("td", "caption"):
            self._in, self._cell = tag, []

    def handle_endtag(self, tag):
        if tag in ("td", "caption") and self._in == tag:
            text = "".join(self._cell)
            (self.rows[-1].append(text) if tag == "td" else self.captions.append(text))
            self._in = None

    def handle_data(self, data):
        if self._in:
            self._cell.append(data)


@pytest.mark.parametrize("family", ["phi", "mamba"])
def test_support_shows_itself_in_a_notebook(family):
    """``_repr_html_`` and ``_repr_markdown_`` hold every row: its name, layout, description, where it is
    read and its condition or reason, read back from the markup."""
    from nnterp import tiny

    rows = tiny.load(family).support()
    assert any(r.note for r in rows)
    parsed = _Cells()
    parsed.feed(rows._repr_html_())
    body = [cells for cells in parsed.rows if cells]
    assert len(body) == len(rows)
    for cells, row in zip(body, rows):
        note = rows._note(row)
        assert cells == [row.name, row.layout, row.description + note, row.read_at]
    assert parsed.captions == [f"{host} {host_rows[0].host_class}" for host, host_rows in rows.by_host().items()]

    markdown = rows._repr_markdown_()
    lines = [line for line in markdown.splitlines() if line.startswith("| `")]
    assert len(lines) == len(rows)
    for line, row in zip(lines, rows):
        cells = [c.strip().replace("\\|", "|").replace("\\\\", "\\") for c in re.split(r"(?<!\\)\|", line)[1:-1]]
        note = rows._note(row)
        assert cells == [f"`{row.name}`", row.layout, row.description + (f"<br>*{note}*" if note else ""), row.read_at]


def test_migrating_name_tables_are_the_names_module():
    """docs/migrating.md's name tables are generated from nnterp.compat.names (python -m nnterp.compat.names docs/migrating.md):
    a table edited by hand, or a name changed in the code and not in the page, fails here."""
    from nnterp.compat import names

    text = (ROOT / "docs" / "migrating.md").read_text()
    for section in ("transformerlens3", "transformerlens4", "nnterp1"):
        assert names.GENERATED.format(section=section) in text, section
    assert names.regenerate(text) == text, "run python -m nnterp.compat.names docs/migrating.md"
