"""The ``nnterp`` command.

``nnterp show FAMILY_OR_REPO`` prints the printout and the support table of a family (its tiny
model, offline) or a checkpoint; ``nnterp demo`` is the main job on the embedded real model;
``nnterp check FAMILY`` runs the conformance contract. Other areas of the package add their own
subcommands through a ``register(subparsers)`` function in the modules listed in ``AREAS``.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
from pathlib import Path
import sys

#: Modules that add subcommands; a module not present is skipped.
AREAS = ("nnterp.encyclopedia.cli", "nnterp.tools.cli", "nnterp.table", "nnterp.catalogue")

PROMPT = "The Eiffel Tower is in the city of"


def load_model(name: str, attn_implementation: str | None = None):
    """A family name (its tiny model), ``smollm2`` (the embedded real model), or a repo id or path."""
    if not os.path.exists(name) and "/" not in name and not _known(name):
        raise CommandRefused(_not_a_family(name))  # answered from the index, before torch loads
    from .family import not_served, registry, unavailable

    if name in unavailable():
        sys.exit(f"nnterp: {not_served(name)}")
    if name in REAL_NAMES:
        from . import real

        return real.load(attn_implementation=attn_implementation)
    from .wrappers import wrapper_registry

    if name in registry() or name in wrapper_registry():  # a family or a wrapper (gemma3): its tiny model
        from . import tiny

        return tiny.load(name, attn_implementation=attn_implementation)
    if not os.path.exists(name):
        if "/" not in name:
            raise CommandRefused(_not_a_family(name))
        from .hub import unreachable_reason

        if unreachable_reason(name) is not None:
            raise CommandRefused(
                f"{name!r} is a hub repo id, and the Hugging Face hub cannot be reached from here (nor is the repo "
                f"in the local cache): name a family (nnterp show phi), 'smollm2', or a local directory")
    from .model import StandardizedTransformer

    return StandardizedTransformer(name, dispatch=True, attn_implementation=attn_implementation)


def _area(name: str):
    """An area's command module, read from its file: its package's ``__init__`` (which imports torch) runs only when
    one of its commands does, so that help and refusals answer at once. None where the area is not installed."""
    if name in sys.modules:
        return sys.modules[name]
    package, _, leaf = name.rpartition(".")
    path = Path(__file__).resolve().parent.joinpath(*package.split(".")[1:], f"{leaf}.py")
    if not path.exists():
        return None
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    module.__package__ = package  # its relative imports, at run time, import the package as usual
    spec.loader.exec_module(module)
    return module


class CommandRefused(Exception):
    """A command's argument names nothing it can load; printed as one line."""


REAL_NAMES = ("smollm2", "real", "SmolLM2-135M-Instruct")


def _known(name: str) -> bool:
    """A family, a wrapper or the embedded model's name, by the index (no family module imported)."""
    from .families import _index

    return name in REAL_NAMES or name in _index.MODULES or name in _index.WRAPPERS


def _not_a_family(name: str) -> str:
    import difflib

    from .families import _index

    near = difflib.get_close_matches(name.lower(), [*_index.MODULES, *_index.WRAPPERS], n=3, cutoff=0.5)
    hint = f"nearest: {', '.join(near)}; " if near else ""
    return (f"{name!r} is not a family ({hint}`nnterp table` lists all {len(_index.MODULES)}), 'smollm2', a local "
            f"directory, or a hub repo id (org/name)")


def show(args) -> None:
    model = load_model(args.model, args.attn_implementation)
    print(model)
    print()
    print(model.support())


def check(args) -> None:
    model = load_model(args.model, args.attn_implementation)
    report = model.check(raise_on_failure=False)
    print(report)
    if not report.ok:
        sys.exit(1)


def demo(args) -> None:
    """The main job: the embedded real model, its printout and support, the seeds' prompt read block by block."""
    import torch

    model = load_model(args.model, args.attn_implementation)
    print(model)
    print()
    print(model.support())
    print()
    prompt = args.prompt
    layers = []
    with model.trace(prompt):
        for layer in model.layers:
            layers.append(layer.layer_output[:, -1].save())
        probs = model.next_token_probs.save()
    tokenizer = model.tokenizer
    print(f"prompt: {prompt!r}")
    print("top next tokens:")
    values, ids = probs[0].topk(args.top)
    for p, i in zip(values.tolist(), ids.tolist()):
        print(f"  {tokenizer.decode([i])!r:>16}  {p:.4f}")
    print("logit lens, last position (top token of project_on_vocab(layer_output) per block):")
    with torch.no_grad():
        for index, hidden in enumerate(layers):
            lens = model.project_on_vocab(hidden).softmax(-1)[0]
            p, i = lens.max(-1)
            print(f"  block {index:>2}: {tokenizer.decode([int(i)])!r:>16}  {float(p):.4f}")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(prog="nnterp", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    for name, fn, helptext in (
        ("show", show, "print the printout and support table of a family or checkpoint"),
        ("check", check, "run the conformance contract on a family or checkpoint"),
        ("demo", demo, "the main job on the embedded real model (offline)"),
    ):
        command = sub.add_parser(name, help=helptext)
        command.add_argument("model", nargs="?" if name == "demo" else None,
                             default="smollm2" if name == "demo" else None,
                             help="a family name (tiny model), 'smollm2', or a repo id or path")
        command.add_argument("--attn-implementation", default=None)
        if name == "demo":
            command.add_argument("--prompt", default=PROMPT)
            command.add_argument("--top", type=int, default=5)
        command.set_defaults(run=fn)
    for area in AREAS:
        module = _area(area)
        if module is not None:
            module.register(sub)
    args = parser.parse_args(argv)
    try:
        args.run(args)
    except CommandRefused as refusal:
        print(f"nnterp {args.command}: {refusal}", file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
