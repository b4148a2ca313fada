"""Frozen traces: the model made linear in its blocks' contributions, for attribution graphs.

``freeze(model, prompt)`` runs the prompt once and keeps, detached, what makes the forward non-linear in
the residual stream: every norm's scale, every attention pattern (``attention_probabilities``) and the gates
inside the attentions. Under the frozen map a norm is ``gain · (x_centred ·
scale) + bias`` and an attention ``o_proj(pattern @ v_proj(normed x))``: both affine in the stream. The
MLPs are the map's inputs: each block's ``mlp_output`` is replaced by a given tensor (a transcoder's
reconstruction, or the clean output), and so is the stream entering block 0. The logits are then an
affine function of those inputs,

    logits = sum over inputs j of J_j · x_j  +  F(0),

so ``attribute`` splits a logit exactly into one term per input and position (``F(x_j alone) - F(0)``,
all in one batched pass) plus the constant ``F(0)``, the biases' share. ``frozen_logits`` is the frozen map
itself, for checking linearity or feeding other inputs; ``replacement_pass`` is the map an attribution graph
runs (each transcoder's read saved, its skip added to its block's leaf), and ``circuit_tracer_tokens`` a string
prompt's ids as circuit-tracer makes them.

Needs ``attention_probabilities`` (``attn_implementation="eager"``); MLP outputs replace whatever the MLP computed,
so the MLP's own non-linearity never enters the map. The scales the model serves are fixed at their sites (the
attention's norm, the final norm, and the MLP's norm, kept in ``mlp_scales`` for a reader of the MLP's input: an
attribution graph's transcoders). Every other norm outside the MLPs (``hooked_norms``: latent attention's norms
of its compressed queries and keys-values, a sub-norm or group norm on the heads' output, a post-norm on the
attention's output or on the residual path, a norm whose scale no site serves) is fixed by a forward hook on its
module, call by call, at ``gain · (x centred or not) · scale + bias`` with the clean run's scale (``FrozenScale``;
its gain and bias measured on the module, and the form checked against its clean output). Inside each attention
module, and any module outside the blocks that is an attention (a cross-attention), the gates (``GATES``: every
softmax, a second kernel call's too; sigmoid and softplus gates on the heads' output, an attention sink's scale;
a router's top-k choice) are replaced, call by call, by their clean outputs, through a ``TorchFunctionMode``
entered for the module's forward; so are those of a gated norm (AX-K2's RMSNorm times a sigmoid of a low-rank MLP),
and a dynamic convolution's taps (``tap_projections``: Inkling 2's keys and values).

A token mixer that is no softmax attention (``mixer_modules``: a Mamba or Mamba-2 scan, a delta rule, a gated short
convolution, a lightning attention, RWKV's time mix, an RG-LRU, xLSTM's matrix memory) has no pattern: its
data-dependent coefficients are fixed instead (``kernel_calls``, through nnsight's ``.source``): the coefficient
arguments of the kernels it calls (``KERNELS``: a scan's dt, B, C and gate; a delta rule's queries, keys, decays and
write strengths) and the coefficients its forward unpacks by name (``COEFFICIENT_NAMES``) take the clean run's, a
SiLU on what it mixes becomes its input times the clean slope, and its own gates, SiLU or GELU gates and norms'
scales replay as an attention's do (``MIXER_GATES``). The mixer is then linear in its input, and still carries it.
A block with no MLP (Mamba's) adds no input to the map.

What no freezing fixes is refused in one sentence: positions the sites leave out (CPM-Ant's learned prompt), a
block run more than once a forward (looped depth: its later calls' MLPs are computed, not replaced); and
``first_nonlinear`` finds, by a second difference along a line of inputs, the first module whose output is still
not affine in the map's inputs (an activation outside the MLPs, a convolution whose taps come from its input, an MLP
no site serves, as Zamba's shared one), which ``attribution_graph`` names when it refuses.
"""

from __future__ import annotations

import ast
import inspect
import textwrap
import weakref
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from functools import partial

import torch
from torch.overrides import TorchFunctionMode

from nnterp.contract.numerics import UNIT_ROUNDOFF, roundings
from nnterp.declare import labels
from nnterp.declare.companions import norm_eps
from nnterp.declare.engine import module_of
from nnterp.declare.mixers import is_softmax_attention
from nnterp.declare.errors import UnavailableValue
from nnterp.tools._common import _IN_A_BLOCK, ToolError, encode, token_id, trace
from nnterp.tools.attribution import _eps, _probe

EMBED = "embed"
MLP = "mlp"


