"""Collect standard values over a dataset of prompts: batched, left-padded, bounded in memory, resumable.

::

    data = collect(model, prompts, ["layer_output", "mlp_output"], layers=[4, 8], positions="last",
                   batch_size=16, path="acts/")          # one file per batch; run again to resume
    data["layer_output"]                                  # [prompts blocks hidden_size]

Prompts are padded on the left, so the last token of every prompt sits at position -1 and
positions counted from the end line up across a batch; positions counted from the start (0, 1,
...) are taken from each prompt's first real token. ``positions="all"`` keeps every real position
of every prompt (padding removed), one tensor per prompt.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

import torch

from nnterp.declare.engine import module_of
from nnterp.tools._common import ToolError, blocks_serving, encode, first_real_position, order_key, read, spec, trace

POSITION_DIMS = ("seq", "query")


@dataclass
class Request:
    name: str
    layer: int | None

    @property
    def key(self) -> tuple[int, int]:
        return order_key(self.name, self.layer)


def _requests(model, values: Sequence[str], layers) -> tuple[list[Request], dict[str, list[int] | None]]:
    """The reads of one batch in forward order, and the blocks each value is read at (None: a model value)."""
    requests, blocks = [], {}
    for name in values:
        entry = spec(name)
        if entry.layout.kind == "scalar":
            raise ToolError(f"{name} is not a tensor: collect tensors such as layer_output")
        if entry.host == "model":
            requests.append(Request(name, None))
            blocks[name] = None
        else:
            blocks[name] = blocks_serving(model, name, layers)
            requests += [Request(name, layer) for layer in blocks[name]]
    return sorted(requests, key=lambda r: r.key), blocks


def _select(tensor: torch.Tensor, name: str, positions, first: torch.Tensor) -> list[torch.Tensor] | torch.Tensor:
    """The chosen positions of a batch-first value, per the layout's position dimensions."""
    dims = spec(name).layout.dims
    where = [i for i, d in enumerate(dims) if d in POSITION_DIMS]
    if not where:
        return tensor
    axis = where[0]
    seq = tensor.shape[axis]
    if positions == "all":
        rows = []
        for row in range(tensor.shape[0]):
            start = int(first[row])
            piece = tensor[row].narrow(axis - 1, start, seq - start)
            if "key" in dims:  # the key axis of a pattern loses the same padding
                key_axis = dims.index("key") - 1
                piece = piece.narrow(key_axis, start, piece.shape[key_axis] - start)
            rows.append(piece)
        return rows
    if positions == "last":
        return tensor.select(axis, seq - 1)
    index = torch.tensor([[p if p < 0 else int(first[row]) + p for p in positions] for row in range(tensor.shape[0])])
    if bool(((index < -seq) | (index >= seq)).any()):
        raise ToolError(f"positions {list(positions)} fall outside a prompt of this batch: use positions counted from the end (-1, -2, ...)")
    index = index % seq
    moved = tensor.movedim(axis, 1)                                              # [batch seq ...]
    gathered = torch.stack([moved[row, index[row]] for row in range(tensor.shape[0])])
    return gathered.movedim(1, axis)


def _fingerprint(model, prompts, requests, positions, batch_size) -> str:
    digest = hashlib.sha256()
    digest.update(json.dumps([str(getattr(module_of(model).config, "_name_or_path", "")), type(module_of(model)).__name__,
                              [(r.name, r.layer) for r in requests], str(positions), batch_size]).encode())
    for prompt in prompts:
        digest.update(prompt.encode() + b"\0")
    return digest.hexdigest()[:16]


class Collection:
    """Collected values by name: a tensor [prompts blocks ...] for block values (the blocks in
    ``blocks[name]``), [prompts ...] for model values; with ``positions="all"``, a list with one such
    tensor per prompt (blocks first). Reads from disk lazily.

    A pattern's key axis is as long as the longest prompt, zeros on the left of shorter ones.
    """

    def __init__(self, names, blocks, positions, chunks=None, path: Path | None = None, count: int = 0, device="cpu"):
        self.names, self.blocks, self.positions = list(names), blocks, positions
        self._chunks = chunks
        self.path = path
        self.count = count
        self.device = device

    def _batches(self):
        if self._chunks is not None:
            yield from self._chunks
            return
        for index in range(self.count):
            yield torch.load(self.path / f"batch_{index:06d}.pt", map_location=self.device, mmap=True)

    def __getitem__(self, name: str):
        if name not in self.names:
            raise ToolError(f"{name!r} was not collected; collected: {', '.join(self.names)}")
        parts = [batch[name] for batch in self._batches()]
        if self.positions == "all":
            return [row for part in parts for row in part]
        return _cat_left_padded(parts)

    def __iter__(self):
        return iter(self.names)

    def __repr__(self) -> str:
        where = f"on disk at {self.path}" if self.path else f"in memory on {self.device}"
        return f"Collection({', '.join(self.names)}; positions {self.positions!r}; {where})"


