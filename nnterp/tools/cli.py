"""The toolkit's commands: ``nnterp lens``, ``patch``, ``heads``, ``attention``, ``induction`` and ``sink``.

Each takes a family name (its tiny random model), ``smollm2`` (the embedded real model, the
default) or a repo id, prints a table and, with ``--plot``, writes the picture. This module holds their arguments
alone (it is read before torch loads); their handlers are in ``nnterp.tools.commands``.
"""

from __future__ import annotations

PROMPT = "The Eiffel Tower is in the city of"
CORRUPT = "The Colosseum is in the city of"


def register(subparsers) -> None:
    """Add the toolkit's commands to the ``nnterp`` command."""

    def command(name, helptext):
        parser = subparsers.add_parser(name, help=helptext, description=helptext)
        parser.add_argument("model", nargs="?", default="smollm2",
                            help="a family name (its tiny model), 'smollm2' (default), or a repo id or path")
        parser.add_argument("--attn-implementation", default=None)
        parser.set_defaults(run=f"nnterp.tools.commands:{name}")
        return parser

    parser = command("lens", "logit lens: every block's stream read through the model's own readout")
    parser.add_argument("--prompt", default=PROMPT)
    parser.add_argument("--target", action="append", help="a token to follow (repeatable); default: the model's answer")
    parser.add_argument("--position", type=int, default=-1)
    parser.add_argument("--top", type=int, default=3)
    parser.add_argument("--plot", help="write the heatmap here (PNG)")

    parser = command("patch", "activation patching sweep: clean into corrupt, blocks × positions or heads")
    parser.add_argument("--clean", default=PROMPT)
    parser.add_argument("--corrupt", default=CORRUPT)
    parser.add_argument("--answer", default=" Paris", help="the clean answer (one token)")
    parser.add_argument("--wrong", default=" Rome", help="the corrupt answer (one token)")
    parser.add_argument("--value", default="layer_output", help="the residual value patched by position")
    parser.add_argument("--heads", action="store_true", help="sweep blocks × heads (attention_premix) instead")
    parser.add_argument("--attribution", action="store_true", help="attribution patching (one backward pass)")
    parser.add_argument("--top", type=int, default=10)
    parser.add_argument("--plot", help="write the heatmap here (PNG)")

    parser = command("heads", "direct logit attribution of every head and MLP, and the top heads' patterns")
    parser.add_argument("--prompt", default=PROMPT)
    parser.add_argument("--target", help="the token attributed; default: the model's answer")
    parser.add_argument("--top", type=int, default=8)
    parser.add_argument("--plot", help="write the heads × blocks heatmap here (PNG)")
    parser.add_argument("--attention", help="a folder for the top heads' attention patterns (PNG and HTML)")

    parser = command("attention", "attention patterns of every head: a PNG per block and one HTML page")
    parser.add_argument("--prompt", default=PROMPT)
    parser.add_argument("--layers", help="comma-separated blocks (default: all)")
    parser.add_argument("--out", default="attention", help="the folder written")

    parser = command("induction", "induction heads on random tokens repeated twice, and their ablation")
    parser.add_argument("--length", type=int, default=40)
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--top", type=int, default=10)
    parser.add_argument("--k", type=int, default=5, help="heads removed (0: no ablation)")
    parser.add_argument("--draws", type=int, default=5, help="random sets of k heads removed for comparison")
    parser.add_argument("--plot", help="write the score heatmap here (PNG)")

    parser = command("sink", "the first-position sink: stream norm per position and block, attention on key 0")
    parser.add_argument("--prompt", default=PROMPT)
    parser.add_argument("--plot", help="write the two heatmaps here (PNG)")
