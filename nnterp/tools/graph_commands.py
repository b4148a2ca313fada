"""The handlers of ``nnterp attribute`` and ``nnterp start-server``, circuit-tracer's ``circuit-tracer attribute``
and ``circuit-tracer start-server`` (``nnterp.tools.cli`` holds their arguments, by circuit-tracer's names).

``--transcoder_set`` names the transcoders: ``random`` (random transcoders, one a block, as the graph sweep's:
``graph_sweep.transcoders``), or a folder of ``layer_<i>.safetensors`` files in circuit-tracer's layout (what its
``TranscoderSet.to_safetensors`` writes: ``W_enc`` and ``W_dec`` [d_transcoder, d_model], ``b_enc``, ``b_dec``), read
at ``--feature_input_hook`` and written at ``--feature_output_hook`` as circuit-tracer's config names them.
"""

from __future__ import annotations

import time
from pathlib import Path

from safetensors.torch import load_file

from nnterp.declare.vocabulary import EAGER
from nnterp.loading import load_model
from nnterp.tools._common import ToolError
from nnterp.tools.graph import attribution_graph
from nnterp.tools.graph_server import serve
from nnterp.tools.graph_sweep import transcoders as random_transcoders
from nnterp.tools.splice import LocalSAE

RANDOM = "random"


def load_transcoder_set(folder, num_layers: int, feature_input_hook: str = "ln2.hook_normalized",
                        feature_output_hook: str = "hook_mlp_out") -> list:
    """circuit-tracer's single-layer transcoders from ``folder/layer_<i>.safetensors``, one a block, as ``LocalSAE``
    transcoders (ReLU latents) reading ``blocks.<i>.<feature_input_hook>`` and writing ``feature_output_hook``."""
    folder = Path(folder)
    missing = [i for i in range(num_layers) if not (folder / f"layer_{i}.safetensors").is_file()]
    if missing:
        raise ToolError(f"{folder} has no layer_{missing[0]}.safetensors: a transcoder set is one file a block, "
                        f"layer_0 to layer_{num_layers - 1} (circuit-tracer's TranscoderSet.to_safetensors)")
    loaded = []
    for i in range(num_layers):
        weights = load_file(str(folder / f"layer_{i}.safetensors"))
        other = sorted(set(weights) - {"W_enc", "W_dec", "b_enc", "b_dec"})
        if other:
            raise ToolError(f"layer_{i}.safetensors holds {', '.join(other)}: a JumpReLU threshold or a skip, which "
                            "this loader does not read; load the set with circuit-tracer's load_transcoder_set and "
                            "pass it to attribution_graph from Python")
        loaded.append(LocalSAE(weights["W_enc"].T.contiguous().float(), weights["b_enc"].float(),
                               weights["W_dec"].float(), weights["b_dec"].float(),
                               f"blocks.{i}.{feature_input_hook}", f"blocks.{i}.{feature_output_hook}"))
    return loaded


def transcoders_named(name: str, model, feature_input_hook: str, feature_output_hook: str) -> tuple[list, str]:
    """The transcoders ``--transcoder_set`` names, and their scan (the name circuit-tracer's JSON gives them)."""
    if name == RANDOM:
        return random_transcoders(model, read=feature_input_hook), RANDOM
    if not Path(name).is_dir():
        raise ToolError(f"--transcoder_set {name!r} is neither 'random' nor a folder of layer_<i>.safetensors files "
                        "(the hub is not read here): give one of those")
    return (load_transcoder_set(name, model.num_layers, feature_input_hook, feature_output_hook),
            Path(name).resolve().name)


def attribute(args) -> None:
    if bool(args.slug) != bool(args.graph_file_dir):
        raise ToolError("--slug and --graph_file_dir go together: give both to write the graph's files")
    if args.server and not args.slug:
        raise ToolError("--server serves the graph's files: give --slug and --graph_file_dir too")
    if not args.slug and not args.graph_output_path:
        raise ToolError("nothing would be written: give --graph_output_path, or --slug and --graph_file_dir")
    model = load_model(args.model, EAGER)  # a frozen pattern is the attention's probabilities
    transcoders, scan = transcoders_named(args.transcoder_set, model, args.feature_input_hook,
                                          args.feature_output_hook)
    graph = attribution_graph(model, transcoders, args.prompt, max_n_logits=args.max_n_logits,
                              desired_logit_prob=args.desired_logit_prob, batch_size=args.batch_size,
                              max_feature_nodes=args.max_feature_nodes, offload=args.offload, progress=args.verbose)
    print(f"graph of {args.prompt!r}: {graph.stats['active_latents']} active latents, "
          f"{graph.stats['selected_latents']} kept, {graph.stats['nodes']} nodes, {graph.seconds:.1f} s")
    if args.graph_output_path:
        Path(args.graph_output_path).parent.mkdir(parents=True, exist_ok=True)
        graph.to_pt(args.graph_output_path)
        print(f"wrote {args.graph_output_path}")
    if args.slug:
        path = graph.write(args.graph_file_dir, slug=args.slug, scan=scan, node_threshold=args.node_threshold,
                           edge_threshold=args.edge_threshold)
        print(f"wrote {path}")
    if args.server:
        start_server(args)


def start_server(args) -> None:
    """Serve until interrupted (Ctrl+C), as circuit-tracer's command does."""
    server = serve(args.graph_file_dir, port=args.port)
    print(f"serving {Path(args.graph_file_dir).resolve()} at {server.url}/index.html (Ctrl+C stops)", flush=True)
    try:
        while True:
            time.sleep(1)
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()

