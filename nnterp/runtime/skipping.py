"""Blocks a trace skips on nnterp's own account: a run that begins at block k (TransformerLens's start_at_layer)
does not run blocks 0..k-1, and block k reads the stream given, with what the model computes before its blocks
(position embeddings, rotary, masks) computed as usual. Nothing is replaced: nnsight's ``skip`` hands the model's
loop each skipped block's output, built from the stream.

A model's blocks can be skipped only where no block reads what an earlier block produced besides the stream: a
tensor an earlier block returned, an object the blocks write into (a key-value store shared across layers, a
state list), a block run twice. ``blocks_of`` finds out once per model, from one plain forward that watches each
block's inputs and outputs; where skipping is not possible it says why, and the run keeps every block (its value
is then the full run's, which is the same arithmetic).

(The family declarations' ``may_skip`` is the other kind of skipped block: one the model's own forward skips, a
cross-attention block on a call without an image; nnterp does nothing there but say so.)"""

from __future__ import annotations

import inspect
import weakref
from dataclasses import dataclass

import torch

from nnterp.declare.engine import module_of

#: the arguments a block may take besides tensors that carry nothing from one block to the next
_PLAIN = (type(None), bool, int, float, str, torch.dtype, torch.device)
#: where a block takes the stream: what it may change in place, skipped or not
_STREAM_SLOTS = (0, "hidden_states")


@dataclass(frozen=True)
class Blocks:
    """How a model's blocks can be skipped: per block, the container its output comes in (None: a bare tensor)
    and its length, or why no block can be skipped."""

    outputs: tuple = ()
    refused: str | None = None

    def output(self, layer: int, stream: torch.Tensor):
        """The output block ``layer`` hands the loop when skipped: the stream, in the block's own container."""
        container = self.outputs[layer]
        if container is None:
            return stream
        kind, length = container
        return kind([stream] + [None] * (length - 1))


_found: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def without_cache(model) -> dict:
    """The keyword that turns the model's key-value cache off, where its forward takes it: a skipped block leaves
    its layer of a cache empty, and one pass needs none."""
    outer = module_of(model)
    chain = [outer, getattr(outer, "base_model", None)]
    try:
        chain.append(outer.get_decoder())  # a wrapper's language model, which its forward hands the keywords on to
    except (AttributeError, ValueError):
        pass
    for module in dict.fromkeys(module for module in chain if module is not None):
        if _takes(module, "use_cache"):
            return {"use_cache": False}
        if not _takes(module, "kwargs"):
            break
    return {}


def _takes(module, keyword: str) -> bool:
    """Whether ``module``'s forward takes ``keyword`` ("kwargs": whether it takes any keyword)."""
    try:
        parameters = inspect.signature(type(module).forward).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(p.name == keyword or keyword == "kwargs" and p.kind is p.VAR_KEYWORD for p in parameters)


def blocks_of(model, call: dict) -> Blocks:
    """Whether ``model``'s blocks can be skipped, found once per model from one forward on ``call`` (the inputs of
    a run, without the cache)."""
    if getattr(model, "_nnterp_remote", None):
        return Blocks(refused="the model runs remotely, where nnterp cannot watch a forward of it first")
    model.dispatch()  # the weights, where the model was loaded without them (nnsight loads them at the first trace)
    key = module_of(model)
    if key not in _found:
        _found[key] = _watch(model, call)
    return _found[key]


def _leaves(value, path="input"):
    """(path, leaf) of every tensor or other object in an argument, through tuples, lists and dicts."""
    if isinstance(value, (tuple, list)) and not hasattr(value, "_fields"):
        for index, item in enumerate(value):
            yield from _leaves(item, f"{path}[{index}]")
    elif isinstance(value, dict):
        for name, item in value.items():
            yield from _leaves(item, f"{path}[{name!r}]")
    else:
        yield path, value


