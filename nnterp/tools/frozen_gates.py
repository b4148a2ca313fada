"""What the frozen trace (``nnterp.tools.frozen``) fixes inside modules: a norm's call at its clean scale
(``FrozenScale``), an activation at its clean slope (``FrozenSlope``), the norms no site fixes (``hooked_norms``),
and the gates of an attention, a mixer or a gated norm, replayed call by call (``GATES``, ``_gated``)."""

from __future__ import annotations

import inspect
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from functools import partial

import torch
from torch.overrides import TorchFunctionMode

from nnterp.declare.companions import norm_eps
from nnterp.declare.engine import module_of
from nnterp.tools.frozen_mixers import _broadcast, _mlp_modules, mixer_modules
from nnterp.tools.frozen_streams import map_input, map_input_host, stream_mixers


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
    # the stream entering block 0 (or the token embedding several streams are made from), the map's first input,
    # written at its module's output (RWKV's pre_ln)
    first = map_input(model)
    if first is not None:
        served.add(_site_module(map_input_host(model, first), first))
    mlps = _mlp_modules(model)
    if model.serves("final_norm_scale") is None:
        served.add(_site_module(model, "final_norm_scale"))
    # a norm inside a mixer: its rsqrt is among the mixer's gates (xLSTM's per-head norm takes four axes), and so is
    # one inside a hyper-connection (Qwen4-Exp's hc_norm, a scale a stream)
    # (an attention that writes its softmax out is no mixer there: its norms are hooked, as an attention's)
    mixers = [mixer for mixer in mixer_modules(model) if not writes_softmax_out(mixer)] + stream_mixers(model)
    mixing = {module for mixer in mixers for module in mixer.modules()}
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


#: a hyper-connection's (``frozen_streams.stream_mixers``): the sigmoid and softmax weights it computes from the
#: streams, and the rsqrt of a norm whose output it mixes (Qwen4-Exp's hc_norm, one scale a stream)
STREAM_GATES = GATES | {torch.rsqrt, torch.Tensor.rsqrt}


#: an attention that writes its softmax out, exp(x - logsumexp(x)), and hashes its keys into buckets it sorts
#: (Reformer's local and LSH attentions, ``writes_softmax_out``): the exp and logsumexp, the buckets' argmax and sort
WRITTEN_SOFTMAX = GATES | {torch.exp, torch.Tensor.exp, torch.logsumexp, torch.Tensor.logsumexp, torch.argmax,
                           torch.Tensor.argmax, torch.argsort, torch.Tensor.argsort}


def writes_softmax_out(module) -> bool:
    """Whether a module, or one inside it, computes a softmax as exp(x - logsumexp(x)) in its forward's source."""
    for inner in module.modules():
        try:
            source = inspect.getsource(type(inner).forward)
        except (OSError, TypeError):
            continue
        if "logsumexp" in source:
            return True
    return False


