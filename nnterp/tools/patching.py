"""Activation patching: run the corrupt prompt with one piece of the clean run put back, everywhere.

``patch_positions`` sweeps blocks × positions of a residual value (``layer_output`` by default);
``patch_heads`` sweeps blocks × heads of ``attention_premix``. Each sweep is batched (one row per
patch) and returns a ``Patching`` whose ``scores`` hold the metric per patch; ``normalized`` maps
the corrupt run to 0 and the clean run to 1. ``metric`` takes the last position's logits
[batch vocab] and returns one number per row: ``logit_difference`` and ``probability`` build the
usual ones, and also take the [batch seq vocab] logits of ``run`` or ``model.logits`` (they read
the last position).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import torch

from nnterp.tools._common import (
    ToolError, blocks_serving, encode, positions_of, read, read_blocks, token_id, token_text, trace,
)
from nnterp.tools.plots import plot_patching

RESIDUAL_VALUES = ("layer_input", "layer_mid", "layer_output", "attention_output", "mlp_output")
HEAD_VALUES = ("attention_premix", "attention_head_outputs")


def last_position(logits: torch.Tensor) -> torch.Tensor:
    """[batch vocab] logits: the last position of [batch seq vocab] ones, [batch vocab] ones as they are."""
    if logits.dim() == 3:
        return logits[:, -1]
    if logits.dim() == 2:
        return logits
    raise ToolError(f"a metric takes logits [batch seq vocab] or [batch vocab]; got shape {list(logits.shape)}")


def logit_difference(model, good, bad) -> Callable[[torch.Tensor], torch.Tensor]:
    """logit(good) - logit(bad) at the last position, per row: tokens as single-token texts (``" Paris"``) or ids.

    The metric takes logits [batch seq vocab] (``run``'s, ``model.logits``) or [batch vocab]."""
    good, bad = token_id(model, good), token_id(model, bad)

    def metric(logits: torch.Tensor) -> torch.Tensor:
        logits = last_position(logits)
        return logits[:, good] - logits[:, bad]

    metric.__name__ = f"logit({model.tokenizer.decode([good])!r}) - logit({model.tokenizer.decode([bad])!r})"
    return metric


def probability(model, token) -> Callable[[torch.Tensor], torch.Tensor]:
    """The probability of ``token`` at the last position, per row; the metric takes logits [batch seq vocab] or [batch vocab]."""
    index = token_id(model, token)

    def metric(logits: torch.Tensor) -> torch.Tensor:
        return last_position(logits).float().softmax(-1)[:, index]

    metric.__name__ = f"p({model.tokenizer.decode([index])!r})"
    return metric


@dataclass
class Patching:
    """The metric of every patched run: ``scores`` is [blocks positions] or [blocks heads]."""

    scores: torch.Tensor
    clean: float
    corrupt: float
    layers: list[int]
    columns: list[int]
    column_labels: list[str]
    value: str
    kind: str                      # "positions" or "heads"
    metric_name: str = "metric"
    method: str = "activation patching"
    tokens: list[str] = field(default_factory=list)

    @property
    def normalized(self) -> torch.Tensor:
        """(score - corrupt) / (clean - corrupt): 0 is the corrupt run, 1 the clean one."""
        gap = self.clean - self.corrupt
        if gap == 0:
            raise ToolError("the clean and corrupt runs score the same, so nothing can be normalized: pick prompts the metric tells apart")
        return (self.scores - self.corrupt) / gap

    def top(self, k: int = 5) -> list[tuple[int, int, float]]:
        """The ``k`` patches that move the metric most towards the clean run: (block, column, normalized)."""
        flat = self.normalized.flatten()
        values, index = flat.topk(min(k, flat.numel()))
        columns = len(self.columns)
        return [(self.layers[int(i) // columns], self.columns[int(i) % columns], float(v)) for v, i in zip(values, index)]

    def table(self, k: int = 10) -> str:
        unit = "position" if self.kind == "positions" else "head"
        lines = [f"{self.method} of {self.value} ({self.metric_name}): clean {self.clean:.4f}, corrupt {self.corrupt:.4f}",
                 f"  top {k} (block, {unit}): normalized effect"]
        for layer, column, value in self.top(k):
            label = self.column_labels[self.columns.index(column)]
            lines.append(f"    block {layer:>3}, {unit} {column:>3} {label!r:>14}: {value:+.3f}")
        return "\n".join(lines)

    def plot(self, path=None, **kwargs):
        return plot_patching(self, path, **kwargs)


def _pair(model, clean, corrupt):
    clean_batch, corrupt_batch = encode(model, clean), encode(model, corrupt)
    a, b = clean_batch["input_ids"].shape, corrupt_batch["input_ids"].shape
    if a[0] != 1 or b[0] != 1:
        raise ToolError("patching compares one clean and one corrupt prompt: pass two strings")
    if a != b:
        raise ToolError(f"the clean prompt is {a[1]} tokens and the corrupt one {b[1]}: patching position by position "
                        f"needs prompts of the same length")
    return clean_batch, corrupt_batch


def _score(model, batch, metric) -> torch.Tensor:
    with torch.no_grad():
        with trace(model, batch):
            logits = model.logits[:, -1].save()
    return metric(logits).float()


def _clean_run(model, clean, corrupt, value, layers, positions):
    """What a sweep patches from: the blocks serving ``value``, the two batches, the positions and the clean run's
    ``value`` at each block."""
    layers = blocks_serving(model, value, layers)
    clean_batch, corrupt_batch = _pair(model, clean, corrupt)
    positions = positions_of(clean_batch["input_ids"].shape[1], positions)
    source = {layer: r.clone() for layer, r in read_blocks(model, clean_batch, value, layers).items()}
    return layers, clean_batch, corrupt_batch, positions, source


def _sweep(model, corrupt_batch, jobs, patch, metric, batch_size):
    """Score every job (block, column) as one row of a batched corrupt run; ``patch(model, block, rows_and_columns)``."""
    scores = []
    for start in range(0, len(jobs), batch_size):
        chunk = jobs[start:start + batch_size]
        batch = {k: v.expand(len(chunk), *v.shape[1:]) for k, v in corrupt_batch.items()}
        by_block: dict[int, list[tuple[int, int]]] = {}
        for row, (layer, column) in enumerate(chunk):
            by_block.setdefault(layer, []).append((row, column))
        with torch.no_grad():
            with trace(model, batch):
                for layer in sorted(by_block):
                    patch(model, layer, by_block[layer])
                logits = model.logits[:, -1].save()
        scores.append(metric(logits).float().cpu())
    return torch.cat(scores)


def patch_positions(model, clean: str, corrupt: str, metric, *, value: str = "layer_output", layers=None,
                    positions=None, batch_size: int = 32) -> Patching:
    """Patch the clean run's ``value`` at one (block, position) into the corrupt run, for every pair.

    ``scores[i, j]`` is the metric of the corrupt run with block ``layers[i]``'s ``value`` at
    position ``positions[j]`` taken from the clean run.
    """
    if value not in RESIDUAL_VALUES:
        raise ToolError(f"position sweeps patch a residual value: one of {', '.join(RESIDUAL_VALUES)}")
    layers, clean_batch, corrupt_batch, positions, source = _clean_run(model, clean, corrupt, value, layers, positions)

    def patch(model, layer, rows_and_columns):
        target = read(model, value, layer)
        for row, position in rows_and_columns:
            target[row, position] = source[layer][0, position]

    jobs = [(layer, position) for layer in layers for position in positions]
    scores = _sweep(model, corrupt_batch, jobs, patch, metric, batch_size).view(len(layers), len(positions))
    tokens = token_text(model, clean_batch["input_ids"][0])
    return Patching(scores, float(_score(model, clean_batch, metric)[0]), float(_score(model, corrupt_batch, metric)[0]),
                    layers, positions, [tokens[p] for p in positions], value, "positions",
                    getattr(metric, "__name__", "metric"), tokens=tokens)


def patch_heads(model, clean: str, corrupt: str, metric, *, value: str = "attention_premix", layers=None,
                positions=None, batch_size: int = 32) -> Patching:
    """Patch one head's output (all ``positions``, default every one) from the clean run into the corrupt run, for every head."""
    if value not in HEAD_VALUES:
        raise ToolError(f"head sweeps patch one of {', '.join(HEAD_VALUES)}")
    layers, clean_batch, corrupt_batch, columns, source = _clean_run(model, clean, corrupt, value, layers, positions)
    where = torch.tensor(columns)

    def patch(model, layer, rows_and_heads):
        target = read(model, value, layer)
        for row, head in rows_and_heads:
            target[row, where, head] = source[layer][0, where, head]

    heads = list(range(model.num_heads))
    jobs = [(layer, head) for layer in layers for head in heads]
    scores = _sweep(model, corrupt_batch, jobs, patch, metric, batch_size).view(len(layers), len(heads))
    return Patching(scores, float(_score(model, clean_batch, metric)[0]), float(_score(model, corrupt_batch, metric)[0]),
                    layers, heads, [f"head {h}" for h in heads], value, "heads", getattr(metric, "__name__", "metric"),
                    tokens=token_text(model, clean_batch["input_ids"][0]))
