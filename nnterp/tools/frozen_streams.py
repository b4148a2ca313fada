"""A residual of several streams, for the frozen trace (``nnterp.tools.frozen``): where no single stream enters
block 0, the map's first input is the token embedding the streams are made from (``map_input``), and the modules
that mix the streams with data-dependent weights (``stream_mixers``) have those weights fixed at the clean run's.

Hyper-connections (DeepSeek-V4, HY-V4, Qwen4-Exp): before each sublayer a module collapses the streams into the
sublayer's input with weights computed from the streams (sigmoids, a softmax made doubly stochastic, a norm of the
streams), and returns the weights that add the sublayer's output back into every stream; the head's collapses them
for the final norm. With their gates (the sigmoids, the softmax, a norm's rsqrt) replayed as an attention's are
(``frozen_gates.STREAM_GATES``), the collapse and the write-back are linear in the streams, and the sublayers'
outputs, the MLP's among them, are written into them linearly. AltUp (Gemma 3n): the router that predicts and
corrects the streams' coefficients from the active stream (``stream_routers``: its ``modality_router``) is fixed at
its clean outputs, call by call, as a dynamic convolution's taps are, and the magnitudes the model matches between
the streams in its own forward (``magnitude_hosts``) at the clean run's. A reversible residual (Reformer: y1 = x1 +
attention(x2), y2 = x2 + feed_forward(y1)) mixes nothing, but runs its blocks inside an autograd Function whose
backward recomputes them in training mode only (``reversible_functions``): the frozen passes call its forward as a
plain function, the blocks' own ``torch.no_grad`` lifted (``differentiable_blocks``), so the graph's gradients are
the map's."""

from __future__ import annotations

import inspect
from contextlib import contextmanager

import torch

from nnterp.declare.engine import module_of

#: the class-name endings of the modules that mix residual streams with data-dependent weights
_STREAM_MIXERS = ("hyperconnection", "hyperhead", "gatedresidual")


def stream_mixers(model) -> list:
    """The hyper-connection modules (each block's collapse and write-back weights around its sublayers, the head's
    collapse): their gates are replayed at the clean run's."""
    return [module for module in module_of(model).modules()
            if type(module).__name__.lower().endswith(_STREAM_MIXERS)]


def stream_routers(model) -> list:
    """AltUp's routers (a ``modality_router`` Linear of a module whose class names it AltUp): the coefficients that
    predict and correct the streams are computed from their outputs, so fixed there the prediction and the correction
    are linear in the streams."""
    return [child for module in module_of(model).modules() if type(module).__name__.lower().endswith("altup")
            for name, child in module.named_children() if name == "modality_router"]


def magnitude_hosts(model) -> list:
    """The modules whose own forward matches the streams' magnitudes to the first one's (Gemma 3n's text model, the
    holder of AltUp's ``altup_projections``: x · |target| / |x| as it makes the streams from the embedding and as it
    brings them back after the blocks): the magnitudes fixed at the clean run's (``frozen_gates.MAGNITUDES``, its own
    calls of them, ``frozen_gates.own_calls``), those are linear in the streams."""
    return [module for module in module_of(model).modules()
            if isinstance(getattr(module, "altup_projections", None), torch.nn.ModuleList)]


def reversible_functions(model) -> list:
    """The autograd Functions a reversible residual runs its blocks in (Reformer's ``_ReversibleFunction``: its
    backward recomputes each block from its output, in training mode only, and the blocks run under
    ``torch.no_grad``): the Function subclasses named so in the forward of the module that holds the blocks."""
    blocks = set(_block_modules(model))
    # the module that calls the blocks: their parent, or the parent of the ModuleList that holds them
    def called(module):  # what a module calls: its children, and the modules inside a ModuleList child
        return {inner for child in module.children()
                for inner in ([child, *child] if isinstance(child, torch.nn.ModuleList) else [child])}

    holder = next((module for module in module_of(model).modules() if blocks & called(module)), None)
    if holder is None:
        return []
    found = inspect.unwrap(type(holder).forward).__globals__
    return [value for name, value in found.items() if "reversible" in name.lower() and isinstance(value, type)
            and issubclass(value, torch.autograd.Function)]


def _block_modules(model) -> list:
    return [module_of(layer) for layer in model.layers]


class _Context:
    """What an autograd Function's forward is given as ``ctx`` when it runs as a plain function."""

    def save_for_backward(self, *tensors) -> None:
        self.saved_tensors = tensors


@contextmanager
def differentiable_blocks(functions: list, blocks: list):
    """A reversible residual's blocks run as plain, differentiable calls for the frozen passes: its Function's forward
    called directly (no custom backward, which would recompute the blocks without the trace's edits), and each block's
    own ``torch.no_grad`` lifted once its first submodule runs (the grad mode the block was entered with, restored as
    the block's ``no_grad`` exits)."""
    if not functions:
        yield
        return
    entered, handles = [], []

    def enter(module, args, kwargs=None):
        entered.append(torch.is_grad_enabled())

    def lift(module, args):
        torch.set_grad_enabled(entered[-1])

    def leave(module, args, output):
        entered.pop()

    for block in blocks:
        handles += [block.register_forward_pre_hook(enter), block.register_forward_hook(leave)]
        first = next(block.children(), None)
        if first is not None:
            handles.append(first.register_forward_pre_hook(lift))
    for function in functions:
        function.apply = staticmethod(lambda *args, function=function: function.forward(_Context(), *args))
    try:
        yield
    finally:
        for function in functions:
            del function.apply
        for handle in handles:
            handle.remove()


def map_input(model) -> str | None:
    """The site the frozen map's first input is written at: the stream entering block 0, or, where the residual is
    several streams made from the token embedding (``stream_mixers``, ``stream_routers``), the token embedding; None
    where neither is served."""
    if model.serves("layer_input", 0) is None:
        return "layer_input"
    several = stream_mixers(model) or stream_routers(model) or reversible_functions(model)
    if several and model.serves("token_embeddings") is None:
        return "token_embeddings"
    return None


def map_input_host(model, name: str):
    """The envoy the map's first input is read and written on."""
    return model.layers[0] if name == "layer_input" else model
