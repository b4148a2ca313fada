"""The peers' virtual environments, each made once under benchmarks/.envs/.

Every environment gets the CPU wheel of torch first (a looser requirement would pull a CUDA
build), then the peer pinned to the same transformers as nnterp, so that only the library differs.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent
ENVS = ROOT / ".envs"

TORCH = "torch==2.13.0"
TRANSFORMERS = "transformers==5.24.0"

#: peer name -> what pip installs after torch
PEERS = {
    # nnterp 1.3.0 imports nnsight.intervention.tracing, which nnsight 0.8 removed
    "nnterp-1.3.0": ["nnterp==1.3.0", "nnsight==0.7.0", TRANSFORMERS],
    "transformerlens-4.3": ["transformer-lens==4.3.0", TRANSFORMERS],
}


def python_of(peer: str) -> Path:
    return ENVS / peer / "bin" / "python"


def ensure(peer: str, log=print) -> Path:
    """The peer's python, making its environment the first time."""
    python = python_of(peer)
    marker = ENVS / peer / ".complete"
    if marker.exists():
        return python
    log(f"making the environment of {peer} (once) ...")
    base = getattr(sys, "_base_executable", sys.executable)
    subprocess.run([base, "-m", "venv", "--clear", str(ENVS / peer)], check=True)
    pip = [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    subprocess.run([*pip, TORCH], check=True)
    subprocess.run([*pip, *PEERS[peer]], check=True)
    marker.write_text(json.dumps(versions(python)))
    return python


def versions(python: Path) -> dict:
    code = (
        "import importlib.metadata as m, json\n"
        "out = {}\n"
        "for name in ('torch', 'transformers', 'nnsight', 'nnterp', 'transformer-lens'):\n"
        "    try: out[name] = m.version(name)\n"
        "    except m.PackageNotFoundError: pass\n"
        "print(json.dumps(out))\n"
    )
    # -P: the working directory (a checkout of nnterp, say) must not shadow the installed packages
    result = subprocess.run([str(python), "-P", "-c", code], capture_output=True, text=True, check=True, cwd=ENVS)
    return json.loads(result.stdout)


if __name__ == "__main__":
    for name in sys.argv[1:] or PEERS:
        print(name, versions(ensure(name)))
