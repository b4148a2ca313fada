"""Standard paths, and how a foreign name's tensor follows from them.

A ``Path`` is a standard value on the model or on a block (``layers.3.layer_output``), with the foreign name it
came from (``nnterp.compat.names``); the name's ``Convention`` computes TransformerLens's tensor from nnterp's values
(a layout, a norm's divisor where nnterp keeps the factor, the input before a norm's gain) and carries a write
in TransformerLens's layout back, or refuses it saying why.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import torch

from nnterp.declare.vocabulary import BY_NAME

#: the hosts of values the vocabulary does not list yet (added by the values issue); resolving one says so
PENDING_HOSTS = {
    "attention_queries_unrotated": "attention", "attention_keys_unrotated": "attention",
    "attention_head_contributions": "attention", "mlp_preactivation": "mlp", "mlp_up": "mlp",
    "attention_norm_scale": "layer", "mlp_norm_scale": "layer", "final_norm_scale": "model",
}

_HOST_PREFIX = {"model": "", "layer": "", "attention": "self_attn.", "mlp": "mlp."}


# --------------------------------------------------------------------------- TransformerLens's conventions
class WriteRefused(KeyError):
    """A write under a TransformerLens name whose tensor cannot be carried back into the model's."""

    def __str__(self) -> str:
        return self.args[0]


@dataclass(frozen=True)
class Convention:
    """How TransformerLens's tensor under a name follows from nnterp's values: ``text`` says it; ``to_tl`` computes
    it from the values ``reads`` names (in forward order) and what it needs of the model (``info``: its head counts,
    whether a norm centres); ``from_tl`` carries a tensor in TransformerLens's layout
    back to the one value a write replaces, or refuses it saying why."""

    #: what TransformerLens's tensor is, ``{value}`` standing for nnterp's value
    text: str = "the same tensor"
    #: whether ``to_tl`` gives a view of nnterp's value, through which an in-place edit reaches the model
    view: bool = False
    #: why no write under the name can be carried back, where none can
    write_refused: str = ""

    def reads(self, path: "Path", num_layers: int | None, block_kind: str | None = None) -> list["Path"]:
        return [Path(path.value, path.layer)]

    def to_tl(self, values: list, info):
        return values[0]

    def from_tl(self, tensor, info):
        return tensor

    def said(self, value: str) -> str:
        """What TransformerLens's tensor is, in words, of nnterp's ``value``."""
        return self.text.replace("{value}", value)

    @property
    def same(self) -> bool:
        """Whether TransformerLens's tensor is nnterp's value itself."""
        return type(self) is Convention

    def tensor(self, values: list, info):
        """TransformerLens's tensor from nnterp's ``values``: the value itself, a view of it, or a computed tensor
        that shares no memory with it (an expanded view is copied: torch refuses an in-place edit of one)."""
        if self.same:
            return values[0]
        tensor = self.to_tl(values, info)
        if not self.view and isinstance(tensor, torch.Tensor) and any(
                isinstance(v, torch.Tensor) and tensor.untyped_storage().data_ptr() == v.untyped_storage().data_ptr()
                for v in values):
            tensor = tensor.clone()
        return tensor

    def in_place_refusal(self, name: str, value: str) -> str:
        """The sentence an in-place edit of a tensor ``to_tl`` computed (not a view) fails with: the form that
        works."""
        if self.write_refused:
            return f"an in-place edit of {name!r} would not reach the model: {self.write_refused}"
        return (f"{name!r} is computed from {value} ({self.said(value)}), so an in-place edit of it would not "
                f"reach the model: assign the whole tensor, model.value({name!r}, tensor)")


SAME_TENSOR = Convention(view=True)


@dataclass(frozen=True)
class HeadsSecond(Convention):
    """nnterp's heads-first [batch heads seq dim] as TransformerLens's [batch pos head_index d_head]."""

    text: str = "{value}.transpose(1, 2): [batch pos head_index d_head]"
    view: bool = True

    def to_tl(self, values, info):
        return values[0].transpose(1, 2)

    def from_tl(self, tensor, info):
        return tensor.transpose(1, 2)


@dataclass(frozen=True)
class PerHeadCopies(Convention):
    """The stream repeated along a head axis, one copy per query head (``heads="num_heads"``) or key-value head."""

    heads: str = "num_heads"

    def to_tl(self, values, info):
        value = values[0]
        return value[:, :, None].expand(value.shape[0], value.shape[1], getattr(info, self.heads), value.shape[-1])

    def from_tl(self, tensor, info):
        first = tensor[:, :, :1]
        if not bool((tensor == first).all()):
            raise WriteRefused("TransformerLens gives each head its own copy of the stream here, and the model has one "
                               "stream that every head reads: write the same tensor to every head, or write layer_input")
        return first[:, :, 0]


