import fcntl
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import browser as headless
import pytest
import torch
from encyclopedia_pages import ARTIFACTS, ROOT

from nnterp import tiny

PROMPT = "The Eiffel Tower is in the city of"
FAMILIES = ("llama", "phi", "gpt_neox_japanese")


@pytest.fixture(scope="session")
def prompt():
    return PROMPT


@pytest.fixture(scope="session")
def phi():
    return tiny.load("phi", attn_implementation="eager")


@pytest.fixture(scope="session")
def neox_jp():
    return tiny.load("gpt_neox_japanese")


@pytest.fixture(scope="session")
def llama():
    return tiny.load("llama", attn_implementation="eager")


@pytest.fixture(scope="session")
def llama_sdpa():
    return tiny.load("llama", attn_implementation="sdpa")


def snapshot(model):
    """Everything a trace must leave as it was: parameters, buffers and the module tree."""
    module = model._module
    return (
        {k: v.detach().clone() for k, v in module.state_dict(keep_vars=True).items()},
        [(name, type(m).__name__) for name, m in module.named_modules()],
    )


def assert_the_stream_passes_block_to_block(model, inputs):
    """Each block's layer_output is the next one's layer_input, the first's the token embeddings, and the contract
    holds with the residual identity on every block: model.layers in forward order, however the native modules
    interleave (IDEFICS's two module lists, Evolla's adapters inside their blocks). Returns what each block
    received and returned."""
    ins, outs = [], []  # made before the trace: nnsight keeps what the block saves into them
    with model.trace(inputs):
        embedded = model.token_embeddings.save()
        for layer in model.layers:
            ins.append(layer.layer_input.save())
            outs.append(layer.layer_output.save())
    assert torch.equal(ins[0], embedded)
    for i in range(model.num_layers - 1):
        assert torch.equal(outs[i], ins[i + 1]), f"layers[{i}].layer_output != layers[{i + 1}].layer_input"
    report = model.check(inputs, raise_on_failure=False)
    identities = {r.where for r in report.results if r.check.startswith("identity") and r.ok}
    assert report.ok and identities == {f"layers[{i}]" for i in range(model.num_layers)}, str(report)
    return ins, outs


def same_snapshot(a, b):
    return a[1] == b[1] and a[0].keys() == b[0].keys() and all(torch.equal(a[0][k], b[0][k]) for k in a[0])


# --------------------------------------------------------------------------- the encyclopedia
@pytest.fixture(scope="session")
def browser():
    """Headless Chromium, one for the session (tests/browser.py)."""
    yield from headless.launch()


@pytest.fixture(scope="session")
def site(tmp_path_factory) -> Path:
    """The whole site, built once per run with the CLI, as CI does (or one already built, named by
    NNTERP_ENCYCLOPEDIA_SITE, to iterate on the browser tests)."""
    prebuilt = os.environ.get("NNTERP_ENCYCLOPEDIA_SITE")
    if prebuilt and (Path(prebuilt) / "build.json").exists():
        return Path(prebuilt)
    base = tmp_path_factory.getbasetemp()
    root = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    folder = root / "encyclopedia-site"
    with open(root / "encyclopedia-site.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (folder / "build.json").exists():
            started = time.perf_counter()
            result = subprocess.run(
                [sys.executable, "-m", "nnterp.cli", "encyclopedia", "build", "--out", str(folder), "--quiet"],
                capture_output=True, text=True, cwd=ROOT, timeout=1800,
            )
            (folder / "build.log").write_text(result.stdout + result.stderr)
            assert (folder / "build.json").exists(), f"the build wrote no record:\n{result.stdout}\n{result.stderr}"
            record = json.loads((folder / "build.json").read_text())
            record["command_seconds"] = round(time.perf_counter() - started, 2)
            record["exit_status"] = result.returncode
            (folder / "build.json").write_text(json.dumps(record, indent=1))
            ARTIFACTS.mkdir(parents=True, exist_ok=True)
            shutil.copy(folder / "build.json", ARTIFACTS / "build.json")
    return folder


@pytest.fixture(scope="session")
def record(site) -> dict:
    return json.loads((site / "build.json").read_text())


# --------------------------------------------------------------------------- the pages, read as text
