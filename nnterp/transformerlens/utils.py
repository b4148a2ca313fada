"""TransformerLens 3.x's ``utils`` that scripts call, with its semantics: ``get_act_name``, ``Slice``,
``lm_cross_entropy_loss``, ``to_numpy``, ``remove_batch_dim``; ``HookPoint``, the ``hook`` a hook function receives, and
``Output``, return_type="both"'s (logits, loss)."""

from __future__ import annotations

import re

import torch

__all__ = ["Slice", "get_act_name", "lm_cross_entropy_loss", "remove_batch_dim", "to_numpy", "USE_DEFAULT_VALUE"]

#: the marker TransformerLens's arguments take for "the config's default"
USE_DEFAULT_VALUE = None

_LAYER_TYPES = {"a": "attn", "m": "mlp", "b": "", "block": "", "blocks": "", "attention": "attn"}
_ALIASES = {"attn": "pattern", "attn_logits": "attn_scores", "key": "k", "query": "q", "value": "v",
            "mlp_pre": "pre", "mlp_mid": "mid", "mlp_post": "post"}
_ATTENTION = ("k", "v", "q", "z", "rot_k", "rot_q", "result", "pattern", "attn_scores")
_MLP = ("pre", "post", "mid", "pre_linear")


def get_act_name(name: str, layer: int | str | None = None, layer_type: str | None = None) -> str:
    """A hook's full name from TransformerLens's shorthand: ``get_act_name("k", 6, "a") == "blocks.6.attn.hook_k"``,
    ``get_act_name("resid_pre", 3) == "blocks.3.hook_resid_pre"``, ``get_act_name("scale4ln1")``."""
    if ("." in name or name.startswith("hook_")) and layer is None and layer_type is None:
        return name
    match = re.match(r"([a-z]+)(\d+)([a-z]?.*)", name)
    if match is not None:
        name, layer, layer_type = match.groups(0)
    name = _ALIASES.get(name, name)
    full = f"blocks.{layer}." if layer is not None else ""
    if name in _ATTENTION:
        layer_type = "attn"
    elif name in _MLP:
        layer_type = "mlp"
    elif layer_type in _LAYER_TYPES:
        layer_type = _LAYER_TYPES[layer_type]
    if layer_type:
        full += f"{layer_type}."
    full += f"hook_{name}"
    if name in ("scale", "normalized") and layer is None:
        full = f"ln_final.{full}"
    return full


class Slice:
    """TransformerLens's slice input: None keeps the axis, an int picks one index (the axis goes), a tuple of
    two or three ints is ``slice(*tuple)``, a list or tensor of indices picks those."""

    def __init__(self, input_slice=None) -> None:
        if isinstance(input_slice, Slice):
            self.slice, self.mode = input_slice.slice, input_slice.mode
        elif input_slice is None:
            self.slice, self.mode = slice(None), "empty"
        elif isinstance(input_slice, int):
            self.slice, self.mode = input_slice, "int"
        elif isinstance(input_slice, slice):
            self.slice, self.mode = input_slice, "slice"
        elif isinstance(input_slice, tuple):
            self.slice, self.mode = slice(*input_slice), "slice"
        elif isinstance(input_slice, (list, torch.Tensor)):
            self.slice, self.mode = torch.as_tensor(input_slice), "array"
        else:
            raise ValueError(f"a slice is None, an int, a tuple of ints, a slice, a list or a tensor of indices; "
                             f"got {type(input_slice).__name__}")

    def apply(self, tensor: torch.Tensor, dim: int = 0) -> torch.Tensor:
        slices = [slice(None)] * tensor.ndim
        slices[dim] = self.slice
        return tensor[tuple(slices)]


def lm_cross_entropy_loss(logits: torch.Tensor, tokens: torch.Tensor, attention_mask: torch.Tensor | None = None,
                          per_token: bool = False) -> torch.Tensor:
    """The next-token cross entropy, as TransformerLens computes it (the last position predicts nothing; masked
    positions, and those before a masked one, are left out)."""
    log_probs = torch.nn.functional.log_softmax(logits, dim=-1)
    predicted = log_probs[..., :-1, :].gather(dim=-1, index=tokens[..., 1:, None])[..., 0]
    if attention_mask is not None:
        kept = torch.logical_and(attention_mask[:, :-1], attention_mask[:, 1:])
        predicted = predicted.masked_fill(~kept, 0.0)
        count = kept.sum().item()
    else:
        count = predicted.numel()
    return -predicted if per_token else -predicted.sum() / count


def to_numpy(tensor):
    """A tensor (or a list or a number) as a numpy array."""
    import numpy as np

    if isinstance(tensor, torch.Tensor):
        return tensor.detach().cpu().numpy()
    return np.array(tensor)


def remove_batch_dim(tensor: torch.Tensor) -> torch.Tensor:
    """The first axis dropped where it has one row."""
    return tensor[0] if tensor.shape[0] == 1 else tensor


class HookPoint:
    """The ``hook`` a hook function receives: its name, and ``layer()`` for a block's."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.ctx: dict = {}

    def layer(self) -> int:
        if not self.name.startswith("blocks."):
            raise ValueError(f"{self.name} is not a block's hook")
        return int(self.name.split(".")[1])

    def __repr__(self) -> str:
        return f"HookPoint({self.name!r})"


class Output(tuple):
    """(logits, loss), as ``return_type="both"`` gives them."""

    @property
    def logits(self):
        return self[0]

    @property
    def loss(self):
        return self[1]
