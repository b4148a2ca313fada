"""The block a family declares: ``Family(block=...)``, where it is not the common sequential pre-norm block.

``Block`` holds what the contract, the printout and the cache need to know of a block's shape: its kind, its own
order of the sum, the arithmetic it checks where the block is no sum of the stream and the contributions, the
order it computes its values in, per-block dimensions and the native names of its token mixer. The presets
(``Parallel``, ``PostNorms``) add the sites that differ; ``Family(block=Parallel(...))`` is the whole declaration.
The sites are made once per preset, so blocks of one kind share them (``support()`` groups blocks by their sites).
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass
from typing import Callable

from nnterp.declare.conventions import COMMON_SITES
from nnterp.declare.locations import Argument, Call, Child, Element, Own
from nnterp.declare.writeback import Nowhere, Read

PARALLEL_REASON = "a parallel block: the attention and the MLP read the same input, so there is no stream between them"


def _sequential_sum(x, attn, mlp):
    return (x + attn) + mlp


def attention_dims(context) -> dict:
    """A block's attention dimensions as its attention module keeps them, for configs that give some blocks other
    heads (Laguna's heads per layer; Inkling's sliding blocks, sized by swa_num_attention_heads,
    swa_num_key_value_heads and swa_head_dim)."""
    attention = getattr(context.layer, "self_attn", None)
    found = {}
    for dim, names in (("num_heads", ("num_heads",)), ("num_kv_heads", ("num_key_value_heads", "num_kv_heads")),
                       ("head_dim", ("head_dim",))):
        value = next((getattr(attention, n) for n in names if isinstance(getattr(attention, n, None), int)), None)
        if value:
            found[dim] = value
    if "head_dim" in found:
        found["qk_head_dim"] = found["head_dim"]
    return found


class Block:
    """A block's shape. ``kind`` names it (a word, or config -> word); ``sum`` is the block's own order of the sum
    (x, attn, mlp) -> out, for the identity; ``arithmetic`` is (config) -> None where that sum holds, else (layer
    module, x, attn, mlp) -> layer_output, checked instead (post-norm blocks: OPT's do_layer_norm_before=False,
    BLOOM's apply_residual_connection_post_layernorm); ``mid`` the same for the stream after the attention, (layer
    module, x, attn) -> layer_mid (Dory's interpolation); ``order`` the order the block computes its values in where
    it is not FORWARD_ORDER["block"] (("mlp", "output") marks where the MLP returns); ``dims`` a HostContext of the
    layer -> {dimension: size} where dimensions differ per block; ``mixers`` the native names of the token mixer
    where a block keeps its own self_attn as None (GraniteMoeHybrid's mamba): the mixer becomes that block's
    self_attn host, the module's None attribute untouched; ``interleaved`` the blocks the forward runs among the
    stack's module list that are no members of it (``Interleaved``: Idefics's gated cross-attention layers)."""

    def __init__(self, kind: str | Callable = "sequential", sum: Callable = None, arithmetic: Callable = None,
                 mid: Callable = None, order: tuple | None = None, dims: Callable | None = None,
                 mixers: tuple[str, ...] = (), interleaved: "Interleaved | None" = None) -> None:
        self._kind = kind
        self.sum = sum or _sequential_sum
        self._arithmetic, self._mid = arithmetic, mid
        self.order, self.dims, self.mixers = order, dims, tuple(mixers)
        self.interleaved = interleaved

    def kind(self, config) -> str:
        return self._kind(config) if callable(self._kind) else self._kind

    def arithmetic(self, config):
        return self._arithmetic(config) if self._arithmetic is not None else None

    def mid_arithmetic(self, config):
        return self._mid(config) if self._mid is not None else None

    def sites(self) -> dict:
        return {}

    #: whether a call may skip some of the blocks (``skips`` says which and why): read first, so a read of any
    #: value elsewhere costs nothing more
    may_skip = False
    #: the values a block the call skips still has: its stream in and out, where it is entered and passes the
    #: stream through as it is (Evolla's adapter on a call without a protein)
    passed_through: tuple[str, ...] = ()

    def skips(self, context) -> str | None:
        """Why a call may skip this block (a HostContext of the layer), or None: every call runs it."""
        return None

    def crosses(self, context) -> bool:
        """Whether this block (a HostContext of the layer) cross-attends to the image rather than the call."""
        return False

    def runs_on(self, given) -> bool:
        """Whether a call with the inputs named ``given`` runs the blocks ``skips`` names."""
        return True

    def image_positions(self, model, i, inputs) -> int | None:
        """How many image positions block ``i``'s keys span on a call where it cross-attends to an image; None for
        a block whose keys are the call's positions."""
        return None

    def _shape(self) -> str:
        return self._kind if isinstance(self._kind, str) else "its kind read from the config"

    def describe(self) -> str:
        said = [self._shape()]
        if self._arithmetic is not None:
            said.append("its own arithmetic for layer_output")
        if self._mid is not None:
            said.append("its own arithmetic for layer_mid")
        if self.order is not None:
            said.append("its own order of computing its values")
        if self.dims is not None:
            said.append("dimensions that differ per block")
        if self.mixers:
            said.append(f"its token mixer {', '.join(self.mixers)} as self_attn")
        if self.interleaved is not None:
            said.append(self.interleaved.words)
        return "; ".join(said)

    def but(self, **changes) -> "Block":
        """This block with Block fields changed (``SANDWICH.but(dims=...)``): a copy, the preset untouched."""
        other = copy.copy(self)
        fresh = Block(**changes)
        for name in changes:
            attribute = {"kind": "_kind", "arithmetic": "_arithmetic", "mid": "_mid"}.get(name, name)
            setattr(other, attribute, getattr(fresh, attribute))
        return other


@dataclass(frozen=True)
class Interleaved:
    """Blocks the forward runs among the members of the stack's module list without being members of it: ``path``,
    where they sit, relative to the module holding the list (``*`` for an index: Idefics's
    ``gated_cross_attn_layers.*``, a second module list); ``order`` (holder, config) -> the blocks in forward order,
    the list's and these together, from the holder (a module or its envoy alike: only attributes, indexing and
    iteration are used); ``words`` says where the forward runs them. ``model.layers`` is then nnterp's view of
    that sequence (``envoys.Blocks``): nothing is added to the model."""

    path: str
    order: Callable
    words: str

    def blocks(self, holder, config) -> list:
        return list(self.order(holder, config))


class Parallel(Block):
    """A parallel block: the attention and the MLP read the same input and the block adds both outputs to it, so
    there is no ``layer_mid``. ``mlp_norm`` is the norm whose output the MLP reads (the block's one input norm by
    default); ``when`` names a config flag under which the block is parallel (``default`` where the config leaves
    it out), sequential otherwise; ``sum`` is the block's own order of the sum, for the identity."""

    def __init__(self, mlp_norm: str = "input_layernorm",
                 description: str = "The normed stream entering the MLP: the one norm feeds both sublayers",
                 when: str | None = None, default: bool = False, sum: Callable = _sequential_sum, **block) -> None:
        super().__init__(sum=sum, **block)
        self.mlp_norm, self.when, self.default = mlp_norm, when, default
        self.no_mid = Nowhere(PARALLEL_REASON)
        self.mlp_norm_site = Read(Child(mlp_norm), description=description)

    def _shape(self) -> str:
        shared = "one norm feeds both sublayers" if self.mlp_norm == "input_layernorm" else f"the MLP reads {self.mlp_norm}"
        when = f" where config.{self.when} is set ({'the default' if self.default else 'off by default'})" \
            if self.when else ""
        return f"parallel{when}: the attention and the MLP read the same input, {shared}; no layer_mid"

    def is_parallel(self, config) -> bool:
        return self.when is None or bool(getattr(config, self.when, self.default))

    def kind(self, config) -> str:
        return "parallel" if self.is_parallel(config) else "sequential"

    def sites(self) -> dict:
        if self.when is None:
            return {"layer_mid": self.no_mid, "mlp_norm_output": self.mlp_norm_site}
        return {
            "layer_mid": lambda context: self.no_mid if self.is_parallel(context.config) else COMMON_SITES["layer_mid"],
            "mlp_norm_output": lambda context: self.mlp_norm_site if self.is_parallel(context.config)
            else COMMON_SITES["mlp_norm_output"],
        }


class PostNorms(Block):
    """A sequential block that normalizes each sublayer's output before adding it, with norms that are modules of
    the block beside the attention and the MLP: ``attention_output`` and ``mlp_output`` are those norms' outputs,
    what the stream receives (Gemma 2's sandwich, GLM-4's, OLMo 2's post-norms). ``pre_mlp`` names the norm the
    MLP reads where it is not ``post_attention_layernorm`` (Gemma 2's pre_feedforward_layernorm); ``pre_norms=False``
    is OLMo 2's block, with no norm before either sublayer; ``scale`` a multiplier both contributions carry
    (config -> number)."""

    def __init__(self, attention: str = "post_attention_layernorm", mlp: str = "post_feedforward_layernorm",
                 pre_mlp: str | None = None, pre_norms: bool = True, scale: Callable | None = None, **block) -> None:
        super().__init__(**block)
        times = " times residual_multiplier" if scale is not None else ""
        contributions = {
            name: Read(Child(norm, from_block=True), scale=scale,
                       description=f"What the {what} adds to the residual stream: its output after the block's "
                                   f"post-norm {norm}{times}")
            for name, what, norm in (("attention_output", "attention", attention), ("mlp_output", "MLP", mlp))
        }
        if not pre_norms:
            into_mlp = Read(Child("mlp", "input"), Argument(0), shared=True,
                            description="The residual stream after the attention add, which the MLP reads unnormed")
            self._sites = {
                "attention_norm_output": Nowhere(
                    f"no norm before the attention: the attention reads the residual stream itself, and the block "
                    f"normalizes the attention's output instead ({attention})"),
                "attention_output": contributions["attention_output"],
                "layer_mid": into_mlp,
                "mlp_norm_output": Nowhere(
                    f"no norm before the MLP: the MLP reads the residual stream itself, and the block normalizes the "
                    f"MLP's output instead ({mlp})"),
                "mlp_input": into_mlp,
                "mlp_output": contributions["mlp_output"],
            }
        elif pre_mlp is not None:
            self._sites = {
                "attention_output": contributions["attention_output"],
                "layer_mid": Read(Child(pre_mlp, "input"), Argument(0), shared=True),
                "mlp_norm_output": Read(Child(pre_mlp),
                                        description=f"The normed stream entering the MLP: {pre_mlp}'s output"),
                "mlp_output": contributions["mlp_output"],
            }
        else:
            self._sites = contributions
        self._words = (f"attention_output is {attention}'s output and mlp_output {mlp}'s" + times
                       + ("; nothing norms the sublayers' inputs" if not pre_norms else "")
                       + (f"; the MLP reads {pre_mlp}" if pre_mlp else ""))

    def _shape(self) -> str:
        return f"post-norms beside the sublayers: {self._words}"

    def sites(self) -> dict:
        return dict(self._sites)


#: Gemma 2's sandwich: a norm before and after each sublayer
SANDWICH = PostNorms(pre_mlp="pre_feedforward_layernorm")
#: GLM-4's post-norms, with Llama's post_attention_layernorm before the MLP
GLM4_POSTNORMS = PostNorms("post_self_attn_layernorm", "post_mlp_layernorm")
#: OLMo 2's block: the sublayers read the stream itself and their outputs are normed
OLMO2_POSTNORMS = PostNorms(pre_norms=False)


@dataclass(frozen=True)
class ConfigKey:
    """A multiplier read from the config (``scale=ConfigKey("residual_multiplier")``): a value, so sites pickle."""

    key: str

    def __call__(self, config):
        return getattr(config, self.key)


class Multiplied(Block):
    """A sequential block that adds each sublayer's output times ``config.<key>`` (Granite's residual_multiplier):
    ``attention_output`` and ``mlp_output`` are the products the stream receives, an edit carried back divided."""

    def __init__(self, key: str = "residual_multiplier", **block) -> None:
        super().__init__(**block)
        self.key = key
        self._sites = {
            name: Read(Own("output"), Element(0), scale=ConfigKey(key),
                       description=f"What the {what} adds to the residual stream: its output times {key}")
            for name, what in (("attention_output", "attention"), ("mlp_output", "MLP"))
        }

    def _shape(self) -> str:
        return f"sequential, each sublayer's output times config.{self.key} before the add"

    def sites(self) -> dict:
        return dict(self._sites)


#: Granite's block: both contributions times residual_multiplier
GRANITE_BLOCK = Multiplied()


# --------------------------------------------------------------------------- depth-scaled residual adds (Beam)
def _depth_scales(k):
    """depth_scaled_residual_add's factors for add number k: (branch scale, residual scale)."""
    return 1.0 / math.sqrt(k), math.sqrt((k - 1) / k)


@dataclass(eq=False)
class DepthScaledDelta(Read):
    """What a depth-scaled residual add, branch / sqrt(k) + residual * sqrt((k - 1) / k), changes in
    the stream: the add minus the residual. Read at the add's arguments; an edit is carried back into
    the branch, (value + residual - residual * sqrt((k - 1) / k)) * sqrt(k), so that the add gives
    residual + value."""

    def _present(self, context, raw):
        (branch, residual, k, *_), _ = raw
        branch_scale, residual_scale = _depth_scales(k)
        value = (branch * branch_scale + residual * residual_scale) - residual
        value._nnterp_version = value._version
        return value

    def _current(self, context, raw):
        return self._present(context, raw)

    def _is_live(self, host) -> bool:
        return False  # the value is a difference the forward never holds

    def _put(self, context, raw, value):
        (branch, residual, k, *rest), kwargs = raw
        branch_scale, residual_scale = _depth_scales(k)
        new_branch = (value + residual - residual * residual_scale) / branch_scale
        return (new_branch.to(branch.dtype), residual, k, *rest), kwargs

    def read(self, host, spec):
        return self._read_written_back(host)

    def describe(self, module) -> str:
        return self.where.describe(module)


class DepthScaled(Block):
    """A sandwich block whose residual adds are depth-scaled (Beam): add number k, ``add(branch, residual, k)``, is
    branch / sqrt(k) + residual * sqrt((k - 1) / k), so each add also shrinks the stream it adds to.
    ``attention_output`` and ``mlp_output`` are what each add changes in the stream (``DepthScaledDelta``, read at
    the add's arguments inside the forward of ``layer``, the block's class), ``layer_mid`` the first add's output and
    ``mlp_norm_output`` the output of ``pre_mlp``, the norm the MLP reads."""

    def __init__(self, layer: str, add: str = "depth_scaled_residual_add",
                 pre_mlp: str = "pre_feedforward_layernorm", **block) -> None:
        super().__init__(**block)
        self.add = add

        def delta(occurrence: int, what: str) -> DepthScaledDelta:
            return DepthScaledDelta(
                Call(add, "input", occurrence=occurrence, from_block=True, forward_of=layer),
                description=f"What the {what} changes in the residual stream: the depth-scaled add minus its "
                            f"residual, branch / sqrt(k) - (1 - sqrt((k - 1) / k)) * residual, with the branch "
                            f"post-normed")

        self._sites = {
            "attention_output": delta(0, "attention"),
            "layer_mid": Read(Call(add, "output"),
                              description="The residual stream after the attention's depth-scaled add"),
            "mlp_norm_output": Read(Child(pre_mlp),
                                    description=f"The normed stream entering the MLP: {pre_mlp}'s output"),
            "mlp_output": delta(1, "MLP"),
        }

    def _shape(self) -> str:
        return (f"sequential, each residual add depth-scaled ({self.add}: branch / sqrt(k) + residual · "
                f"sqrt((k - 1) / k)); attention_output and mlp_output are what each add changes")

    def sites(self) -> dict:
        return dict(self._sites)


# --------------------------------------------------------------------------- gated residual adds (Doge, Muse Spark)
def _mix(gates, residual, contribution):
    alpha, beta = gates
    return (alpha * residual + beta * contribution).to(residual.dtype)


@dataclass(frozen=True)
class ResidualGates:
    """A block whose two residual adds are mixes with per-channel gates, alpha·residual + beta·contribution, cast to
    the residual's dtype: ``attention`` and ``mlp`` are (layer module) -> (alpha, beta), the gates of the add after
    that sublayer, read from the block's own parameters (Doge's input_residual with beta 1, Muse Spark's
    MuseSparkResidualGate). ``on(block)`` is that block with the mixes as its arithmetic: the contract checks
    gate_mlp(gate_attention(layer_input, attention_output), mlp_output) == layer_output and the inner mix against
    layer_mid, so the identity holds on every block with the gates in it."""

    attention: Callable
    mlp: Callable

    def mid(self, layer, x, attention):
        return _mix(self.attention(layer), x, attention)

    def output(self, layer, x, attention, mlp):
        return _mix(self.mlp(layer), self.mid(layer, x, attention), mlp)

    def on(self, block: Block | None = None, kind: str = "gated residual") -> Block:
        return (block or Block()).but(kind=kind, arithmetic=lambda config: self.output,
                                      mid=lambda config: self.mid)