@dataclass
class Frozen:
    """What a clean run fixed: the norms' scales and the attention patterns (detached), and the map's inputs
    at their clean values (the stream entering block 0, every block's mlp_output)."""

    batch: dict
    attention_scales: list
    patterns: list
    final_scale: torch.Tensor
    inputs: dict
    logits: torch.Tensor
    #: per block, the MLP norm's scale (None where the block does not serve it)
    mlp_scales: list = field(default_factory=list)
    #: the norms no site fixes (``hooked_norms``), each with one ``FrozenScale`` a call of the clean run
    inner: dict = field(default_factory=dict)
    #: each attention module's gates (``GATES``), their outputs call by call in the clean run
    gates: dict = field(default_factory=dict)
    #: each dynamic convolution's tap projection (``tap_projections``), its outputs call by call in the clean run
    taps: dict = field(default_factory=dict)
    #: per block, its token mixing in the order the block runs it (``block_mixers``): (child name, its kernel calls
    #: frozen, ``FrozenKernel``) for a mixer, ("self_attn", None) where the attention's pattern is set
    kernels: list = field(default_factory=list)

    @property
    def seq_len(self) -> int:
        return int(self.batch["input_ids"].shape[1])

    def zeros(self, rows: int = 1) -> dict:
        """The map's inputs, all zero, for ``rows`` rows."""
        return {key: torch.zeros(rows, *value.shape[1:], dtype=value.dtype) for key, value in self.inputs.items()}


def _require(model) -> None:
    why = model.serves("layer_input", 0)
    if why is not None:
        raise ToolError(f"a frozen trace sets the stream entering block 0, which this model does not serve: {why}")
    for i in range(model.num_layers):
        why = model.serves("attention_probabilities", i)
        if why is None or _slot(model.layers[i]) is None:  # served, or no token mixer in the block at all
            continue
        if mixer_of(model, i) is None:
            raise ToolError(f"a frozen trace needs attention_probabilities, which this model does not serve at block "
                            f"{i}: {why}")


#: the kernels the token mixers that are not softmax attention call in transformers' torch paths, each with the
#: arguments that are its data-dependent coefficients: fixed at the clean run's, the kernel is linear in the rest.
#: A selective scan (Mamba, Mamba-2) is then linear in its input, given Δ (dt), B, C and the gate z; a delta rule
#: (gated DeltaNet, Kimi delta attention) in its values, given the queries and keys (its pattern, as an attention's),
#: the decays g and the write strengths beta; xLSTM's mLSTM in its values, given the queries, keys and its input and
#: forget gates (its normalizer then a constant).
KERNELS = {
    "mamba_selective_scan": ("dt", "B", "C", "z"),
    "mamba2_chunk_scan": ("dt", "B", "C", "z"),
    "torch_chunk_gated_delta_rule": ("query", "key", "g", "beta"),
    "chunk_kimi_delta_attention": ("query", "key", "g", "beta"),
    "self.mlstm_backend": ("query", "key", "igate", "fgate"),
}
#: the convolutions that end in an activation (their ``activation`` argument): run without it, times the
#: activation's slope at the clean run's (SiLU(u) = u · sigmoid(u)), they are linear in what they convolve
CONVOLUTIONS = {"causal_conv1d_fn": "activation"}
SLOPES = {"silu": torch.sigmoid, "swish": torch.sigmoid}
#: the names the mixers give their coefficients where they unpack a call's outputs into them: LFM2's
#: ``B, C, x = BCx.chunk(3)`` (B gates the convolution's input, C its output), MiniMax's queries and keys
#: (``query_states, key_states, value_states = torch.split(...)``): those outputs fixed at the clean run's
COEFFICIENT_NAMES = frozenset({"B", "C", "query", "key", "query_states", "key_states"})


@dataclass(frozen=True)
class KernelCall:
    """A call inside a mixer's forward that a frozen trace fixes: ``label`` (nnsight's), ``callee`` as written, and
    ``kind``: "arguments" (``what``: the coefficient arguments, ``KERNELS``), "convolution" (``what``: its activation
    argument), "outputs" (``what``: the indices of the coefficients it returns, ``names``: the names the forward
    gives them), "activation" (a SiLU submodule on what the mixer mixes: its input times its clean slope)."""

    label: str
    callee: str
    kind: str
    what: tuple | str | None = None
    names: tuple = ()


def mixer_of(model, i: int):
    """Block ``i``'s token mixer where it is no softmax attention (a state-space scan, a linear attention): the
    module in the attention's slot; None on an attention block (one whose pattern this load does not serve too: an
    sdpa attention), or where the block has no mixer module."""
    if model.serves("attention_probabilities", i) is None:
        return None
    mixer = _slot(model.layers[i])
    if mixer is None or mixer is module_of(model.layers[i]) or is_softmax_attention(mixer):
        return None
    return mixer


def _slot(layer):
    """The module in a block's attention slot (an attention or another mixer), or None where the block has none
    (Nemotron-H's blocks of an MLP alone)."""
    return getattr(getattr(layer, "self_attn", None), "_module", None)


def _kernel(module, name: str):
    """The function ``name`` as the module's forward calls it: from the forward's own module, or a submodule's
    forward (``self.<child>``)."""
    if name.startswith("self."):  # a submodule: its forward's signature, called as the module
        child = getattr(module, name[len("self."):], None)
        return None if child is None else partial(inspect.unwrap(type(child).forward), child)
    return inspect.unwrap(type(module).forward).__globals__.get(name)


def _run_nodes(tree, module):
    """The AST's nodes, less the branches of an ``if`` that the module's own attributes rule out."""
    pending = [tree]
    while pending:
        node = pending.pop()
        yield node
        if isinstance(node, ast.If):
            holds = labels.branch_taken(node.test, module)
            pending += [node.test, *(node.body if holds is not False else []),
                        *(node.orelse if holds is not True else [])]
        else:
            pending += list(ast.iter_child_nodes(node))


