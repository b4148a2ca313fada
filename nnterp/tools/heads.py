"""Head loadings: how much of one edge of an attribution graph each attention head carries.

``head_loadings(model, transcoders, graph, source, target)`` splits the edge from a source node to a target node
(``graph.adjacency[target, source]``) at each block's attention. With every norm scale, pattern and gate frozen at
the clean run's and the transcoders' latents fixed (the graph's replacement model, ``tools.frozen``), the target's
input is linear in the source, so the edge is a sum over linear paths. At block ``l`` those paths either pass
through the attention, and then through exactly one head's slot of ``attention_premix`` (what the output projection
reads), or skip it: the residual stream, the MLP's side (the transcoders' skips) and every other block. So

    edge = Σ_h head(l, h) + bypass(l),    head(l, h) = Σ_{position, d in h} g_l · δ_l,

where ``δ_l`` is the source's vector carried forward to block l's ``attention_premix`` (its tangent) and ``g_l`` the
target's gradient there. ``g_l`` is the gradient through the output projection, any post-attention norm at its
frozen scale and everything after, so ``head(l, h)`` is what head h's contribution, as the stream receives it, adds
to the edge; the projection's bias, a constant, carries no part of an edge. ``bypass(l)`` is the source's tangent at
the target with block l's ``attention_premix`` held (its tangent cut): the paths that skip that attention.

Every block's split comes from one forward sweep and one backward sweep: one row carries the source's vector
forward as a tangent (forward-mode autograd) to every block's premix and the target, and one backward pass from the
target gives its gradient at every premix; rows with one block's premix tangent cut each, ``batch_size`` blocks a
pass and no autograd graph kept, give the bypasses. ``head_loadings`` checks that the heads and
the bypass give back the graph's own edge at every block before it returns, within what rounding explains
(``head_loadings_tolerance``), and refuses, with the figure, where not.
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass

import torch
from torch.autograd import forward_ad

from nnterp.contract.numerics import UNIT_ROUNDOFF, roundings
from nnterp.declare.companions import projection_of
from nnterp.declare.engine import module_of
from nnterp.declare.locations import Argument
from nnterp.tools._common import ToolError
from nnterp.tools.frozen import replacement_pass
from nnterp.tools.frozen_mixers import _block_mlp
from nnterp.tools.graph import IncompleteGraph, _weights_not_differentiated
from nnterp.tools.graph_replacement import replacement_sources

PREMIX = "attention_premix"


@dataclass
class HeadLoadings:
    """The edge ``graph.adjacency[target, source]`` (``edge``) split at each block of ``layers``: ``heads[i, h]`` is
    head h of block ``layers[i]``'s share, ``bypass[i]`` the share of the paths that skip that block's attention.
    ``source_node`` and ``target_node`` name the nodes as ``QKAttribution.nodes`` does (("latent", block, position,
    index), ("error", block, position), ("embed", position), ("logit", token id)); ``magnitude[i]`` is what the
    terms' rounding is relative to: the absolute products behind the heads, the bypass, and the edge's own (the
    source's vector times the target's gradient, entry by entry)."""

    source: int
    target: int
    source_node: tuple
    target_node: tuple
    layers: list
    heads: torch.Tensor
    bypass: torch.Tensor
    edge: float
    magnitude: torch.Tensor

    @property
    def residuals(self) -> torch.Tensor:
        """Each block's |heads summed + bypass - edge| relative to its ``magnitude``: rounding only."""
        return (self.heads.sum(1) + self.bypass - self.edge).abs() / self.magnitude.clamp(min=1e-30)

    def at(self, layer: int) -> tuple[torch.Tensor, float]:
        """Block ``layer``'s split: (each head's share, the bypass)."""
        if layer not in self.layers:
            raise ToolError(f"block {layer} is not among the blocks these loadings split ({self.layers}): pass "
                            f"layer={layer} or layer=None to head_loadings")
        i = self.layers.index(layer)
        return self.heads[i], float(self.bypass[i])

    def top(self, n: int = 10) -> list:
        """The ``n`` heads with the largest shares by magnitude, over every block split: (block, head, share)."""
        flat = self.heads.flatten()
        width = self.heads.shape[1]
        return [(self.layers[i // width], i % width, float(flat[i]))
                for i in flat.abs().argsort(descending=True)[:n].tolist()]


def head_loadings_tolerance(model, positions: int, width: int, dtype: torch.dtype) -> float:
    """The relative residual rounding alone explains in a block's split: the graph's edge (a backward pass over every
    block), the bypass (a forward pass over every block) and the heads (a forward pass to the block and a backward
    pass from the target to it) each round ``numerics.roundings(model)`` times, and the heads' products are summed
    over ``positions`` × ``width`` entries of the premix; the worst case, relative to ``HeadLoadings.magnitude``."""
    return (3 * roundings(model) + positions * width) * UNIT_ROUNDOFF[dtype]


def _premix_projection(model, layer: int):
    """Block ``layer``'s output projection, whose first argument is ``attention_premix``, and the site's view of
    that argument as [rows positions heads head_dim]; refused where the premix is read elsewhere."""
    why = model.serves(PREMIX, layer)
    if why is not None:
        raise ToolError(f"head loadings split each head's slot of {PREMIX}, which this model does not serve at block "
                        f"{layer}: {why}")
    host = model.layers[layer].self_attn
    site = host._nnterp_site(PREMIX)
    projection = projection_of(site, host)
    element, layout = getattr(site, "element", None), getattr(site, "layout", None)
    if projection is None or not (isinstance(element, Argument) and element.index == 0 and element.keyword is None) \
            or layout is None:
        raise ToolError(f"{model.family.name}'s {PREMIX} at block {layer} is not the first argument of its output "
                        "projection, so head loadings cannot cut each head's slot where the projection reads it")
    return projection, lambda flat: layout.view(flat, model)


def _node_index(graph, node, what: str) -> int:
    """A graph node as its row/column of ``graph.adjacency``: the index itself, or its name (``_node_names``')."""
    n_feat, seq, L = graph.n_features, graph.n_pos, graph.num_layers
    n_nodes = graph.adjacency.shape[0]
    if isinstance(node, int) or (isinstance(node, torch.Tensor) and node.numel() == 1):
        index = int(node)
        if not 0 <= index < n_nodes:
            raise ToolError(f"{what} {index} is not a node of this graph: give an index below {n_nodes}")
        return index
    kind, *place = node
    if kind == "latent":
        found = (graph.features == torch.tensor(place)).all(1).nonzero().flatten()
        if not len(found):
            raise ToolError(f"{what} {tuple(node)} is not a latent of this graph: give one of graph.features")
        return int(found[0])
    shape_ok = len(place) == (2 if kind == "error" else 1) and (kind == "embed" or 0 <= place[0] < L)
    if kind in ("error", "embed") and not (shape_ok and 0 <= place[-1] < seq):
        raise ToolError(f"{what} {tuple(node)} is not a node of this graph: give ('error', block, position) with a "
                        f"block below {L}, or ('embed', position), with a position below {seq}")
    if kind == "error":
        return n_feat + place[0] * seq + place[1]
    if kind == "embed":
        return n_feat + L * seq + place[0]
    if kind == "logit":
        ranks = [rank for rank, (vocab, _) in enumerate(graph.logit_tokens) if vocab == place[0]]
        if not ranks:
            raise ToolError(f"{what} {tuple(node)} is not a logit node of this graph: give one of graph.logit_tokens")
        return n_feat + (L + 1) * seq + ranks[0]
    raise ToolError(f"{what} {node!r} names no node: give an index into graph.adjacency or a name such as "
                    "('latent', block, position, index), ('error', block, position), ('embed', position) or "
                    "('logit', token id)")


def _graph_node_name(graph, index: int) -> tuple:
    n_feat, seq, L = graph.n_features, graph.n_pos, graph.num_layers
    if index < n_feat:
        return ("latent", *map(int, graph.features[index]))
    if index < n_feat + L * seq:
        return ("error", *divmod(index - n_feat, seq))
    if index < n_feat + (L + 1) * seq:
        return ("embed", index - n_feat - L * seq)
    return ("logit", graph.logit_tokens[index - n_feat - (L + 1) * seq][0])


def _same_latents(sources, graph) -> bool:
    """Whether every latent of the graph is active in ``sources`` at the graph's activation (up to the rounding of
    an encoder's dot product over the hidden size, relative to the largest activation)."""
    if not torch.equal(sources.frozen.batch["input_ids"][0], graph.token_ids):
        return False
    if not graph.n_features:
        return True
    mine, theirs = sources.features.cpu(), graph.features.cpu()
    width = int(max(mine[:, 2].max(), theirs[:, 2].max())) + 1 if len(mine) else 0
    keys = (mine[:, 0] * graph.n_pos + mine[:, 1]) * width + mine[:, 2]
    wanted = (theirs[:, 0] * graph.n_pos + theirs[:, 1]) * width + theirs[:, 2]
    order = keys.argsort()
    at = torch.searchsorted(keys[order], wanted).clamp(max=max(len(keys) - 1, 0))
    if not len(keys) or not bool((keys[order][at] == wanted).all()):
        return False
    found = sources.activations.cpu()[order][at]
    allowed = sources.embed.shape[1] * UNIT_ROUNDOFF[torch.float32] * float(found.abs().max())
    return float((found - graph.activations.cpu()).abs().max()) <= allowed


def source_vector(sources, node: tuple) -> tuple[torch.Tensor, list]:
    """A source node's vector as the replacement model's inputs carry it: (at the stream entering block 0, at each
    block's mlp_output), each [positions hidden]: a latent's activation times its decoder vector into every block it
    writes, an error node's error, a token's embedding."""
    embed = torch.zeros_like(sources.embed)
    leaves = [torch.zeros_like(sources.embed) for _ in sources.errors]
    if node[0] == "latent":
        block, position, index = node[1:]
        at = (sources.features.cpu() == torch.tensor([block, position, index])).all(1).nonzero().flatten()
        if not len(at):
            raise ToolError("these transcoders on the graph's tokens give other latents than the graph holds: pass "
                            "the transcoders and zero_positions the graph was built with")
        for written, decoder in sources.writes[block]:
            leaves[written][position] += sources.activations[int(at[0])] * decoder[index]
    elif node[0] == "error":
        leaves[node[1]][node[2]] = sources.errors[node[1]][node[2]]
    else:
        embed[node[1]] = sources.embed[node[1]]
    return embed, leaves


def node_input(replacement, node: tuple, reads, logits) -> torch.Tensor:
    """A target node's input, one a row, as the graph defines it: a latent's encoder vector on what its transcoder
    reads, a logit less the mean logit at the last position."""
    if node[0] == "latent":
        block, position, index = node[1:]
        return reads[block][:, position].float() @ replacement.encoder(block)[:, index]
    last = logits[:, -1].float()
    return last[:, node[1]] - last.mean(-1)


@contextmanager
def _mlps_on_primals(model, replacement):
    """Each MLP's own computation, whose output the replacement discards, run on its input's primal alone: no
    tangent enters it (an MoE's grouped experts have no forward-mode derivative). A block whose transcoder reads
    inside its MLP is left as it runs."""
    def primal(module, args, kwargs):
        def strip(x):
            return forward_ad.unpack_dual(x).primal if isinstance(x, torch.Tensor) else x
        return tuple(strip(a) for a in args), {key: strip(value) for key, value in kwargs.items()}

    handles = []
    for i, layer in enumerate(model.layers):
        mlp, read = _block_mlp(layer), replacement.reads[i]
        if mlp is None or mlp is module_of(layer) or read is None or \
                getattr(read.host, "_module", None) in set(mlp.modules()):
            continue
        handles += [inner.register_forward_pre_hook(primal, with_kwargs=True) for inner in mlp.children()]
    try:
        yield
    finally:
        for handle in handles:
            handle.remove()


@contextmanager
def _premix_cut(layers: list, split: list, cut: dict, tangents: dict, premixes: dict):
    """Forward pre-hooks on the output projection of each block of ``layers`` (``split``: (projection, view)): its
    premix kept (``premixes``, for the target's gradient) with row 0's tangent (``tangents``), and the premix tangent
    of block ``layer`` cut in row ``cut[layer]``."""
    def hook(layer, view):
        def at_projection(module, args):
            premix = args[0]
            premixes[layer] = premix
            tangent = forward_ad.unpack_dual(premix).tangent
            if tangent is None:  # the source does not reach this block's attention
                return None
            tangents[layer] = view(tangent[:1].detach())
            if layer not in cut:
                return None
            taken = torch.zeros_like(tangent)
            taken[cut[layer]] = tangent[cut[layer]].detach()
            return (premix - forward_ad.make_dual(torch.zeros_like(taken), taken), *args[1:])
        return at_projection

    handles = [projection.register_forward_pre_hook(hook(layer, view)) for layer, (projection, view) in
               zip(layers, split)]
    try:
        yield
    finally:
        for handle in handles:
            handle.remove()


def head_loadings(model, transcoders, graph, source, target, layer: int | None = None,
                  zero_positions: slice | None = slice(0, 1), batch_size: int = 32) -> HeadLoadings:
    """The edge from ``source`` to ``target`` in ``graph`` (each a node's index in ``graph.adjacency`` or its
    name, see ``HeadLoadings``) split over the heads of block ``layer``'s attention plus a bypass (see the module's
    text); ``layer=None`` splits it at every block at once. ``transcoders`` and ``zero_positions`` are the ones the
    graph was built with. The target is a latent or a token's logit. ``batch_size``: how many
    blocks' bypasses one forward pass carries (a row each)."""
    L = model.num_layers
    # every block whose attention serves the premix (a Mamba block has none: its paths are in every bypass)
    layers = [i for i in range(L) if model.serves(PREMIX, i) is None] if layer is None else [int(layer) % L]
    split = [_premix_projection(model, i) for i in layers or [0]]
    source, target = _node_index(graph, source, "source"), _node_index(graph, target, "target")
    n_feat, seq = graph.n_features, graph.n_pos
    logit_start = n_feat + (L + 1) * seq
    if source >= logit_start:
        raise ToolError(f"source {source} is a logit node, which has no outgoing edges: give a latent, an error or a "
                        "token node")
    if target < logit_start and target >= n_feat:
        raise ToolError(f"target {target} is an error or token node, which has no incoming edges: give a latent or a "
                        "logit node")
    sources = replacement_sources(model, transcoders, graph.token_ids, zero_positions)
    frozen, replacement = sources.frozen, sources.replacement
    if not _same_latents(sources, graph):
        raise ToolError("these transcoders on the graph's tokens give other latents than the graph holds: pass the "
                        "transcoders and zero_positions the graph was built with")

    name, target_name = _graph_node_name(graph, source), _graph_node_name(graph, target)
    if target_name[0] == "logit" and target_name[1] >= model.vocab_size:
        raise ToolError(f"target {target} is a direction, whose vector the graph does not keep: give a latent or a "
                        "token's logit")
    embed_tangent, leaf_tangents = source_vector(sources, name)
    dtype = frozen.inputs["embed"].dtype

    tangents, premixes = {}, {}

    def sweep(cut: dict, rows: int, differentiated: bool):
        """The replacement model on ``rows`` rows, the source's vector as the inputs' tangent, block ``layer``'s
        premix tangent cut in row ``cut[layer]``; returns (the inputs, the target's input a row)."""
        def inputs(clean, tangent):
            primal = clean[None].expand(rows, seq, -1).to(dtype).clone().requires_grad_(differentiated)
            return primal, forward_ad.make_dual(primal, tangent[None].expand(rows, seq, -1).to(dtype).clone())

        embed, embed_dual = inputs(sources.embed, embed_tangent)
        leaves, leaves_dual = zip(*[inputs(sources.clean_leaves[i], leaf_tangents[i]) for i in range(L)])
        kept = (tangents, premixes) if not cut else ({}, {})  # a cut row's later premixes are not row 0's
        with _premix_cut(layers, split, cut, *kept), _mlps_on_primals(model, replacement):
            reads, logits = replacement_pass(model, frozen, replacement, embed_dual, list(leaves_dual))
        return [embed, *leaves], node_input(replacement, target_name, reads, logits)

    with forward_ad.dual_level(), _weights_not_differentiated(model):
        # the backward sweep: one row whole, its graph kept, from the target's input to every premix and input
        with torch.enable_grad():
            leaves, value = sweep({}, 1, True)
            reached = [i for i in layers if i in tangents]
            grads = torch.autograd.grad(value[0], [premixes[i] for i in reached] + leaves, allow_unused=True)
        gradients = dict(zip(reached, grads[:len(reached)]))
        g_inputs = [torch.zeros_like(leaves[0], dtype=torch.float32) if g is None else g.float()
                    for g in grads[len(reached):]]
        # the forward sweep with one block's premix cut a row: the bypasses, ``batch_size`` blocks at a time
        bypass = torch.zeros(len(layers), dtype=torch.float64)
        with torch.no_grad():
            for first in range(0, len(layers), batch_size):
                chunk = layers[first:first + batch_size]
                _, value = sweep({one: row for row, one in enumerate(chunk)}, len(chunk), False)
                carried = forward_ad.unpack_dual(value).tangent
                if carried is not None:
                    bypass[first:first + len(chunk)] = carried.detach().double().cpu()

    views = [view for _, view in split]
    counts = [view(premixes[one][:1].detach()).shape[-2] for one, view in zip(layers, views)]
    heads = torch.zeros(len(layers), max(counts), dtype=torch.float64)  # a block with fewer heads: zeros past them
    products = torch.zeros(len(layers), dtype=torch.float64)
    for i, one in enumerate(layers):
        g = gradients.get(one)
        if g is None:  # the source does not reach this attention, or the target does not read past it
            continue
        product = views[i](g[:1].double()) * tangents[one].double()       # [1 positions heads head_dim]
        heads[i, :counts[i]] = product.sum((0, 1, 3))
        products[i] = product.abs().sum()
    # the edge's own products: the source's vector times the target's gradient at the inputs, entry by entry
    own = (g_inputs[0][0].double() * embed_tangent).abs().sum() + sum(
        (g[0].double() * t).abs().sum() for g, t in zip(g_inputs[1:], leaf_tangents))
    edge = float(graph.adjacency[target, source])
    magnitude = products + bypass.abs() + float(own) + abs(edge)
    found = HeadLoadings(source, target, name, target_name, layers, heads, bypass, edge, magnitude)
    width = max(premixes[one].shape[-1] for one in layers)
    allowed = head_loadings_tolerance(model, seq, width, dtype)
    residuals = found.residuals
    worst = int(residuals.argmax())
    if float(residuals[worst]) > allowed:
        raise IncompleteGraph(f"{model.family.name}'s head loadings of the edge from {name} to {target_name} are not "
                              f"complete at block {layers[worst]}: its heads and bypass give "
                              f"{float(heads[worst].sum() + bypass[worst]):.6g}, the graph's edge is {edge:.6g}, "
                              f"{float(residuals[worst]):.1e} of their magnitude, more than rounding explains "
                              f"({allowed:.1e}), so a path from the source to the target passes that attention outside "
                              f"its heads' {PREMIX} or the graph was built with other transcoders",
                              float(residuals[worst]), allowed)
    return found


__all__ = ["HeadLoadings", "head_loadings", "head_loadings_tolerance"]
