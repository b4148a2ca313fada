"""The handlers of the toolkit's commands (``nnterp.tools.cli`` holds their arguments)."""

from __future__ import annotations

from pathlib import Path

from nnterp.declare.vocabulary import EAGER
from nnterp.loading import load_model
from nnterp.tools.attribution import attribution_patching, direct_logit_attribution
from nnterp.tools.interventions import run
from nnterp.tools.lens import logit_lens
from nnterp.tools.mechanisms import first_position_sink, induction_ablation, induction_heads
from nnterp.tools.patching import logit_difference, patch_heads, patch_positions
from nnterp.tools.plots import attention_html, attention_patterns, plot_attention_from, save_attention


def _model(args, eager: bool = False):
    return load_model(args.model, args.attn_implementation or (EAGER if eager else None))


def _written(path) -> None:
    if path:
        print(f"wrote {path}")


def _top_token(model, prompt) -> int:
    return int(run(model, prompt)[0, -1].argmax())


def lens(args) -> None:
    model = _model(args)
    targets = args.target or [_top_token(model, args.prompt)]
    result = logit_lens(model, args.prompt, targets=targets, top_k=args.top)
    print(result.table(position=args.position))
    for target in result.target_tokens:
        print(f"{target!r}: first the top token at block {result.first_top_block(target, args.position)}, "
              f"top from block {result.top_from_block(target, args.position)} on")
    if args.plot:
        result.plot(args.plot)
        _written(args.plot)


def patch(args) -> None:
    model = _model(args)
    metric = logit_difference(model, args.answer, args.wrong)
    if args.attribution:
        value = "attention_premix" if args.heads else args.value
        result = attribution_patching(model, args.clean, args.corrupt, metric, value=value)
    elif args.heads:
        result = patch_heads(model, args.clean, args.corrupt, metric)
    else:
        result = patch_positions(model, args.clean, args.corrupt, metric, value=args.value)
    print(result.table(args.top))
    if args.plot:
        result.plot(args.plot)
        _written(args.plot)


def heads(args) -> None:
    model = _model(args, eager=bool(args.attention))
    target = args.target or _top_token(model, args.prompt)
    result = direct_logit_attribution(model, args.prompt, target)
    print(result.table(args.top))
    if args.plot:
        result.plot(args.plot)
        _written(args.plot)
    if args.attention:
        folder = Path(args.attention)
        top = result.top_heads(args.top)
        patterns, tokens = attention_patterns(model, args.prompt, sorted({layer for layer, _, _ in top}))
        for layer, head, _ in top:
            path = folder / f"block{layer:02d}_head{head:02d}.png"
            plot_attention_from(patterns[layer], tokens, layer, heads=[head], path=path)
            _written(path)
        _written(attention_html(patterns, tokens, folder / "attention.html", title=f"top heads: {args.prompt!r}"))


def attention(args) -> None:
    model = _model(args, eager=True)
    layers = [int(x) for x in args.layers.split(",")] if args.layers else None
    for path in save_attention(model, args.prompt, args.out, layers=layers):
        _written(path)


def induction(args) -> None:
    model = _model(args, eager=True)
    result = induction_heads(model, length=args.length, batch=args.batch, seed=args.seed)
    print(result.table(args.top))
    if args.k:
        print(induction_ablation(model, result, k=args.k, draws=args.draws, seed=args.seed).table())
    if args.plot:
        result.plot(args.plot)
        _written(args.plot)


def sink(args) -> None:
    model = _model(args, eager=True)
    result = first_position_sink(model, args.prompt)
    print(result.table())
    if args.plot:
        result.plot(args.plot)
        _written(args.plot)
