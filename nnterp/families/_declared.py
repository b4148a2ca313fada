"""A family of the index as its module declares it: ``declared(name)`` imports that one module and gives its family
with the checkpoints its data file records."""

from __future__ import annotations

import importlib
from functools import lru_cache

import json
from importlib import resources

from nnterp.declare.family import Checkpoint, Family, merged_checkpoints
from nnterp.families import _index


#: the folder of the checkpoints' config facts, one JSON file per family module
CHECKPOINT_DATA = "checkpoints"


def checkpoint_data(module_name: str) -> tuple[Checkpoint, ...]:
    """The checkpoints the family module's data file records, in its order (none where it has no file)."""
    found = resources.files("nnterp.families").joinpath(CHECKPOINT_DATA, f"{module_name}.json")
    if not found.is_file():
        return ()
    entries = json.loads(found.read_text())["checkpoints"]
    return tuple(Checkpoint(e["repo"], e["label"], e.get("config") or {}, e.get("not_buildable"), e.get("source"),
                            bool(e.get("partial")), e.get("released"), e.get("not_found")) for e in entries)


def with_checkpoints(family: Family, module, module_name: str) -> Family:
    """The family with its module and its checkpoints, the data file's merged with those it declares (idempotent:
    the module may be met by both the index and a scan of the folder)."""
    family.module = module
    family.checkpoints = merged_checkpoints(checkpoint_data(module_name), family.checkpoints)
    return family


def load(module_name: str) -> Family:
    """The family a module of this folder declares."""
    module = importlib.import_module(f"nnterp.families.{module_name}")
    return with_checkpoints(module.FAMILY, module, module_name)


@lru_cache(maxsize=None)
def declared(name: str) -> Family:
    """A family of the index as its module declares it, whether or not the installed transformers serves it (a
    wrapper's recipe borrows its text family's, and is declared on every release)."""
    return load(_index.MODULES[name])
