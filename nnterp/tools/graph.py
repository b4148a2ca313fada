"""Attribution graphs: circuit-tracer's method on any family nnterp serves.

``attribution_graph(model, transcoders, prompt)`` builds the local replacement model of one prompt: every block's
``mlp_output`` is its transcoder's latents through their decoder vectors, plus the decoder's bias, plus the
transcoder's skip where it has one, plus an error term (the MLP's own output less all that, a constant); every norm
scale and attention pattern is frozen at the clean run's (``tools.frozen``). That model is affine in its inputs,
so each node's input splits exactly into one edge per source node plus a constant (the biases' share):

- nodes: the active transcoder latents (block, position, latent), one error node per block and position, one
  token-embedding node per position (the stream entering block 0, or, on a residual of several streams, the token
  embedding they are made from: ``tools.frozen_streams``), and logit nodes for the top tokens at the
  last position (the fewest whose probabilities reach ``desired_logit_prob``, at most ``max_n_logits``);
- a latent's input is its encoder vector times what its transcoder reads (the pre-activation less ``b_enc``); a
  logit node's is the logit less the mean logit (``lm_head_output``, before a soft cap);
- the edge from a source to a target is the source's vector (activation × decoder vector, the error, the
  embedding) times the gradient of the target's input there: one forward pass of ``batch_size`` rows, its graph
  kept, then one backward pass from it per batch of targets, the logits first, then latents in order of their
  influence on the logits so far (at most ``max_feature_nodes``);
- pruned by influence (``node_threshold``, ``edge_threshold``) and written in circuit-tracer's JSON graph format,
  the one its frontend and Neuronpedia read (``AttributionGraph.write``).

``completeness`` checks the meaning: each target's input equals the sum of its incoming edges plus its constant, and
equals the clean run's value. ``attribution_graph`` checks both before it returns and refuses, in one sentence with
the figure, a graph that fails either by more than rounding explains (``completeness_tolerance``): a graph is
correct or it is not built. Transcoders: a list with one per block (``LocalSAE`` transcoders, SAELens's
``Transcoder``/``SkipTranscoder``, circuit-tracer's ``SingleLayerTranscoder``), circuit-tracer's ``TranscoderSet``,
or a cross-layer transcoder (circuit-tracer's ``CrossLayerTranscoder``, ``LocalCLT``): block ``k``'s latents then
write to the mlp_output of every block from ``k`` on, so a latent's edge to a target sums, over those blocks, its
activation times its decoder vector into the block times the target's gradient there, and each block's error is
its MLP output less every earlier block's decoded latents, its decoder bias and its skip.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import torch

from nnterp.contract.numerics import UNIT_ROUNDOFF, roundings
from nnterp.declare.engine import module_of
from nnterp.tools._common import ToolError, token_id, token_text, trace
from nnterp.tools.frozen import ahead_at_zero, clean_run, holds_ahead, replacement_pass
from nnterp.tools.frozen_attention import LiveBytes, chunk_bytes_within, recorded_bytes
from nnterp.tools.frozen_lean import lean_modules
from nnterp.tools.graph_influence import RowNormalized, _influence, _normalized, compute_graph_scores, prune  # noqa: F401 (circuit-tracer's names here)
from nnterp.tools.graph_replacement import _scan, refuse_what_is_not_linear, replacement_sources


@dataclass
class AttributionGraph:
    """The graph: ``adjacency[target, source]`` over nodes ordered [latents, errors (block-major), tokens, logits],
    as circuit-tracer's ``Graph``; ``features`` [n, 3] (block, position, latent) with ``activations``; ``logit_tokens``
    and ``logit_probabilities``; ``constants[node]`` the biases' share of each target's input, ``values[node]`` its
    input in the frozen replacement model, ``clean[node]`` in the clean run."""

    prompt: str
    tokens: list
    token_ids: torch.Tensor
    features: torch.Tensor
    activations: torch.Tensor
    adjacency: torch.Tensor
    logit_tokens: list
    logit_probabilities: torch.Tensor
    values: torch.Tensor
    constants: torch.Tensor
    clean: torch.Tensor
    num_layers: int
    computed: torch.Tensor
    seconds: float = 0.0
    peak_bytes: int = 0
    stats: dict = field(default_factory=dict)
    #: circuit-tracer's scan: the transcoders' name (a set's ``scan``), a list of names, or None where they have none
    scan: str | list | None = None

    @property
    def n_features(self) -> int:
        return int(self.features.shape[0])

    @property
    def n_pos(self) -> int:
        return len(self.tokens)

    def completeness(self) -> float:
        """max over computed targets of |input - constant - sum of incoming edges| / (|constant| + sum of |edges|):
        rounding only where every active latent is in the graph (``stats`` holds it over every active latent)."""
        return _completeness(self.adjacency, self.values, self.constants, self.computed)

    def prune(self, node_threshold: float = 0.8, edge_threshold: float = 0.98):
        return prune(self.adjacency, self.logit_probabilities, self.n_pos, self.n_features, node_threshold,
                     edge_threshold)

    def to_pt(self, path) -> None:
        """circuit-tracer's ``Graph.to_pt``: the whole graph, unpruned, in one ``torch.save`` file."""
        torch.save({name: getattr(self, name) for name in self.__dataclass_fields__}, path)

    @staticmethod
    def from_pt(path, map_location="cpu") -> AttributionGraph:
        """circuit-tracer's ``Graph.from_pt``: the graph ``to_pt`` saved, its tensors on ``map_location``."""
        return AttributionGraph(**torch.load(path, weights_only=False, map_location=map_location))

    def to_json(self, slug: str = "nnterp-graph", scan: str | list | None = None, node_threshold: float = 0.8,
                edge_threshold: float = 0.98) -> dict:
        """The pruned graph in circuit-tracer's JSON (``frontend.graph_models.Model``: metadata, qParams, nodes, links).
        ``scan``: the transcoders' name, by default the graph's (``scan``); a list of names is circuit-tracer's
        ``transcoder_list``, under the scan ``custom-`` and the hash of the names joined by ``-``."""
        scan = self.scan if scan is None else scan
        if scan is None:
            raise ToolError("the graph's transcoders have no name (scan), which circuit-tracer's JSON names them by: "
                            "pass scan=... to to_json or write")
        transcoder_list = []
        if isinstance(scan, (list, tuple)):
            transcoder_list = list(scan)
            scan = "custom-" + str(hash("-".join(transcoder_list)))
        node_mask, edge_mask, scores = self.prune(node_threshold, edge_threshold)
        nodes = {}
        n_features, layers, n_pos = self.n_features, self.num_layers, self.n_pos
        error_end = n_features + layers * n_pos
        token_end = error_end + n_pos
        for index in node_mask.nonzero().flatten().tolist():
            influence = float(scores[index])
            if index < n_features:
                layer, pos, latent = (int(v) for v in self.features[index])
                nodes[index] = _node(f"{layer}_{latent}_{pos}", _cantor(layer, latent), str(layer), pos,
                                     "cross layer transcoder", f"{layer}_{latent}-0", influence=influence,
                                     activation=float(self.activations[index]))
            elif index < error_end:
                layer, pos = divmod(index - n_features, n_pos)
                nodes[index] = _node(f"0_{layer}_{pos}", -1, str(layer), pos, "mlp reconstruction error",
                                     f"{layer}_{pos}-0", influence=influence)
            elif index < token_end:
                pos = index - error_end
                vocab = int(self.token_ids[pos])
                nodes[index] = _node(f"E_{vocab}_{pos}", pos, "E", pos, "embedding", f"E_{vocab}-{pos}",
                                     influence=influence)
            else:
                rank = index - token_end
                vocab, text = self.logit_tokens[rank]
                p = float(self.logit_probabilities[rank])
                nodes[index] = _node(f"{layers + 1}_{vocab}_{n_pos - 1}", vocab, str(layers + 1), n_pos - 1, "logit",
                                     f"L_{vocab}-{n_pos - 1}", token_prob=p, is_target_logit=rank == 0,
                                     clerp=f'Output "{text}" (p={p:.3f})')
        targets, sources = edge_mask.nonzero(as_tuple=True)
        links = [{"source": nodes[s]["node_id"], "target": nodes[t]["node_id"], "weight": float(self.adjacency[t, s])}
                 for t, s in zip(targets.tolist(), sources.tolist()) if s in nodes and t in nodes]
        connected = {link["source"] for link in links} | {link["target"] for link in links}
        used = [node for node in nodes.values()
                if node["node_id"] in connected or node["feature_type"] in ("embedding", "logit")]
        metadata = {"slug": slug, "scan": scan, "transcoder_list": transcoder_list, "prompt_tokens": self.tokens,
                    "prompt": self.prompt, "node_threshold": node_threshold, "schema_version": 1}
        qparams = {"pinnedIds": [], "supernodes": [], "linkType": "both", "clickedId": "", "sg_pos": ""}
        return {"metadata": metadata, "qParams": qparams, "nodes": used, "links": links}

    def write(self, folder, slug: str = "nnterp-graph", **kwargs) -> Path:
        """``folder/slug.json``, circuit-tracer's graph file, and its metadata in ``folder/graph-metadata.json``, the
        index its frontend reads first (``create_graph_files``: an entry of the same slug is replaced)."""
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{slug}.json"
        graph = self.to_json(slug, **kwargs)
        path.write_text(json.dumps(graph, indent=2))
        index = folder / "graph-metadata.json"
        listed = json.loads(index.read_text()) if index.exists() else {"graphs": []}
        listed["graphs"] = [g for g in listed["graphs"] if g["slug"] != slug] + [graph["metadata"]]
        index.write_text(json.dumps(listed, indent=2))
        return path


