"""The toolkit's commands: ``nnterp lens``, ``patch``, ``heads``, ``attention``, ``induction``, ``sink``, and
circuit-tracer's ``attribute`` and ``start-server``.

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

    # circuit-tracer's command line, by its argument names (handlers in nnterp.tools.graph_commands)
    parser = subparsers.add_parser("attribute", help="an attribution graph of a prompt (circuit-tracer's command)",
                                   description="circuit-tracer's `attribute`: the graph of --prompt with the "
                                   "transcoders --transcoder_set names, saved (.pt), written for its frontend, served")
    parser.add_argument("-m", "--model", default="smollm2",
                        help="a family name (its tiny model), 'smollm2' (default), or a repo id or path")
    parser.add_argument("-t", "--transcoder_set", required=True,
                        help="'random', or a folder of layer_<i>.safetensors in circuit-tracer's layout")
    parser.add_argument("--feature_input_hook", default="ln2.hook_normalized", help="where the transcoders read")
    parser.add_argument("--feature_output_hook", default="hook_mlp_out", help="where the transcoders write")
    parser.add_argument("-p", "--prompt", required=True)
    parser.add_argument("-o", "--graph_output_path", help="save the whole graph here (.pt, AttributionGraph.to_pt)")
    parser.add_argument("--max_n_logits", type=int, default=10)
    parser.add_argument("--desired_logit_prob", type=float, default=0.95)
    parser.add_argument("--batch_size", type=int, default=256)
    parser.add_argument("--max_feature_nodes", type=int, default=7500)
    parser.add_argument("--offload", default=None, help="circuit-tracer's; refused but for none")
    parser.add_argument("--verbose", action="store_true", help="a progress bar")
    parser.add_argument("--slug", help="the graph's name in --graph_file_dir")
    parser.add_argument("--graph_file_dir", help="write the pruned graph and graph-metadata.json here")
    parser.add_argument("--node_threshold", type=float, default=0.8)
    parser.add_argument("--edge_threshold", type=float, default=0.98)
    parser.add_argument("--server", action="store_true", help="then serve --graph_file_dir (Ctrl+C stops)")
    parser.add_argument("--port", type=int, default=8041)
    parser.set_defaults(run="nnterp.tools.graph_commands:attribute")

    parser = subparsers.add_parser("start-server",
                                   help="serve a folder of graphs to circuit-tracer's frontend, offline",
                                   description="circuit-tracer's `start-server`: its frontend and the graphs of "
                                   "--graph_file_dir at http://localhost:PORT, fetching nothing from the internet")
    parser.add_argument("--graph_file_dir", required=True, help="the folder graph.write or `nnterp attribute` wrote")
    parser.add_argument("--port", type=int, default=8041)
    parser.set_defaults(run="nnterp.tools.graph_commands:start_server")
