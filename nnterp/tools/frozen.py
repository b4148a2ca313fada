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

With ``chunk_bytes`` (an attribution graph's ``memory_budget``) every eager attention runs a query chunk at a time and
a pattern is kept as what recomputes it (``frozen_attention``: the clean queries and keys, one row of the mask), never
[heads q k] whole; an attention whose own code computes its pattern keeps it stored.

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

A residual of several streams (``frozen_streams``: hyper-connections, AltUp) has no stream entering block 0: the
map's first input is then the token embedding the streams are made from, and what mixes the streams with
data-dependent weights is fixed at the clean run's: a hyper-connection's gates (``STREAM_GATES``: the sigmoid and
softmax weights that collapse the streams into a sublayer's input and spread its output back, a norm's scale),
AltUp's router (held at its clean outputs, as taps are) and the magnitudes the model matches between streams in its
own forward (``MAGNITUDES``, ``own_calls``); a reversible residual's blocks run as plain differentiable calls
(``differentiable_blocks``). A softmax attention whose pattern no site serves (a compressed or sparse attention with
a sink; Reformer's chunked one, its softmax written out as exp and logsumexp and its hash buckets' argmax and sort
replayed too, ``WRITTEN_SOFTMAX``) is fixed by its own softmax, replayed among its gates; a gate a module calls once
a row of the pass (an indexer's loop over the batch) is replayed a row at a time.

Positions the blocks run ahead of the call's, which no site serves (CPM-Ant's learned prompt, which attends to the
call's tokens), have their MLP outputs held at the clean run's (``HeldAhead``), as circuit-tracer's ``zero_positions``
hold a position's: a constant of each target, whose share a graph reports. A block the call does not run (a
cross-attention block on a text call, ``Frozen.skipped``) has no pattern, no scale and no MLP output: the map sets
nothing there. What no freezing fixes is refused in one sentence: a module the model runs with gradients off
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
from nnterp.runtime.status import skipped_by
from nnterp.tools._common import _IN_A_BLOCK, ToolError, encode, trace
from nnterp.tools.attribution import _eps, _probe
from nnterp.tools.frozen_attention import chunked_attention, recording_attention, replayed_attention
from nnterp.tools.frozen_gates import (
    MAGNITUDES,
    FrozenScale,
    FrozenSlope,
    _gated,
    _hooked,
    _is_norm,
    _site_module,
    hooked_norms,
    own_calls,
)
from nnterp.tools.frozen_modules import (  # noqa: F401 (the tools' and the notes' names here)
    _is_activation,
    attentions,
    gate_functions,
    gating_activations,
    head_activations,
    tap_projections,
)
from nnterp.tools.frozen_lean import _run_frozen, lean_modules
from nnterp.tools.frozen_mixers import (
    _block_mlp,
    _broadcast,
    _freeze_kernels,
    _slot,
    block_mixers,
    envoy_at,
    fixed_kernels,
    kernel_calls,
    mixer_of,
)
from nnterp.tools.frozen_streams import (
    differentiable_blocks,
    magnitude_hosts,
    map_input,
    map_input_host,
    reversible_functions,
    stream_routers,
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
    #: per block, why this call skips it (a cross-attention block on a text call), None where it runs: a block that
    #: does not run has no pattern, no scales and no MLP output, and the map sets nothing there
    skipped: list = field(default_factory=list)
    #: each module whose own forward matches the streams' magnitudes (``magnitude_hosts``), its square roots call by
    #: call in the clean run
    magnitudes: dict = field(default_factory=dict)
    #: a reversible residual's (``frozen_streams.reversible_functions``): its Functions and its blocks, run as plain
    #: differentiable calls in every frozen pass (``differentiable_blocks``)
    reversible: tuple = ((), ())
    #: with ``chunk_bytes`` (``freeze(..., chunk_bytes=)``): each attention module's kernel calls in the clean run
    #: (``AttentionCall``), which recompute its pattern a query chunk at a time; its block's ``patterns`` entry is None
    attention_calls: dict = field(default_factory=dict)
    chunk_bytes: int | None = None

    def runs(self, i: int) -> bool:
        """Whether the call runs block ``i``."""
        return not self.skipped or self.skipped[i] is None

    @property
    def seq_len(self) -> int:
        return int(self.batch["input_ids"].shape[1])

    def zeros(self, rows: int = 1) -> dict:
        """The map's inputs, all zero, for ``rows`` rows."""
        return {key: torch.zeros(rows, *value.shape[1:], dtype=value.dtype) for key, value in self.inputs.items()}


def _require(model) -> None:
    if map_input(model) is None:
        why = model.serves("layer_input", 0)
        raise ToolError(f"a frozen trace sets the stream entering block 0, which this model does not serve: {why}")


def unpatterned_attentions(model) -> list:
    """The blocks whose softmax attention no site serves a pattern of (a compressed or sparse attention with a sink,
    a chunked one): its own softmax replays among its gates (``_require_patterns``), its kernel unchunked under a
    memory budget (``freeze``)."""
    return [i for i in range(model.num_layers) if model.serves("attention_probabilities", i) is not None
            and _slot(model.layers[i]) is not None and mixer_of(model, i) is None]


def _require_patterns(model, gates: dict) -> None:
    """Every softmax attention's pattern fixed: served as attention_probabilities, or, where it is not
    (``unpatterned_attentions``), the attention's own softmax (or its exp, written out), which the clean run recorded
    among its gates and the frozen passes replay."""
    for i in unpatterned_attentions(model):
        if not {"softmax", "exp"} & set(getattr(gates.get(_slot(model.layers[i])), "names", ())):
            raise ToolError(f"a frozen trace needs attention_probabilities, which this model does not serve at block "
                            f"{i}: {model.serves('attention_probabilities', i)}")


@contextmanager
def recording_inside(model, norms: dict, gates: dict, taps: dict | None = None, magnitudes: dict | None = None):
    """The clean run, keeping what makes each attention non-linear in the stream beyond its pattern and its norm's
    scale: each inner norm's calls, input and output (``norms``), each gate's output (``gates``), each dynamic
    convolution's taps (``taps``), each block's MLP output over the positions ahead of the call's (``taps``,
    ``HeldAhead``), and the streams' magnitudes where a model matches them (``magnitudes``)."""
    inside = hooked_norms(model) + head_activations(model)
    taps = {} if taps is None else taps
    ahead = model.family.positions.ahead(model.config)
    magnitudes = {} if magnitudes is None else magnitudes

    def record(module, _, args, output):
        norms.setdefault(module, []).append((args[0].detach().clone(), output.detach().clone()))

    def record_taps(module, _, args, output):
        taps.setdefault(module, []).append(output.detach().clone())

    def record_ahead(module, _, args, output):
        taps.setdefault(module, []).append(HeldAhead(output[:, :ahead].detach().clone()))

    with _hooked(inside, record), \
            _hooked(tap_projections(model) + gating_activations(model) + stream_routers(model), record_taps), \
            _hooked(block_mlps(model) if ahead else [], record_ahead), \
            _gated(attentions(model), gates, replay=False, functions=gate_functions(model)), \
            own_calls(magnitude_hosts(model), magnitudes, replay=False, functions=MAGNITUDES):
        yield


@dataclass
class HeldAhead:
    """One call of a block's MLP over positions ahead of the call's (CPM-Ant's learned prompt, which no site serves):
    its output there held at the clean run's, as ``zero_positions`` hold a position's, a share of each target's
    constant; the call's own positions are what the map sets."""

    clean: torch.Tensor

    def __call__(self, output: torch.Tensor) -> torch.Tensor:
        ahead = self.clean.shape[1]
        return torch.cat([_broadcast(self.clean, output[:, :ahead]).to(output.dtype), output[:, ahead:]], 1)


@contextmanager
def ahead_at_zero(frozen: Frozen):
    """The MLP outputs over the positions ahead of the call's held at zero instead of the clean run's: a target's
    value less its value so is the share those held outputs carry."""
    held = dict(frozen.taps)
    frozen.taps.update({module: [HeldAhead(torch.zeros_like(call.clean)) if isinstance(call, HeldAhead) else call
                                 for call in calls] for module, calls in held.items()})
    try:
        yield
    finally:
        frozen.taps.update(held)


def holds_ahead(frozen: Frozen) -> bool:
    """Whether ``frozen`` holds MLP outputs over positions ahead of the call's (``HeldAhead``)."""
    return any(isinstance(call, HeldAhead) for calls in frozen.taps.values() for call in calls)


def block_mlps(model) -> list:
    """Each block's MLP module (or the mlp_output site's module), where it has one."""
    return [mlp for layer in model.layers for mlp in [_looped_mlp(layer)] if mlp is not None]


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
        if clean is None:  # a call a site fixes (a looped block's first)
            return None
        return clean(output) if isinstance(clean, HeldAhead) else _broadcast(clean, output)

    stack = ExitStack()
    stack.enter_context(differentiable_blocks(*frozen.reversible))
    stack.enter_context(_hooked(list(frozen.inner), fix))
    stack.enter_context(_hooked(list(frozen.taps), fix_taps))
    stack.enter_context(_gated([module for module, calls in frozen.gates.items() if calls], frozen.gates, replay=True))
    stack.enter_context(own_calls(list(frozen.magnitudes), frozen.magnitudes, replay=True, functions=MAGNITUDES))
    return stack


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


def freeze(model, prompt, chunk_bytes: int | None = None) -> Frozen:
    """Run ``prompt`` (one row) and keep its norm scales, attention patterns and the map's clean inputs.
    ``chunk_bytes``: every eager attention kernel runs a query chunk at a time (``chunked_attention``), and an
    attention whose kernel is called through ``attention_interface`` keeps, instead of its [1 heads q k] pattern,
    what recomputes it a chunk at a time (``Frozen.attention_calls``); one whose own code computes its pattern keeps
    the pattern."""
    _require(model)
    if chunk_bytes is None or unpatterned_attentions(model):  # its softmax replays among its gates, unchunked
        return _freeze(model, prompt, None)
    with chunked_attention(chunk_bytes):
        recomputed = _recomputed_blocks(model, encode(model, prompt), chunk_bytes)
    if recomputed is None:  # a kernel whose output is not its pattern times its values: the patterns stored
        return _freeze(model, prompt, None)
    with chunked_attention(chunk_bytes):
        return _freeze(model, prompt, chunk_bytes, recomputed)


def clean_run(frozen: Frozen):
    """A clean run of ``frozen``'s prompt as its trace ran: every attention a query chunk at a time where it was."""
    return chunked_attention(frozen.chunk_bytes) if frozen.attention_calls else ExitStack()


def _freeze(model, prompt, chunk_bytes: int | None, recomputed: set = frozenset()) -> Frozen:
    batch = encode(model, prompt)
    if batch["input_ids"].shape[0] != 1:
        raise ToolError("freeze takes one prompt: the frozen scales and patterns are one run's")
    scales, patterns, mlps, mlp_scales = [], [], [], []
    final_served = model.serves("final_norm_scale") is None
    mlp_norms = [model.serves("mlp_norm_scale", i) is None and not one_norm(model.layers[i])
                 for i in range(model.num_layers)]
    recorded, gates, counts, taps, magnitudes = {}, {}, {}, {}, {}
    skipped = [skipped_by(model, layer, tuple(batch)) for layer in model.layers]
    mixing = [[] if skipped[i] else block_mixers(model, i) for i in range(model.num_layers)]
    kernel_inputs = []
    first_input = map_input(model)
    attention_calls = {}
    recording = recording_attention(chunk_bytes, attention_calls) if chunk_bytes is not None else ExitStack()
    try:
        with torch.no_grad(), _counting_calls([module_of(layer) for layer in model.layers], counts), \
                recording_inside(model, recorded, gates, taps, magnitudes), recording, trace(model, batch):
            first = getattr(map_input_host(model, first_input), first_input).save()
            for i, layer in enumerate(model.layers):
                runs = skipped[i] is None
                scales.append(layer.attention_norm_scale.save()
                              if runs and model.serves("attention_norm_scale", i) is None else None)
                patterns.append(None)
                for name, mixer in mixing[i]:
                    if mixer is None:  # a softmax attention: its pattern, where served and not recomputed from
                        # its recorded calls (``recording_attention``); where not served, its softmax replays
                        if model.serves("attention_probabilities", i) is None and i not in recomputed:
                            patterns[i] = layer.self_attn.attention_probabilities.save()
                    else:  # a mixer: its kernels' arguments, in the order it calls them
                        source = envoy_at(layer, name).source
                        kernel_inputs.append([(getattr(source, call.label).inputs.save(),
                                               getattr(source, call.label).output.save())
                                              for call in kernel_calls(mixer)])
                mlp_scales.append(layer.mlp_norm_scale.save() if runs and mlp_norms[i] else None)
                mlps.append(layer.mlp.mlp_output.save() if runs and has_mlp(model, i) else None)
            final = model.final_norm_scale.save() if final_served else torch.zeros(0)
            logits = model.logits.save()
    except UnavailableValue as error:  # a value this call does not compute, in a block it runs
        raise ToolError(f"a frozen trace reads every block's pattern, and {error}") from None
    _require_patterns(model, gates)
    inputs = {EMBED: first.detach().clone()}
    # a block with no MLP (a Mamba block), or one the call skips, adds nothing the map takes: its input is zeros,
    # written nowhere
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
                  [s.detach().clone() if s is not None else None for s in mlp_scales], inner, gates, taps, kernels,
                  skipped=skipped, magnitudes=magnitudes,
                  reversible=(reversible_functions(model), [module_of(layer) for layer in model.layers]),
                  attention_calls=attention_calls, chunk_bytes=chunk_bytes)


def _recomputed_blocks(model, batch, chunk_bytes: int) -> set | None:
    """The blocks whose attention calls its kernel through ``attention_interface`` (found on the prompt's first two
    tokens), whose patterns are recomputed a query chunk at a time; any other (an attention whose own code computes
    its pattern, as Bloom's with ALiBi) keeps its stored pattern. None where a kernel's output is not its pattern
    times its values (Granite SWA's sink gate after the pattern): no pattern of it can be replayed."""
    calls = {}
    with torch.no_grad(), recording_attention(chunk_bytes, calls), \
            trace(model, {key: value[:, :2] for key, value in batch.items()}):
        model.logits.save()
    if not all(call.replayable for module_calls in calls.values() for call in module_calls):
        return None
    return {i for i, layer in enumerate(model.layers) if set(calls) & set(module_of(layer).modules())}


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
            if frozen.patterns[i] is not None:  # else recomputed from its recorded calls (``replayed_attention``),
                # or its softmax replayed among its gates
                layer.self_attn.attention_probabilities = _rows(frozen.patterns[i], rows)
        else:
            fixed_kernels(envoy_at(layer, name), calls, rows)


def fixed_final_scale(model, frozen: Frozen, rows: int) -> None:
    """Inside a trace: the final norm's scale at the clean run's, where the model serves it (else it is hooked)."""
    if frozen.final_scale is not None:
        model.final_norm_scale = _rows(frozen.final_scale, rows)


def set_map_input(model, value) -> None:
    """Inside a trace: the map's first input set (the stream entering block 0, or the token embedding a residual of
    several streams is made from, ``frozen_streams.map_input``)."""
    name = map_input(model)
    setattr(map_input_host(model, name), name, value)


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
    with replayed_attention(frozen.chunk_bytes, frozen.attention_calls), trace(model, batch):
        set_map_input(model, inputs[EMBED])
        for i, layer in enumerate(model.layers):
            frozen_attention(model, frozen, i, rows)
            if frozen.mlp_scales and frozen.mlp_scales[i] is not None:
                layer.mlp_norm_scale = _rows(frozen.mlp_scales[i], rows)
            if has_mlp(model, i) and frozen.runs(i):
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

    with fixed_inside(frozen), replayed_attention(frozen.chunk_bytes, frozen.attention_calls), trace(model, batch):
        set_map_input(model, embed.contiguous())  # a model may view its input (GPT's Conv1D)
        for i, layer in enumerate(model.layers):
            point = replacement.reads[i]
            peek = partial(_peek, inside, attention[1], layer.self_attn) if attention and attention[0] == i else None
            if point is None or not frozen.runs(i):  # no MLP (no transcoder), or not run: nothing read or written
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
