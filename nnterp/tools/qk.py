"""QK attributions: which nodes of an attribution graph make a head attend from a query position to a key position.

``qk_attribution(model, transcoders, prompt, layer, head)`` splits one head's pre-softmax score (the
``attention_scores`` the model computes: its own rotary on the queries and keys, its own scale, its soft cap) over
the source nodes of the prompt's replacement model, the nodes ``attribution_graph`` builds: the active transcoder
latents, one error node a block and position, and the token embeddings. With every norm scale, pattern and gate
frozen at the clean run's (``tools.frozen``), the query at position ``query`` is affine in the sources, and so is the
key at each key position: ``q = Σ_a q_a + q₀`` and ``k = Σ_b k_b + k₀`` (``q₀``, ``k₀``: every source at zero, the
biases' share and the positions ``zero_positions`` holds). The scaled product is then bilinear,

    scale · q·k = Σ_a Σ_b scale · q_a·k_b  +  Σ_a scale · q_a·k₀  +  Σ_b scale · q₀·k_b  +  scale · q₀·k₀,

and the score is that, soft-capped where the family caps (``cap · tanh(x / cap)``), plus what the score adds that
no query or key carries (ALiBi's bias; zero under rotary), measured at zero sources. ``q_a`` and ``k_b`` are a
source's vector times the gradient of each query and key component through the frozen replacement model, the edges
of an attribution graph whose targets are the query's and key's components. ``QKAttribution`` holds the pairwise
table (query-side node × key-side node), the bias terms and the marginals; ``qk_attribution`` checks that they give
back the model's own score before it returns (``QKAttribution.residual``), and refuses, with the figure, where not.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from nnterp.contract.numerics import UNIT_ROUNDOFF, roundings
from nnterp.tools._common import ToolError, trace
from nnterp.tools.frozen import replacement_pass
from nnterp.tools.graph import IncompleteGraph
from nnterp.tools.graph_replacement import replacement_sources

#: the values a score is made of: the queries and keys as the product takes them (rotated), and the score
QUERIES, KEYS, SCORES = "attention_queries", "attention_keys", "attention_scores"
#: the attention's attribute its product is multiplied by, as the families name it
SCALE_NAMES = ("scaling", "inv_norm_factor", "softmax_scale", "scale_attn")


@dataclass
class QKAttribution:
    """Head ``head`` of block ``layer``, its score from position ``query`` to position ``key``, split over the
    source nodes (``nodes``: ("latent", block, position, index), ("error", block, position), ("embed", position), the
    graph's order). ``query_nodes`` and ``key_nodes`` index the nodes with a share in the query and in the key;
    ``pairs[i, j]`` is scale · q_a·k_b for a = query_nodes[i], b = key_nodes[j]; ``query_with_key_bias[i]`` is
    scale · q_a·k₀, ``key_with_query_bias[j]`` scale · q₀·k_b, ``bias`` scale · q₀·k₀; ``position`` what the score
    adds that no query or key carries; ``softcap`` the family's cap or None; ``score`` the model's own."""

    layer: int
    head: int
    query: int
    key: int
    nodes: list
    query_nodes: torch.Tensor
    key_nodes: torch.Tensor
    pairs: torch.Tensor
    query_with_key_bias: torch.Tensor
    key_with_query_bias: torch.Tensor
    bias: float
    position: float
    softcap: float | None
    scale: float
    score: float
    #: scale · ((|q₀| + Σ|q_a|) |k| + |q| (|k₀| + Σ|k_b|)) + |position|, q and k the clean run's: what the terms'
    #: rounding is relative to
    magnitude: float
    probability: float

    @property
    def raw(self) -> float:
        """scale · q·k rebuilt from the terms: every pair plus the bias terms."""
        return float(self.pairs.sum() + self.query_with_key_bias.sum() + self.key_with_query_bias.sum()) + self.bias

    @property
    def total(self) -> float:
        """The score rebuilt: ``raw``, soft-capped where the family caps, plus ``position``."""
        raw = self.raw if self.softcap is None else self.softcap * torch.tanh(torch.tensor(self.raw / self.softcap))
        return float(raw) + self.position

    @property
    def residual(self) -> float:
        """|score - total| relative to ``magnitude``: rounding only."""
        return abs(self.score - self.total) / max(self.magnitude, 1e-30)

    def query_marginals(self) -> torch.Tensor:
        """Each query-side node's share of scale · q·k: its row of ``pairs`` and its product with k₀."""
        return self.pairs.sum(1) + self.query_with_key_bias

    def key_marginals(self) -> torch.Tensor:
        """Each key-side node's share of scale · q·k: its column of ``pairs`` and its product with q₀."""
        return self.pairs.sum(0) + self.key_with_query_bias

    def top(self, n: int = 10) -> list:
        """The ``n`` largest pairs by magnitude: (query-side node, key-side node, share)."""
        flat = self.pairs.flatten()
        order = flat.abs().argsort(descending=True)[:n].tolist()
        width = self.pairs.shape[1]
        return [(self.nodes[int(self.query_nodes[i // width])], self.nodes[int(self.key_nodes[i % width])],
                 float(flat[i])) for i in order]


def _node_names(sources) -> list:
    features, seq, blocks = sources.features, sources.frozen.seq_len, len(sources.errors)
    return ([("latent", *map(int, f)) for f in features] +
            [("error", block, p) for block in range(blocks) for p in range(seq)] + [("embed", p) for p in range(seq)])


def _score_form(model, layer: int, q, k, scores, q0, k0, zero_scores, live, dtype):
    """The scale and the soft cap that make the model's scores of this head (every live key) ``cap(scale · q·k)``
    plus the zero run's ``zero_scores - cap(scale · q₀·k₀)``: the attention's own scale attribute, or 1 (a family
    that scales its queries before the product); refused where neither gives the scores back."""
    attention = model.layers[layer].self_attn._module
    cap = getattr(model.config, "attn_logit_softcapping", None) or None
    declared = next((float(getattr(attention, name)) for name in SCALE_NAMES
                     if isinstance(getattr(attention, name, None), (int, float))
                     and not isinstance(getattr(attention, name), bool)), None)
    if declared is None and getattr(attention, "scale", None) is True:  # a switch: divided by the root of the width
        declared = q.shape[-1] ** -0.5
    if declared is None and isinstance(getattr(attention, "norm_factor", None), (int, float)):  # a divisor
        declared = 1 / attention.norm_factor
    if declared is None and getattr(attention, "scale_attn_weights", False):  # GPT-2's
        declared = q.shape[-1] ** -0.5 / (attention.layer_idx + 1 if attention.scale_attn_by_inverse_layer_idx else 1)

    def capped(x):
        return x if cap is None else cap * torch.tanh(x / cap)

    # each of the four products (the model's q·k and q₀·k₀, and these) rounds at most width times, of the
    # product's magnitude (|q|·|k|, the largest over the keys)
    allowed = 4 * q.shape[-1] * UNIT_ROUNDOFF[dtype]
    for scale in [s for s in (declared, 1.0) if s is not None]:
        rebuilt = capped(scale * (k @ q)) + zero_scores - capped(scale * (k0 @ q0))
        magnitude = scale * float(q.norm() * k.norm(dim=-1).max() + q0.norm() * k0.norm(dim=-1).max())
        if float((rebuilt - scores)[live].abs().max()) <= allowed * max(magnitude, 1e-30):
            return scale, cap
    raise ToolError(f"{model.family.name}'s attention_scores at block {layer} are not a scale times the queries' "
                    "product with the keys (soft-capped where the family caps) plus a term of the positions alone, "
                    "so a QK attribution cannot split them")


def qk_tolerance(model, layer: int, dtype: torch.dtype) -> float:
    """The relative residual rounding alone explains in a QK attribution: each share of the query (or key) is a
    gradient through a forward and a backward pass over the blocks up to ``layer``'s attention (``numerics.roundings``
    each) times a source's vector (a sum over the hidden size), so at most ``2 · roundings + hidden_size`` roundings of
    ``dtype`` relative to its magnitude; the pairs are summed in float64 against the other side's whole vector, so
    the score's residual is at most the query side's plus the key side's, relative to ``QKAttribution.magnitude``
    (the worst case, not the random walk's square root)."""
    return 2 * (2 * roundings(model, layer + 1) + model.hidden_size) * UNIT_ROUNDOFF[dtype]


def qk_attribution(model, transcoders, prompt, layer: int, head: int, query: int = -1, keys=None, top_k: int = 3,
                   zero_positions: slice | None = slice(0, 1), batch_size: int = 64) -> list:
    """Head ``head`` of block ``layer``: its pre-softmax score from position ``query`` to each key position, split
    over the prompt's replacement model's source nodes (see the module's text), one ``QKAttribution`` a key. ``keys``:
    a position or a list of them; None for the ``top_k`` keys the head attends to most from ``query`` in the clean
    run. ``transcoders``, ``prompt`` and ``zero_positions`` as ``attribution_graph``'s, so the nodes are its nodes."""
    for name in (QUERIES, KEYS, SCORES):
        why = model.serves(name, layer)
        if why is not None:
            raise ToolError(f"a QK attribution reads {name}, which this model does not serve at block {layer}: {why}")
    sources = replacement_sources(model, transcoders, prompt, zero_positions)
    frozen, L = sources.frozen, model.num_layers
    seq = frozen.seq_len
    query = query % seq
    attention = model.layers[layer].self_attn

    def read(attention):  # in forward order: the queries, the keys, the scores
        return [getattr(attention, QUERIES).save(), getattr(attention, KEYS).save(), getattr(attention, SCORES).save()]

    clean = []
    with torch.no_grad(), trace(model, frozen.batch):
        clean.extend(read(attention))
        pattern = attention.attention_probabilities[0, head, query].save()
    q_all, k_all, scores_all = clean
    heads, kv_heads = q_all.shape[1], k_all.shape[1]
    kv_head = head // (heads // kv_heads)
    scores = scores_all[0, head, query].double()
    live = scores > torch.finfo(scores_all.dtype).min / 2
    if keys is None:
        keys = pattern.float().masked_fill(~live, -1).topk(min(top_k, int(live.sum()))).indices.tolist()
    keys = [int(k) % seq for k in ([keys] if isinstance(keys, int) else keys)]
    for key in keys:
        if not live[key]:
            raise ToolError(f"key position {key} is masked for query position {query} at block {layer}, so it has no "
                            "score to split: choose a key the query attends to (at or before it)")

    held = [h[None].to(frozen.inputs[("mlp", 0)].dtype) for h in sources.held]
    with torch.no_grad():  # every source at zero: the queries' and keys' constants, the positions' own term
        *_, (q0_all, k0_all, zero_all) = replacement_pass(model, frozen, sources.replacement,
                                                          torch.zeros_like(frozen.inputs["embed"]), held,
                                                          attention=(layer, read))
    q0, k0 = q0_all[0, head, query].double(), k0_all[0, kv_head].double()
    q_clean, k_clean = q_all[0, head, query].double(), k_all[0, kv_head].double()
    scale, cap = _score_form(model, layer, q_clean, k_clean, scores, q0, k0, zero_all[0, head, query].double(), live,
                             q_all.dtype)

    # one forward of the replacement model, its graph kept; each batch of targets (a component of the query, or of
    # a key) is one backward pass from it, row r from target r
    width = q_all.shape[-1]
    targets = [(None, j) for j in range(width)] + [(key, j) for key in keys for j in range(width)]
    most = min(batch_size, len(targets))
    dtype = frozen.inputs["embed"].dtype
    embed = sources.embed[None].expand(most, seq, -1).to(dtype).clone().requires_grad_(True)
    leaves = [sources.clean_leaves[i][None].expand(most, seq, -1).to(dtype).clone().requires_grad_(True)
              for i in range(L)]
    with torch.enable_grad():
        *_, (q_rows, k_rows, _) = replacement_pass(model, frozen, sources.replacement, embed, leaves,
                                                   attention=(layer, read))
    if not (q_rows.requires_grad and k_rows.requires_grad):  # a read that copies, or a path held constant
        raise ToolError(f"{model.family.name}'s {QUERIES} and {KEYS} at block {layer} carry no gradient from the "
                        "sources in the replacement model, so a QK attribution cannot split them")
    shares = []
    for start in range(0, len(targets), most):
        chunk = targets[start:start + most]
        with torch.enable_grad():
            values = torch.stack([q_rows[r, head, query, j] if key is None else k_rows[r, kv_head, key, j]
                                  for r, (key, j) in enumerate(chunk)])
            grads = torch.autograd.grad(values.sum(), [embed, *leaves], retain_graph=True, allow_unused=True)
        g_embed = grads[0][:len(chunk)].float()
        g_leaves = [torch.zeros_like(g_embed) if g is None else g[:len(chunk)].float() for g in grads[1:]]
        shares.append(sources.edges(g_embed, g_leaves))
    shares = torch.cat(shares).double()                               # [targets, sources]
    q_shares = shares[:width].T                                       # [sources, width]
    names = _node_names(sources)
    query_nodes = q_shares.abs().sum(1).nonzero().flatten()
    allowed = qk_tolerance(model, layer, dtype)
    out = []
    for place, key in enumerate(keys):
        k_shares = shares[width * (place + 1): width * (place + 2)].T
        key_nodes = k_shares.abs().sum(1).nonzero().flatten()
        qa, kb, k0_key = q_shares[query_nodes], k_shares[key_nodes], k0[key]
        bias = scale * float(q0 @ k0_key)
        position = float(zero_all[0, head, query, key].double()) - (
            bias if cap is None else cap * float(torch.tanh(torch.tensor(bias / cap))))
        # a share's rounding δ: the pairs sum it against the whole other side, Σ_a δq_a·k + q·Σ_b δk_b
        magnitude = scale * float((q0.norm() + qa.norm(dim=1).sum()) * k_clean[key].norm()
                                  + q_clean.norm() * (k0_key.norm() + kb.norm(dim=1).sum())) + abs(position)
        one = QKAttribution(layer, head, query, key, names, query_nodes, key_nodes, scale * qa @ kb.T,
                            scale * qa @ k0_key, scale * kb @ q0, bias, position, cap, scale, float(scores[key]),
                            magnitude, float(pattern[key]))
        if one.residual > allowed:
            raise IncompleteGraph(f"{model.family.name}'s QK attribution of head {head} at block {layer} is not "
                                  f"complete: its terms give {one.total:.6g} for the score from position {query} to "
                                  f"{key}, the model's is {one.score:.6g}, {one.residual:.1e} of their magnitude, more "
                                  f"than rounding explains ({allowed:.1e}), so something between the sources and the "
                                  "queries or keys that the frozen trace does not fix is not linear",
                                  one.residual, allowed)
        out.append(one)
    return out


__all__ = ["QKAttribution", "qk_attribution", "qk_tolerance"]
