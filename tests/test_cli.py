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
