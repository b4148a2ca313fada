"""The handlers of the ``nnterp`` command's own subcommands (``nnterp.cli`` holds their arguments): ``show``,
``check`` and ``demo``; every command that takes a model reads it with ``nnterp.loading.load_model``."""

from __future__ import annotations

import sys

import torch

from nnterp.loading import load_model


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
