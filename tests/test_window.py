"""The window of transformers releases: the index family_for imports from is current, each family's first
release is honoured (a family of a later release is not registered and says which release brings it), and
building on a built model imports only the family module it needs."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

from nnterp import StandardizedTransformer, registry as families_module
from nnterp.declare.errors import UnknownArchitecture
from nnterp.families import _index
from nnterp.registry import TESTED_WINDOW, _scan, family_for, release, unavailable

ROOT = Path(__file__).resolve().parent.parent


def test_index_is_current():
    found = _scan()  # the modules this release can import: those of a later release are left out
    assert set(found) | set(unavailable()) == set(_index.MODULES) == set(_index.SINCE)
    stale = "nnterp/families/index.json is stale: run `python -m nnterp.cli.catalogue --write`"
    assert {n: m for n, m in _index.MODULES.items() if n in found} == {
        name: f.module.__name__.rsplit(".", 1)[-1] for name, f in found.items()}, stale
    assert {t: n for t, n in _index.MODEL_TYPES.items() if n in found} == {
        t: name for name, f in found.items() for t in f.model_types}, stale
    oldest, newest = map(release, TESTED_WINDOW)
    assert all(oldest <= release(since) <= newest for since in _index.SINCE.values())
    from nnterp.cli.catalogue import INDEX, index_text, wrapper_names

    assert list(_index.WRAPPERS) == wrapper_names(), stale
    # the file itself is what --write writes: a module or model type equal to the name is left out, as the rule says
    assert INDEX.read_text(encoding="utf-8") == index_text(found, release="not yet indexed"), stale


def test_pyproject_pins_the_window():
    text = (ROOT / "pyproject.toml").read_text()
    oldest, newest = TESTED_WINDOW
    after = f"{newest.split('.')[0]}.{int(newest.split('.')[1]) + 1}"
    assert f'"transformers>={oldest},<{after}"' in text


def test_construction_imports_one_family_module():
    code = (
        "import sys, nnterp\n"
        "assert not [m for m in sys.modules if m.startswith('nnterp.families.')], 'import nnterp imported families'\n"
        "from transformers import LlamaConfig, LlamaForCausalLM\n"
        "from nnterp.tiny import tokenizer\n"
        "config = LlamaConfig(hidden_size=32, num_hidden_layers=1, num_attention_heads=2, intermediate_size=64,"
        " vocab_size=300)\n"
        "model = nnterp.StandardizedTransformer(LlamaForCausalLM(config), tokenizer=tokenizer())\n"
        "print(sorted(m for m in sys.modules if m.startswith('nnterp.families.')))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-2000:]
    loaded = "['nnterp.families._declared', 'nnterp.families._index', 'nnterp.families.llama']"
    assert done.stdout.strip().splitlines()[-1] == loaded


@pytest.fixture
def on_release():
    """Pretend the installed transformers is another release (the caches built from it are cleared around)."""
    caches = (families_module.registry, families_module.family_named, families_module._scan)
    real = families_module._installed_release

    def pretend(version):
        families_module._installed_release = lambda: release(version)
        for cache in caches:
            cache.cache_clear()

    yield pretend
    families_module._installed_release = real
    for cache in caches:
        cache.cache_clear()


def test_family_of_a_later_release_is_not_registered_and_says_which(on_release):
    later = {name: since for name, since in _index.SINCE.items() if release(since) > release(TESTED_WINDOW[0])}
    assert later, "every family is served on the oldest release: nothing to check"
    name, since = sorted(later.items())[0]
    on_release(TESTED_WINDOW[0])
    assert name not in families_module.registry() and unavailable()[name] == since
    assert set(families_module.registry()) | set(unavailable()) == set(_index.MODULES)

    from transformers import AutoConfig

    model_type = next(t for t, n in _index.MODEL_TYPES.items() if n == name)
    with pytest.raises(UnknownArchitecture, match=re.escape(f"transformers {since} on")):
        family_for(AutoConfig.for_model(model_type) if model_type in _config_types() else _Config(model_type))

    from nnterp.cli import commands

    with pytest.raises(SystemExit, match=re.escape(f"pip install 'transformers>={since}'")):
        commands.load_model(name)


def test_every_family_is_served_on_its_first_release(on_release):
    for name, since in _index.SINCE.items():
        on_release(since)
        assert name in families_module.registry()


def test_catalogue_reports_no_gap_on_the_newest_release():
    from nnterp.cli import catalogue

    if release(catalogue.installed()) != release(TESTED_WINDOW[1]):
        pytest.skip("the module trees are recorded on the newest release of the window")
    report = catalogue.survey()
    assert catalogue.gaps(report) == 0, catalogue.render_report(report)
    assert len(report["rows"]) == len(catalogue.causal_lm_types())


def _config_types():
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING_NAMES

    return CONFIG_MAPPING_NAMES


class _Config:
    def __init__(self, model_type):
        self.model_type = model_type
        self.architectures = None


def test_a_release_above_the_window_is_warned_of_once(monkeypatch):
    """With pip's cap bypassed, a newer transformers runs, but the first model built says it is untested."""
    from nnterp import tiny

    hf, tok = tiny.build("llama")
    newest = release(TESTED_WINDOW[1])
    monkeypatch.setattr(families_module, "_installed_release", lambda: (newest[0], newest[1] + 1))
    families_module.warn_above_window.cache_clear()
    try:
        with pytest.warns(UserWarning) as warned:
            StandardizedTransformer(hf, tokenizer=tok)
            StandardizedTransformer(hf, tokenizer=tok)
        above = [str(w.message) for w in warned if "newer than the releases nnterp is tested on" in str(w.message)]
        assert len(above) == 1
        assert f"({TESTED_WINDOW[0]} to {TESTED_WINDOW[1]})" in above[0] and "FAMILIES.md" in above[0]
        monkeypatch.setattr(families_module, "_installed_release", lambda: newest)
        families_module.warn_above_window.cache_clear()
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("error", UserWarning)
            StandardizedTransformer(hf, tokenizer=tok)  # inside the window: silent
    finally:
        families_module.warn_above_window.cache_clear()
