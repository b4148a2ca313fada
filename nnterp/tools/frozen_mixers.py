"""The token mixers that are no softmax attention, for the frozen trace (``nnterp.tools.frozen``): where each
block mixes (``block_mixers``), the kernels whose data-dependent coefficients are fixed at the clean run's
(``KERNELS``, ``kernel_calls``, read through nnsight's ``.source``), and those calls frozen and replayed
(``FrozenKernel``, ``fixed_kernels``)."""

from __future__ import annotations

import ast
import inspect
import textwrap
import weakref
from dataclasses import dataclass
from functools import partial, reduce

import torch

from nnterp.declare import labels
from nnterp.declare.engine import module_of
from nnterp.declare.mixers import is_softmax_attention
from nnterp.tools._common import ToolError

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


def envoy_at(layer, name: str):
    """The envoy of the module at ``name`` (dotted) under a block."""
    return reduce(getattr, name.split("."), layer)


def block_mixers(model, i: int) -> list:
    """Block ``i``'s token mixing in the order the block runs it: ("self_attn", None) for a softmax attention (its
    pattern frozen) and (child name, module) for each mixer that is none, whose kernels' coefficients are frozen:
    the one in the attention's slot, or one beside the attention (Falcon-H1's Mamba-2 mixer)."""
    layer = model.layers[i]
    block, slot = module_of(layer), _slot(layer)
    mixer, mlps = mixer_of(model, i), _mlp_modules(model)
    # the block's child each mixer sits in, for the order the block calls them (Zamba's attention is inside its
    # shared_transformer, its scan inside its mamba_decoder)
    holder = next((name for name, child in block.named_children() if slot is not None and slot in set(child.modules())),
                  None)
    found = [("self_attn", mixer, holder)] if slot is not None else []  # none: a block of an MLP alone
    taken = set(slot.modules()) if slot is not None else set()
    for name, child in block.named_modules():  # beside the attention, or inside a sub-block (Zamba's mamba_decoder)
        if child is not block and child not in taken and child not in mlps and scans(child):
            found.append((name, child, name.split(".")[0]))
            taken.update(child.modules())
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


def _broadcast(clean: torch.Tensor, like: torch.Tensor) -> torch.Tensor:
    """The clean run's one row as ``like``'s rows (batch first, or batch and positions flattened first)."""
    if clean.shape == like.shape:
        return clean
    if clean.shape[0] == 1:
        return clean.expand_as(like)
    return clean.repeat(like.shape[0] // clean.shape[0], *([1] * (clean.dim() - 1)))


def mixer_modules(model) -> list:
    """The token mixers that are no softmax attention: in the attention's slot (``mixer_of``), or beside it."""
    return [mixer for i in range(model.num_layers) for _, mixer in block_mixers(model, i) if mixer is not None]


def _block_mlp(layer):
    """A block's MLP module, or None where the block has none (a Mamba block)."""
    return getattr(getattr(layer, "mlp", None), "_module", None)


def _mlp_modules(model) -> set:
    """Every module inside a block's MLP (whose output the frozen map replaces)."""
    inside = set()
    for layer in model.layers:
        mlp = _block_mlp(layer)
        if mlp is not None and mlp is not module_of(layer):
            inside.update(mlp.modules())
    return inside
