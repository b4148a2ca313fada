"""The model's weights in TransformerLens's layouts (``W_Q`` [n_layers n_heads d_model d_head], ``W_O`` [n_layers
n_heads d_head d_model], ``W_in`` [n_layers d_model d_mlp], ...), computed on access from the model's own
parameters, detached: the stack is a new tensor, as TransformerLens's own properties are, and writing it changes
nothing. Where a family keeps no such matrix, the name is refused with the reason."""

from __future__ import annotations

import torch

from nnterp.declare.errors import UnavailableValue


def _native(envoy, name: str):
    """The native child ``name`` (its standard name) of a host envoy, or None."""
    child = getattr(envoy, name, None) if envoy is not None else None
    return getattr(child, "_module", None)


def _in_out(module) -> torch.Tensor:
    """A projection's weight as [in, out]: a Linear's transposed, a Conv1D's (GPT-2) as it is."""
    weight = module.weight.detach()
    return weight if type(module).__name__ == "Conv1D" else weight.T


def _bias(module, size: int, like: torch.Tensor) -> torch.Tensor:
    bias = getattr(module, "bias", None)
    return bias.detach() if bias is not None else torch.zeros(size, dtype=like.dtype, device=like.device)


class Weights:
    """TransformerLens's weight properties on a StandardizedTransformer."""

    def __init__(self, model) -> None:
        self.model = model

    def _attention(self, layer: int, name: str):
        attention = getattr(self.model.layers[layer], "self_attn", None)
        return _native(attention, name), attention

    def _qkv(self, layer: int, which: str) -> tuple[torch.Tensor, torch.Tensor]:
        """(W [d_model heads d_head] as [heads d_model d_head], b [heads d_head]) of queries, keys or values."""
        model = self.model
        heads = model.num_heads if which == "q" else model.num_kv_heads
        width = model.qk_head_dim if which in ("q", "k") else model.head_dim
        module, attention = self._attention(layer, f"{which}_proj")
        if module is not None:
            weight, bias = _in_out(module), _bias(module, heads * width, module.weight)
        else:
            fused = _native(attention, "c_attn")
            if fused is None or type(fused).__name__ != "Conv1D":
                raise UnavailableValue(
                    f"W_{which.upper()}: block {layer}'s attention has no separate {which}_proj and no GPT-2 c_attn "
                    f"to cut it from, so nnterp does not give its matrix in TransformerLens's layout")
            part = "qkv".index(which)
            size = model.hidden_size
            weight = _in_out(fused)[:, part * size:(part + 1) * size]
            bias = _bias(fused, 3 * size, fused.weight)[part * size:(part + 1) * size]
        d_model = weight.shape[0]
        return weight.reshape(d_model, heads, width).permute(1, 0, 2), bias.reshape(heads, width)

    def _stack(self, make) -> torch.Tensor:
        return torch.stack([make(layer) for layer in range(self.model.num_layers)])

    def W(self, which: str) -> torch.Tensor:
        """W_Q, W_K or W_V [n_layers n_heads d_model d_head]: grouped keys and values repeated to every query
        head they serve, as TransformerLens's properties give them (its _W_K keeps the groups)."""
        return self._per_query_head(self._stack(lambda layer: self._qkv(layer, which)[0]))

    def b(self, which: str) -> torch.Tensor:
        return self._per_query_head(self._stack(lambda layer: self._qkv(layer, which)[1]))

    def grouped(self, which: str, bias: bool = False) -> torch.Tensor:
        """_W_K, _W_V (and _b_K, _b_V): one head per key-value head."""
        return self._stack(lambda layer: self._qkv(layer, which)[1 if bias else 0])

    def _per_query_head(self, stacked: torch.Tensor) -> torch.Tensor:
        repeats = self.model.num_heads // stacked.shape[1]
        return stacked if repeats == 1 else torch.repeat_interleave(stacked, repeats, dim=1)

    def W_O(self) -> torch.Tensor:
        def one(layer):
            module, _ = self._attention(layer, "o_proj")
            if module is None:
                raise UnavailableValue(f"W_O: block {layer}'s attention has no output projection nnterp names o_proj")
            weight = _in_out(module)
            return weight.reshape(self.model.num_heads, self.model.head_dim, weight.shape[-1])
        return self._stack(one)

    def b_O(self) -> torch.Tensor:
        def one(layer):
            module, _ = self._attention(layer, "o_proj")
            return _bias(module, self.model.hidden_size, module.weight)
        return self._stack(one)

    def _mlp(self, layer: int, name: str, word: str):
        module = _native(getattr(self.model.layers[layer], "mlp", None), name)
        if module is None or getattr(module, "weight", None) is None or module.weight.dim() != 2:
            raise UnavailableValue(f"{word}: block {layer}'s MLP has no {name} matrix (a mixture of experts, a "
                                   f"state-space block or a fused projection), so nnterp does not give {word}")
        return module

    def mlp_weight(self, name: str, word: str) -> torch.Tensor:
        return self._stack(lambda layer: _in_out(self._mlp(layer, name, word)))

    def mlp_bias(self, name: str, word: str) -> torch.Tensor:
        def one(layer):
            module = self._mlp(layer, name, word)
            return _bias(module, _in_out(module).shape[-1], module.weight)
        return self._stack(one)
