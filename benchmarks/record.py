"""Keep the results of a run made on another machine, and rewrite BENCHMARKS.md with them.

    python -m benchmarks.record path/to/results.tgz cuda-h200

The archive is what benchmarks/gpu.sh leaves in $OUT; its JSON files go to
benchmarks/recorded/<name>/, which BENCHMARKS.md renders after the CPU results.
"""

from __future__ import annotations

import sys
import tarfile
from pathlib import Path

from benchmarks import report

HERE = Path(__file__).resolve().parent


def main() -> None:
    archive, name = Path(sys.argv[1]), sys.argv[2]
    target = HERE / "recorded" / name
    target.mkdir(parents=True, exist_ok=True)
    with tarfile.open(archive) as tar:
        for member in tar.getmembers():
            if member.isfile() and member.name.endswith((".json", ".failed")):
                member.name = Path(member.name).name
                tar.extract(member, target)
    report.write(HERE.parent / "BENCHMARKS.md", report.RECORDED / "cpu")
    print(f"kept {len(list(target.glob('*.json')))} files in {target}; rewrote BENCHMARKS.md")


if __name__ == "__main__":
    main()
