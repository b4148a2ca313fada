"""The model's weights in TransformerLens's layouts (``W_Q`` [n_layers n_heads d_model d_head], ``W_O`` [n_layers
n_heads d_head d_model], ``W_in`` [n_layers d_model d_mlp], ...), computed on access from the model's own
parameters, detached: the stack is a new tensor, as TransformerLens's own properties are, and writing it changes
nothing. A fused projection (GPT-2's c_attn, GPT-NeoX's and BLOOM's per-head query_key_value, Falcon's three
layouts, Phi-3's qkv_proj and gate_up_proj, ...) is cut into heads as the attention's own forward cuts its output.
Where a family keeps no such matrix, the name is refused with the reason."""

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


def _blocks(columns, queries, key_values, width):
    """[all queries | all keys | all values] (GPT-2's c_attn, Phi-3's qkv_proj, MPT's and DBRX's Wqkv, multi-query
    GPT-BigCode and Falcon)."""
    q, k, v = columns.split([queries * width, key_values * width, key_values * width])
    return q.view(queries, width), k.view(key_values, width), v.view(key_values, width)


def _per_head(columns, queries, key_values, width):
    """[q_h, k_h, v_h] for each head h in turn (GPT-NeoX, BLOOM, Persimmon, Falcon without multi-query)."""
    heads = columns.view(queries, 3, width)
    return heads[:, 0], heads[:, 1], heads[:, 2]


def _per_group(columns, queries, key_values, width):
    """For each key-value group, its queries, then its key and its value (Falcon's new_decoder_architecture)."""
    groups = columns.view(key_values, queries // key_values + 2, width)
    return groups[:, :-2].reshape(queries, width), groups[:, -2], groups[:, -1]


def _partitions(parts: int):
    """``parts`` partitions in turn, each [q | v | k] of its share of the heads (CodeGen's mp_num)."""
    def layout(columns, queries, key_values, width):
        q, v, k = columns.view(parts, 3, -1).unbind(1)
        return q.reshape(queries, width), k.reshape(key_values, width), v.reshape(key_values, width)
    return layout


#: the fused projection's names, and each attention class's layout of its output (a function of the attention
#: module, where the layout follows its config): checked against each family's own queries, keys and values
FUSED_QKV_NAMES = ("c_attn", "qkv_proj", "query_key_value", "Wqkv")
FUSED_QKV_LAYOUTS = {
    "GPT2Attention": lambda attention: _blocks, "Attention": lambda attention: _blocks,  # GPT-2, OpenAI GPT
    "Phi3Attention": lambda attention: _blocks, "MptAttention": lambda attention: _blocks,
    "DbrxAttention": lambda attention: _blocks,
    "GPTBigCodeAttention": lambda attention: _blocks if attention.multi_query else _per_head,
    "GPTNeoXAttention": lambda attention: _per_head, "GPTNeoXJapaneseAttention": lambda attention: _per_head,
    "BloomAttention": lambda attention: _per_head, "PersimmonAttention": lambda attention: _per_head,
    "FalconAttention": lambda attention: _per_group if attention.new_decoder_architecture else
    _blocks if attention.multi_query else _per_head,
    "CodeGenAttention": lambda attention: _partitions(attention.mp_num),
}


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
            return weight.reshape(weight.shape[0], heads, width).permute(1, 0, 2), bias.reshape(heads, width)
        fused, columns = self._fused_qkv(layer, attention)
        chosen = columns["qkv".index(which)]                           # [heads d_head] columns of the fused output
        weight = _in_out(fused)[:, chosen]                             # [d_model heads d_head]
        bias = _bias(fused, _in_out(fused).shape[-1], fused.weight)[chosen]
        return weight.permute(1, 0, 2), bias

    def _fused_qkv(self, layer: int, attention):
        """The fused projection of block ``layer``'s attention and, for q, k and v, which of its output columns
        are each head's, [heads d_head] each, as the attention's forward cuts them."""
        native = getattr(attention, "_module", None)
        fused = next((module for name in FUSED_QKV_NAMES if (module := _native(attention, name)) is not None), None)
        layout = FUSED_QKV_LAYOUTS.get(type(native).__name__)
        if fused is None or layout is None:
            raise UnavailableValue(
                f"W_Q, W_K, W_V: block {layer}'s attention ({type(native).__name__}) has no separate q_proj, k_proj "
                f"and v_proj and no fused projection whose layout nnterp knows, so it has no such matrices to give")
        width, queries = self.model.head_dim, self.model.num_heads
        columns = torch.arange(_in_out(fused).shape[-1], device=fused.weight.device)
        key_values = (columns.numel() // width - queries) // 2  # every layout holds q, then k and v alike
        return fused, layout(native)(columns, queries, key_values, width)

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

    def _mlp(self, layer: int, name: str, word: str) -> tuple[torch.Tensor, torch.Tensor]:
        """(W [in out], b [out]) of the MLP's ``name`` projection: its own, or its half of a fused gate_up_proj
        (the gate first, as Phi-3's and GLM's forwards chunk it)."""
        mlp = getattr(self.model.layers[layer], "mlp", None)
        module = _native(mlp, name)
        half = None
        if module is None and name in ("gate_proj", "up_proj"):
            module, half = _native(mlp, "gate_up_proj"), ("gate_proj", "up_proj").index(name)
        if module is None or getattr(module, "weight", None) is None or module.weight.dim() != 2:
            raise UnavailableValue(f"{word}: block {layer}'s MLP has no {name} matrix (a mixture of experts or a "
                                   f"state-space block), so nnterp does not give {word}")
        weight = _in_out(module)
        bias = _bias(module, weight.shape[-1], module.weight)
        if half is None:
            return weight, bias
        return weight.chunk(2, dim=-1)[half], bias.chunk(2)[half]

    def mlp_weight(self, name: str, word: str) -> torch.Tensor:
        return self._stack(lambda layer: self._mlp(layer, name, word)[0])

    def mlp_bias(self, name: str, word: str) -> torch.Tensor:
        return self._stack(lambda layer: self._mlp(layer, name, word)[1])
