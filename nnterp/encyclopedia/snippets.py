"""Running the notes' snippets while the site is built, so that every page shows which ran and passed.

nnsight reads a trace's ``with`` block back from its source file, so each snippet is registered in
``linecache`` under a name of its own before it runs. A snippet sees ``model``, ``prompt``, ``torch``,
``nnterp``, ``released(repo)`` (a checkpoint's recorded config.json facts), ``released_tokenizer(repo)`` (its recorded
tokenizer facts) and ``StandardizedTransformer``; the last one loads the family's checkpoints (which cannot
be fetched here) from a tiny model of the family saved to a local folder, through the real loading path.
"""

from __future__ import annotations

import contextlib
import io
import linecache
import tempfile
import time
import traceback
import warnings
from dataclasses import dataclass
from pathlib import Path

import torch

import nnterp
from nnterp import tiny
from nnterp.encyclopedia.notes.derived.tokenizer import released_tokenizers

PROMPT = "The Eiffel Tower is in the city of"


def one_line(error: BaseException) -> str:
    """'TypeName: the first line of the message', for a page or a summary."""
    message = str(error).strip().splitlines()[0] if str(error).strip() else ""
    return f"{type(error).__name__}: {message}" if message else type(error).__name__


@dataclass
class Result:
    passed: bool
    where: str          # what it ran on, in words
    seconds: float
    error: str = ""     # one line: the exception and its message
    line: int | None = None  # the snippet's line the error was raised at
    skipped: bool = False    # not run: what it needs is not available here (error says what)


class Runner:
    """Runs one family's snippets: on its tiny model, or on its real checkpoint where one is available."""

    def __init__(self, family, load: str | None, workdir: Path):
        self.family = family
        self.load = load
        self.workdir = workdir
        self._tiny = None
        self._checkpoint_folder = None
        self.count = 0

    @property
    def where(self) -> str:
        load = f", attn_implementation={self.load!r}" if self.load else ""
        return f"the tiny {self.family.name} model{load}"

    def tiny_model(self):
        if self._tiny is None:
            self._tiny = tiny.load(self.family.name, attn_implementation=self.load)
        return self._tiny

    def _local_checkpoint(self) -> str:
        """A tiny model of the family saved as a checkpoint folder, standing in for the real ones."""
        if self._checkpoint_folder is None:
            hf, tok = tiny.build(self.family.name)
            folder = self.workdir / f"{self.family.name}-checkpoint"
            hf.save_pretrained(folder)
            tok.save_pretrained(folder)
            self._checkpoint_folder = str(folder)
        return self._checkpoint_folder

    def namespace(self, model) -> dict:
        repos = {checkpoint.repo for checkpoint in self.family.checkpoints}
        local = self._local_checkpoint

        def StandardizedTransformer(source, *args, **kwargs):  # noqa: N802 - the name the snippet uses
            return nnterp.StandardizedTransformer(local() if source in repos else source, *args, **kwargs)

        recorded = {checkpoint.repo: checkpoint for checkpoint in self.family.checkpoints if checkpoint.config}

        def released(repo: str) -> dict:
            """The config.json facts recorded for one of the family's checkpoints, as released (a copy)."""
            if repo not in recorded:
                raise KeyError(f"{self.family.name} records no config facts for {repo}; add them, with their source")
            return recorded[repo].facts()

        tokenizers = released_tokenizers(self.family)

        def released_tokenizer(repo: str) -> dict:
            """The tokenizer facts recorded for one of the family's checkpoints, from a released tokenizer file, and
            under "bos_measured" what a missing BOS did to it where a source measured it."""
            if repo not in tokenizers:
                raise KeyError(f"{self.family.name} records no tokenizer facts for {repo}; add them to "
                               f"nnterp/families/tokenizers/{self.family.name}.json, with their source")
            entry = tokenizers[repo]
            measured = {"bos_measured": entry["bos_measured"]} if "bos_measured" in entry else {}
            return {**entry.get("facts", {}), **measured}

        return {"model": model, "prompt": self.prompt(), "torch": torch, "nnterp": nnterp,
                "StandardizedTransformer": StandardizedTransformer, "released": released,
                "released_tokenizer": released_tokenizer}

    def prompt(self):
        """The snippets' call: the text, or where every call needs an image (BLIP-2) the tiny image call."""
        if getattr(getattr(self.family, "wrapper", None), "image_required", None):
            return tiny.image_call(self.family.name)
        return PROMPT

    def run(self, source: str, model, where: str, namespace: dict | None = None) -> tuple[Result, dict]:
        """Run one snippet; returns its result and the names it left behind."""
        self.count += 1
        filename = f"<nnterp-encyclopedia {self.family.name} snippet {self.count}>"
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        scope = {**self.namespace(model), **(namespace or {})}
        start = time.perf_counter()
        try:
            code = compile(source, filename, "exec")
            with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
                warnings.simplefilter("ignore")
                exec(code, scope)
        except Exception as error:  # a failed snippet is reported on its page, not raised
            line = next((frame.lineno for frame in reversed(traceback.extract_tb(error.__traceback__))
                         if frame.filename == filename), None)
            return Result(False, where, time.perf_counter() - start, one_line(error), line), scope
        return Result(True, where, time.perf_counter() - start), scope


@contextlib.contextmanager
def runner(family, load: str | None):
    with tempfile.TemporaryDirectory(prefix=f"nnterp-{family.name}-") as folder:
        yield Runner(family, load, Path(folder))
