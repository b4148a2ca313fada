"""What the frozen trace (``nnterp.tools.frozen``) fixes inside modules: a norm's call at its clean scale
(``FrozenScale``), an activation at its clean slope (``FrozenSlope``), the norms no site fixes (``hooked_norms``),
and the gates of an attention, a mixer or a gated norm, replayed call by call (``GATES``, ``_gated``)."""

from __future__ import annotations

import inspect
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial

import torch
from torch.overrides import TorchFunctionMode

from nnterp.declare.companions import norm_eps
from nnterp.declare.engine import module_of
from nnterp.tools.frozen_mixers import _broadcast, _mlp_modules, mixer_modules


@dataclass
class FrozenScale:
    """One call of a norm, frozen: its output is ``gain · (x centred or not) · scale + bias`` for any input ``x``."""

    scale: torch.Tensor
    gain: torch.Tensor
    bias: torch.Tensor
    centres: bool

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        return frozen_norm(x, self.scale, self.gain, self.bias, self.centres)


@dataclass
class FrozenSlope:
    """One call of an activation, frozen at its clean slope: its output is ``x · slope`` for any input ``x``
    (``slope`` the clean output over the clean input, elementwise; zero where the clean input was)."""

    slope: torch.Tensor

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        return (x.float() * _broadcast(self.slope, x)).to(x.dtype)


