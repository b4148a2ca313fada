"""What the committed real-config run found (``nnterp/encyclopedia/realconfigs.json``, written by ``python -m
nnterp.encyclopedia.realconfigs``): each checkpoint's verdict, the page's sentence for it and FAMILIES.md's section.
The pages read the record here, apart from the run, which needs the whole library and runs as a command."""

from __future__ import annotations

import json
from pathlib import Path

#: The committed full run.
RESULTS = Path(__file__).with_name("realconfigs.json")


def load(path=RESULTS) -> dict | None:
    """The committed run's record, or None where there is none."""
    path = Path(path)
    return json.loads(path.read_text()) if path.exists() else None


_COMMITTED: dict = {}


def committed() -> dict | None:
    """The committed run's record (read once)."""
    if "record" not in _COMMITTED:
        _COMMITTED["record"] = load()
    return _COMMITTED["record"]


def verdict(family_name: str, repo: str, record=None) -> dict | None:
    """What the committed run found for one checkpoint: {"status", "dtypes", "blocks", "detail"}, status
    "checked" (passed in every dtype run), "failed" or "not checked"; None where the run has no line for it."""
    record = record if record is not None else committed()
    results = [r for r in (record or {}).get("results", []) if r["family"] == family_name and r["checkpoint"] == repo]
    if not results:
        return None
    dtypes = [r["dtype"] for r in results]
    failed = [r for r in results if r["status"] == "failed"]
    unchecked = [r for r in results if r["status"] == "not checked"]
    blocks = max((r.get("blocks") or 0 for r in results), default=0) or None
    if failed:
        return {"status": "failed", "dtypes": [r["dtype"] for r in failed], "blocks": blocks,
                "detail": failed[0]["failures"][0] if failed[0].get("failures") else ""}
    if unchecked:
        return {"status": "not checked", "dtypes": [r["dtype"] for r in unchecked], "blocks": blocks,
                "detail": unchecked[0]["reason"], "passed": [r["dtype"] for r in results if r["status"] == "passed"]}
    return {"status": "checked", "dtypes": dtypes, "blocks": blocks, "detail": "",
            "text_only": any(r.get("calls") == "text only" for r in results)}


def sentence(family_name: str, repo: str, record=None) -> str | None:
    """The page's words for one checkpoint's verdict in the committed run."""
    found = verdict(family_name, repo, record)
    if found is None:
        return None
    blocks = f"{found['blocks']} block{'s' if found['blocks'] != 1 else ''}" if found["blocks"] else None
    if found["status"] == "checked":
        calls = "; text-only calls, the vision tower built at its released width with one block" \
            if found.get("text_only") else ""
        return (f"checked from its real config in {' and '.join(found['dtypes'])} "
                f"({blocks} at the released width, random weights{calls})")
    if found["status"] == "failed":
        return f"fails the contract from its real config in {' and '.join(found['dtypes'])}: {found['detail']}"
    passed = found.get("passed")
    also = f"checked in {' and '.join(passed)} only; " if passed else ""
    return f"{also}not checked in {' and '.join(found['dtypes'])}: {found['detail']}"


def table_section(record=None) -> list[str]:
    """FAMILIES.md's section on the committed real-config run: the counts per dtype, the time, the command, and
    each checkpoint that failed or was not checked, with why."""
    record = record if record is not None else committed()
    if not record:
        return []
    results = record["results"]
    counts = record["summary"]
    dtypes = [key for key in counts if key != "all"]
    named = len({(r["family"], r["checkpoint"]) for r in results})
    early = sum(1 for r in results if r.get("blocks") and "least_blocks" not in r)
    older = f"; {early} builds, made before the least depth was lowered to one, have two blocks at least" if early else ""
    lines = ["", "## Real configs", "",
             f"Generated from `nnterp/encyclopedia/realconfigs.json`, the run of `{record['command']}` "
             f"({record['versions']}). Each of the {named} checkpoints the family modules name is built from its real "
             "config facts with random weights: widths, heads, rotary, windows and caps as released, the depth cut to "
             "the fewest blocks that hold one block of each layer type its pattern lists and the dense blocks before "
             "the first routed one (where those do not fit, one dense block stands for them; each line of the JSON "
             f"gives its `blocks`{older}), at most "
             f"{record['max_experts']} experts per block and {record['max_vocab']} vocabulary rows; then "
             "`model.check()` runs on it in each dtype. One build at a time, each in a `nice` subprocess under a "
             f"{record['memory_gb']:g} GB memory ceiling: a build whose weights cannot fit under it is not started, "
             "one that grows past it is stopped, and either is \"not checked\", never a pass. "
             f"The builds took {record['seconds']} s ({record['wall_seconds']} s of wall clock, the subprocesses' "
             "imports included) on 2 shared cores." + (f" {record['note']}" if record.get("note") else ""), "",
             "| dtype | passed | failed | not checked |", "|---|---|---|---|"]
    for key in [*dtypes, "all"]:
        c = counts[key]
        lines.append(f"| {'all builds' if key == 'all' else key} | {c['passed']} | {c['failed']} | {c['not checked']} |")
    both = sum(1 for f, repo in dict.fromkeys((r["family"], r["checkpoint"]) for r in results)
               if (verdict(f, repo, record) or {}).get("status") == "checked")
    lines += ["", f"{both} of the {named} named checkpoints pass in {' and '.join(dtypes)}.", ""]
    grouped: dict[tuple, dict[str, list[str]]] = {}
    for result in results:
        if result["status"] == "passed":
            continue
        why = result.get("reason") or "; ".join(result.get("failures", []))
        where = grouped.setdefault((result["status"], why), {})
        where.setdefault(f"{result['family']} `{result['checkpoint']}`", []).append(result["dtype"])
    for status in ("failed", "not checked"):
        for (kind, why), where in grouped.items():
            if kind == status:
                lines.append(f"- {status}: {why} ("
                             + ", ".join(f"{name} in {' and '.join(d)}" if d != dtypes else name
                                         for name, d in where.items()) + ")")
    return lines
