"""Attention a query chunk at a time, so that no [heads, positions, positions] tensor exists at once.

Under ``chunked_attention(chunk_bytes)`` every call of an eager attention kernel (the ``attention_interface`` a
transformers attention calls under ``attn_implementation="eager"``) goes through ``_chunked``: the family's own
kernel (its module's ``eager_attention_forward``: its mask, sliding window, sinks, soft cap, ALiBi in the mask and
scaling as it computes them) runs on a slice of the queries at a time, with the matching rows of the mask. A
query's pattern row depends only on that query, every key and its mask row, so the output is the whole call's.

A frozen trace (``freeze(..., chunk_bytes=...)``) records, instead of each block's [1 heads q k] pattern, what
recomputes it a chunk at a time (``AttentionCall``: the clean run's queries and keys after rotary, one row of its
mask, the kernel's other arguments); the replacement passes then mix their values with it through ``FrozenMix``,
whose forward and backward recompute one chunk of the pattern at a time: its backward keeps no pattern (the pattern
is a constant of the frozen map: the values' gradient is pattern^T @ the output's, the queries and keys get none).
Where the frozen map runs many rows of the one prompt, each pass's mask is made for one row (``_one_row_mask``), and
a recorded mask of 0 and the dtype's least value is kept as a bool (``_compact``).

A kernel whose output is not its pattern times its values (the heads' values repeated to the queries' heads; Granite
SWA's scales its output by a sink gate after the pattern) cannot be replayed from its pattern: ``_replayable`` checks
each call on the clean run, and ``freeze`` then keeps that model's patterns stored, unchunked. An attention whose own
code computes its pattern, outside ``attention_interface`` (Bloom's, Falcon's), is never routed here: its frozen
trace keeps the stored pattern (``freeze``'s ``_recomputed_blocks``).
"""

from __future__ import annotations

import sys
import weakref
from contextlib import contextmanager
from dataclasses import dataclass, field

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from transformers.masking_utils import ALL_MASK_ATTENTION_FUNCTIONS
from transformers.modeling_utils import ALL_ATTENTION_FUNCTIONS

from nnterp.contract.numerics import UNIT_ROUNDOFF
from nnterp.tools._common import ToolError

EAGER = "eager"


@dataclass
class AttentionCall:
    """One call of an attention kernel in the clean run: what recomputes its pattern, rows ``start:stop`` of the
    queries at a time (``pattern``)."""

    kernel: object
    module: torch.nn.Module
    queries: torch.Tensor
    keys: torch.Tensor
    values: torch.Tensor
    mask: torch.Tensor | None
    scaling: float | None
    dropout: float
    kwargs: dict
    #: the mask kept as a bool of where it is 0, its other value this (``_compact``)
    mask_floor: float | None = None
    #: whether the kernel's output is its pattern times its values (``_replayable``)
    replayable: bool = True

    def pattern(self, start: int, stop: int) -> torch.Tensor:
        """Rows ``start:stop`` of the pattern, [1 heads stop-start keys], as the kernel computes them (a constant of
        the frozen map: no gradient to a sink's or a soft cap's parameters)."""
        with torch.no_grad():
            return _kernel_chunk(self.kernel, self.module, self.queries, self.keys, self.values, self.mask, start, stop,
                                 self.scaling, self.dropout, self.kwargs, self.mask_floor)[1]


@dataclass
class _State:
    chunk_bytes: int
    record: dict | None = None  # attention module -> its calls in the clean run
    replay: dict | None = None  # attention module -> its calls, replayed call by call
    taken: dict = field(default_factory=dict)
    compact: dict = field(default_factory=dict)  # id(mask) -> (mask, compact mask, floor), while recording


_states: list = []  # the innermost chunked_attention's state last