def _residuals(edges, nodes, values, constants, at=None, share=None) -> torch.Tensor:
    """Each target's |input - constant - sum of incoming edges| / (|constant| + sum of |edges|): ``edges[r]`` (or
    ``edges[at[r]]``) the incoming edges of node ``nodes[r]``; a slice of rows at a time, in float64. With ``share``
    (one value a node): |share| over the same magnitude instead, how much of the target that share is."""
    out = torch.zeros(len(nodes), dtype=torch.float64)
    step = max(1, 2 ** 20 // max(1, edges.shape[1]))
    for first in range(0, len(nodes), step):
        rows = slice(first, first + step)
        part = (edges[rows] if at is None else edges[at[rows]]).double()
        total = part.sum(-1) + constants[nodes[rows]].double()
        scale = part.abs_().sum(-1) + constants[nodes[rows]].abs().double() + 1e-30
        measured = values[nodes[rows]].double() - total if share is None else share[nodes[rows]].double()
        out[rows] = measured.abs() / scale
    return out


def _completeness(adjacency, values, constants, computed) -> float:
    rows = computed.nonzero().flatten()
    return float(_residuals(adjacency, rows, values, constants, at=rows).max())


def _rows_within(memory_budget: int, most: int, forward, n_nodes: int, stream_values: int,
                 held: int = 0) -> tuple[int, int]:
    """How many rows a pass takes within ``memory_budget`` bytes, and how many elements the decoder products of a
    pass may have: three quarters of the budget for the rows, a quarter for the products. A row holds the graph its
    forward keeps (measured: what a two-row forward saves beyond a one-row one), as much again for its gradients,
    the stream's gradients in float32 (``stream_values``, twice) and its row of edges. What the rows share comes off
    first: ``held`` (the frozen trace's recorded attention) and the most a one-row forward holds at once beyond its
    row (measured, ``LiveBytes``: its mask, a chunk of attention scores)."""
    one, two = _saved_bytes(lambda: forward(1)), _saved_bytes(lambda: forward(2))
    row = max(two - one, 0)
    with LiveBytes() as live:
        forward(1)
    shared = held + max(live.peak - row, 0)
    per_row = 2 * row + 8 * stream_values + 4 * n_nodes
    rows = (int(0.75 * memory_budget) - shared) // per_row
    if rows < 1:
        need = -(-4 * (per_row + shared) // (3 * 2 ** 20))  # MiB, rounded up
        raise ToolError(f"one row of the attribution's backward pass needs about {need} MiB here, more than "
                        f"memory_budget ({memory_budget / 2 ** 20:.0f} MiB): raise memory_budget to {need} MiB "
                        "or more, or shorten the prompt")
    return min(most, rows), max(1, memory_budget // 16)


def _edge_matrix(rows: int, columns: int, memory_budget: int | None) -> torch.Tensor:
    """A zero [rows columns] float32 matrix for the edges: in memory, or, where a memory budget is given and the
    matrix would take more than a quarter of it, on disk (a temporary file mapped into memory, removed from the
    folder at once and gone with the tensor), so the system pages it in and out as the edges are written."""
    size = rows * columns
    if memory_budget is None or 4 * size <= memory_budget // 4:
        return torch.zeros(rows, columns)
    with tempfile.NamedTemporaryFile(prefix="nnterp-edges-", suffix=".f32", delete=False) as file:
        file.truncate(4 * size)
    try:
        return torch.from_file(file.name, shared=True, size=size, dtype=torch.float32).view(rows, columns)
    finally:
        os.unlink(file.name)


@contextmanager
def _weights_not_differentiated(model):
    """The model's parameters out of autograd for the forward (their flags restored after): a graph differentiates
    by its inputs, and a weight that requires grad makes each layer keep its input for the weight's gradient."""
    flipped = [parameter for parameter in module_of(model).parameters() if parameter.requires_grad]
    for parameter in flipped:
        parameter.requires_grad_(False)
    try:
        yield
    finally:
        for parameter in flipped:
            parameter.requires_grad_(True)


@contextmanager
def _probed_on_failure(model, frozen):
    """The frozen trace's probes (``refuse_what_is_not_linear``), run where the graph fails (incomplete, or a
    backward that reaches none of its inputs) rather than before every graph: a forward they would refuse fails its
    completeness, and the refusal then names the module that bends (or runs with gradients off); where they find
    nothing, the failure stands."""
    try:
        yield
    except (IncompleteGraph, RuntimeError):
        refuse_what_is_not_linear(model, frozen)
        raise


def _saved_bytes(forward) -> int:
    """The bytes the autograd graph of ``forward()`` keeps, each storage once."""
    storages = {}

    def pack(tensor):
        storage = tensor.untyped_storage()
        storages[storage.data_ptr()] = storage.nbytes()
        return tensor

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda tensor: tensor):
        forward()
    return sum(storages.values())


class IncompleteGraph(ToolError):
    """``attribution_graph`` refused a graph that is not complete; ``residual`` is the figure, ``allowed`` rounding's."""

    def __init__(self, message: str, residual: float, allowed: float) -> None:
        super().__init__(message)
        self.residual, self.allowed = residual, allowed


def completeness_tolerance(model, n_nodes: int, dtype: torch.dtype) -> float:
    """The relative residual rounding alone explains in a graph's completeness: each edge is a product through a
    forward and a backward pass over every block (``numerics.roundings`` each), and a target's edges are summed,
    ``n_nodes`` terms; at most that many roundings of ``dtype``'s unit roundoff, relative to the sum of the terms'
    magnitudes (the worst case rather than the random walk's square root: the residual is a maximum over targets)."""
    return (2 * roundings(model) + n_nodes) * UNIT_ROUNDOFF[dtype]


def _check_complete(model, residuals, values, clean, blocks, n_nodes: int, dtype) -> None:
    """Refuse a graph whose targets' inputs are not the sum of their edges, or not the clean run's values; the
    sentence names the first block whose latents fail (``blocks``: each computed target's block, the logits' the
    number of blocks)."""
    allowed = completeness_tolerance(model, n_nodes, dtype)
    residual = float(residuals.max()) if len(residuals) else 0.0
    drifts = (values - clean).abs() / clean.abs().max().clamp(min=1e-30)
    drift = float(drifts.max()) if len(values) else 0.0
    if not (residual <= allowed and drift <= allowed):  # a NaN fails too
        figure, what, failing = (residual, "the sum of its incoming edges and constant", ~(residuals <= allowed)) \
            if not residual <= allowed else (drift, "the clean run's value", ~(drifts <= allowed))
        first = int(blocks[failing].min())
        at = "the logits" if first >= model.num_layers else f"block {first}'s latents"
        raise IncompleteGraph(f"{model.family.name}'s attribution graph is not complete: a target's input differs from "
                              f"{what} by {figure:.1e} of its magnitude, more than rounding explains ({allowed:.1e}), "
                              f"first at {at}, so something in the forward there that the frozen trace does not fix "
                              "is not linear and the graph is not returned", figure, allowed)


def _cantor(x: int, y: int) -> int:
    return (x + y) * (x + y + 1) // 2 + y


def _node(node_id, feature, layer, ctx_idx, feature_type, js_id, *, token_prob=0.0, is_target_logit=False,
          clerp="", influence=None, activation=None) -> dict:
    return {"node_id": node_id, "feature": feature, "layer": layer, "ctx_idx": ctx_idx, "feature_type": feature_type,
            "token_prob": token_prob, "is_target_logit": is_target_logit, "run_idx": 0, "reverse_ctx_idx": 0,
            "jsNodeId": js_id, "clerp": clerp, "influence": influence, "activation": activation}


# --------------------------------------------------------------------------- pruning by influence (circuit-tracer's)
def _top_logits(model, logits, desired: float, most: int):
    probabilities = logits.float().softmax(-1)
    ordered, order = probabilities.sort(descending=True)
    count = min(most, int((ordered.cumsum(0) < desired).sum()) + 1)
    ids = order[:count]
    return [(int(i), model.tokenizer.decode([int(i)])) for i in ids], ordered[:count]


@dataclass
class _Targets:
    """circuit-tracer's attribution targets: ``tokens[rank]`` (vocabulary index, text), a direction's index virtual
    (the vocabulary's size plus its place in the list); ``probabilities``; ``readouts[rank]``: ("logit", id), the
    logit less the mean logit; ("logits", weights [vocab]), the logits less their mean times the weights (a logit
    difference); ("stream", vector [hidden]), the stream lm_head reads (``final_norm_output``) times the vector."""

    tokens: list
    probabilities: torch.Tensor
    readouts: list

    @property
    def reads_the_stream(self) -> bool:
        return any(kind == "stream" for kind, _ in self.readouts)

    def value(self, rank: int, logits_row, stream_row):
        kind, what = self.readouts[rank]
        if kind == "logit":
            return logits_row[what] - logits_row.mean()
        if kind == "logits":
            return (logits_row - logits_row.mean()) @ what
        return stream_row @ what


def _targets(model, logits, attribution_targets, desired: float, most: int) -> _Targets:
    """circuit-tracer's ``AttributionTargets`` of ``attribution_targets``: None, the fewest top logits whose
    probabilities reach ``desired`` (at most ``most``); a tensor of token ids; a list whose items are each an id, a
    token's text (one token), or (text, probability, vector): a direction, over the hidden size (in the stream
    lm_head reads, as circuit-tracer's) or over the vocabulary (on the logits, e.g. +1 and -1 for a difference)."""
    probabilities = logits.float().softmax(-1)
    vocab = logits.shape[-1]
    if attribution_targets is None:
        tokens, chosen = _top_logits(model, logits, desired, most)
        return _Targets(tokens, chosen, [("logit", i) for i, _ in tokens])
    if isinstance(attribution_targets, torch.Tensor):
        attribution_targets = attribution_targets.flatten().tolist()
    if isinstance(attribution_targets, (str, int)) or not len(attribution_targets):
        raise ToolError("attribution_targets is a list (or a tensor of token ids) of at least one target: ids, "
                        "one-token texts, or (text, probability, vector) directions")
    tokens, chosen, readouts = [], [], []
    for place, target in enumerate(attribution_targets):
        if isinstance(target, tuple):
            text, probability, vector = target
            vector = torch.as_tensor(vector).detach().float().flatten()
            if vector.numel() not in (model.hidden_size, vocab):
                raise ToolError(f"the direction of target {text!r} has {vector.numel()} entries: give one over the "
                                f"hidden size ({model.hidden_size}) or over the vocabulary ({vocab})")
            tokens.append((vocab + place, text))
            chosen.append(float(probability))
            readouts.append(("stream" if vector.numel() == model.hidden_size else "logits", vector))
        else:
            index = token_id(model, target)
            if not 0 <= index < vocab:
                raise ToolError(f"token id {index} is outside the vocabulary [0, {vocab}): give an id below {vocab}")
            tokens.append((index, model.tokenizer.decode([index])))
            chosen.append(float(probabilities[index]))
            readouts.append(("logit", index))
    return _Targets(tokens, torch.tensor(chosen), readouts)


def attribution_graph(model, transcoders, prompt, *, attribution_targets=None, max_n_logits: int = 10,
                      desired_logit_prob: float = 0.95, max_feature_nodes: int | None = None, batch_size: int = 64,
                      zero_positions: slice | None = slice(0, 1), update_interval: int = 4, offload: str | None = None,
                      memory_budget: int | None = None, progress: bool = True) -> AttributionGraph:
    """circuit-tracer's attribution graph of ``prompt`` with one transcoder per block or a cross-layer transcoder
    (see the module's text). ``attribution_targets``: circuit-tracer's, None for the top logits, else a tensor of
    token ids or a list of ids, one-token texts and (text, probability, vector) directions (``_targets``).
    ``zero_positions``: circuit-tracer's, with its default ``slice(0, 1)`` (the first position, the special token a
    string prompt starts with; None keeps every position): no latents and no error there, the MLP outputs at those
    positions held at the clean run's, a share of each target's constant. So are the MLP outputs over positions the
    blocks run ahead of the call's (CPM-Ant's learned prompt): ``stats["held_ahead_share"]`` is the largest share of a
    target (of its constant plus its edges' magnitudes) they carry. A block the call does not run (a cross-attention
    block on a text call) has no latent and no error, its transcoder never fires: ``stats["blocks_not_run"]``.
    ``update_interval``: circuit-tracer's, the latents are ranked by their influence on the logits again after
    every ``update_interval`` batches of ``batch_size`` (with a cap).
    A ``str`` prompt is tokenized as circuit-tracer does (``circuit_tracer_tokens``): a special token (BOS) first
    unless the tokenizer already put one there, so ``zero_positions=slice(0, 1)`` zeroes that token and no word;
    token ids (a tensor) are taken as they are. ``offload``: circuit-tracer's (None, "cpu", "disk"), refused but for
    None: it moves the model's and the transcoders' own modules to the CPU or a temporary file during the call and
    back (the disk's with new parameters), so it copies and replaces the user's weights. ``memory_budget``: bytes
    the call may hold at once (``_rows_within``): a batch's targets go through in passes of as many rows as fit, the
    decoder products a slice of positions at a time, every attention a query chunk at a time with its frozen pattern
    recomputed (``freeze``'s ``chunk_bytes``), so a long prompt runs in a fixed budget; the graph
    is the same (each row's gradient is its own). None: one pass a batch, circuit-tracer's."""
    from tqdm.auto import tqdm

    if offload is not None:
        raise ToolError(f"offload={offload!r} is refused: circuit-tracer's offload moves the model's and the "
                        "transcoders' own weights to the CPU or a file and back, which copies and replaces your "
                        "parameters, so leave offload=None and lower batch_size or max_feature_nodes to use less memory")
    started = time.perf_counter()
    cuda = torch.cuda.is_available() and next(module_of(model).parameters()).is_cuda
    if cuda:
        torch.cuda.reset_peak_memory_stats()
    sources = replacement_sources(model, transcoders, prompt, zero_positions, chunk_bytes_within(memory_budget),
                                  probed=False)
    replacement, frozen, reads, features, activations = (sources.replacement, sources.frozen, sources.reads,
                                                         sources.features, sources.activations)
    clean_leaves, held = sources.clean_leaves, sources.held
    L, seq = model.num_layers, frozen.seq_len
    unserved = model.serves("final_norm_output")  # a prediction head between the final norm and lm_head
    clean_stream = None
    with torch.no_grad(), clean_run(frozen), trace(model, frozen.batch):
        if unserved is None:
            clean_stream = model.final_norm_output[0, -1].save()
        clean_lm = model.lm_head_output[0, -1].save()
        clean_logits = model.logits[0, -1].save()
    targets = _targets(model, clean_logits, attribution_targets, desired_logit_prob, max_n_logits)
    if targets.reads_the_stream and unserved is not None:
        raise ToolError(f"a direction over the hidden size is read in the stream lm_head reads, which this model does "
                        f"not serve ({unserved}): give the direction over the vocabulary instead")
    logit_tokens, logit_probabilities = targets.tokens, targets.probabilities
    encoders = [replacement.encoder(i) for i in range(L)]
    embed = sources.embed
    n_feat = len(features)
    n_nodes = n_feat + L * seq + seq + len(logit_tokens)
    logit_start = sources.n_sources

    # targets' inputs: a latent's encoder vector on what it reads; a logit less the mean logit, or a direction
    stream = targets.reads_the_stream

    def target_values(rows_reads, rows_logits, rows_stream, nodes):
        nodes = torch.as_tensor(nodes)
        values = torch.zeros(len(nodes))
        logit_rows = (nodes >= logit_start).nonzero().flatten().tolist()
        if logit_rows:  # the last position once: one select's gradient, not one [rows seq vocab] per target
            last = rows_logits[:, -1].float()
            last_stream = None if rows_stream is None else rows_stream[:, -1].float()
        for r in logit_rows:
            values[r] = targets.value(int(nodes[r]) - logit_start, last[r],
                                      None if last_stream is None else last_stream[r])
        latent_rows = (nodes < logit_start).nonzero().flatten()
        l_p_f = features[nodes[latent_rows]]
        for l in l_p_f[:, 0].unique().tolist():  # a latent's: its encoder vector on what it reads, a block at a time
            mine = (l_p_f[:, 0] == l).nonzero().flatten()
            r, p, f = latent_rows[mine], l_p_f[mine, 1], l_p_f[mine, 2]
            read = rows_reads[l][r, p].float().reshape(len(r), -1)
            values = values.index_put((r,), (read * encoders[l][:, f].T).sum(-1))
        return values

    logit_nodes = list(range(logit_start, n_nodes))
    budget = n_feat if max_feature_nodes is None else min(n_feat, max_feature_nodes)
    # rows only for the targets computed (the logits and the latents the cap visits), as circuit-tracer's
    # edge_matrix: memory grows with max_feature_nodes, not with the active latents. Without a cap every latent is
    # a target: each row is written at its node's index, so the matrix is the adjacency itself (no second copy)
    uncapped = budget == n_feat
    edges = _edge_matrix(n_nodes if uncapped else len(logit_nodes) + budget, n_nodes, memory_budget)
    row_nodes = torch.zeros(len(logit_nodes) + budget, dtype=torch.long)
    filled = 0
    values = torch.zeros(n_nodes)
    constants = torch.zeros(n_nodes)
    clean = torch.zeros(n_nodes)
    computed = torch.zeros(n_nodes, dtype=torch.bool)

    # one forward of the replacement model on as many rows as a pass of targets, its graph kept: each pass is
    # then one backward from it, row r from target r (a batch of batch_size targets in passes of at most `most`)
    dtype_model = frozen.inputs["embed"].dtype

    lean = lean_modules(model, frozen, replacement, dtype_model, model.hidden_size)  # for the forward and the zeros
    # the forward's inputs: one row each, which autograd differentiates by, seen by the pass as ``rows`` rows
    # (views: no [rows seq d] copy a block); each row's gradient is caught at the view (``backward_edges``)
    roots = [value[None].to(dtype_model).clone().requires_grad_(True) for value in [embed, *clean_leaves]]

    def forward(rows):
        e, *leaves = (root.expand(rows, seq, -1) for root in roots)
        with torch.enable_grad(), _weights_not_differentiated(model):
            return e, leaves, replacement_pass(model, frozen, replacement, e, leaves, stream=stream, lean=lean)

    most = min(batch_size, len(logit_nodes) + budget)
    width = max([decoder.shape[0] for source in range(L) for _, decoder in sources.writes[source]] + [1])
    decoded_elements = 2 ** 20  # a pass's decoder products ([rows positions latents], or [rows latents d]) a slice at a time
    if memory_budget is not None:
        most, decoded_elements = _rows_within(memory_budget, most, forward, n_nodes, (L + 1) * seq * model.hidden_size,
                                              recorded_bytes(frozen.attention_calls))
    positions_at_once = max(1, decoded_elements // (most * width))
    latents_at_once = max(1, decoded_elements // (most * model.hidden_size))
    e, leaves, (forward_reads, forward_logits, *forward_stream) = forward(most)
    forward_logits = forward_logits[:, -1:].clone()  # the targets read the last position: the rest is freed
    # after the forward: a trace's values outside the graph it keeps (its attentions' queries and keys) are held
    # until the next trace, this one
    def at_zero():  # the biases' share (and zero_positions', and the held positions ahead's): every source at zero
        with torch.no_grad():
            return replacement_pass(model, frozen, replacement, torch.zeros_like(frozen.inputs["embed"]),
                                    [h[None].to(frozen.inputs[("mlp", 0)].dtype) for h in held], stream=stream,
                                    lean=lean)

    zero_reads, zero_logits, *zero_stream = at_zero()
    ahead_free = None
    if holds_ahead(frozen):  # the share of the MLP outputs held ahead of the call's: the constants without them
        with ahead_at_zero(frozen):
            ahead_free = at_zero()
    held_ahead = torch.zeros(n_nodes)
    forward_stream = forward_stream[0] if stream else None
    zero_stream = zero_stream[0] if stream else None

    def at_rows(reads_, logits_, stream_, nodes):  # the targets' values in a one-row pass, for ``nodes``
        rows = len(nodes)
        return target_values([z.expand(rows, *z.shape[1:]) for z in reads_], logits_.expand(rows, *logits_.shape[1:]),
                             None if stream_ is None else stream_.expand(rows, *stream_.shape[1:]), nodes)

    def one_pass(nodes):
        nonlocal filled
        rows = len(nodes)
        # uncapped, the targets come in node order (the logits, then every latent): their rows are consecutive
        block = edges[nodes[0]:nodes[0] + rows] if uncapped else edges[filled:filled + rows]
        with torch.enable_grad(), _probed_on_failure(model, frozen):
            target = target_values(forward_reads, forward_logits, forward_stream, nodes)
            sources.backward_edges(target.sum(), [e, *leaves], roots, rows, into=block,
                                   latents_at_once=latents_at_once, positions_at_once=positions_at_once)
        t = torch.tensor(nodes)
        values[t] = target.detach().float()
        constants[t] = at_rows(zero_reads, zero_logits, zero_stream, nodes).float()
        if ahead_free is not None:
            free_reads, free_logits, *free_stream = ahead_free
            held_ahead[t] = constants[t] - at_rows(free_reads, free_logits, free_stream[0] if stream else None,
                                                   nodes).float()
        computed[t] = True
        row_nodes[filled:filled + rows] = t
        filled += rows

    def run(nodes):
        for first in range(0, len(nodes), most):
            one_pass(nodes[first:first + most])

    bar = tqdm(total=len(logit_nodes) + budget, desc="attribution graph", disable=not progress)
    for start in range(0, len(logit_nodes), batch_size):
        chunk = logit_nodes[start:start + batch_size]
        run(chunk)
        bar.update(len(chunk))
    visited = torch.zeros(n_feat, dtype=torch.bool)
    weights = torch.zeros(n_nodes)
    weights[logit_start:] = logit_probabilities
    while int(visited.sum()) < budget:  # ranked again every update_interval batches, as circuit-tracer does
        if uncapped:  # every latent is visited: no ranking, in node order (circuit-tracer's too)
            pending = torch.arange(n_feat)
        else:
            influence = _influence(RowNormalized(edges[:filled]), weights, nodes=row_nodes[:filled])[:n_feat]
            influence[visited] = -1
            pending = influence.topk(min(update_interval * batch_size, budget - int(visited.sum()))).indices
        for start in range(0, len(pending), batch_size):
            chunk = pending[start:start + batch_size]
            run(chunk.tolist())
            visited[chunk] = True
            bar.update(len(chunk))
    bar.close()
    del e, leaves, forward_reads, forward_logits, forward_stream  # the forward's graph
    # the clean run's own value of each computed target
    done = computed.nonzero().flatten()
    n_done = len(done)
    clean[done] = target_values([x.expand(n_done, *x.shape[1:]) for x in reads],
                                clean_lm[None, None].expand(n_done, 1, -1),
                                None if clean_stream is None else clean_stream[None, None].expand(n_done, 1, -1),
                                done).float()
    edge_rows = row_nodes if uncapped else None
    residuals = _residuals(edges, row_nodes, values, constants, at=edge_rows)
    full = float(residuals.max()) if len(residuals) else 0.0
    blocks = torch.full((len(row_nodes),), L, dtype=torch.long)  # each target's block: a latent's, the logits' L
    latent_rows = row_nodes < n_feat
    blocks[latent_rows] = features[row_nodes[latent_rows], 0]
    with _probed_on_failure(model, frozen):
        _check_complete(model, residuals, values[row_nodes], clean[row_nodes], blocks, n_nodes, dtype_model)
    ahead_share = None if ahead_free is None else float(
        _residuals(edges, row_nodes, values, constants, at=edge_rows, share=held_ahead).max())
    # circuit-tracer's graph holds the latents it computed (the selected ones): keep those, drop the rest
    if uncapped:
        keep, adjacency = torch.arange(n_nodes), edges
    else:
        keep = torch.cat([visited.nonzero().flatten(), torch.arange(n_feat, n_nodes)])
        kept_at = torch.full((n_nodes,), -1, dtype=torch.long)
        kept_at[keep] = torch.arange(len(keep))
        adjacency = _edge_matrix(len(keep), len(keep), memory_budget)
        step = max(1, 2 ** 20 // n_nodes)  # a slice of rows at a time: no second copy of the whole matrix
        for first in range(0, len(row_nodes), step):
            adjacency[kept_at[row_nodes[first:first + step]]] = edges[first:first + step, keep]
        del edges
    text = prompt if isinstance(prompt, str) else model.tokenizer.decode(frozen.batch["input_ids"][0])
    graph = AttributionGraph(text, token_text(model, frozen.batch["input_ids"][0]), frozen.batch["input_ids"][0],
                             features[visited], activations[visited], adjacency, logit_tokens,
                             logit_probabilities, values[keep], constants[keep], clean[keep], L, computed[keep])
    graph.scan = _scan(transcoders)
    graph.seconds = time.perf_counter() - started
    graph.peak_bytes = torch.cuda.max_memory_allocated() if cuda else 0
    graph.stats = {"active_latents": n_feat, "selected_latents": int(visited.sum()), "nodes": int(len(keep)),
                   "completeness_over_every_active_latent": full, "rows_per_pass": most}
    if ahead_share is not None:  # in each target's constant: the MLP outputs held over the positions ahead
        graph.stats["held_ahead_share"] = ahead_share
    not_run = [i for i in range(L) if not frozen.runs(i)]
    if not_run:  # blocks the call skips (cross-attention blocks on text): no latent, no error, their transcoders silent
        graph.stats["blocks_not_run"] = not_run
    return graph
