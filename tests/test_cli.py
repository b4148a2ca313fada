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

