"""Which module declares each family, the model types it serves and the first transformers release serving it.

The data is ``index.json`` beside this module, written by ``python -m nnterp.cli.catalogue --write`` (the test suite
checks it is current); it is read when this module is first imported, which ``family_for`` does when it first looks
a model type up (``import nnterp`` does not), and then it imports the one family module the model type needs.

The name rule: a family's module is its name (``nnterp/families/<name>.py``) and its one model type is its name,
unless its entry says otherwise, under "module" (gpt-sw3 is declared in gpt_sw3.py) or "model_types". "since" is
kept across rewrites: the first release whose classes exist and whose modeling the family's contract passes on (a
new family gets the release the index is written on).
"""

import json
from pathlib import Path

INDEX = Path(__file__).with_name("index.json")

_DATA = json.loads(INDEX.read_text(encoding="utf-8"))

#: family name -> the module under nnterp/families/ that declares it
MODULES = {name: entry.get("module", name) for name, entry in _DATA["families"].items()}

#: model type -> the family serving it
MODEL_TYPES = dict(sorted((model_type, name) for name, entry in _DATA["families"].items()
                          for model_type in entry.get("model_types", [name])))

#: family name -> the first transformers release serving it
SINCE = {name: entry["since"] for name, entry in _DATA["families"].items()}

#: the wrappers' names (nnterp/wrappers/): the command line tells a name from a typo without importing them
WRAPPERS = tuple(_DATA["wrappers"])
