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

A token mixer that is no softmax attention (``mixer_modules``: a Mamba or Mamba-2 scan, a delta rule, a gated short
convolution, a lightning attention, RWKV's time mix, an RG-LRU, xLSTM's matrix memory) has no pattern: its
data-dependent coefficients are fixed instead (``kernel_calls``, through nnsight's ``.source``): the coefficient
arguments of the kernels it calls (``KERNELS``: a scan's dt, B, C and gate; a delta rule's queries, keys, decays and
write strengths) and the coefficients its forward unpacks by name (``COEFFICIENT_NAMES``) take the clean run's, a
SiLU on what it mixes becomes its input times the clean slope, and its own gates, SiLU or GELU gates and norms'
scales replay as an attention's do (``MIXER_GATES``). The mixer is then linear in its input, and still carries it.
A block with no MLP (Mamba's) adds no input to the map.

What no freezing fixes is refused in one sentence: positions the sites leave out (CPM-Ant's learned prompt, which
attends to the call's tokens through MLPs no transcoder replaces), a module the model runs with gradients off
(``gradients_off``: a ``torch.no_grad`` inside its forward, which an attribution graph's gradients miss); and
``first_nonlinear`` finds, by a second difference along a line of inputs, the first module whose output is still
not affine in the map's inputs (an activation outside the MLPs, a convolution whose taps come from its input, an MLP
no site serves, as Zamba's shared one), which ``attribution_graph`` names when it refuses.
"""

from __future__ import annotations

from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field, replace
from functools import partial

import torch

from nnterp.contract.numerics import UNIT_ROUNDOFF
from nnterp.declare.engine import module_of
from nnterp.declare.errors import UnavailableValue
from nnterp.tools._common import _IN_A_BLOCK, ToolError, encode, trace
from nnterp.tools.attribution import _eps, _probe
from nnterp.tools.frozen_gates import (
    GATED_NORM,
    MIXER_GATES,
    FrozenScale,
    FrozenSlope,
    _gated,
    _hooked,
    _is_gate,
    _is_norm,
    _site_module,
    gated_norm,
    hooked_norms,
)
from nnterp.tools.frozen_lean import _run_frozen, lean_modules
from nnterp.tools.frozen_mixers import (
    _block_mlp,
    _broadcast,
    _freeze_kernels,
    _mlp_modules,
    _slot,
    block_mixers,
    envoy_at,
    fixed_kernels,
    kernel_calls,
    mixer_modules,
    mixer_of,
    scans,
)

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
            _gated(attentions(model), gates, replay=False, functions=gate_functions(model)):
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
    norm module made of modules, as AX-K2's RMSNorm times a sigmoid gate of a low-rank MLP of its output; a norm given
    a gate, ``gated_norm``, inside a mixer too) and every module whose class names it a gate (Inkling 2 Loop's message
    gate: its tanh gates too), outside the MLPs."""
    blocks = {module_of(layer) for layer in model.layers}
    found = [module for layer in model.layers
             for module in [_slot(layer)] if module is not None and module not in blocks]
    inside = {inner for module in found for inner in module.modules()} | _mlp_modules(model)
    served = {type(module) for module in found}  # a second attention of the same class (LongCat-Flash's sublayers)
    for module in module_of(model).modules():
        name = type(module).__name__.lower()
        composite_norm = "norm" in name and any(True for _ in module.children()) and not _is_norm(module)
        gates = "attention" in name or composite_norm or type(module) in served or _is_gate(module)
        if gates and module not in inside and not blocks & set(module.modules()):
            found.append(module)
            inside.update(module.modules())
    # a mixer beside the attention (Falcon-H1's), and a norm with a gate input, inside a mixer too: its own gate and
    # scale fixed (the mixer's gates around it)
    mlps = _mlp_modules(model)
    beside = [child for block in blocks for child in block.children()
              if child not in found and child not in mlps and scans(child)]
    return found + beside + [module for module in module_of(model).modules()
                             if gated_norm(module) and module not in found and module not in mlps]


def gate_functions(model) -> dict:
    """The functions whose outputs ``_Gates`` fixes in each module that is no plain attention: a mixer's
    (``MIXER_GATES``), a gated norm's (``GATED_NORM``)."""
    functions = {mixer: MIXER_GATES for mixer in mixer_modules(model)}
    functions.update({module: GATED_NORM for module in attentions(model) if gated_norm(module)})
    return functions


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
                        source = envoy_at(layer, name).source
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
    inner = _freeze_inner(model, recorded)
    later_norms, later_mlps = _later_calls(model, batch, counts)
    inner.update(later_norms)
    taps.update(later_mlps)
    return Frozen(batch, [_detached(s) for s in scales], [_detached(p) for p in patterns],
                  _detached(final) if final_served else None, inputs, logits.detach().clone(),
                  [s.detach().clone() if s is not None else None for s in mlp_scales], inner, gates, taps, kernels)


def _looped_mlp(layer):
    """The module whose output a looped block's later calls hold: its MLP, or the mlp_output site's module where the
    MLP is no module of its own."""
    mlp = _block_mlp(layer)
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
    classes = {type(mlp) for layer in model.layers for mlp in [_block_mlp(layer)]
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
            fixed_kernels(envoy_at(layer, name), calls, rows)


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
                     skips: bool = True, stream: bool = False, attention: tuple | None = None, lean=False):
    """The replacement model, rows at once: the stream entering block 0 is ``embed``, block i's mlp_output is
    ``leaves[i]`` plus its transcoder's skip of what it reads (``skips=False``: ``leaves[i]`` alone, the clean
    outputs); returns (what each transcoder reads, the logits, and with ``stream`` the stream lm_head reads, and
    with ``attention=(block, read)`` last the values ``read(self_attn)`` saves in that block's attention, before its
    pattern is fixed: its queries, keys, scores).

    ``lean`` (True, or the ``LeanModules`` of ``lean_modules``, found once for several passes): the pass an
    attribution graph's backward passes share, doing what they need alone: each norm whose
    scale a site serves runs as ``gain · x · scale + bias`` at the clean scale in place of its module (nnsight's
    skip, ``frozen_norms``), affine in ``x``, so autograd keeps nothing of it but that constant factor (the scale
    written at the site would keep each norm's ``x²`` and ``x · scale`` for a backward whose terms cancel); each MLP
    whose output the leaves replace is not run (``_replaced_mlps``), nor lm_head but on the last position
    (``_last_position_head``), so the logits have that position alone. The values are the same to rounding."""
    rows = embed.shape[0]
    batch = {key: value.expand(rows, *value.shape[1:]) for key, value in frozen.batch.items()}
    if lean is True:
        lean = lean_modules(model, frozen, replacement, embed.dtype, embed.shape[-1])
    norms, mlps, head = (lean.norms, lean.mlps, lean.head) if lean else ({}, {}, None)
    # the attention norms run frozen here are left out of what frozen_attention fixes at their sites
    unscaled = replace(frozen, attention_scales=[None if ("attention", i) in norms else scale
                                                 for i, scale in enumerate(frozen.attention_scales)])
    reads, inside = [], []

    def attend(i, between=None):
        if ("attention", i) in norms:
            _run_frozen(*norms["attention", i])
        frozen_attention(model, unscaled, i, rows, between=between)

    with fixed_inside(frozen), trace(model, batch):
        model.layers[0].layer_input = embed.contiguous()  # a model may view its input (GPT's Conv1D)
        for i, layer in enumerate(model.layers):
            point = replacement.reads[i]
            peek = partial(_peek, inside, attention[1], layer.self_attn) if attention and attention[0] == i else None
            if point is None:  # a block with no MLP, so no transcoder: nothing read, nothing written
                attend(i, peek)
                reads.append(torch.zeros_like(embed))
                continue
            if _IN_A_BLOCK.get(point.name, 0) <= _IN_A_BLOCK["layer_input"]:  # the block's input: before it all
                x = point.read()
                reads.append(x.save())
                attend(i, peek)
            elif point.name == "mlp_norm_output" and one_norm(layer):  # the attention's norm: read before the attention
                attend(i, lambda: (reads.append(point.read().save()), peek and peek()))  # noqa: B023
                x = reads[-1]
            else:
                attend(i, peek)
                if frozen.mlp_scales[i] is not None and _IN_A_BLOCK.get(point.name, 0) > _IN_A_BLOCK["mlp_norm_scale"]:
                    if ("mlp", i) in norms:
                        _run_frozen(*norms["mlp", i])
                    else:
                        layer.mlp_norm_scale = _rows(frozen.mlp_scales[i], rows)
                x = point.read()
                reads.append(x.save())
            skip = replacement.skip(i, x) if skips else None
            # a tensor of its own, laid out whole: the model may add to its MLP's output in place (Falcon's), or view
            # it, and a leaf may be a caller's, or rows that are one row's view (an attribution graph's)
            written = leaves[i].clone(memory_format=torch.contiguous_format) if skip is None else \
                leaves[i] + skip.to(leaves[i].dtype)
            if i in mlps:  # the MLP's output is the site's: the module is not run, its output is the written value
                mlps[i].skip(written)
            else:
                layer.mlp.mlp_output = written
        if "final" in norms:
            _run_frozen(*norms["final"])
        else:
            fixed_final_scale(model, frozen, rows)
        final = model.final_norm_output.save() if stream else None
        if head is not None:
            x = head.input
            head.skip(torch.nn.functional.linear(x[..., -1:, :], head._module.weight, head._module.bias))
        logits = getattr(model, readout).save()
    return (reads, logits) + ((final,) if stream else ()) + ((inside,) if attention else ())


def _peek(inside: list, read, attention) -> None:
    inside.extend(read(attention))