def collect(model, prompts: Iterable[str], values: Sequence[str] | str, *, layers=None, positions="last",
            batch_size: int = 8, path: str | Path | None = None, device="cpu", dtype: torch.dtype | None = None,
            progress: bool = True) -> Collection:
    """Read ``values`` (standard value names) for every prompt, ``batch_size`` prompts per forward.

    Block values are read at ``layers`` (default: every block that serves the value) and stacked
    along a blocks axis.
    ``positions`` is ``"last"``, ``"all"`` or a list of positions (negative from the end of each
    prompt, non-negative from its first real token). With ``path``, every batch is written to its
    own file there as soon as it is read (memory stays at one batch), and a second call with the
    same arguments resumes after the last finished batch; without it, the values are kept on
    ``device``. ``dtype`` casts what is kept (e.g. ``torch.float16`` to halve the disk).
    """
    values = [values] if isinstance(values, str) else list(values)
    prompts = list(prompts)
    if not prompts:
        raise ToolError("no prompts to collect over: pass a list of strings")
    if not (positions in ("last", "all") or (isinstance(positions, (list, tuple)) and positions)):
        raise ToolError('positions is "last", "all" or a list of positions such as [-2, -1]')
    requests, blocks = _requests(model, values, layers)
    starts = list(range(0, len(prompts), batch_size))
    folder = Path(path) if path is not None else None
    done = 0
    if folder is not None:
        folder.mkdir(parents=True, exist_ok=True)
        manifest = folder / "manifest.json"
        fingerprint = _fingerprint(model, prompts, requests, positions, batch_size)
        if manifest.exists():
            saved = json.loads(manifest.read_text())
            if saved.get("fingerprint") != fingerprint:
                raise ToolError(f"{folder} holds a collection of other prompts or values: pass another path or empty it")
            while done < len(starts) and (folder / f"batch_{done:06d}.pt").exists():
                done += 1
        manifest.write_text(json.dumps({"fingerprint": fingerprint, "values": values, "blocks": blocks,
                                        "positions": positions, "prompts": len(prompts), "batch_size": batch_size}))
    chunks = [] if folder is None else None
    steps = range(done, len(starts))
    if progress:
        from tqdm.auto import tqdm

        steps = tqdm(steps, total=len(starts), initial=done, desc="collect", unit="batch")
    for index in steps:
        batch = encode(model, prompts[starts[index]:starts[index] + batch_size])
        reads = []
        with torch.no_grad():
            with trace(model, batch):
                for request in requests:
                    reads.append(read(model, request.name, request.layer).save())
        first = first_real_position(batch).cpu()
        out: dict[str, object] = {}
        for name in values:
            picked = [_select(t, name, positions, first) for r, t in zip(requests, reads) if r.name == name]
            out[name] = _stack(picked, spec(name).host != "model", positions, device, dtype)
        if folder is None:
            chunks.append(out)
        else:
            partial = folder / f"batch_{index:06d}.pt.partial"
            torch.save(out, partial)
            partial.replace(folder / f"batch_{index:06d}.pt")   # a batch file exists only once complete
    return Collection(values, blocks, positions, chunks, folder, len(starts), device)


def _cat_left_padded(parts: list[torch.Tensor]) -> torch.Tensor:
    """Concatenate along the prompts; an axis that differs between batches (a pattern's keys) is
    padded with zeros on the left, where the padding of a left-padded batch sits."""
    widest = [max(p.shape[d] for p in parts) for d in range(parts[0].dim())]
    padded = []
    for part in parts:
        pad = []
        for d in reversed(range(1, part.dim())):
            pad += [widest[d] - part.shape[d], 0]
        padded.append(torch.nn.functional.pad(part, pad) if any(pad) else part)
    return torch.cat(padded)


def _stack(picked, per_block: bool, positions, device, dtype):
    def keep(t: torch.Tensor) -> torch.Tensor:
        t = t.detach().to(device)
        if dtype is not None and t.is_floating_point():
            t = t.to(dtype)
        return t.clone()  # a view would keep (and save) the whole batch's storage

    if positions == "all":
        rows = len(picked[0])
        if not per_block:
            return [keep(picked[0][row]) for row in range(rows)]
        return [keep(torch.stack([block[row] for block in picked])) for row in range(rows)]
    if not per_block:
        return keep(picked[0])
    return keep(torch.stack(picked, dim=1))
