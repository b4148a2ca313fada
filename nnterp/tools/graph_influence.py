"""How much each node of an attribution graph matters to the logits: circuit-tracer's influence (through the row-
normalized adjacency A + A² + ...), the pruning it drives, and its replacement and completeness scores."""

from __future__ import annotations

import torch

from nnterp.tools._common import ToolError


def _normalized(matrix):
    absolute = matrix.abs()
    return absolute.div_(absolute.sum(1, keepdim=True).clamp(min=1e-10))


class RowNormalized:
    """``_normalized(matrix)`` as a right operand of ``vector @``, a slice of rows at a time: no normalized copy of
    the matrix exists (a matrix kept on disk under a memory budget stays there)."""

    def __init__(self, matrix: torch.Tensor, elements: int = 2 ** 22) -> None:
        self.matrix, self.step = matrix, max(1, elements // max(1, matrix.shape[1]))
        self.sums = torch.cat([matrix[first:first + self.step].abs().sum(1)
                               for first in range(0, matrix.shape[0], self.step)] or [torch.zeros(0)])

    def __rmatmul__(self, vector: torch.Tensor) -> torch.Tensor:
        scaled = vector / self.sums.clamp(min=1e-10)
        out = torch.zeros(self.matrix.shape[1], dtype=self.matrix.dtype)
        for first in range(0, self.matrix.shape[0], self.step):
            out += scaled[first:first + self.step] @ self.matrix[first:first + self.step].abs()
        return out


def _influence(A, weights, max_iter: int = 1000, nodes=None):
    """Each node's influence on the weighted nodes through A + A² + ...; with ``nodes``, A holds only the rows of
    those nodes (circuit-tracer's partial influences: the other rows are zero)."""
    current = weights @ A if nodes is None else weights[nodes] @ A
    total = current.clone()
    for _ in range(max_iter):
        if not bool(current.any()):
            return total
        current = current @ A if nodes is None else current[nodes] @ A
        total += current
    raise ToolError("the influence did not converge: the graph has a cycle")


def _threshold(scores, fraction: float):
    ordered = scores.sort(descending=True).values
    cumulative = ordered.cumsum(0) / ordered.sum().clamp(min=1e-30)
    index = min(int(torch.searchsorted(cumulative, fraction)), len(cumulative) - 1)
    return ordered[index]


def prune(adjacency, logit_probabilities, n_tokens: int, n_features: int, node_threshold: float = 0.8,
          edge_threshold: float = 0.98):
    """circuit-tracer's ``prune_graph``: keep the nodes (then the edges) that carry ``node_threshold``
    (``edge_threshold``) of the influence on the logits; tokens and logits always stay. Returns (node mask, edge
    mask, each node's cumulative influence score)."""
    n_logits = len(logit_probabilities)
    weights = torch.zeros(adjacency.shape[0])
    weights[-n_logits:] = logit_probabilities
    influence = _influence(_normalized(adjacency), weights)
    node_mask = influence >= _threshold(influence, node_threshold)
    node_mask[-n_logits - n_tokens:] = True
    pruned = adjacency.clone()
    pruned[~node_mask] = 0
    pruned[:, ~node_mask] = 0
    normalized = _normalized(pruned)
    edge_scores = normalized * (_influence(normalized, weights) + weights)[:, None]
    edge_mask = edge_scores >= _threshold(edge_scores.flatten(), edge_threshold)
    old = node_mask.clone()
    node_mask[:-n_logits - n_tokens] &= edge_mask[:, :-n_logits - n_tokens].any(0)
    node_mask[:n_features] &= edge_mask[:n_features].any(1)
    while not torch.equal(node_mask, old):
        old[:] = node_mask
        edge_mask[~node_mask] = False
        edge_mask[:, ~node_mask] = False
        node_mask[:-n_logits - n_tokens] &= edge_mask[:, :-n_logits - n_tokens].any(0)
        node_mask[:n_features] &= edge_mask[:n_features].any(1)
    ordered, order = influence.sort(descending=True)
    scores = torch.zeros_like(influence)
    scores[order] = ordered.cumsum(0) / ordered.sum().clamp(min=1e-30)
    return node_mask, edge_mask, scores


def compute_graph_scores(graph) -> tuple[float, float]:
    """circuit-tracer's ``compute_graph_scores``: (replacement score, completeness score). With ``A`` the adjacency
    normalized by each row's sum of |edges| and each node's influence on the logits (the logits weighted by their
    probabilities, through A + A² + ...): the replacement score is the tokens' influence over the tokens' and the
    errors' together; the completeness score is, weighted by each node's influence plus its own logit weight, the
    share of its normalized inputs that does not come from error nodes. Not ``AttributionGraph.completeness``, the
    check that a target's input is the sum of its edges."""
    n_logits, n_tokens, n_features = len(graph.logit_tokens), graph.n_pos, graph.n_features
    error_start = n_features
    error_end = error_start + n_tokens * graph.num_layers
    token_end = error_end + n_tokens
    weights = torch.zeros(graph.adjacency.shape[0])
    weights[-n_logits:] = graph.logit_probabilities
    normalized = _normalized(graph.adjacency)
    influence = _influence(normalized, weights)
    tokens, errors = influence[error_end:token_end].sum(), influence[error_start:error_end].sum()
    replacement = tokens / (tokens + errors)
    non_error = 1 - normalized[:, error_start:error_end].sum(-1)
    output = influence + weights
    completeness = (non_error * output).sum() / output.sum()
    return float(replacement), float(completeness)
