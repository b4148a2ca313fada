"""What every tool shares: prompts to batched inputs, standard values by name, tokens by text.

Everything here speaks the standard vocabulary only (``model.layers[i].<value>``,
``model.layers[i].self_attn.<value>``, ``model.layers[i].mlp.<value>``, ``model.<value>``), so a
tool built on it runs unchanged on every family.
"""

from __future__ import annotations

import inspect
from functools import lru_cache
from typing import Iterable, Sequence

import torch

from nnterp.declare.engine import module_of
from nnterp.declare.errors import NnterpError
from nnterp.declare.vocabulary import BY_NAME, FORWARD_ORDER, nearest
from nnterp.runtime.status import TEXT_CALL, skipped_by, status

#: Where a host's values hang off a block.
_HOST_ATTRIBUTE = {"layer": None, "attention": "self_attn", "mlp": "mlp"}

#: Where each value sits in the forward: the vocabulary's one forward order (model inputs, blocks, readout).
_BEFORE_BLOCKS = {name: i for i, name in enumerate(FORWARD_ORDER["model"])}
_IN_A_BLOCK = {name: i for i, (_, name) in enumerate(FORWARD_ORDER["block"])}
_AFTER_BLOCKS = {name: i for i, name in enumerate(FORWARD_ORDER["readout"])}


class ToolError(NnterpError, ValueError):
    """A tool was asked for something it cannot do; the message names the fix."""


# --------------------------------------------------------------------------- values by name
def spec(name: str):
    """The vocabulary's entry for ``name``, or a one-sentence refusal with the nearest name."""
    try:
        return BY_NAME[name]
    except KeyError:
        guess = nearest(name, BY_NAME)
        hint = f"; did you mean {guess!r}?" if guess else ""
        raise ToolError(f"{name!r} is not a standard value{hint}") from None


def host(model, name: str, layer: int | None = None):
    """The envoy that hosts value ``name`` (at block ``layer`` for block values)."""
    where = spec(name).host
    if where == "model":
        return model
    if layer is None:
        raise ToolError(f"{name} lives on a block: give the block index, e.g. layer=0")
    block = model.layers[layer]
    attribute = _HOST_ATTRIBUTE[where]
    return block if attribute is None else getattr(block, attribute)


def read(model, name: str, layer: int | None = None):
    """``model.layers[layer].<host>.<name>``: call inside a trace, in forward order."""
    return getattr(host(model, name, layer), name)


def write(model, name: str, layer: int | None, value) -> None:
    """Assign ``value`` to a standard value inside a trace."""
    setattr(host(model, name, layer), name, value)


def order_key(name: str, layer: int | None) -> tuple[int, int]:
    """Sorts reads and edits of one trace into the order the forward computes them."""
    spec(name)
    if name in _BEFORE_BLOCKS:
        return (-1, _BEFORE_BLOCKS[name])
    if name in _AFTER_BLOCKS:
        return (1 << 30, _AFTER_BLOCKS[name])
    return (layer, _IN_A_BLOCK[name])


def why_not(model, name: str, layer: int | None = None) -> str | None:
    """None when this checkpoint, under its load, serves ``name`` at block ``layer``; else the reason, in words."""
    try:
        envoy = host(model, name, layer if layer is not None else 0) if spec(name).host != "model" else model
        site = envoy._nnterp_site(name)
    except (AttributeError, NnterpError) as error:  # a block without that sublayer (a Mamba block has no MLP)
        return str(error)
    found = status(site, model)
    if not found.available:
        return found.note
    # a tool's call is text only: a block a call with an image runs (a cross-attention block) it skips
    skipped = skipped_by(model, model.layers[layer or 0], TEXT_CALL) if spec(name).host != "model" else None
    return None if skipped is None else f"a text call skips this block: {skipped}"


def available(model, name: str, layer: int | None = None) -> bool:
    """Whether this checkpoint, under its load, serves ``name`` (at block ``layer``)."""
    return why_not(model, name, layer) is None


def require(model, name: str, layers: Iterable[int] = (0,)) -> None:
    """Refuse early, outside any trace, when a tool needs a value this load does not serve."""
    for layer in layers:
        reason = why_not(model, name, layer)
        if reason is not None:
            raise ToolError(f"{name} is not served at block {layer}: {reason}")


def blocks_serving(model, name: str, layers=None) -> list[int]:
    """The blocks a tool reads ``name`` at: ``layers`` (each must serve it), or by default every block that
    serves it (a hybrid model's attention blocks, say)."""
    if layers is not None:
        chosen = layer_list(model, layers)
        require(model, name, chosen)
        return chosen
    chosen = [layer for layer in range(model.num_layers) if available(model, name, layer)]
    if not chosen:
        raise ToolError(f"no block of this model serves {name}: {why_not(model, name, 0)}")
    return chosen


# --------------------------------------------------------------------------- blocks and tokens
def layer_indices(model, layers: Iterable[int] | int) -> list[int]:
    """Block indices as given (order and repeats kept), negatives counted from the end."""
    if isinstance(layers, int):
        layers = [layers]
    out = []
    for index in layers:
        index = int(index)
        if not -model.num_layers <= index < model.num_layers:
            raise ToolError(f"block {index} does not exist: the model has blocks 0 to {model.num_layers - 1}")
        out.append(index % model.num_layers)
    return out


