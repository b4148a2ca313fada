"""The ``nnterp`` command.

``nnterp show FAMILY_OR_REPO`` prints the printout and the support table of a family (its tiny
model, offline) or a checkpoint; ``nnterp demo`` is the main job on the embedded real model;
``nnterp check FAMILY`` runs the conformance contract. Other areas of the package add their own
subcommands through a ``register(subparsers)`` function in the modules listed in ``AREAS``.

This module holds the arguments alone: a command names its handler as ``"module:function"``, imported when the
command runs, so that help and refusals answer before torch loads.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import sys
from pathlib import Path

from nnterp.declare.errors import NnterpError
from nnterp.hub import CommandRefused, refusal

#: Modules that add subcommands; a module not present is skipped.
AREAS = ("nnterp.encyclopedia.cli", "nnterp.tools.cli")

PROMPT = "The Eiffel Tower is in the city of"


def _area(name: str):
    """An area's command module, read from its file: its package's ``__init__`` (which imports torch) runs only when
    one of its commands does, so that help and refusals answer at once. None where the area is not installed."""
    if name in sys.modules:
        return sys.modules[name]
    package, _, leaf = name.rpartition(".")
    path = Path(__file__).resolve().parent.parent.joinpath(*package.split(".")[1:], f"{leaf}.py")
    if not path.exists():
        return None
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    module.__package__ = package  # its relative imports, at run time, import the package as usual
    spec.loader.exec_module(module)
    return module


def run(args) -> None:
    """Run the command's handler: a function, or ``"module:function"``, imported now."""
    handler = args.run
    if isinstance(handler, str):
        module, _, function = handler.partition(":")
        handler = getattr(importlib.import_module(module), function)
    handler(args)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(prog="nnterp", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    for name, helptext in (
        ("show", "print the printout and support table of a family or checkpoint"),
        ("check", "run the conformance contract on a family or checkpoint"),
        ("demo", "the main job on the embedded real model (offline)"),
    ):
        command = sub.add_parser(name, help=helptext)
        command.add_argument("model", nargs="?" if name == "demo" else None,
                             default="smollm2" if name == "demo" else None,
                             help="a family name (tiny model), 'smollm2', or a repo id or path")
        command.add_argument("--attn-implementation", default=None)
        if name == "demo":
            command.add_argument("--prompt", default=PROMPT)
            command.add_argument("--top", type=int, default=5)
        command.set_defaults(run=f"nnterp.cli.commands:{name}")
    command = sub.add_parser("table", help="write the families × values table")
    command.add_argument("--out", default="FAMILIES.md")
    command.set_defaults(run="nnterp.cli.table:command")
    command = sub.add_parser("catalogue", help="what the installed transformers adds or changes against the families")
    command.add_argument("--out", help="write the catalogue (markdown) here")
    command.add_argument("--write", action="store_true", help="rewrite the index and the recorded module trees")
    command.set_defaults(run="nnterp.cli.catalogue:command")
    for area in AREAS:
        module = _area(area)
        if module is not None:
            module.register(sub)
    args = parser.parse_args(argv)
    try:
        model = getattr(args, "model", None)
        why = refusal(model) if model is not None else None
        if why is not None:
            raise CommandRefused(why)  # before torch loads
        run(args)
    except CommandRefused as refused:
        print(f"nnterp {args.command}: {refused}", file=sys.stderr)
        sys.exit(2)
    except NnterpError as error:  # nnterp's errors are one sentence naming the fix: no traceback under them
        print(f"nnterp {args.command}: {error}", file=sys.stderr)
        sys.exit(1)
