"""Lenses: read the residual stream in the vocabulary's terms.

``logit_lens`` projects every block's ``layer_output`` through ``model.project_on_vocab`` (the
model's own final norm, ``lm_head`` and whatever it does past ``lm_head``: softcaps and scales
included), so the last block reads exactly as ``logits``. ``patchscope`` moves one stream from a
source prompt into a target prompt and reads what the model makes of it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import torch

from nnterp.tools._common import (
    TEXT_CALL, ToolError, blocks_serving, encode, layer_indices, positions_of, require, token_ids, token_text, trace,
)
from nnterp.tools.plots import plot_lens

#: The Patchscopes paper's identity prompt: the model continues "?" with what the patched stream encodes.
IDENTITY_PROMPT = "cat -> cat\n1135 -> 1135\nhello -> hello\n?"


@dataclass
class LogitLens:
    """The logit lens of one prompt: per block and position, the top tokens and the targets' probabilities.

    ``top_ids``/``top_probs`` are [blocks positions k]; ``target_probs``/``target_ranks`` are
    [blocks positions targets] (rank 0 is the top token); ``logits`` [blocks positions vocab] is
    kept only when asked for.
    """

    tokens: list[str]
    layers: list[int]
    positions: list[int]
    top_ids: torch.Tensor
    top_probs: torch.Tensor
    top_tokens: list[list[list[str]]]
    targets: list[int] = field(default_factory=list)
    target_tokens: list[str] = field(default_factory=list)
    target_probs: torch.Tensor | None = None
    target_ranks: torch.Tensor | None = None
    logits: torch.Tensor | None = None

    def _column(self, position: int) -> int:
        absolute = position % len(self.tokens)
        if absolute not in self.positions:
            raise ToolError(f"position {position} was not read: pass positions=None or include it")
        return self.positions.index(absolute)

    def _target(self, target) -> int:
        if isinstance(target, str):
            if target not in self.target_tokens:
                raise ToolError(f"{target!r} is not one of the targets {self.target_tokens}: pass it in targets=")
            return self.target_tokens.index(target)
        return self.targets.index(int(target))

    def first_top_block(self, target, position: int = -1) -> int | None:
        """The first block at which ``target`` is the top token at ``position`` (None if never)."""
        ranks = self.target_ranks[:, self._column(position), self._target(target)]
        hits = (ranks == 0).nonzero()
        return self.layers[int(hits[0])] if len(hits) else None

    def top_from_block(self, target, position: int = -1) -> int | None:
        """The block from which ``target`` stays the top token through the last block (None if it is not top at the end)."""
        ranks = self.target_ranks[:, self._column(position), self._target(target)]
        if int(ranks[-1]) != 0:
            return None
        start = len(ranks) - 1
        while start > 0 and int(ranks[start - 1]) == 0:
            start -= 1
        return self.layers[start]

    def table(self, position: int = -1, k: int | None = None) -> str:
        """One line per block: the top tokens at ``position`` with their probabilities, then the targets'."""
        column = self._column(position)
        k = k or self.top_ids.shape[-1]
        header = f"logit lens at position {position} ({self.tokens[self.positions[column]]!r})"
        lines = [header]
        for row, layer in enumerate(self.layers):
            tops = "  ".join(
                f"{tok!r} {float(p):.3f}"
                for tok, p in zip(self.top_tokens[row][column][:k], self.top_probs[row, column, :k]))
            line = f"  block {layer:>3}: {tops}"
            if self.targets:
                line += "  |  " + "  ".join(
                    f"p({t!r})={float(self.target_probs[row, column, j]):.3f} rank {int(self.target_ranks[row, column, j])}"
                    for j, t in enumerate(self.target_tokens))
            lines.append(line)
        return "\n".join(lines)

    def plot(self, path=None, **kwargs):
        """Heatmap of the top token's probability per block and position, the token written in each cell."""
        return plot_lens(self, path, **kwargs)


def _read_streams(model, batch, layers):
    """``layer_output`` of each block in ``layers`` (read in forward order, returned in the order given), and the logits."""
    forward = sorted(set(layers))
    streams = []
    with torch.no_grad():
        with trace(model, batch):
            for layer in forward:
                streams.append(model.layers[layer].layer_output.save())
            logits = model.logits.save()
    by_block = dict(zip(forward, streams))
    return [by_block[layer] for layer in layers], logits


def _blocks_as_given(model, layers) -> list[int]:
    """The blocks a lens row reads, in the order the caller gave them (every serving block by default)."""
    if layers is None:
        return blocks_serving(model, "layer_output")
    chosen = layer_indices(model, layers)
    require(model, "layer_output", sorted(set(chosen)))
    return chosen


def lens_logits(model, prompt, layers=None) -> tuple[torch.Tensor, torch.Tensor]:
    """``project_on_vocab(layer_output)`` of each block, [blocks batch seq vocab] with the blocks in the
    order of ``layers``, and the model's logits.

    By default every block that serves ``layer_output`` (all of them on most families)."""
    layers = _blocks_as_given(model, layers)
    batch = encode(model, prompt)
    streams, logits = _read_streams(model, batch, layers)
    with torch.no_grad():
        projected = torch.stack([model.project_on_vocab(h) for h in streams])
    return projected, logits