@dataclass(frozen=True)
class Divisor(Convention):
    """A norm's divisor sqrt(mean(x_c²) + eps), [batch pos 1], from nnterp's factor 1 / that, [batch seq]."""

    text: str = "1 / {value}[..., None]: the norm's divisor sqrt(mean(x_c²) + eps), [batch pos 1]"

    def to_tl(self, values, info):
        return 1 / values[0][..., None]

    def from_tl(self, tensor, info):
        return 1 / tensor[..., 0]


@dataclass(frozen=True)
class Normalized(Convention):
    """A norm's input, centred under a LayerNorm, times the norm's factor: x_c / sqrt(mean(x_c²) + eps), before the
    gain and bias. ``input`` is the norm's input on the same block (``parallel_input`` on a parallel block);
    ``last``: the last block's (the final norm's input)."""

    input: str = "layer_input"
    parallel_input: str | None = None
    last: bool = False

    def reads(self, path, num_layers, block_kind=None):
        source = self.parallel_input if block_kind == "parallel" and self.parallel_input else self.input
        layer = (num_layers - 1 if num_layers is not None else -1) if self.last else path.layer
        return [Path(source, layer), Path(path.value, path.layer)]

    def to_tl(self, values, info):
        x, scale = values
        centred = x.float()
        if info.centres(self):
            centred = centred - centred.mean(-1, keepdim=True)
        return (centred * scale[..., None].float()).to(x.dtype)

    write_refused: str = ("TransformerLens's hook_normalized is the norm's input before its gain and bias, and the "
                          "model holds no such tensor to replace: write the norm's output (attention_norm_output, "
                          "mlp_norm_output, final_norm_output), which is after them")

    def from_tl(self, tensor, info):
        raise WriteRefused(self.write_refused)


@dataclass(frozen=True)
class MinusInfinityMask(Convention):
    """Masked scores as TransformerLens fills them (-inf), where the model's kernel adds the dtype's minimum."""

    text: str = ("{value} with its masked entries at -inf: the kernel adds its mask (the dtype's minimum), "
                 "TransformerLens fills masked entries with -inf")

    def to_tl(self, values, info):
        scores = values[0]
        return scores.masked_fill(scores <= torch.finfo(scores.dtype).min / 2, float("-inf"))

    def from_tl(self, tensor, info):
        return tensor.masked_fill(torch.isneginf(tensor), torch.finfo(tensor.dtype).min)


@dataclass(frozen=True)
class Name:
    """One foreign name and the standard value it is: ``value`` on ``host`` (None where nnterp has none, with
    ``note`` saying why); ``convention`` computes TransformerLens's tensor from it; ``note`` says what else bears on
    it (a load option, from_pretrained's default processing); ``families`` maps a family name (or a block kind,
    "parallel") to how the meaning differs there, and ``family_values`` to the standard path it is there (None:
    refused there, for the reason ``families`` gives); ``parallel`` is the value on a parallel block where that is
    another one."""

    name: str
    value: str | None
    note: str = ""
    families: dict = field(default_factory=dict)
    parallel: str | None = None
    source: str = "TransformerLens 3.x"
    convention: Convention = SAME_TENSOR
    family_values: dict = field(default_factory=dict)
    #: "queries", "keys" or "values" where TransformerLens hooks the name on its own projection's output, split by
    #: head: nnterp's value is that tensor only where the attention applies nothing but reshapes in between
    #: (``nnterp.compat.projected``), which each model's forward says
    projected: str | None = None

    @property
    def host(self) -> str | None:
        if self.value is None:
            return None
        spec = BY_NAME.get(self.value)
        return spec.host if spec is not None else PENDING_HOSTS[self.value]


@dataclass(frozen=True)
class Path:
    """A standard path: a value on the model (``layer`` None) or on block ``layer``, with the foreign name it
    came from, if any."""

    value: str
    #: the block's index; "i" for every block, as a suggestion spells it
    layer: int | str | None = None
    via: Name | None = None

    @property
    def host(self) -> str:
        spec = BY_NAME.get(self.value)
        return spec.host if spec is not None else PENDING_HOSTS[self.value]

    @property
    def key(self) -> str:
        """``layers.3.self_attn.attention_probabilities``, ``logits``: the cache's key."""
        if self.layer is None:
            return self.value
        return f"layers.{self.layer}.{_HOST_PREFIX[self.host]}{self.value}"

    @property
    def attribute(self) -> str:
        """``model.layers[3].self_attn.attention_probabilities``: the same value as code reads it."""
        if self.layer is None:
            return f"model.{self.value}"
        return f"model.layers[{self.layer}].{_HOST_PREFIX[self.host]}{self.value}"

    @property
    def in_vocabulary(self) -> bool:
        return self.value in BY_NAME

    @property
    def convention(self) -> Convention:
        """How TransformerLens's tensor follows from this value (the same tensor for a standard path)."""
        return self.via.convention if self.via is not None else SAME_TENSOR

    def reads(self, num_layers: int | None = None, block_kind: str | None = None) -> list["Path"]:
        """The standard values TransformerLens's tensor under this name is computed from, in forward order."""
        return self.convention.reads(self, num_layers, block_kind)

    def __str__(self) -> str:
        return self.attribute