def _kernel_chunk(kernel, module, queries, keys, values, mask, start, stop, scaling, dropout, kwargs, floor=None):
    """The kernel on queries ``start:stop`` (and the mask's rows for them; a compact mask's 0 and ``floor`` back),
    with no torch-function mode on (the frozen trace's gates are the kernel's call, not its softmax chunk by
    chunk)."""
    length = queries.shape[2]
    rows = _query_rows(mask, length, start, stop)
    if floor is not None:
        rows = torch.where(rows, torch.zeros((), dtype=queries.dtype), torch.tensor(floor, dtype=queries.dtype))
    # an argument laid out over the queries and the keys (Inkling's position bias, its sinks a query): its rows too
    kwargs = {name: _query_rows(value, length, start, stop) for name, value in kwargs.items()}
    with torch._C.DisableTorchFunction():
        return kernel(module, queries[:, :, start:stop], keys, values, rows, scaling=scaling, dropout=dropout,
                      **kwargs)


def _query_rows(value, length: int, start: int, stop: int):
    """Rows ``start:stop`` of a tensor laid out [.. queries keys] (a mask, a bias), anything else as it is."""
    if isinstance(value, torch.Tensor) and value.dim() >= 3 and value.shape[-2] == length > 1:
        return value[..., start:stop, :]
    return value


