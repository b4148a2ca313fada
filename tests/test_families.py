"""The conformance contract on every family's tiny recipe and every structural variant, under each
load the family claims, and the committed families table is current."""

from pathlib import Path

import pytest

from nnterp.family import registry
from nnterp.table import load_row, render, rows

ROWS = list(rows())


@pytest.mark.parametrize("label,family,overrides", ROWS, ids=[r[0] for r in ROWS])
def test_contract(label, family, overrides):
    for load in registry()[family].loads:
        model = load_row(family, overrides, attn_implementation=load)
        report = model.check(raise_on_failure=False)
        assert report.ok, str(report)
    # the one block model: blocks without an attention or an MLP (Mamba, hybrids) are skipped, not refused
    assert model.instrument() is model
    assert model.find_nonfinite("The Eiffel Tower is in the city of") is None


def test_families_table_is_current():
    committed = Path(__file__).resolve().parent.parent / "FAMILIES.md"
    assert committed.read_text() == render(), "FAMILIES.md is stale: run `nnterp table --out FAMILIES.md`"
