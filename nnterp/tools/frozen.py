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

An activation outside the MLPs is frozen too: a gated MLP's beside the blocks' MLPs (``gating_activations``:
LongCat-Flash's dense MLPs beside its experts) at its clean output, a gate on the up projection; one past the blocks
(``head_activations``: ModernBERT decoder's GELU in its prediction head) at its clean slope, output over input
(``FrozenSlope``), as the final norm at its scale, so the readout is linear.

A block run more than once a forward (looped depth) is fixed by the sites at its first call; its later calls' MLP
outputs are held at the clean run's and their served norms frozen by hooks, call by call (``_later_calls``), and so
are, at every call, MLPs of a block's MLP class outside the blocks (HRM's low-level stack).

What no freezing fixes is refused in one sentence: positions the sites leave out (CPM-Ant's learned prompt, which
attends to the call's tokens through MLPs no transcoder replaces), a module the model runs with gradients off
(``gradients_off``: a ``torch.no_grad`` inside its forward, which an attribution graph's gradients miss); and
``first_nonlinear`` finds, by a second difference along a line of inputs, the first module whose output is still
not affine in the map's inputs (a state-space mixer, an activation outside the MLPs, a convolution whose taps come
from its input), which ``attribution_graph`` names when it refuses.
"""

from __future__ import annotations

from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from functools import partial

import torch
from torch.overrides import TorchFunctionMode

from nnterp.contract.numerics import UNIT_ROUNDOFF, roundings
from nnterp.declare.companions import norm_eps
from nnterp.declare.engine import module_of
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
        if why is not None:
            raise ToolError(f"a frozen trace needs attention_probabilities, which this model does not serve at block "
                            f"{i}: {why}")


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
    first term as it ran)."""
    served = set()
    for i, layer in enumerate(model.layers):
        for name in ("attention_norm_scale", "mlp_norm_scale"):
            if model.serves(name, i) is None:
                served.add(_site_module(layer, name))
        # the map's input: written there (and, where it is a sum, less its first term), so left as it runs
        served.update(_site_module(layer, "mlp_output", where) for where in ("where", "earlier"))
    mlps = _mlp_modules(model)
    if model.serves("final_norm_scale") is None:
        served.add(_site_module(model, "final_norm_scale"))
    return [module for module in module_of(model).modules() if module not in served and module not in mlps
            and _is_norm(module)]


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


class _Gates(TorchFunctionMode):
    """Inside one attention's forward: each gate's output appended to ``calls`` (the clean run) or replaced by the
    clean run's, call by call from ``start`` (a constant, broadcast to the pass's rows); ``index`` is where the next
    call of the module goes on (a module called more than once a forward, as a looped block, goes on from there)."""

    def __init__(self, calls: list, replay: bool, start: int = 0, gates: frozenset = GATES) -> None:
        super().__init__()
        self.calls, self.replay, self.index, self.gates = calls, replay, start, gates

    def __torch_function__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        if func not in self.gates:
            return out
        if not self.replay:
            self.calls.append(tuple(t.detach().clone() for t in out) if isinstance(out, tuple) else out.detach().clone())
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


def _gated(attentions, calls: dict, replay: bool):
    """Each attention's forward run under ``_Gates``: recording into ``calls[module]``, or replaying it, call by call
    over the whole forward."""
    modes, done = {}, {}

    def enter(module, _, args):
        modes[module] = _Gates(calls[module] if replay else calls.setdefault(module, []), replay, done.get(module, 0),
                               GATE_MODULE_GATES if _is_gate(module) else GATES)
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
    inside = hooked_norms(model) + head_activations(model)
    taps = {} if taps is None else taps

    def record(module, _, args, output):
        norms.setdefault(module, []).append((args[0].detach().clone(), output.detach().clone()))

    def record_taps(module, _, args, output):
        taps.setdefault(module, []).append(output.detach().clone())

    with _hooked(inside, record), _hooked(tap_projections(model) + gating_activations(model), record_taps), \
            _gated(attentions(model), gates, replay=False):
        yield


def _is_activation(module) -> bool:
    """An activation function's module (transformers' or torch's), not a softmax or an attention."""
    name = type(module).__name__.lower()
    return type(module).__module__ in ("transformers.activations", "torch.nn.modules.activation") \
        and not any(word in name for word in ("softm", "multihead")) and not any(True for _ in module.children())


def gating_activations(model) -> list:
    """The activations of gated MLPs outside the blocks' MLPs (a module with a gate and an up projection beside its
    activation, as LongCat-Flash's dense MLPs beside the experts): the activation gates the up projection, so,
    frozen at the clean run's output as an attention's gates are, that MLP is linear in what it reads."""
    inside = _mlp_modules(model)
    found = []
    for module in module_of(model).modules():
        names = [name for name, _ in module.named_children()]
        if module in inside or not (any("gate" in n for n in names) and any("up" in n for n in names)):
            continue
        found += [child for child in module.children() if _is_activation(child)]
    return found


def head_activations(model) -> list:
    """The activations outside every block (a prediction head's, past the final norm, as ModernBERT decoder's
    GELU between its dense layer and its norm): frozen at the clean run's slope (output / input, ``FrozenSlope``), as
    the final norm at its scale, so the readout is linear in the stream."""
    blocks = {inner for layer in model.layers for inner in module_of(layer).modules()}
    return [module for module in module_of(model).modules() if module not in blocks and _is_activation(module)]


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
        return None if call is None else call(args[0])  # None: a call a site fixes (a looped block's first)

    taken = {module: 0 for module in frozen.taps}

    def fix_taps(module, _, args, output):
        calls = frozen.taps[module]
        clean = calls[taken[module] % len(calls)]
        taken[module] += 1
        return None if clean is None else _broadcast(clean, output)

    stack = ExitStack()
    stack.enter_context(_hooked(list(frozen.inner), fix))
    stack.enter_context(_hooked(list(frozen.taps), fix_taps))
    stack.enter_context(_gated([module for module, calls in frozen.gates.items() if calls], frozen.gates, replay=True))
    return stack


def attentions(model) -> list:
    """The modules whose gates are frozen: the attention modules (the blocks' own, and any other module whose class
    names it an attention: a cross-attention outside the blocks, as the Byte Latent Transformer's decoder runs
    before each block, or is of a block's attention's class: a block's second attention), and every gated norm (a
    norm module made of modules, as AX-K2's RMSNorm times a sigmoid gate of a low-rank MLP of its output) and every
    module whose class names it a gate (Inkling 2 Loop's message gate: its tanh gates too), outside the MLPs."""
    blocks = {module_of(layer) for layer in model.layers}
    found = [module for layer in model.layers
             for module in [getattr(layer.self_attn, "_module", None)] if module is not None and module not in blocks]
    inside = {inner for module in found for inner in module.modules()} | _mlp_modules(model)
    served = {type(module) for module in found}  # a second attention of the same class (LongCat-Flash's sublayers)
    for module in module_of(model).modules():
        name = type(module).__name__.lower()
        gated_norm = "norm" in name and any(True for _ in module.children()) and not _is_norm(module)
        gates = "attention" in name or gated_norm or type(module) in served or _is_gate(module)
        if gates and module not in inside and not blocks & set(module.modules()):
            found.append(module)
            inside.update(module.modules())
    return found


def _mlp_modules(model) -> set:
    """Every module inside a block's MLP (whose output the frozen map replaces)."""
    inside = set()
    for layer in model.layers:
        mlp = getattr(layer.mlp, "_module", None)
        if mlp is not None and mlp is not module_of(layer):
            inside.update(mlp.modules())
    return inside


def _freeze_inner(model, recorded: dict) -> dict:
    """Each recorded norm call frozen: the norm's gain, bias and centring measured on the module (whatever its class
    says: an RMSNorm called LayerNorm, an L2 norm, a gain of 1 + w), and its scale, one a row, fitted to the clean
    output (least squares); refused where that form does not give the clean output back."""
    inner = {}
    for module, calls in recorded.items():
        if _is_activation(module):  # a head's activation (head_activations): its clean slope
            inner[module] = [FrozenSlope(torch.where(x != 0, output.float() / x.float(), 0.0)) for x, output in calls]
            continue
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
    leave out."""
    name = model.family.name
    ahead = model.family.positions.ahead(model.config)
    if ahead:
        raise ToolError(f"{name}'s blocks also run over {ahead} learned positions ahead of the call's, which attend "
                        "to the call's tokens and whose MLP outputs no site serves, so no transcoder replaces them and "
                        "the forward stays non-linear in the stream")


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
        if not (isinstance(value, torch.Tensor) and value.is_floating_point() and value.dim() and value.shape[0] == 3
                and value.numel()):
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
    # the first that bends what it is given: its output is not affine, its input is (or is no tensor); where none
    # in the first bent block does, the first anywhere (a module outside the blocks that runs before it)
    for candidates in (within, set(names)):
        for module, out, given in seen:
            if out and not given and module in candidates:
                return names[module], type(module).__name__
    return None


def gradients_off(model, frozen: Frozen):
    """Where the frozen map's gradients miss a path its values take (a ``torch.no_grad`` inside the model's own
    forward, as HRM's first low-level cycles): the map being affine, its gradient along a random step must be the
    step's change of the logits (one random projection of them); where it is not, the first module the pass ran with
    gradients off (or None where the pass ran none), else None. A module run with gradients off whose output the
    frozen trace replaces (an indexer's scores, which only choose the keys) misses nothing and passes."""
    names = {module: path for path, module in module_of(model).named_modules()}
    found = []

    def check(module, _, args):
        if not torch.is_grad_enabled() and module not in found:
            found.append(module)

    generator = torch.Generator().manual_seed(1)
    steps = {key: (torch.randn(value.shape, generator=generator) * value.float().std()).to(value.dtype)
             for key, value in frozen.inputs.items()}
    inputs = {key: value.clone().requires_grad_(True) for key, value in frozen.inputs.items()}
    with torch.enable_grad(), fixed_inside(frozen), _hooked(list(names), lambda *_: None, check):
        logits = _frozen_pass(model, frozen, inputs, "lm_head_output")
        projection = torch.randn(logits.shape, generator=generator).to(logits.dtype)
        grads = torch.autograd.grad((logits * projection).sum(), list(inputs.values()), allow_unused=True)
    with torch.no_grad(), fixed_inside(frozen):
        stepped = _frozen_pass(model, frozen, {key: value + steps[key] for key, value in frozen.inputs.items()},
                               "lm_head_output")
    along = sum(float((g.double() * steps[key].double()).sum()) for key, g in zip(inputs, grads) if g is not None)
    change = (stepped.double() - logits.detach().double()) * projection.double()
    magnitude = float(((stepped.double().abs() + logits.detach().double().abs()) * projection.double().abs()).sum())
    allowed = 2 * roundings(model) * UNIT_ROUNDOFF[frozen.inputs[EMBED].dtype]
    if abs(along - float(change.sum())) <= allowed * max(magnitude, 1e-30):
        return None
    return names[found[0]] if found else None


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
    try:
        with torch.no_grad(), _counting_calls([module_of(layer) for layer in model.layers], counts), \
                recording_inside(model, recorded, gates, taps), trace(model, batch):
            first = model.layers[0].layer_input.save()
            for i, layer in enumerate(model.layers):
                scales.append(layer.attention_norm_scale.save() if model.serves("attention_norm_scale", i) is None
                              else None)
                patterns.append(layer.self_attn.attention_probabilities.save())
                mlp_scales.append(layer.mlp_norm_scale.save() if mlp_norms[i] else None)
                mlps.append(layer.mlp.mlp_output.save())
            final = model.final_norm_scale.save() if final_served else torch.zeros(0)
            logits = model.logits.save()
    except UnavailableValue as error:  # a block this call skips (a cross-attention block on text): no pattern
        raise ToolError(f"a frozen trace reads every block's pattern, and {error}") from None
    _refuse_what_no_freezing_fixes(model, counts)
    inputs = {EMBED: first.detach().clone()}
    inputs.update({(MLP, i): value.detach().clone() for i, value in enumerate(mlps)})
    inner = _freeze_inner(model, recorded)
    later_norms, later_mlps = _later_calls(model, batch, counts)
    inner.update(later_norms)
    taps.update(later_mlps)
    return Frozen(batch, [_detached(s) for s in scales], [p.detach().clone() for p in patterns],
                  _detached(final) if final_served else None, inputs, logits.detach().clone(),
                  [s.detach().clone() if s is not None else None for s in mlp_scales], inner, gates, taps)


def _looped_mlp(layer):
    """The module whose output a looped block's later calls hold: its MLP, or the mlp_output site's module where the
    MLP is no module of its own."""
    mlp = getattr(layer.mlp, "_module", None)
    return mlp if mlp is not None and mlp is not module_of(layer) else _site_module(layer, "mlp_output")


def _later_calls(model, batch, counts: dict) -> tuple[dict, dict]:
    """A block run more than once a forward (looped depth): the sites fix its first call, and a second clean run
    keeps what fixes the later ones, call by call: its norms whose scales the sites serve, at their clean scales
    (``FrozenScale``), and its MLP at its clean output (held: a later call's MLP output is a constant, in each
    target's constant, as circuit-tracer's ``zero_positions`` hold a position's). So is, at every call, an MLP of a
    block's MLP class outside the blocks (HRM's low-level stack, which no site serves). Returns (norms, MLPs), each
    call a site fixes None."""
    looped = [layer for layer in model.layers if counts.get(module_of(layer), 0) > 1]
    norms = {module for layer in looped for name in ("attention_norm_scale", "mlp_norm_scale")
             for module in [_site_module(layer, name)] if module is not None and _is_norm(module)}
    mlps = {_looped_mlp(layer) for layer in looped} - {None}
    # an MLP of a block's MLP class outside the blocks (HRM's low-level stack): held at every call; a class of the
    # model's own (an MLP that is a torch Linear, as OPT's flat one, is no class of MLPs)
    classes = {type(mlp) for layer in model.layers for mlp in [getattr(layer.mlp, "_module", None)]
               if mlp is not None and mlp is not module_of(layer) and not type(mlp).__module__.startswith("torch.")}
    in_blocks = {inner for layer in model.layers for inner in module_of(layer).modules()}
    outside = {module for module in module_of(model).modules() if type(module) in classes} - in_blocks
    if not looped and not outside:
        return {}, {}
    blocks = {module: counts[module_of(layer)] for layer in looped
              for module in [*norms, *mlps] if module in set(module_of(layer).modules())}
    mlps |= outside
    recorded, outputs = {}, {}

    def keep(module, _, args, output):
        outputs.setdefault(module, []).append(output.detach().clone())

    def record(module, _, args, output):
        recorded.setdefault(module, []).append((args[0].detach().clone(), output.detach().clone()))

    with torch.no_grad(), _hooked(list(norms), record), _hooked(list(mlps), keep), trace(model, batch):
        model.logits.save()

    def later(module, calls):  # the first block call's calls are the sites'
        first = len(calls) // blocks[module] if module in blocks else 0
        return [None] * first + calls[first:]

    return ({module: later(module, calls) for module, calls in _freeze_inner(model, recorded).items()},
            {module: later(module, calls) for module, calls in outputs.items()})


def _detached(value):
    return None if value is None else value.detach().clone()


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
    layer.self_attn.attention_probabilities = _rows(frozen.patterns[i], rows)


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
            layer.mlp.mlp_output = inputs[(MLP, i)]
        fixed_final_scale(model, frozen, rows)
        logits = (model.lm_head_output if readout == "lm_head_output" else model.logits).save()
    return logits


def replacement_pass(model, frozen: Frozen, replacement, embed, leaves, readout: str = "lm_head_output",
                     skips: bool = True, stream: bool = False, attention: tuple | None = None):
    """The replacement model, rows at once: the stream entering block 0 is ``embed``, block i's mlp_output is
    ``leaves[i]`` plus its transcoder's skip of what it reads (``skips=False``: ``leaves[i]`` alone, the clean
    outputs); returns (what each transcoder reads, the logits, and with ``stream`` the stream lm_head reads, and
    with ``attention=(block, read)`` last the values ``read(self_attn)`` saves in that block's attention, before its
    pattern is fixed: its queries, keys, scores)."""
    rows = embed.shape[0]
    batch = {key: value.expand(rows, *value.shape[1:]) for key, value in frozen.batch.items()}
    reads, inside = [], []
    with fixed_inside(frozen), trace(model, batch):
        model.layers[0].layer_input = embed
        for i, layer in enumerate(model.layers):
            point = replacement.reads[i]
            peek = partial(_peek, inside, attention[1], layer.self_attn) if attention and attention[0] == i else None
            if point.name == "mlp_norm_output" and one_norm(layer):  # the attention's norm: read before the attention
                frozen_attention(model, frozen, i, rows,
                                 between=lambda: (reads.append(point.read().save()), peek and peek()))  # noqa: B023
                x = reads[-1]
            else:
                frozen_attention(model, frozen, i, rows, between=peek)
                if frozen.mlp_scales[i] is not None and _IN_A_BLOCK.get(point.name, 0) > _IN_A_BLOCK["mlp_norm_scale"]:
                    layer.mlp_norm_scale = _rows(frozen.mlp_scales[i], rows)
                x = point.read()
                reads.append(x.save())
            skip = replacement.skip(i, x) if skips else None
            layer.mlp.mlp_output = leaves[i] if skip is None else leaves[i] + skip.to(leaves[i].dtype)
        fixed_final_scale(model, frozen, rows)
        final = model.final_norm_output.save() if stream else None
        logits = getattr(model, readout).save()
    return (reads, logits) + ((final,) if stream else ()) + ((inside,) if attention else ())


def _peek(inside: list, read, attention) -> None:
    inside.extend(read(attention))


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