def _chunk_rows(state: _State, rows: int, heads: int, keys: int) -> int:
    """Query rows a chunk takes: its [rows heads chunk keys] float32 scores within ``chunk_bytes``."""
    return max(1, state.chunk_bytes // (4 * rows * heads * keys))


def _repeated(values: torch.Tensor, heads: int) -> torch.Tensor:
    """The values' heads repeated to the queries' (transformers' repeat_kv: head h reads key-value head
    h // groups)."""
    return values.repeat_interleave(heads // values.shape[1], dim=1)


def _mixed(pattern: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    """[1 heads c keys] @ [rows heads keys d] -> [rows heads c d], the rows folded into one product (no copy of
    the pattern a row)."""
    rows, heads, keys, width = values.shape
    folded = values.permute(1, 2, 0, 3).reshape(heads, keys, rows * width)
    return (pattern[0] @ folded).reshape(heads, -1, rows, width).permute(2, 0, 1, 3)


class FrozenMix(torch.autograd.Function):
    """``call``'s frozen pattern times ``values`` [rows kv_heads keys d], laid out as the kernel returns it
    [rows queries heads d]; forward and backward recompute the pattern ``chunk`` query rows at a time."""

    @staticmethod
    def forward(ctx, values, call, chunk):
        ctx.call, ctx.chunk, ctx.kv_heads = call, chunk, values.shape[1]
        heads, length = call.queries.shape[1], call.queries.shape[2]
        repeated = _repeated(values, heads)
        out = values.new_empty(values.shape[0], heads, length, values.shape[-1])
        for start in range(0, length, chunk):
            out[:, :, start:start + chunk] = _mixed(call.pattern(start, start + chunk).to(values.dtype), repeated)
        return out.transpose(1, 2).contiguous()

    @staticmethod
    def backward(ctx, grad):
        call, chunk = ctx.call, ctx.chunk
        heads, length = call.queries.shape[1], call.queries.shape[2]
        grad = grad.transpose(1, 2)  # [rows heads queries d]
        total = None
        for start in range(0, length, chunk):
            pattern = call.pattern(start, start + chunk).to(grad.dtype).transpose(-1, -2)  # [1 heads keys c]
            part = _mixed(pattern, grad[:, :, start:start + chunk])
            total = part if total is None else total + part
        return total.unflatten(1, (ctx.kv_heads, heads // ctx.kv_heads)).sum(2), None, None


def _compact(mask):
    """A mask of two values, 0 and the least of its dtype (transformers' eager masks), as a bool of where it is 0
    and that least value: a quarter of a float32 mask's bytes. Any other mask (a bias in it, ALiBi's) as it is."""
    if mask is None or mask.dim() != 4 or not mask.is_floating_point():
        return mask, None
    floor = torch.finfo(mask.dtype).min
    zero = mask == 0
    if not bool((zero | (mask == floor)).all()):
        return mask, None
    return zero, floor


def _replayable(call: AttentionCall, out: torch.Tensor, stop: int) -> bool:
    """Whether the kernel's output on the first chunk is its pattern times its (repeated) values, to the rounding of
    a sum over the keys; else its pattern cannot be replayed on other values."""
    pattern = call.pattern(0, stop).to(call.values.dtype)
    replayed = _mixed(pattern, _repeated(call.values, pattern.shape[1])).transpose(1, 2)
    keys = call.keys.shape[2]
    magnitude = float(call.values.abs().max()) + 1e-30
    allowed = 4 * keys * UNIT_ROUNDOFF[call.values.dtype] * magnitude
    return float((replayed.float() - out[:1].float()).abs().max()) <= allowed


def _chunked(module, query, key, value, attention_mask, scaling=None, dropout=0.0, **kwargs):
    """The eager kernel of ``module``'s family, a query chunk at a time; recorded in a frozen trace's clean run,
    replaced by ``FrozenMix`` of its recorded call in a frozen pass."""
    state = _states[-1]
    if state.replay is not None and module in state.replay:
        calls = state.replay[module]
        taken = state.taken.get(module, 0)
        state.taken[module] = taken + 1
        call = calls[taken % len(calls)]
        chunk = _chunk_rows(state, 1, call.queries.shape[1], call.keys.shape[2])
        return FrozenMix.apply(value, call, chunk), None
    kernel = getattr(sys.modules[type(module).__module__], "eager_attention_forward", None)
    if kernel is None:
        raise ToolError(f"{type(module).__name__} has no eager attention kernel of its own to run a query chunk at a "
                        "time: run without memory_budget")
    chunk = _chunk_rows(state, query.shape[0], query.shape[1], key.shape[2])
    outs = []
    for start in range(0, query.shape[2], chunk):
        outs.append(_kernel_chunk(kernel, module, query, key, value, attention_mask, start, start + chunk, scaling,
                                  dropout, kwargs)[0])
    out = torch.cat(outs, dim=1)  # the kernel's output is [rows queries heads d]
    if state.record is not None:
        mask = attention_mask[:1] if attention_mask is not None and attention_mask.dim() == 4 else attention_mask
        kept = state.compact.get(id(mask)) if mask is not None else None  # the blocks share one mask: compacted once
        if kept is None or kept[0] is not mask:
            kept = state.compact[id(mask)] = (mask, *_compact(mask))
        call = AttentionCall(kernel, module, query[:1].detach(), key[:1].detach(), value[:1].detach(), kept[1],
                             scaling, dropout, kwargs, kept[2])
        call.replayable = _replayable(call, outs[0], min(chunk, query.shape[2]))
        state.record.setdefault(module, []).append(call)
    return out, None


def _one_row_mask(original):
    """In a frozen pass every row is the one prompt: its mask is made for one row and expanded to the rows, a view
    (a model that indexes the mask by row, as Qwen4-Exp's indexer does, finds each row's)."""
    def mask(*args, batch_size=1, attention_mask=None, **kwargs):
        state = _states[-1] if _states else None
        if state is None or state.replay is None:
            return original(*args, batch_size=batch_size, attention_mask=attention_mask, **kwargs)
        if isinstance(attention_mask, torch.Tensor) and attention_mask.dim() == 2:
            attention_mask = attention_mask[:1]
        made = original(*args, batch_size=1, attention_mask=attention_mask, **kwargs)
        if isinstance(made, torch.Tensor) and made.dim() == 4 and made.shape[0] == 1 < batch_size:
            return made.expand(batch_size, *made.shape[1:])
        return made
    return mask


@contextmanager
def chunked_attention(chunk_bytes: int):
    """Every eager attention kernel a query chunk at a time, each chunk's scores within ``chunk_bytes``."""
    outermost = not _states
    _states.append(_State(chunk_bytes))
    if outermost:
        saved_attention = ALL_ATTENTION_FUNCTIONS._local_mapping.get(EAGER)
        saved_mask = ALL_MASK_ATTENTION_FUNCTIONS._local_mapping.get(EAGER)
        ALL_ATTENTION_FUNCTIONS._local_mapping[EAGER] = _chunked
        ALL_MASK_ATTENTION_FUNCTIONS._local_mapping[EAGER] = _one_row_mask(ALL_MASK_ATTENTION_FUNCTIONS[EAGER])
    try:
        yield _states[-1]
    finally:
        _states.pop()
        if outermost:
            for interface, saved in ((ALL_ATTENTION_FUNCTIONS, saved_attention), (ALL_MASK_ATTENTION_FUNCTIONS,
                                                                                 saved_mask)):
                if saved is None:
                    interface._local_mapping.pop(EAGER, None)
                else:
                    interface._local_mapping[EAGER] = saved


@contextmanager
def recording_attention(chunk_bytes: int, calls: dict):
    """A clean run, each attention kernel's calls recorded into ``calls`` (module -> [AttentionCall])."""
    with chunked_attention(chunk_bytes) as state:
        state.record = calls
        yield


@contextmanager
def replayed_attention(chunk_bytes: int | None, calls: dict):
    """A frozen pass: each recorded attention's kernel replaced, call by call, by ``FrozenMix`` of its clean call;
    nothing where there are none (a trace that stores its patterns)."""
    if not calls:
        yield
        return
    with chunked_attention(chunk_bytes) as state:
        state.replay = calls
        yield


def chunk_bytes_within(memory_budget: int | None) -> int | None:
    """A chunk's scores within a thirty-second of ``memory_budget`` (the kernel holds a few such at once)."""
    return None if memory_budget is None else max(1, memory_budget // 32)


def recorded_bytes(calls: dict) -> int:
    """The bytes the recorded calls hold (their queries, keys, values and masks), each storage once."""
    storages = {tensor.untyped_storage().data_ptr(): tensor.untyped_storage().nbytes()
                for module_calls in calls.values() for call in module_calls
                for tensor in (call.queries, call.keys, call.values, call.mask) if tensor is not None}
    return sum(storages.values())


class LiveBytes(TorchDispatchMode):
    """While on: the most bytes the tensors its ops create hold at once (``peak``, each storage once, counted from
    its creation to its release; a view or an in-place result is its input's; one mapped from a file is not held)
    and the largest such tensor (``largest``: bytes, shape). ``ignored(tensor)`` leaves a tensor out (a result the caller keeps)."""

    def __init__(self, ignored=lambda tensor: False) -> None:
        super().__init__()
        self.ignored, self.live, self.peak, self.largest, self._held = ignored, 0, 0, (0, ()), set()

    def _released(self, key: int, nbytes: int) -> None:
        self.live -= nbytes
        self._held.discard(key)

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        inputs = {t.untyped_storage().data_ptr() for t in torch.utils._pytree.tree_leaves((args, kwargs))
                  if isinstance(t, torch.Tensor)}
        for tensor in torch.utils._pytree.tree_leaves(out):
            if not isinstance(tensor, torch.Tensor) or self.ignored(tensor):
                continue
            storage = tensor.untyped_storage()
            key, nbytes = storage.data_ptr(), storage.nbytes()
            # a storage mapped from a file (the edges kept on disk) is the system's page cache, not held memory
            if key in inputs or key in self._held or nbytes == 0 or storage.filename is not None:
                continue
            self._held.add(key)
            self.live += nbytes
            weakref.finalize(storage, self._released, key, nbytes)
            self.peak = max(self.peak, self.live)
            if nbytes > self.largest[0]:
                self.largest = (nbytes, tuple(tensor.shape))
        return out