def _snapshot(value) -> list:
    """What a block could change in an argument: each container's items (by identity) and each tensor's version."""
    seen = []
    if isinstance(value, dict):
        seen.append(tuple((name, id(item)) for name, item in value.items()))
    elif isinstance(value, list):
        seen.append(tuple(id(item) for item in value))
    if isinstance(value, (tuple, list)):
        for item in value:
            seen += _snapshot(item)
    elif isinstance(value, dict):
        for item in value.values():
            seen += _snapshot(item)
    elif isinstance(value, torch.Tensor):
        seen.append(value._version)
    return seen


def _watch(model, call: dict) -> Blocks:
    modules = [module_of(layer) for layer in model.layers]
    if len(set(map(id, modules))) != len(modules):
        return Blocks(refused="one module is several of its blocks")
    produced: dict[int, tuple] = {}  # id of a tensor a block returned -> (that block, the tensor, kept alive so
    #                                  that no later tensor takes its id)
    outputs: list = [None] * len(modules)
    calls = [0] * len(modules)
    ran: list[int] = []  # the blocks in the order they ran
    positions = tuple(call["input_ids"].shape)
    refusals: list[str] = []
    before: dict = {}

    def entering(index):
        def hook(module, args, kwargs):
            calls[index] += 1
            inputs = list(enumerate(args)) + list(kwargs.items())
            for slot, value in inputs:
                for path, leaf in _leaves(value, str(slot)):
                    if isinstance(leaf, torch.Tensor):
                        source = produced.get(id(leaf), (None,))[0]
                        stream = ran and leaf is _stream_of(outputs, ran[-1])
                        if source is not None and not stream:
                            refusals.append(f"block {index} reads a tensor block {source} returned ({path})")
                    elif not isinstance(leaf, _PLAIN):
                        refusals.append(f"block {index} reads a {type(leaf).__name__} ({path}), which the blocks "
                                        f"may write into")
            before[index] = [(slot, _snapshot(value)) for slot, value in inputs if slot not in _STREAM_SLOTS]
        return hook

    def leaving(index):
        def hook(module, args, kwargs, output):
            inputs = dict(list(enumerate(args)) + list(kwargs.items()))
            for slot, snapshot in before.pop(index, []):
                if _snapshot(inputs[slot]) != snapshot:
                    refusals.append(f"block {index} writes into its argument {slot}, which later blocks read")
            if isinstance(output, torch.Tensor) or \
                    type(output) in (tuple, list) and output and isinstance(output[0], torch.Tensor):
                outputs[index] = output
                stream = _stream_of(outputs, index)
                if tuple(stream.shape[:2]) != positions:
                    refusals.append(f"the blocks pass a stream of shape {list(stream.shape)} for "
                                    f"{list(positions)} tokens")
            else:
                refusals.append(f"block {index} returns a {type(output).__name__}")
            ran.append(index)
            for _, leaf in _leaves(output):
                if isinstance(leaf, torch.Tensor):
                    produced.setdefault(id(leaf), (index, leaf))
        return hook

    handles = []
    try:
        for index, module in enumerate(modules):
            handles.append(module.register_forward_pre_hook(entering(index), with_kwargs=True))
            handles.append(module.register_forward_hook(leaving(index), with_kwargs=True))
        with torch.no_grad():
            module_of(model)(**call)
    finally:
        for handle in handles:
            handle.remove()
    for index, count in enumerate(calls):
        if count != 1:
            refusals.append(f"block {index} does not run on this call" if not count else
                            f"block {index} runs {count} times in one forward")
    if refusals:
        return Blocks(refused=refusals[0])
    return Blocks(outputs=tuple(None if isinstance(output, torch.Tensor) else (type(output), len(output))
                                for output in outputs))


def _stream_of(outputs, index):
    output = outputs[index]
    return output if isinstance(output, torch.Tensor) or output is None else output[0]


def skip_blocks(model, blocks: Blocks, stop: int, stream: torch.Tensor) -> None:
    """Inside a trace: blocks 0..stop-1 do not run, each handing the loop ``stream`` as its output."""
    for layer in range(stop):
        model.layers[layer].skip(blocks.output(layer, stream))