def logit_lens(model, prompt: str, *, layers=None, positions=None, top_k: int = 5, targets=None,
               keep_logits: bool = False) -> LogitLens:
    """The logit lens of ``prompt``: every block's stream read through the model's own readout.

    ``targets`` (token texts or ids, e.g. ``" Paris"``) get their probability and rank at every
    block and position. By default every block that serves ``layer_output``.
    """
    layers = blocks_serving(model, "layer_output", layers)
    batch = encode(model, prompt)
    if batch["input_ids"].shape[0] != 1:
        raise ToolError("logit_lens reads one prompt: pass a string, or call lens_logits for a batch")
    seq = batch["input_ids"].shape[1]
    positions = positions_of(seq, positions)
    targets = token_ids(model, targets)
    streams, _ = _read_streams(model, batch, layers)
    index = torch.tensor(targets, dtype=torch.long)
    tops, top_ids, target_probs, target_ranks, kept = [], [], [], [], []
    with torch.no_grad():
        for stream in streams:  # one block at a time: a long prompt's [blocks positions vocab] would not fit
            logits = model.project_on_vocab(stream[0, positions]).float()          # [positions vocab]
            probs = logits.softmax(-1)
            p, i = probs.topk(top_k, dim=-1)
            tops.append(p.cpu())
            top_ids.append(i.cpu())
            if targets:
                chosen = logits[:, index.to(logits.device)]                          # [positions targets]
                target_probs.append(probs[:, index.to(probs.device)].cpu())
                target_ranks.append((logits[:, None, :] > chosen[:, :, None]).sum(-1).cpu())
            if keep_logits:
                kept.append(logits.cpu())
    top_probs, top_ids = torch.stack(tops), torch.stack(top_ids)
    ids = batch["input_ids"][0].tolist()
    top_tokens = [[token_text(model, top_ids[b, p]) for p in range(len(positions))] for b in range(len(layers))]
    return LogitLens(
        tokens=token_text(model, ids), layers=layers, positions=positions, top_ids=top_ids, top_probs=top_probs,
        top_tokens=top_tokens, targets=targets, target_tokens=token_text(model, targets),
        target_probs=torch.stack(target_probs) if targets else None,
        target_ranks=torch.stack(target_ranks) if targets else None,
        logits=torch.stack(kept) if keep_logits else None,
    )


# --------------------------------------------------------------------------- patchscope
@dataclass
class Patchscope:
    """What the target prompt makes of a patched stream: row ``i`` patched source block ``layers[i]``
    into target block ``target_layers[i]``, in the order the blocks were given."""

    layers: list[int]
    top_ids: torch.Tensor                 # [rows k]
    top_probs: torch.Tensor               # [rows k]
    top_tokens: list[list[str]]
    generations: list[str] | None = None
    target_layers: list[int] | None = None  # the same blocks as ``layers`` unless given

    def table(self) -> str:
        lines = []
        targets = self.target_layers or self.layers
        for row, (layer, into) in enumerate(zip(self.layers, targets)):
            tops = "  ".join(f"{t!r} {float(p):.3f}" for t, p in zip(self.top_tokens[row], self.top_probs[row]))
            line = f"  block {layer:>3}" + (f" -> {into:>3}" if into != layer else "") + f": {tops}"
            if self.generations is not None:
                line += f"  |  {self.generations[row]!r}"
            lines.append(line)
        return "\n".join(lines)


def patchscope(model, source_prompt: str, target_prompt: str = IDENTITY_PROMPT, *, layers=None,
               source_position: int = -1, target_position: int = -1, target_layers=None,
               top_k: int = 5, max_new_tokens: int = 0) -> Patchscope:
    """Patch the source prompt's ``layer_output`` at ``source_position`` into the target prompt.

    Block ``layers[i]`` of the source goes into block ``target_layers[i]`` of the target (the
    same block by default) at ``target_position``; each pair is one row of one batched forward, the
    rows in the order given.
    With ``max_new_tokens`` the target is also continued greedily from each patched run.
    """
    layers = _blocks_as_given(model, layers)
    if target_layers is None:
        target_layers = list(layers)
    else:
        target_layers = layer_indices(model, target_layers)
        require(model, "layer_output", sorted(set(target_layers)))
    if len(target_layers) != len(layers):
        raise ToolError(f"{len(layers)} source blocks but {len(target_layers)} target blocks: give one target per source")
    source = encode(model, source_prompt)
    streams, _ = _read_streams(model, source, layers)
    patches = [h[0, source_position] for h in streams]
    target = encode(model, target_prompt)
    rows = len(layers)
    batch = {k: v.expand(rows, *v.shape[1:]) for k, v in target.items()}
    by_block: dict[int, list[int]] = {}
    for row, layer in enumerate(target_layers):
        by_block.setdefault(layer, []).append(row)
    with torch.no_grad():
        with trace(model, batch):
            for layer in sorted(by_block):
                stream = model.layers[layer].layer_output
                for row in by_block[layer]:
                    stream[row, target_position] = patches[row]
            probs = model.next_token_probs.save()
    top_probs, top_ids = probs.float().topk(top_k, dim=-1)
    generations = None
    if max_new_tokens:
        generations = [
            _generate_patched(model, target, target_layers[row], target_position, patches[row], max_new_tokens)
            for row in range(rows)]
    return Patchscope(layers, top_ids.cpu(), top_probs.cpu(), [token_text(model, r) for r in top_ids], generations,
                      target_layers)


def _generate_patched(model, target, layer, position, patch, max_new_tokens) -> str:
    """Greedy continuation of the target with the stream patched in its prompt pass (the first step)."""
    inputs = {k: v for k, v in target.items() if k in TEXT_CALL}
    with torch.no_grad():
        with model.generate(inputs, max_new_tokens=max_new_tokens, do_sample=False) as tracer:
            model.layers[layer].layer_output[:, position] = patch
            ids = tracer.result.save()
    return model.tokenizer.decode(ids[0, target["input_ids"].shape[1]:])