def layer_list(model, layers: Iterable[int] | int | None) -> list[int]:
    """Block indices, negatives counted from the end, sorted into forward order; None means all."""
    if layers is None:
        return list(range(model.num_layers))
    return sorted(set(layer_indices(model, layers)))


def token_id(model, token: int | str) -> int:
    """A token id from an id or from text that is exactly one token (``" Paris"``, leading space kept)."""
    if isinstance(token, int) or (isinstance(token, torch.Tensor) and token.numel() == 1):
        return int(token)
    ids = model.tokenizer(token, add_special_tokens=False).input_ids
    if len(ids) != 1:
        pieces = model.tokenizer.convert_ids_to_tokens(ids)
        raise ToolError(f"{token!r} is {len(ids)} tokens {pieces}, not one: pass a single token's text or its id")
    return ids[0]


def token_ids(model, tokens) -> list[int]:
    if tokens is None:
        return []
    if isinstance(tokens, (str, int)):
        tokens = [tokens]
    return [token_id(model, t) for t in tokens]


def token_text(model, ids) -> list[str]:
    """Readable text of each id: ``decode`` per token, so spaces and newlines show as they print."""
    return [model.tokenizer.decode([int(i)]) for i in ids]


# --------------------------------------------------------------------------- inputs
@lru_cache(maxsize=None)
def _forward_keywords(model_class) -> frozenset:
    try:
        return frozenset(inspect.signature(model_class.forward).parameters)
    except (TypeError, ValueError):
        return frozenset()


def _accepts(model, keyword: str) -> bool:
    """Whether the model's forward takes ``keyword``."""
    return keyword in _forward_keywords(type(module_of(model)))


def encode(model, prompts: str | Sequence[str] | torch.Tensor | dict, device=None) -> dict[str, torch.Tensor]:
    """Left-padded ``input_ids`` and ``attention_mask`` for one or many prompts.

    Left padding puts every prompt's last token at position -1, so positions counted from the
    end line up across a batch; ``position_ids`` count real tokens only, so a padded row computes
    what it computes alone.
    """
    if isinstance(prompts, dict):
        batch = {k: torch.as_tensor(v) for k, v in prompts.items()}
    elif isinstance(prompts, torch.Tensor):
        ids = prompts if prompts.dim() == 2 else prompts[None]
        batch = {"input_ids": ids, "attention_mask": torch.ones_like(ids)}
    else:
        texts = [prompts] if isinstance(prompts, str) else list(prompts)
        if not texts:
            raise ToolError("no prompts given: pass a string or a list of strings")
        tokenizer = model.tokenizer
        side = tokenizer.padding_side
        tokenizer.padding_side = "left"
        try:
            batch = dict(tokenizer(texts, return_tensors="pt", padding=True))
        finally:
            tokenizer.padding_side = side
    batch.setdefault("attention_mask", torch.ones_like(batch["input_ids"]))
    mask = batch["attention_mask"]
    if bool((mask[:, -1] == 0).any()):
        raise ToolError("a row ends in padding: pad on the left (tokenizer.padding_side = 'left')")
    if "position_ids" not in batch and _accepts(model, "position_ids") and bool((mask == 0).any()):
        batch["position_ids"] = (mask.long().cumsum(-1) - 1).clamp(min=0)
    if device is None:
        device = model_device(model)
    return {k: v.to(device) for k, v in batch.items()}


def model_device(model) -> torch.device:
    try:
        return next(module_of(model).parameters()).device
    except StopIteration:  # pragma: no cover - a model without parameters
        return torch.device("cpu")


def trace(model, batch: dict, **kwargs):
    """``model.trace`` on an encoded batch (ids, mask and, for padded rows, position ids), without a cache:
    one pass needs none, and a cache some models update in place would break a backward pass."""
    inputs = {k: v for k, v in batch.items() if k in TEXT_CALL}
    extra = {k: v for k, v in batch.items() if k not in inputs}
    if _accepts(model, "use_cache"):
        extra.setdefault("use_cache", False)
    return model.trace(inputs, **extra, **kwargs)


def read_blocks(model, batch: dict, name: str, layers: Sequence[int]) -> dict[int, torch.Tensor]:
    """``name`` at each of ``layers`` on ``batch``, read in one pass without gradients: {block: value}."""
    reads = []
    with torch.no_grad():
        with trace(model, batch):
            for layer in layers:
                reads.append(read(model, name, layer).save())
    return dict(zip(layers, reads))


def first_real_position(batch: dict) -> torch.Tensor:
    """Per row, the position of the first token that is not padding."""
    mask = batch["attention_mask"]
    return (mask == 0).long().sum(-1)


def positions_of(seq_len: int, positions: Iterable[int] | int | None) -> list[int]:
    """Positions as non-negative indices into a sequence of ``seq_len``; None means all."""
    if positions is None:
        return list(range(seq_len))
    if isinstance(positions, int):
        positions = [positions]
    out = []
    for p in positions:
        p = int(p)
        if not -seq_len <= p < seq_len:
            raise ToolError(f"position {p} is outside a sequence of {seq_len} tokens")
        out.append(p % seq_len)
    return out
