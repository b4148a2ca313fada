"""The conformance contract, the cache and the logit lens on every family's moved recipe (``nnterp.tiny.moved``):
one block more than the tiny recipe, every per-block pattern moved. Prints one line per family, ok or failed
(why), and the counts.

    OMP_NUM_THREADS=1 nice python -m nnterp.cli.moved_sweep [FAMILY ...]
"""

from __future__ import annotations

import sys
import traceback

from nnterp import tiny
from nnterp.cli.table import moved_rows
from nnterp.registry import registry
from nnterp.tools._common import ToolError
from nnterp.tools.lens import logit_lens

PROMPT = "The Eiffel Tower is in the city of"


def check_moved(family: str, overrides: dict) -> None:
    """Raises AssertionError (or the error met) where the moved recipe breaks the contract, the cache or the lens."""

    for load in registry()[family].loads:
        model = tiny.load(family, attn_implementation=load, **overrides)
        report = model.check(raise_on_failure=False)
        assert report.ok, f"under {load}: {report}"
    cached = model.cache(PROMPT)
    assert len(cached) > 0, "the cache is empty"
    try:
        logit_lens(model, PROMPT)
    except ToolError as refusal:  # a refusal the family's own recipe meets too (no one stream) is the family's
        try:
            logit_lens(tiny.load(family), PROMPT)
        except ToolError as same:
            if str(same) == str(refusal):
                return
        raise


def main(argv: list[str]) -> int:

    counts = {"ok": 0, "failed": 0, "skipped": 0}
    for label, family, overrides, why in moved_rows(run=True, families=argv):
        if overrides is None:
            counts["skipped"] += 1
            print(f"{label}: skipped ({why})", flush=True)
            continue
        try:
            check_moved(family, overrides)
        except Exception as error:  # the sweep reports every family, whatever breaks
            counts["failed"] += 1
            where = traceback.extract_tb(error.__traceback__)[-1]
            text = " ".join(str(error).split())[:400]
            print(f"{label}: failed ({type(error).__name__}: {text} @ {where.filename}:{where.lineno})", flush=True)
        else:
            counts["ok"] += 1
            print(f"{label}: ok", flush=True)
    print(" ".join(f"{k} {v}" for k, v in counts.items()), flush=True)
    return 1 if counts["failed"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
