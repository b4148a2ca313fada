"""``build(out)``: the whole site, an index and a page per family, written to a folder."""

from __future__ import annotations

import json
import sys
import time
import traceback
import warnings
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

import nnsight
import torch
import transformers
from transformers.utils import logging as hf_logging

import nnterp

from nnterp.encyclopedia import render
from nnterp.encyclopedia.pages import Page, collect
from nnterp.encyclopedia.snippets import one_line
from nnterp.registry import every_family


def versions() -> dict[str, str]:
    return {"nnterp": nnterp.__version__, "transformers": transformers.__version__,
            "nnsight": nnsight.__version__, "torch": torch.__version__}


@dataclass
class Report:
    out: Path
    pages: list[Page] = field(default_factory=list)
    errors: dict[str, str] = field(default_factory=dict)   # family -> why its page was not built
    seconds: float = 0.0
    cpu_seconds: float = 0.0

    def failed_snippets(self) -> list[tuple[str, str, str]]:
        """(family, note title, error) of every snippet that ran and failed."""
        return [(page.name, note.title, code.result.error) for page in self.pages for note in page.notes
                for code in note.codes() if code.result is not None and not code.result.passed
                and not code.result.skipped]

    @property
    def ok(self) -> bool:
        return not self.errors and not self.failed_snippets() and not any(page.problems for page in self.pages)

    def summary(self) -> str:
        snippets = [code for page in self.pages for code in page.snippets()]
        passed = sum(1 for code in snippets if code.result is not None and code.result.passed)
        lines = [f"built {len(self.pages)} family pages and the index in {self.seconds:.1f} s into {self.out}; "
                 f"{passed} of {len(snippets)} snippets passed"]
        lines += [f"  page of {name} not built: {error}" for name, error in self.errors.items()]
        lines += [f"  page of {page.name}: {problem}" for page in self.pages for problem in page.problems]
        lines += [f"  snippet failed on {name} ({title}): {error}" for name, title, error in self.failed_snippets()]
        return "\n".join(lines)


def build(out, families=None, progress=None) -> Report:
    """Write ``index.html`` and ``<family>.html`` for every family (or those named) into ``out``."""
    start, cpu = time.perf_counter(), time.process_time()
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)

    every = every_family()  # a page per family and per wrapper
    chosen = every if families is None else {name: every[name] for name in families}
    report = Report(out)
    built = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    stamp = versions()
    checkpoints: dict = {}
    bars = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()
    threads, verbosity = torch.get_num_threads(), hf_logging.get_verbosity()
    torch.set_num_threads(1)  # tiny models: one thread is faster, and the build shares the machine
    hf_logging.set_verbosity_error()
    try:
        for name, family in chosen.items():
            began = time.perf_counter()
            try:
                with warnings.catch_warnings():  # a page lists its problems; the console stays readable
                    warnings.simplefilter("ignore")
                    page = collect(family, checkpoints)
            except Exception as error:  # one family's failure leaves the others' pages
                report.errors[name] = one_line(error)
                if progress:
                    progress(f"{name}: not built ({report.errors[name]})\n{traceback.format_exc()}")
                continue
            (out / f"{name}.html").write_text(render.family_page(page, stamp, built), encoding="utf-8")
            report.pages.append(page)
            if progress:
                counts = page.snippet_counts()
                progress(f"{name}: {counts['passed']}/{sum(counts.values())} snippets passed "
                         f"({time.perf_counter() - began:.1f} s)")
    finally:
        torch.set_num_threads(threads)
        hf_logging.set_verbosity(verbosity)
        if bars:
            hf_logging.enable_progress_bar()
    report.seconds = time.perf_counter() - start
    report.cpu_seconds = time.process_time() - cpu
    (out / "index.html").write_text(render.index_page(report.pages, stamp, built, report.seconds), encoding="utf-8")
    (out / "build.json").write_text(json.dumps(_record(report, stamp, built), indent=1), encoding="utf-8")
    return report


def _record(report: Report, stamp: dict, built: str) -> dict:
    """What the build measured, for CI and for anyone comparing builds."""
    return {
        "built": built, "versions": stamp, "seconds": round(report.seconds, 2),
        "cpu_seconds": round(report.cpu_seconds, 2), "pages": len(report.pages),
        "errors": report.errors,
        "families": {
            page.name: {
                "seconds": {k: round(v, 3) for k, v in page.seconds.items()},
                "values": page.rows.counts(), "snippets": page.snippet_counts(), "problems": page.problems,
                "depth": page.depth(), "kinds": page.kinds(),
                "claims": [{"path": list(c.path), "value": c.value, "repo": c.repo, "label": c.label}
                           for c in page.claims],
                "failed": [f"{note.title}: {code.result.error}" for note in page.notes for code in note.codes()
                           if code.result is not None and not code.result.passed],
            } for page in report.pages
        },
    }


def command(args) -> None:
    """``nnterp encyclopedia build``: build, print the summary, exit 1 if a page or snippet failed."""
    report = build(args.out, families=args.family or None, progress=None if args.quiet else print)
    print(report.summary())
    if not report.ok:
        sys.exit(1)