def _is_silu(module) -> bool:
    return isinstance(module, torch.nn.SiLU) or type(module).__name__ in ("SiLUActivation", "SiLU")


def kernel_calls(module) -> list:
    """Each ``KernelCall`` in the module's forward, in the order the forward makes them (once a module)."""
    if module not in _KERNEL_CALLS:
        _KERNEL_CALLS[module] = _kernel_calls(module)
    return _KERNEL_CALLS[module]


_KERNEL_CALLS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _kernel_calls(module) -> list:
    try:
        compiled = labels.compiled_forward(module)
    except Exception:  # noqa: BLE001 (a forward nnsight does not compile: no kernel call to find)
        return []
    found = []
    for kind, table in (("arguments", KERNELS), ("convolution", CONVOLUTIONS)):
        for callee, what in table.items():
            occurrence = 0
            while (label := labels.call_label(compiled, callee, occurrence)) is not None:
                found.append(KernelCall(label, callee, kind, what))
                occurrence += 1
    tree = ast.parse(textwrap.dedent(compiled.source))
    calls = sorted((node for node in ast.walk(tree) if isinstance(node, ast.Call)),
                   key=lambda node: (node.lineno, node.col_offset))
    occurrences, seen = {}, {}
    for node in calls:
        callee = ast.unparse(node.func)
        occurrences[id(node)] = seen.get(callee, 0)
        seen[callee] = occurrences[id(node)] + 1
    for node in _run_nodes(tree, module):
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Tuple) and isinstance(node.value, ast.Call):
            names = [getattr(target, "id", None) for target in node.targets[0].elts]
            indices = tuple(j for j, name in enumerate(names) if name in COEFFICIENT_NAMES)
            callee = ast.unparse(node.value.func)
            label = labels.call_label(compiled, callee, occurrences[id(node.value)])
            if indices and label is not None:
                found.append(KernelCall(label, callee, "outputs", indices, tuple(names[j] for j in indices)))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                getattr(node.func.value, "id", None) == "self" and _is_silu(getattr(module, node.func.attr, None)):
            label = labels.call_label(compiled, ast.unparse(node.func), occurrences[id(node)])
            if label is not None:
                found.append(KernelCall(label, ast.unparse(node.func), "activation"))
    order = {label: n for n, label in enumerate(compiled.names)}
    return sorted(found, key=lambda call: order[call.label])


def scans(module) -> bool:
    """Whether a module calls a scan or a delta rule (``KERNELS``): a mixer wherever it sits in a block."""
    return any(call.kind == "arguments" for call in kernel_calls(module))


def block_mixers(model, i: int) -> list:
    """Block ``i``'s token mixing in the order the block runs it: ("self_attn", None) for a softmax attention (its
    pattern frozen) and (child name, module) for each mixer that is none, whose kernels' coefficients are frozen:
    the one in the attention's slot, or one beside the attention (Falcon-H1's Mamba-2 mixer)."""
    layer = model.layers[i]
    block, slot = module_of(layer), _slot(layer)
    mixer, mlps = mixer_of(model, i), _mlp_modules(model)
    native = {child: name for name, child in block.named_children()}
    found = [("self_attn", mixer, native.get(slot))] if slot is not None else []  # none: a block of an MLP alone
    found += [(name, child, name) for name, child in block.named_children()
              if child is not slot and child not in mlps and scans(child)]
    order = labels.module_calls(block)
    found.sort(key=lambda entry: order.index(entry[2]) if entry[2] in order else len(order))
    return [(name, module) for name, module, _ in found]


@dataclass
class FrozenKernel:
    """One ``KernelCall`` of a mixer, frozen: its coefficients at the clean run's (``fixed``: by argument name, or by
    output index), and for a convolution or an activation its slope at the clean run's (``slope``)."""

    call: KernelCall
    fixed: dict
    slope: torch.Tensor | None = None


def _freeze_kernels(module, calls: list, recorded: list) -> list:
    """Each recorded kernel call (``recorded``: its ((args, kwargs), output) in the clean run) frozen."""
    frozen = []
    for call, ((args, kwargs), output) in zip(calls, recorded):
        if call.kind == "outputs":
            frozen.append(FrozenKernel(call, {j: output[j].detach().clone() for j in call.what}))
            continue
        if call.kind == "activation":
            frozen.append(FrozenKernel(call, {}, torch.sigmoid(args[0].detach().float())))
            continue
        kernel = _kernel(module, call.callee)
        bound = inspect.signature(kernel).bind(*args, **kwargs)
        if call.kind == "arguments":
            frozen.append(FrozenKernel(call, {arg: bound.arguments[arg].detach().clone() for arg in call.what
                                              if isinstance(bound.arguments.get(arg), torch.Tensor)}))
            continue
        activation = bound.arguments.get(call.what)
        if activation is None:  # a convolution with no activation after it: linear as it runs
            continue
        if activation not in SLOPES:
            raise ToolError(f"{type(module).__name__}'s convolution ends in {activation}, whose slope a frozen trace "
                            "does not know, so no attribution graph of it is complete")
        bound.arguments[call.what] = None
        with torch.no_grad():
            frozen.append(FrozenKernel(call, {}, SLOPES[activation](kernel(*bound.args, **bound.kwargs).float())))
    return frozen


