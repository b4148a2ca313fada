import os
import pytest
import subprocess
import sys


def run(*args):
    return subprocess.run([sys.executable, "-m", "nnterp.cli", *args], capture_output=True, text=True, timeout=300)


def test_show_a_family_offline():
    result = run("show", "phi")
    assert result.returncode == 0, result.stderr
    assert "(layer_mid): Unavailable: a parallel block" in result.stdout
    assert "model.layers[i].self_attn PhiAttention" in result.stdout


def test_check_a_family():
    result = run("check", "gpt_neox_japanese")
    assert result.returncode == 0 and "checks passed" in result.stdout


@pytest.mark.parametrize("argv, answer", [
    (["--help"], "show"),
    (["lens", "--help"], "--target"),
    (["shwo"], "invalid choice: 'shwo'"),
    (["show", "lalma"], "'lalma' is not a family (nearest: llama"),
    (["show", "gemma3x"], "nearest: gemma3"),
])
def test_help_and_typos_answer_without_torch(argv, answer):
    """Help, a mistyped command and a mistyped family are answered before torch, nnsight or transformers load."""
    code = ("import sys\nfrom nnterp.cli import main\ntry:\n    main(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
            "print('loaded:', sorted(m for m in ('torch', 'nnsight', 'transformers') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True, timeout=120)
    assert answer in done.stdout + done.stderr
    assert "loaded: []" in done.stdout



@pytest.mark.parametrize("command", ["check", "show", "lens", "induction"])
def test_an_unreachable_repo_id_is_one_line_before_torch(command):
    """Every command that takes a model refuses a repo id the hub cannot serve in one line, from the hub cache alone:
    before torch or a family module loads (`nnterp check org/name` imported all 148 families first, 7.9 s), and
    as `python -m nnterp.cli` runs it too (its refusal had been a traceback there)."""
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    code = ("import sys, runpy\nsys.argv = ['nnterp', *sys.argv[1:]]\ntry:\n    runpy.run_module('nnterp.cli', "
            "run_name='__main__')\nexcept SystemExit as exit:\n    print('exit:', exit.code)\n"
            "print('loaded:', sorted(m for m in ('torch', 'nnsight', 'transformers') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code, command, "org/name"], capture_output=True, text=True,
                          timeout=120, env=env)
    assert done.stderr.strip() == (f"nnterp {command}: 'org/name' is a hub repo id, HF_HUB_OFFLINE is set, and the "
                                   "repo is not in the local cache: name a family (nnterp show phi), 'smollm2', or a "
                                   "local directory")
    assert "exit: 2" in done.stdout and "loaded: []" in done.stdout


def test_a_tool_refusal_is_one_line():
    """A tool's refusal (an nnterp error) is printed as its sentence, as show's and check's are, not a traceback."""
    result = run("lens", "llama", "--target", " Paris is")
    assert result.returncode == 1
    assert result.stderr.startswith("nnterp lens: ' Paris is' is ") and "not one: pass a single token" in result.stderr
    assert "Traceback" not in result.stderr and len(result.stderr.strip().splitlines()) == 1