def frozen_norm(x, scale, gain, bias, centres: bool) -> torch.Tensor:
    """A norm's output at a fixed ``scale`` (one per row of the last axis, the rows of ``x`` a multiple of its):
    ``gain · (x centred or not) · scale + bias``, in ``x``'s dtype; affine in ``x``."""
    centred = x.float() - x.float().mean(-1, keepdim=True) if centres else x.float()
    broadcast = scale.shape[0] == 1 and x.dim() == scale.dim() + 1  # the clean run's one row, for every row
    if scale.shape[0] != x.shape[0] and not broadcast:  # rows flattened first: the scales repeated to match
        scale = scale.repeat(x.shape[0] // scale.shape[0], *([1] * (scale.dim() - 1)))
    # scale times gain once, then one product with x (and the bias added in place): one [rows seq d] tensor made,
    # and autograd keeps only that factor, a constant
    out = centred * (scale[..., None] * gain)
    return (out.add_(bias) if bool(bias.any()) else out).to(x.dtype)


def _is_norm(module) -> bool:
    return "norm" in type(module).__name__.lower() and norm_eps(module) is not None


def _site_module(host, name: str, where: str = "where"):
    """The module a site of ``host`` (a block, or the model) reads at, or None where it reads at none;
    ``where="earlier"``: the module of the first term of a sum the site is served as (``PlusEarlier``)."""
    envoy = _site_envoy(host, name, where)
    return getattr(envoy, "_module", envoy)


def _site_envoy(host, name: str, where: str = "where"):
    """The envoy of the module a site of ``host`` reads at (``_site_module``'s), or None where it reads at none."""
    try:
        return getattr(host._nnterp_site(name), where).target(host)
    except Exception:  # noqa: BLE001 (a site served nowhere, not at a module, or no sum)
        return None


def hooked_norms(model) -> list:
    """Every norm module of the model whose scale no site of the trace fixes, outside the MLPs (whose outputs are
    the map's inputs): latent attention's norms of its compressed queries and keys-values, a sub-norm or group norm
    on the heads' output, a post-norm on the attention's output or on the residual path, an MLP norm or a final norm
    the model does not serve a scale of. The served scales (the attention's and the MLP's norms, the final norm) are
    fixed at their sites and left out, and so is a norm whose output is the mlp_output the map writes, or its first
    term where the block sums it from two (Gemma 4's MLP and per-layer input: the write carries back the sum less the
    first term as it ran), and a norm whose output is the stream entering block 0 (RWKV's pre_ln), the map's input."""
    served = set()
    for i, layer in enumerate(model.layers):
        for name in ("attention_norm_scale", "mlp_norm_scale"):
            if model.serves(name, i) is None:
                served.add(_site_module(layer, name))
        # the map's input: written there (and, where it is a sum, less its first term), so left as it runs
        served.update(_site_module(layer, "mlp_output", where) for where in ("where", "earlier"))
    # the stream entering block 0, the map's first input, written at its module's output (RWKV's pre_ln)
    served.add(_site_module(model.layers[0], "layer_input"))
    mlps = _mlp_modules(model)
    if model.serves("final_norm_scale") is None:
        served.add(_site_module(model, "final_norm_scale"))
    # a norm inside a mixer: its rsqrt is among the mixer's gates (xLSTM's per-head norm takes four axes)
    mixing = {module for mixer in mixer_modules(model) for module in mixer.modules()}
    return [module for module in module_of(model).modules() if module not in served and module not in mlps
            and module not in mixing and _is_norm(module) and not gated_norm(module)]


@contextmanager
def _hooked(modules, hook, pre=None):
    handles = [module.register_forward_hook(partial(hook, module)) for module in modules]
    handles += [module.register_forward_pre_hook(partial(pre, module)) for module in modules] if pre else []
    try:
        yield
    finally:
        for handle in handles:
            handle.remove()


#: the functions whose outputs gate an attention's heads rather than carry them: its softmax maps (a second kernel
#: call's too), sigmoid and softplus gates on the heads' output, an attention sink's scale, a router's top-k choice
GATES = frozenset({torch.softmax, torch.Tensor.softmax, torch.nn.functional.softmax, torch.sigmoid,
                   torch.Tensor.sigmoid, torch.nn.functional.sigmoid, torch.nn.functional.softplus, torch.topk,
                   torch.Tensor.topk})


#: in a module that is a gate (its class named so: Inkling 2 Loop's message gate), a tanh is a gate too
GATE_MODULE_GATES = GATES | {torch.tanh, torch.Tensor.tanh}


def _is_gate(module) -> bool:
    return type(module).__name__.lower().endswith("gate")


#: a gated norm's (a norm times an activation of a second input, ``gate``: Mamba-2's, gated DeltaNet's): its
#: gate's activation and its scale, fixed so the norm is linear in what it normalizes
GATED_NORM = GATES | {torch.nn.functional.silu, torch.rsqrt, torch.Tensor.rsqrt}


#: a mixer's (``mixer_modules``): its gates, a SiLU or GELU gate on its output (Falcon-H1's without its gated norm,
#: RecurrentGemma's GELU branch) and the scale of a norm inside it; a SiLU on what it mixes is replaced whole
#: (``fixed_kernels``)
MIXER_GATES = GATES | {torch.nn.functional.silu, torch.nn.functional.gelu, torch.rsqrt, torch.Tensor.rsqrt}


def gated_norm(module) -> bool:
    """Whether a module is a norm of its input times an activation of a gate it is given (``forward(x, gate)``)."""
    if "norm" not in type(module).__name__.lower():
        return False
    try:
        return "gate" in inspect.signature(type(module).forward).parameters
    except (TypeError, ValueError):
        return False


class _Gates(TorchFunctionMode):
    """Inside one attention's forward: each gate's output (``functions``' outputs) appended to ``calls`` (the clean
    run) or replaced by the clean run's, call by call from ``start`` (a constant, broadcast to the pass's rows);
    ``index`` is where the next call of the module goes on (a module called more than once a forward, as a looped
    block, goes on from there)."""

    def __init__(self, calls: list, replay: bool, start: int = 0, functions: frozenset = GATES) -> None:
        super().__init__()
        self.calls, self.replay, self.index, self.functions = calls, replay, start, functions

    def __torch_function__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        if func not in self.functions:
            return out
        if not self.replay:
            self.calls.append(tuple(t.detach().clone() for t in out) if isinstance(out, tuple) else out.detach().clone())
            getattr(self.calls, "names", []).append(func.__name__)
            return out
        clean = self.calls[self.index]
        self.index += 1
        if isinstance(out, tuple):
            return type(out)(tuple(_broadcast(c, o) for c, o in zip(clean, out)))
        return _broadcast(clean, out)


class GateCalls(list):
    """One module's gate outputs, call by call, with the functions it fixes (``GATES``, or a mixer's or a gated
    norm's) and the name of each call's (``names``)."""

    def __init__(self, functions: frozenset = GATES) -> None:
        super().__init__()
        self.functions, self.names = functions, []


def _gated(attentions, calls: dict, replay: bool, functions: dict | None = None):
    """Each attention's forward run under ``_Gates``: recording into ``calls[module]`` (the functions of
    ``functions[module]``, ``GATES`` by default), or replaying it, call by call over the whole forward."""
    modes, done = {}, {}

    def enter(module, _, args):
        default = GATE_MODULE_GATES if _is_gate(module) else GATES
        if replay:
            kept = calls[module]
        else:
            kept = calls.setdefault(module, GateCalls((functions or {}).get(module, default)))
        modes[module] = _Gates(kept, replay, done.get(module, 0), getattr(kept, "functions", default))
        modes[module].__enter__()

    def leave(module, _, args, output):
        mode = modes.pop(module)
        mode.__exit__(None, None, None)
        done[module] = mode.index

    return _hooked(attentions, leave, enter)