def fixed_kernels(mixer, calls: list, rows: int) -> None:
    """Inside a trace of ``rows`` rows: a mixer's (an envoy's) kernels called with their coefficients at the clean
    run's, its convolutions and SiLU on what it mixes as their input times their clean slope: the mixer linear in
    its input."""
    source, module = mixer.source, mixer._module
    for frozen in calls:
        call = frozen.call
        op = getattr(source, call.label)
        if call.kind == "outputs":
            output = op.output
            op.output = type(output)(_broadcast(frozen.fixed[j], value) if j in frozen.fixed else value
                                     for j, value in enumerate(output))
            continue
        args, kwargs = op.inputs
        if call.kind == "activation":
            op.output = (args[0].float() * _broadcast(frozen.slope, args[0])).to(args[0].dtype)
            continue
        bound = inspect.signature(_kernel(module, call.callee)).bind(*args, **kwargs)
        if call.kind == "arguments":
            for arg, value in frozen.fixed.items():
                bound.arguments[arg] = _broadcast(value, bound.arguments[arg])
            op.inputs = (bound.args, bound.kwargs)
            continue
        # the convolution again without its activation, on the same input: the activation's calls stay as the clean
        # run's (the gates replay them call by call), and its output is replaced
        bound.arguments[call.what] = None
        linear = _kernel(module, call.callee)(*bound.args, **bound.kwargs)
        op.output = (linear.float() * _broadcast(frozen.slope, linear)).to(linear.dtype)


@dataclass
class FrozenScale:
    """One call of a norm, frozen: its output is ``gain · (x centred or not) · scale + bias`` for any input ``x``."""

    scale: torch.Tensor
    gain: torch.Tensor
    bias: torch.Tensor
    centres: bool

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        return frozen_norm(x, self.scale, self.gain, self.bias, self.centres)