#: what matches one stream's magnitude to another's in a model's own forward (``frozen_streams.magnitude_hosts``:
#: Gemma 3n's AltUp streams, x · |target| / |x|, made from the embedding and brought back after the blocks): a square
#: root, as a function or a power
MAGNITUDES = frozenset({torch.sqrt, torch.Tensor.sqrt, torch.Tensor.__pow__})


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
    block, goes on from there). Replaying a clean call whose gates are ``calls[start:end]``, each function's calls
    are taken in their own order, and again from the first where a pass of several rows makes them once a row (a
    loop over the batch's rows, as Qwen4-Exp's indexer's top-k)."""

    def __init__(self, calls: list, replay: bool, start: int = 0, functions: frozenset = GATES,
                 end: int | None = None, inside: list | None = None) -> None:
        super().__init__()
        self.calls, self.replay, self.index, self.functions = calls, replay, start, functions
        self.by_function, self.taken = {}, {}
        self.inside = inside  # where given, the calls made while inside[0] > 0 (in a submodule) are left as they run
        if end is not None:  # where each function's clean calls are, in order
            for at in range(start, end):
                self.by_function.setdefault(calls.names[at], []).append(at)

    #: every one entered and not yet left, in the order entered: a forward that raises never reaches its modules'
    #: leave hooks, so ``_close_open_gates`` leaves them
    open: list = []

    def __enter__(self):
        _Gates.open.append(self)
        return super().__enter__()

    def __exit__(self, *exc):
        _Gates.open.remove(self)
        return super().__exit__(*exc)

    def __torch_function__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        if func not in self.functions or (self.inside is not None and self.inside[0]):
            return out
        if not self.replay:
            self.calls.append(tuple(t.detach().clone() for t in out) if isinstance(out, tuple) else out.detach().clone())
            getattr(self.calls, "names", []).append(func.__name__)
            return out
        if self.by_function:
            kept, taken = self.by_function[func.__name__], self.taken.get(func.__name__, 0)
            clean, self.taken[func.__name__] = self.calls[kept[taken % len(kept)]], taken + 1
        else:
            clean = self.calls[self.index]
            self.index += 1
        if isinstance(out, tuple):
            return type(out)(tuple(_broadcast(c, o) for c, o in zip(clean, out)))
        return _broadcast(clean, out)


class GateCalls(list):
    """One module's gate outputs, call by call, with the functions it fixes (``GATES``, or a mixer's or a gated
    norm's), the name of each call's (``names``) and where each call of the module starts (``starts``)."""

    def __init__(self, functions: frozenset = GATES) -> None:
        super().__init__()
        self.functions, self.names, self.starts = functions, [], []


def _gated(attentions, calls: dict, replay: bool, functions: dict | None = None):
    """Each attention's forward run under ``_Gates``: recording into ``calls[module]`` (the functions of
    ``functions[module]``, ``GATES`` by default), or replaying it, call by call over the whole forward."""
    modes, done, entered = {}, {}, {}

    def enter(module, _, args):
        default = GATE_MODULE_GATES if _is_gate(module) else GATES
        n = entered[module] = entered.get(module, -1) + 1  # the module's n-th call this forward
        end = None
        if replay:
            kept = calls[module]
            starts = getattr(kept, "starts", [])
            end = (starts[n + 1] if n + 1 < len(starts) else len(kept)) if n < len(starts) else None
            done[module] = starts[n] if n < len(starts) else done.get(module, 0)
        else:
            kept = calls.setdefault(module, GateCalls((functions or {}).get(module, default)))
            getattr(kept, "starts", []).append(len(kept))
        modes[module] = _Gates(kept, replay, done.get(module, 0), getattr(kept, "functions", default), end)
        modes[module].__enter__()

    def leave(module, _, args, output):
        mode = modes.pop(module)
        mode.__exit__(None, None, None)
        done[module] = mode.index

    stack = ExitStack()
    stack.callback(_close_open_gates)  # last, once the hooks are gone
    stack.enter_context(_hooked(attentions, leave, enter))
    return stack


def _close_open_gates() -> None:
    """The gates a forward that raised left entered (its modules' leave hooks never ran), left innermost first, so
    that no torch function mode outlives the call."""
    for mode in reversed(list(_Gates.open)):
        mode.__exit__(None, None, None)


def own_calls(hosts, calls: dict, replay: bool, functions: frozenset):
    """Each host's own forward, not its submodules', under ``_Gates`` for ``functions``: recording into
    ``calls[host]`` or replaying it (a model's magnitudes matched in its own forward, ``frozen_streams``)."""
    depth, modes, stack = [0], {}, ExitStack()
    stack.callback(_close_open_gates)  # last, once the hooks are gone

    def down(module, _, *rest):
        depth[0] += 1

    def up(module, _, *rest):
        depth[0] -= 1

    def enter(module, _, args):
        kept = calls[module] if replay else calls.setdefault(module, GateCalls(functions))
        modes[module] = _Gates(kept, replay, 0, functions, inside=depth)
        modes[module].__enter__()

    def leave(module, _, args, output):
        modes.pop(module).__exit__(None, None, None)

    inner = [module for host in hosts for module in host.modules() if module is not host]
    stack.enter_context(_hooked(inner, up, down))
    stack.enter_context(_hooked(list(hosts), leave, enter))
    return stack
