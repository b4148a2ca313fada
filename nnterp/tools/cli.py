"""The toolkit's commands: ``nnterp lens``, ``patch``, ``heads``, ``attention``, ``induction`` and ``sink``.

Each takes a family name (its tiny random model), ``smollm2`` (the embedded real model, the
default) or a repo id, prints a table and, with ``--plot``, writes the picture.
"""

from __future__ import annotations

PROMPT = "The Eiffel Tower is in the city of"
CORRUPT = "The Colosseum is in the city of"


def _model(args, eager: bool = False):
    from ..cli import load_model

    return load_model(args.model, args.attn_implementation or ("eager" if eager else None))


def _written(path) -> None:
    if path:
        print(f"wrote {path}")


def _top_token(model, prompt) -> int:
    from .interventions import run

    return int(run(model, prompt)[0, -1].argmax())


def lens(args) -> None:
    from .lens import logit_lens

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
    from .attribution import attribution_patching
    from .patching import logit_difference, patch_heads, patch_positions

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
    from .attribution import direct_logit_attribution
    from .plots import attention_html, attention_patterns, plot_attention_from

    model = _model(args, eager=bool(args.attention))
    target = args.target or _top_token(model, args.prompt)
    result = direct_logit_attribution(model, args.prompt, target)
    print(result.table(args.top))
    if args.plot:
        result.plot(args.plot)
        _written(args.plot)
    if args.attention:
        from pathlib import Path

        folder = Path(args.attention)
        top = result.top_heads(args.top)
        patterns, tokens = attention_patterns(model, args.prompt, sorted({layer for layer, _, _ in top}))
        for layer, head, _ in top:
            path = folder / f"block{layer:02d}_head{head:02d}.png"
            plot_attention_from(patterns[layer], tokens, layer, heads=[head], path=path)
            _written(path)
        _written(attention_html(patterns, tokens, folder / "attention.html", title=f"top heads: {args.prompt!r}"))


def attention(args) -> None:
    from .plots import save_attention

    model = _model(args, eager=True)
    layers = [int(x) for x in args.layers.split(",")] if args.layers else None
    for path in save_attention(model, args.prompt, args.out, layers=layers):
        _written(path)


def induction(args) -> None:
    from .mechanisms import induction_ablation, induction_heads

    model = _model(args, eager=True)
    result = induction_heads(model, length=args.length, batch=args.batch, seed=args.seed)
    print(result.table(args.top))
    if args.k:
        print(induction_ablation(model, result, k=args.k, draws=args.draws, seed=args.seed).table())
    if args.plot:
        result.plot(args.plot)
        _written(args.plot)


def sink(args) -> None:
    from .mechanisms import first_position_sink

    model = _model(args, eager=True)
    result = first_position_sink(model, args.prompt)
    print(result.table())
    if args.plot:
        result.plot(args.plot)
        _written(args.plot)


def register(subparsers) -> None:
    """Add the toolkit's commands to the ``nnterp`` command."""

    def command(name, fn, helptext):
        parser = subparsers.add_parser(name, help=helptext, description=helptext)
        parser.add_argument("model", nargs="?", default="smollm2",
                            help="a family name (its tiny model), 'smollm2' (default), or a repo id or path")
        parser.add_argument("--attn-implementation", default=None)
        parser.set_defaults(run=fn)
        return parser

    parser = command("lens", lens, "logit lens: every block's stream read through the model's own readout")
    parser.add_argument("--prompt", default=PROMPT)
    parser.add_argument("--target", action="append", help="a token to follow (repeatable); default: the model's answer")
    parser.add_argument("--position", type=int, default=-1)
    parser.add_argument("--top", type=int, default=3)
    parser.add_argument("--plot", help="write the heatmap here (PNG)")

    parser = command("patch", patch, "activation patching sweep: clean into corrupt, blocks × positions or heads")
    parser.add_argument("--clean", default=PROMPT)
    parser.add_argument("--corrupt", default=CORRUPT)
    parser.add_argument("--answer", default=" Paris", help="the clean answer (one token)")
    parser.add_argument("--wrong", default=" Rome", help="the corrupt answer (one token)")
    parser.add_argument("--value", default="layer_output", help="the residual value patched by position")
    parser.add_argument("--heads", action="store_true", help="sweep blocks × heads (attention_premix) instead")
    parser.add_argument("--attribution", action="store_true", help="attribution patching (one backward pass)")
    parser.add_argument("--top", type=int, default=10)
    parser.add_argument("--plot", help="write the heatmap here (PNG)")

    parser = command("heads", heads, "direct logit attribution of every head and MLP, and the top heads' patterns")
    parser.add_argument("--prompt", default=PROMPT)
    parser.add_argument("--target", help="the token attributed; default: the model's answer")
    parser.add_argument("--top", type=int, default=8)
    parser.add_argument("--plot", help="write the heads × blocks heatmap here (PNG)")
    parser.add_argument("--attention", help="a folder for the top heads' attention patterns (PNG and HTML)")

    parser = command("attention", attention, "attention patterns of every head: a PNG per block and one HTML page")
    parser.add_argument("--prompt", default=PROMPT)
    parser.add_argument("--layers", help="comma-separated blocks (default: all)")
    parser.add_argument("--out", default="attention", help="the folder written")

    parser = command("induction", induction, "induction heads on random tokens repeated twice, and their ablation")
    parser.add_argument("--length", type=int, default=40)
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--top", type=int, default=10)
    parser.add_argument("--k", type=int, default=5, help="heads removed (0: no ablation)")
    parser.add_argument("--draws", type=int, default=5, help="random sets of k heads removed for comparison")
    parser.add_argument("--plot", help="write the score heatmap here (PNG)")

    parser = command("sink", sink, "the first-position sink: stream norm per position and block, attention on key 0")
    parser.add_argument("--prompt", default=PROMPT)
    parser.add_argument("--plot", help="write the two heatmaps here (PNG)")