def frozen_norm(x, scale, gain, bias, centres: bool) -> torch.Tensor:
    """A norm's output at a fixed ``scale`` (one per row of the last axis, the rows of ``x`` a multiple of its):
    ``gain · (x centred or not) · scale + bias``, in ``x``'s dtype; affine in ``x``."""
    centred = x.float() - x.float().mean(-1, keepdim=True) if centres else x.float()
    if scale.shape[0] != x.shape[0]:  # more rows than the clean run's one: a batch of rows, or rows flattened first
        scale = scale.repeat(x.shape[0] // scale.shape[0], *([1] * (scale.dim() - 1)))
    return (gain * centred * scale[..., None] + bias).to(x.dtype)


def _is_norm(module) -> bool:
    return "norm" in type(module).__name__.lower() and norm_eps(module) is not None


def _site_module(host, name: str, where: str = "where"):
    """The module a site of ``host`` (a block, or the model) reads at, or None where it reads at none;
    ``where="earlier"``: the module of the first term of a sum the site is served as (``PlusEarlier``)."""
    try:
        envoy = getattr(host._nnterp_site(name), where).target(host)
    except Exception:  # noqa: BLE001 (a site served nowhere, not at a module, or no sum)
        return None
    return getattr(envoy, "_module", envoy)


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


def _broadcast(clean: torch.Tensor, like: torch.Tensor) -> torch.Tensor:
    """The clean run's one row as ``like``'s rows (batch first, or batch and positions flattened first)."""
    if clean.shape == like.shape:
        return clean
    if clean.shape[0] == 1:
        return clean.expand_as(like)
    return clean.repeat(like.shape[0] // clean.shape[0], *([1] * (clean.dim() - 1)))


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
        if replay:
            kept = calls[module]
        else:
            kept = calls.setdefault(module, GateCalls((functions or {}).get(module, GATES)))
        modes[module] = _Gates(kept, replay, done.get(module, 0), getattr(kept, "functions", GATES))
        modes[module].__enter__()

    def leave(module, _, args, output):
        mode = modes.pop(module)
        mode.__exit__(None, None, None)
        done[module] = mode.index

    return _hooked(attentions, leave, enter)


@contextmanager
def recording_inside(model, norms: dict, gates: dict, taps: dict | None = None):
    """The clean run, keeping what makes each attention non-linear in the stream beyond its pattern and its norm's
    scale: each inner norm's calls, input and output (``norms``), each gate's output (``gates``), and each dynamic
    convolution's taps (``taps``)."""
    inside = hooked_norms(model)
    taps = {} if taps is None else taps

    def record(module, _, args, output):
        norms.setdefault(module, []).append((args[0].detach().clone(), output.detach().clone()))

    def record_taps(module, _, args, output):
        taps.setdefault(module, []).append(output.detach().clone())

    with _hooked(inside, record), _hooked(tap_projections(model), record_taps), \
            _gated(attentions(model), gates, replay=False, functions=gate_functions(model)):
        yield


def tap_projections(model) -> list:
    """The projections that compute a convolution's taps from its input (a dynamic convolution, as Inkling 2's keys
    and values: a Linear child of a module whose class names it a dynamic convolution): frozen at the clean run's
    taps, the convolution is linear in what it convolves."""
    return [child for module in module_of(model).modules()
            if "dynamic" in type(module).__name__.lower() and "conv" in type(module).__name__.lower()
            for child in module.children() if isinstance(child, torch.nn.Linear)]


def fixed_inside(frozen: Frozen):
    """Every norm inside an attention at its frozen scale (its output ``FrozenScale`` of its input) and every gate
    at the clean run's output, call by call (one pass of any number of rows)."""
    counters = {module: 0 for module in frozen.inner}

    def fix(module, _, args, output):
        calls = frozen.inner[module]
        call = calls[counters[module] % len(calls)]
        counters[module] += 1
        return call(args[0])

    taken = {module: 0 for module in frozen.taps}

    def fix_taps(module, _, args, output):
        calls = frozen.taps[module]
        clean = calls[taken[module] % len(calls)]
        taken[module] += 1
        return _broadcast(clean, output)

    stack = ExitStack()
    stack.enter_context(_hooked(list(frozen.inner), fix))
    stack.enter_context(_hooked(list(frozen.taps), fix_taps))
    stack.enter_context(_gated([module for module, calls in frozen.gates.items() if calls], frozen.gates, replay=True))
    return stack


def attentions(model) -> list:
    """The modules whose gates are frozen: the attention modules (the blocks' own, and any other module whose class
    names it an attention: a cross-attention outside the blocks, as the Byte Latent Transformer's decoder runs
    before each block), and every gated norm (a norm module made of modules, as AX-K2's RMSNorm times a sigmoid
    gate of a low-rank MLP of its output; a norm given a gate, ``gated_norm``, inside a mixer too), outside the
    MLPs."""
    blocks = {module_of(layer) for layer in model.layers}
    found = [module for layer in model.layers
             for module in [_slot(layer)] if module is not None and module not in blocks]
    inside = {inner for module in found for inner in module.modules()} | _mlp_modules(model)
    for module in module_of(model).modules():
        name = type(module).__name__.lower()
        composite_norm = "norm" in name and any(True for _ in module.children()) and not _is_norm(module)
        if ("attention" in name or composite_norm) and module not in inside and not blocks & set(module.modules()):
            found.append(module)
            inside.update(module.modules())
    # a mixer beside the attention (Falcon-H1's), and a norm with a gate input, inside a mixer too: its own gate and
    # scale fixed (the mixer's gates around it)
    mlps = _mlp_modules(model)
    beside = [child for block in blocks for child in block.children()
              if child not in found and child not in mlps and scans(child)]
    return found + beside + [module for module in module_of(model).modules()
                             if gated_norm(module) and module not in found and module not in mlps]


def mixer_modules(model) -> list:
    """The token mixers that are no softmax attention: in the attention's slot (``mixer_of``), or beside it."""
    return [mixer for i in range(model.num_layers) for _, mixer in block_mixers(model, i) if mixer is not None]


def gate_functions(model) -> dict:
    """The functions whose outputs ``_Gates`` fixes in each module that is no plain attention: a mixer's
    (``MIXER_GATES``), a gated norm's (``GATED_NORM``)."""
    functions = {mixer: MIXER_GATES for mixer in mixer_modules(model)}
    functions.update({module: GATED_NORM for module in attentions(model) if gated_norm(module)})
    return functions


def _mlp_modules(model) -> set:
    """Every module inside a block's MLP (whose output the frozen map replaces)."""
    inside = set()
    for layer in model.layers:
        mlp = getattr(getattr(layer, "mlp", None), "_module", None)  # None: a block with no MLP (a Mamba block)
        if mlp is not None and mlp is not module_of(layer):
            inside.update(mlp.modules())
    return inside


def _freeze_inner(model, recorded: dict) -> dict:
    """Each recorded norm call frozen: the norm's gain, bias and centring measured on the module (whatever its class
    says: an RMSNorm called LayerNorm, an L2 norm, a gain of 1 + w), and its scale, one a row, fitted to the clean
    output (least squares); refused where that form does not give the clean output back."""
    inner = {}
    for module, calls in recorded.items():
        frozen_calls = []
        for x, output in calls:
            width = x.shape[-1]
            parameter = next(module.parameters(), None)
            with torch.no_grad():
                gain, bias, centres = _probe(module, width, x.dtype, x.device, _eps(module))
            centred = x.float() - x.float().mean(-1, keepdim=True) if centres else x.float()
            slope = gain * centred
            scale = ((output.float() - bias) * slope).sum(-1) / (slope * slope).sum(-1).clamp(min=1e-30)
            call = FrozenScale(scale.detach(), gain, bias, centres)
            magnitude = float(output.float().abs().max())
            # the norm's reduction over the row and the fit's, each at most width roundings of the output's dtype
            allowed = 2 * width * UNIT_ROUNDOFF[output.dtype if parameter is None else parameter.dtype] * magnitude
            if float((call(x).float() - output.float()).abs().max()) > allowed:
                raise ToolError(f"{model.family.name} holds {type(module).__name__}, whose output is not gain · "
                                "(input · scale) + bias, so a frozen trace cannot fix its scale")
            frozen_calls.append(call)
        inner[module] = frozen_calls
    return inner


@contextmanager
def _counting_calls(modules, counts: dict):
    def count(module, _, args, output):
        counts[module] = counts.get(module, 0) + 1

    with _hooked(modules, count):
        yield


def _refuse_what_no_freezing_fixes(model, counts: dict) -> None:
    """Refuse, in one sentence, a model whose forward the frozen map's inputs do not cover: positions the sites
    leave out, or a block run more than once (``counts``: each block's calls in the clean run), whose later calls'
    MLPs are computed, not replaced."""
    name = model.family.name
    ahead = model.family.positions.ahead(model.config)
    if ahead:
        raise ToolError(f"{name}'s blocks also run over {ahead} learned positions ahead of the call's, whose MLP "
                        "outputs and patterns the sites leave out, so a frozen trace cannot fix them")
    for i, layer in enumerate(model.layers):
        calls = counts.get(module_of(layer), 0)
        if calls > 1:
            raise ToolError(f"{name} runs block {i} {calls} times in one forward (looped depth), and a frozen trace "
                            "replaces the MLP output of a block's first call only, so the later calls' MLPs are not "
                            "linear in the stream")


def first_nonlinear(model, frozen: "Frozen"):
    """Where the frozen map is not affine in its inputs: the frozen map run on three collinear sets of inputs (the
    clean ones, then a random step, then two), each module's output kept, in the order the calls finish; a module
    is affine where its second difference is within rounding of its output. Returns None where every block's output
    and the logits are affine, else (path, class name) of the first module that bends what it is given (its output
    not affine, its input affine), inside the first block whose output is not (or past the blocks, where the logits
    alone are not); the blocks' MLPs are left out, their outputs being the map's inputs."""
    generator = torch.Generator().manual_seed(0)
    steps = {key: torch.randn(value.shape, generator=generator).to(value.dtype) * value.float().std().to(value.dtype)
             for key, value in frozen.inputs.items()}
    rows = {key: torch.cat([value, value + steps[key], value + 2 * steps[key]]) for key, value in frozen.inputs.items()}
    allowed = 2 * roundings(model) * UNIT_ROUNDOFF[frozen.inputs[EMBED].dtype]
    names = {module: path for path, module in module_of(model).named_modules()}
    mlps = _mlp_modules(model)
    seen = []

    def bent(value):
        """Whether ``value`` (three rows, batch first) is not affine in the step; None where it is no such tensor."""
        value = value[0] if isinstance(value, tuple) and value else value
        if not (isinstance(value, torch.Tensor) and value.is_floating_point() and value.dim() and value.shape[0] == 3):
            return None
        value = value.detach().double().reshape(3, -1)
        return float((value[2] - 2 * value[1] + value[0]).abs().max() / value.abs().max().clamp(min=1e-30)) > allowed

    def keep(module, _, args, output):
        seen.append((module, bent(output), bent(args[0]) if args else None))

    with torch.no_grad():
        with fixed_inside(frozen), _hooked([m for m in names if m not in mlps], keep):  # after the fixes' hooks
            logits = _frozen_pass(model, frozen, rows, "lm_head_output")
    blocks = [module_of(layer) for layer in model.layers]
    bent_blocks = [module for module, out, _ in seen if out and module in blocks]
    if not bent_blocks and not bent(logits):
        return None
    within = set(bent_blocks[0].modules()) if bent_blocks else \
        {module for module in names if not any(module in set(block.modules()) for block in blocks)}
    # the first that bends what it is given: its output is not affine, its input is (or is no tensor)
    for module, out, given in seen:
        if out and not given and module in within:
            return names[module], type(module).__name__
    return None


def circuit_tracer_tokens(model, prompt: str) -> torch.Tensor:
    """``prompt``'s ids as circuit-tracer's ``ensure_tokenized`` makes them: the tokenizer without its special
    tokens, then, unless the first id is already a special one, the first of the BOS, PAD and EOS ids (then any
    special id) prepended, so the position its ``zero_positions`` zeroes holds that token, not the first word.
    (circuit-tracer skips an id of 0 there, a falsy value; here only a missing id is skipped.)"""
    tokenizer = model.tokenizer
    ids = tokenizer(prompt, add_special_tokens=False)["input_ids"]
    special = list(tokenizer.all_special_ids)
    if ids and ids[0] in special:
        return torch.tensor(ids)
    candidates = [tokenizer.bos_token_id, tokenizer.pad_token_id, tokenizer.eos_token_id, *special]
    first = next((c for c in candidates if c is not None), None)
    if first is None:
        raise ToolError("this tokenizer has no special token to start the prompt with, as circuit-tracer does: "
                        "pass the prompt as token ids instead")
    return torch.tensor([first, *ids])


def freeze(model, prompt) -> Frozen:
    """Run ``prompt`` (one row) and keep its norm scales, attention patterns and the map's clean inputs."""
    _require(model)
    batch = encode(model, prompt)
    if batch["input_ids"].shape[0] != 1:
        raise ToolError("freeze takes one prompt: the frozen scales and patterns are one run's")
    scales, patterns, mlps, mlp_scales = [], [], [], []
    final_served = model.serves("final_norm_scale") is None
    mlp_norms = [model.serves("mlp_norm_scale", i) is None and not one_norm(model.layers[i])
                 for i in range(model.num_layers)]
    recorded, gates, counts, taps = {}, {}, {}, {}
    mixing = [block_mixers(model, i) for i in range(model.num_layers)]
    kernel_inputs = []
    try:
        with torch.no_grad(), _counting_calls([module_of(layer) for layer in model.layers], counts), \
                recording_inside(model, recorded, gates, taps), trace(model, batch):
            first = model.layers[0].layer_input.save()
            for i, layer in enumerate(model.layers):
                scales.append(layer.attention_norm_scale.save() if model.serves("attention_norm_scale", i) is None
                              else None)
                patterns.append(None)
                for name, mixer in mixing[i]:
                    if mixer is None:
                        patterns[i] = layer.self_attn.attention_probabilities.save()
                    else:  # a mixer: its kernels' arguments, in the order it calls them
                        source = getattr(layer, name).source
                        kernel_inputs.append([(getattr(source, call.label).inputs.save(),
                                               getattr(source, call.label).output.save())
                                              for call in kernel_calls(mixer)])
                mlp_scales.append(layer.mlp_norm_scale.save() if mlp_norms[i] else None)
                mlps.append(layer.mlp.mlp_output.save() if has_mlp(model, i) else None)
            final = model.final_norm_scale.save() if final_served else torch.zeros(0)
            logits = model.logits.save()
    except UnavailableValue as error:  # a block this call skips (a cross-attention block on text): no pattern
        raise ToolError(f"a frozen trace reads every block's pattern, and {error}") from None
    _refuse_what_no_freezing_fixes(model, counts)
    inputs = {EMBED: first.detach().clone()}
    # a block with no MLP (a Mamba block) adds nothing the map takes: its input is zeros, written nowhere
    inputs.update({(MLP, i): torch.zeros_like(inputs[EMBED]) if value is None else value.detach().clone()
                   for i, value in enumerate(mlps)})
    recorded_kernels = iter(kernel_inputs)
    kernels = [[(name, None if mixer is None else _freeze_kernels(mixer, kernel_calls(mixer), next(recorded_kernels)))
                for name, mixer in block] for block in mixing]
    return Frozen(batch, [_detached(s) for s in scales], [_detached(p) for p in patterns],
                  _detached(final) if final_served else None, inputs, logits.detach().clone(),
                  [s.detach().clone() if s is not None else None for s in mlp_scales],
                  _freeze_inner(model, recorded), gates, taps, kernels)


def _detached(value):
    return None if value is None else value.detach().clone()


def unreplaced_mlp(model, path: str) -> str | None:
    """Where module ``path`` sits in a block that serves no mlp_output (Zamba's shared MLP, outside every site):
    the reason the block gives; else None."""
    names = {module: name for name, module in module_of(model).named_modules()}
    for i, layer in enumerate(model.layers):
        if path.startswith(names.get(module_of(layer), "\0") + ".") and not has_mlp(model, i):
            return model.serves("mlp_output", i)
    return None


def has_mlp(model, i: int) -> bool:
    """Whether block ``i`` has an MLP whose output the map takes (a Mamba block has none)."""
    return model.serves("mlp_output", i) is None


def one_norm(layer) -> bool:
    """Whether the MLP reads the attention's norm (Phi's parallel block): its scale is frozen with the attention's."""
    attention = _site_module(layer, "attention_norm_scale")
    return attention is not None and _site_module(layer, "mlp_norm_scale") is attention


def frozen_attention(model, frozen: Frozen, i: int, rows: int, between=None) -> None:
    """Inside a trace of ``rows`` rows: block ``i``'s attention norm scale (where the model serves it) and pattern
    fixed at ``frozen``'s (every other norm and gate is fixed by ``fixed_inside``'s hooks); ``between()`` runs
    after the norm's scale is fixed and before the attention (to read the norm's output in forward order)."""
    layer = model.layers[i]
    if frozen.attention_scales[i] is not None:  # else no norm before the attention, or one hooked_norms fixes
        layer.attention_norm_scale = _rows(frozen.attention_scales[i], rows)
    if between is not None:
        between()
    for name, calls in frozen.kernels[i]:  # in the order the block runs them
        if calls is None:
            layer.self_attn.attention_probabilities = _rows(frozen.patterns[i], rows)
        else:
            fixed_kernels(getattr(layer, name), calls, rows)


def fixed_final_scale(model, frozen: Frozen, rows: int) -> None:
    """Inside a trace: the final norm's scale at the clean run's, where the model serves it (else it is hooked)."""
    if frozen.final_scale is not None:
        model.final_norm_scale = _rows(frozen.final_scale, rows)


def _rows(value, rows: int):
    return value.expand(rows, *value.shape[1:]).clone()


def frozen_logits(model, frozen: Frozen, inputs: dict, readout: str = "logits") -> torch.Tensor:
    """The frozen map: the logits with every norm scale and attention pattern fixed at ``frozen``'s, the stream
    entering block 0 set to ``inputs["embed"]`` and each block's mlp_output to ``inputs[("mlp", i)]``, all
    [rows seq hidden_size]; one row per set of inputs, in one pass. ``readout="lm_head_output"``: the logits before
    what the model does past lm_head (Gemma 2's soft cap, which is not linear)."""
    with fixed_inside(frozen):
        return _frozen_pass(model, frozen, inputs, readout)


def _frozen_pass(model, frozen: Frozen, inputs: dict, readout: str) -> torch.Tensor:
    """``frozen_logits`` inside ``fixed_inside``: the sites' scales and patterns fixed, the inputs set."""
    rows = inputs[EMBED].shape[0]
    batch = {key: value.expand(rows, *value.shape[1:]) for key, value in frozen.batch.items()}
    with trace(model, batch):
        model.layers[0].layer_input = inputs[EMBED]
        for i, layer in enumerate(model.layers):
            frozen_attention(model, frozen, i, rows)
            if frozen.mlp_scales and frozen.mlp_scales[i] is not None:
                layer.mlp_norm_scale = _rows(frozen.mlp_scales[i], rows)
            if has_mlp(model, i):
                layer.mlp.mlp_output = inputs[(MLP, i)]
        fixed_final_scale(model, frozen, rows)
        logits = (model.lm_head_output if readout == "lm_head_output" else model.logits).save()
    return logits


def replacement_pass(model, frozen: Frozen, replacement, embed, leaves, readout: str = "lm_head_output",
                     skips: bool = True, stream: bool = False):
    """The replacement model, rows at once: the stream entering block 0 is ``embed``, block i's mlp_output is
    ``leaves[i]`` plus its transcoder's skip of what it reads (``skips=False``: ``leaves[i]`` alone, the clean
    outputs); returns (what each transcoder reads, the logits, and with ``stream`` the stream lm_head reads)."""
    rows = embed.shape[0]
    batch = {key: value.expand(rows, *value.shape[1:]) for key, value in frozen.batch.items()}
    reads = []
    with fixed_inside(frozen), trace(model, batch):
        model.layers[0].layer_input = embed
        for i, layer in enumerate(model.layers):
            point = replacement.reads[i]
            if point is None:  # a block with no MLP, so no transcoder: nothing read, nothing written
                frozen_attention(model, frozen, i, rows)
                reads.append(torch.zeros_like(embed))
                continue
            if _IN_A_BLOCK.get(point.name, 0) <= _IN_A_BLOCK["layer_input"]:  # the block's input: before it all
                x = point.read()
                reads.append(x.save())
                frozen_attention(model, frozen, i, rows)
            elif point.name == "mlp_norm_output" and one_norm(layer):  # the attention's norm: read before the attention
                frozen_attention(model, frozen, i, rows, between=lambda: reads.append(point.read().save()))
                x = reads[-1]
            else:
                frozen_attention(model, frozen, i, rows)
                if frozen.mlp_scales[i] is not None and _IN_A_BLOCK.get(point.name, 0) > _IN_A_BLOCK["mlp_norm_scale"]:
                    layer.mlp_norm_scale = _rows(frozen.mlp_scales[i], rows)
                x = point.read()
                reads.append(x.save())
            skip = replacement.skip(i, x) if skips else None
            layer.mlp.mlp_output = leaves[i] if skip is None else leaves[i] + skip.to(leaves[i].dtype)
        fixed_final_scale(model, frozen, rows)
        final = model.final_norm_output.save() if stream else None
        logits = getattr(model, readout).save()
    return (reads, logits, final) if stream else (reads, logits)


@dataclass
class FrozenAttribution:
    """A logit split over the frozen map's inputs: ``terms[node]`` for node ``("embed", position)`` or
    ``("mlp", block, position)``, plus ``constant`` (the map at zero input: the biases' share); they sum to
    ``total``, the frozen map's logit at the clean inputs, which is the clean run's logit."""

    token: int
    position: int
    terms: dict
    constant: float
    total: float
    clean: float
    nodes: list = field(default_factory=list)

    def by_input(self) -> dict:
        """The terms summed over positions: {"embed": ..., ("mlp", i): ...}."""
        out: dict = {}
        for node, value in self.terms.items():
            key = EMBED if node[0] == EMBED else (MLP, node[1])
            out[key] = out.get(key, 0.0) + value
        return out

    @property
    def residual(self) -> float:
        """total - (constant + the terms): zero up to rounding, the map being affine."""
        return self.total - self.constant - sum(self.terms.values())


def attribute(model, prompt, token, position: int = -1, frozen: Frozen | None = None) -> FrozenAttribution:
    """Split the logit of ``token`` at ``position`` over every input of the frozen map, exactly: one row per
    (input, position) alone, one at zero, one at the clean inputs, in one batched pass."""
    frozen = frozen or freeze(model, prompt)
    token = token_id(model, token)
    seq = frozen.seq_len
    nodes = [(EMBED, p) for p in range(seq)] + [(MLP, i, p) for i in range(model.num_layers) for p in range(seq)]
    rows = len(nodes) + 2
    inputs = frozen.zeros(rows)
    for row, node in enumerate(nodes):
        key = EMBED if node[0] == EMBED else (MLP, node[1])
        at = node[-1]
        inputs[key][row, at] = frozen.inputs[key][0, at]
    for key, value in frozen.inputs.items():  # the last row: every input at its clean value
        inputs[key][-1] = value[0]
    logits = frozen_logits(model, frozen, inputs)[:, position, token].detach().double()
    constant = float(logits[-2])
    terms = {node: float(logits[row]) - constant for row, node in enumerate(nodes)}
    return FrozenAttribution(token, position, terms, constant, float(logits[-1]),
                             float(frozen.logits[0, position, token]), nodes)
