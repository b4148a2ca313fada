"""Layouts: how a value's tensor is seen from the native one (heads unflattened, heads moved after positions,
positions folded into rows), and back: ``view`` makes the value, ``inverse`` carries an edit of it back."""

from __future__ import annotations

import torch

from nnterp.declare.engine import engine


# --------------------------------------------------------------------------- layouts
class Same:
    """The native layout is the value's layout."""

    def view(self, native, model):
        return native

    def inverse(self, value, like, model):
        return value


class Flat(Same):
    """A tensor seen as its entries in order, one axis (a gate per channel kept as [1 1 hidden_size])."""

    def view(self, native, model):
        return native.reshape(-1)

    def inverse(self, value, like, model):
        return value.reshape(like.shape)


FLAT = Flat()


class SplitHeads(Same):
    """``[batch seq heads*dim]`` seen as ``[batch seq heads dim]``, with the model's head count, or the block's own
    (``SplitHeads(heads)``: heterogeneous configs give each layer its own)."""

    def __init__(self, heads: int | None = None) -> None:
        self.heads = heads

    def view(self, native, model):
        return native.unflatten(-1, (self.heads or model.num_heads, -1))

    def inverse(self, value, like, model):
        return value.flatten(-2)


class HeadsAfterPositions(Same):
    """``[batch heads seq dim]`` seen as ``[batch seq heads dim]``."""

    def view(self, native, model):
        return native.transpose(1, 2)

    def inverse(self, value, like, model):
        return value.transpose(1, 2)


class CallPositions(Same):
    """The call's positions of a value the model computes over more positions, as a view on the positions axis
    ``dim``: the first ones where the model pads the ids after them inside its forward (Reformer), the last ones
    where it prepends positions of its own (``from_end``: CPM-Ant's learned prompt). An assignment keeps the other
    positions as they were; ``then`` is the layout applied to the cut value."""

    def __init__(self, dim: int = 1, then: Same = None, from_end: bool = False):
        self.dim, self.then, self.from_end = dim, then or SAME, from_end

    def _span(self, native, model) -> tuple[int, int]:
        """(start, length) of the call's positions in ``native``."""
        total = native.shape[self.dim]
        length = model._nnterp_state.call_length
        length = total if length is None else min(length, total)
        return (total - length if self.from_end else 0), length

    def view(self, native, model):
        return self.then.view(native.narrow(self.dim, *self._span(native, model)), model)

    def inverse(self, value, like, model):
        start, length = self._span(like, model)
        value = self.then.inverse(value, like.narrow(self.dim, start, length), model)
        before = like.narrow(self.dim, 0, start)
        after = like.narrow(self.dim, start + length, like.shape[self.dim] - start - length)
        return torch.cat([before, value, after], dim=self.dim)




class TokenRows(Same):
    """``[tokens, ...]`` (the positions folded into rows batch-major: a router's input, OPT's MLP half) seen as
    ``[batch seq ...]``: a view, so in-place edits reach the model. The batch is the rows of the call, which the
    module never sees: it is read from the run nnsight is interleaving. Under several invokes each one sees its own
    rows, as for every other value."""

    def view(self, native, model):
        if native.dim() != 2:
            return native
        total, group = engine.batch_rows()
        if group is None:
            return native.unflatten(0, (total, -1))
        start, size = group
        if engine.narrowed_to_invoke(native) or native.shape[0] == size:
            return native.unflatten(0, (size, -1))  # nnsight already narrowed it to this invoke's rows
        return native.unflatten(0, (total, -1)).narrow(0, start, size)

    def inverse(self, value, like, model):
        if like.dim() != 2:
            return value
        rows = value.flatten(0, 1)
        if rows.shape[0] == like.shape[0]:
            return rows
        total, (start, size) = engine.batch_rows()  # this invoke's rows of the whole run's tensor
        whole = like.clone()
        whole.unflatten(0, (total, -1))[start:start + size] = value
        return whole


SAME, SPLIT_HEADS, HEADS_AFTER_POSITIONS, TOKEN_ROWS = Same(), SplitHeads(), HeadsAfterPositions(), TokenRows()


class KeyValueGroups(Same):
    """``[batch num_heads seq dim]`` in which each key or value head is repeated for its group of query heads,
    seen as ``[batch num_kv_heads seq dim]`` (the first head of each group); an edit is repeated back over the
    group. Serve it with ``snapshot=True``, so that an in-place edit reaches every copy."""

    def view(self, native, model):
        return native[:, :: model.num_heads // model.num_kv_heads]

    def inverse(self, value, like, model):
        return value.repeat_interleave(model.num_heads // model.num_kv_heads, dim=1)


KEY_VALUE_GROUPS = KeyValueGroups()


class BatchHeads(Same):
    """``[batch*num_heads seq dim]`` (heads folded into the batch for a bmm) seen as ``[batch seq num_heads dim]``;
    a view, so in-place edits reach the model."""

    def view(self, native, model):
        return native.unflatten(0, (-1, model.num_heads)).transpose(1, 2)

    def inverse(self, value, like, model):
        return value.transpose(1, 2).flatten(0, 1)


BATCH_HEADS = BatchHeads()


class FoldedHeads(Same):
    """``[batch*num_heads ...]`` (heads folded into the batch for a bmm) seen heads-first as
    ``[batch num_heads ...]``; a view."""

    def view(self, native, model):
        return native.unflatten(0, (-1, model.num_heads))

    def inverse(self, value, like, model):
        return value.flatten(0, 1)


FOLDED_HEADS = FoldedHeads()


class KeysLast(Same):
    """Keys handed over transposed, ``[batch num_heads head_dim seq]``, seen as ``[batch num_heads seq head_dim]``;
    a view."""

    def view(self, native, model):
        return native.transpose(-1, -2)

    def inverse(self, value, like, model):
        return value.transpose(-1, -2)


KEYS_LAST = KeysLast()

