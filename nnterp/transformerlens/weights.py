"""The model's weights in TransformerLens's layouts (``W_Q`` [n_layers n_heads d_model d_head], ``W_O`` [n_layers
n_heads d_head d_model], ``W_in`` [n_layers d_model d_mlp], ...), computed on access from the model's own
parameters, detached: the stack is a new tensor, as TransformerLens's own properties are, and writing it changes
nothing. A fused projection (GPT-2's c_attn, GPT-NeoX's and BLOOM's per-head query_key_value, Falcon's three
layouts, Phi-3's qkv_proj and gate_up_proj, ...) is cut into heads as the attention's own forward cuts its output.
Where a family keeps no such matrix, the name is refused with the reason. ``WeightProperties`` gives them as
HookedTransformer's properties."""

from __future__ import annotations


import torch

from nnterp.compat import names
from nnterp.declare.engine import module_of
from nnterp.declare.errors import NnterpError, UnavailableValue


def factored_matrix():
    """TransformerLens's FactoredMatrix class, which QK and OV are."""
    try:
        from transformer_lens import FactoredMatrix
    except ImportError:
        raise NnterpError("QK and OV are TransformerLens's FactoredMatrix, which needs TransformerLens installed: "
                          "pip install transformer-lens") from None
    return FactoredMatrix


def _native(envoy, name: str):
    """The native child ``name`` (its standard name) of a host envoy, or None."""
    child = getattr(envoy, name, None) if envoy is not None else None
    return getattr(child, "_module", None)


def _in_out(module, where: str = "this projection") -> torch.Tensor:
    """A projection's weight as [in, out]: a Linear's transposed, a Conv1D's (GPT-2) as it is."""
    weight = getattr(module, "weight", None)
    if not isinstance(weight, torch.Tensor) or weight.dim() != 2:
        raise UnavailableValue(f"{where} ({type(module).__name__}) keeps no weight matrix, so it has no "
                               f"TransformerLens layout")
    weight = weight.detach()
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
#: module, where the layout follows its config), the class named with its transformers module (another library's
#: class of the same name is not cut): checked against each family's own queries, keys and values
FUSED_QKV_NAMES = ("c_attn", "qkv_proj", "query_key_value", "Wqkv")
FUSED_QKV_LAYOUTS = {
    "modeling_gpt2.GPT2Attention": lambda attention: _blocks, "modeling_openai.Attention": lambda attention: _blocks,
    "modeling_phi3.Phi3Attention": lambda attention: _blocks, "modeling_mpt.MptAttention": lambda attention: _blocks,
    "modeling_dbrx.DbrxAttention": lambda attention: _blocks,
    "modeling_gpt_bigcode.GPTBigCodeAttention": lambda attention: _blocks if attention.multi_query else _per_head,
    "modeling_gpt_neox.GPTNeoXAttention": lambda attention: _per_head,
    "modeling_gpt_neox_japanese.GPTNeoXJapaneseAttention": lambda attention: _per_head,
    "modeling_bloom.BloomAttention": lambda attention: _per_head,
    "modeling_persimmon.PersimmonAttention": lambda attention: _per_head,
    "modeling_falcon.FalconAttention": lambda attention: _per_group if attention.new_decoder_architecture else
    _blocks if attention.multi_query else _per_head,
    "modeling_codegen.CodeGenAttention": lambda attention: _partitions(attention.mp_num),
}


#: the native names of an MLP's projections where the family's own are not up_proj, gate_proj and down_proj (Llama's
#: original w1 (gate), w3 (up) and w2 (down), as LFM2 keeps them)
MLP_NAMES = {
    "up_proj": ("up_proj", "fc1", "fc_in", "c_fc", "dense_h_to_4h", "w3"),
    "gate_proj": ("gate_proj", "w1"),
    "down_proj": ("down_proj", "fc2", "fc_out", "c_proj", "dense_4h_to_h", "w2", "Wo"),
}
#: fused MLP projections and their halves in the order the forward chunks them: the activated half (TransformerLens's
#: W_gate) first, on Phi-3's and GLM's gate_up_proj and on ModernBERT's Wi (whose forward names it "input")
FUSED_MLP = {"gate_up_proj": ("gate_proj", "up_proj"), "Wi": ("gate_proj", "up_proj")}


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
        self._need_heads(f"W_{which.upper()}")
        heads = model.num_heads if which == "q" else model.num_kv_heads
        width = model.qk_head_dim if which in ("q", "k") else model.head_dim
        module, attention = self._attention(layer, f"{which}_proj")
        if module is not None:
            weight = _in_out(module, f"W_{which.upper()}: block {layer}'s {which}_proj")
            if weight.shape[-1] != heads * width:
                raise UnavailableValue(
                    f"W_{which.upper()}: block {layer}'s {which}_proj gives {weight.shape[-1]} columns, not {heads} "
                    f"heads of {width}, so its heads do not stack into TransformerLens's [n_layers n_heads d_model "
                    f"d_head]")
            bias = _bias(module, heads * width, module.weight)
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
        layout = FUSED_QKV_LAYOUTS.get(f"{type(native).__module__.rsplit('.', 1)[-1]}.{type(native).__name__}")
        if fused is None or layout is None:
            raise UnavailableValue(
                f"W_Q, W_K, W_V: block {layer}'s attention ({type(native).__name__}) has neither q_proj, k_proj and "
                f"v_proj nor a fused projection nnterp cuts (a latent attention's low-rank projections, a state-space "
                f"or linear mixer), so it has no such matrices")
        width, queries = self.model.head_dim, self.model.num_heads
        columns = torch.arange(_in_out(fused, f"W_Q: block {layer}'s fused projection").shape[-1],
                               device=fused.weight.device)
        key_values = (columns.numel() // width - queries) // 2  # every layout holds q, then k and v alike
        try:
            cut = layout(native)(columns, queries, key_values, width)
        except RuntimeError:
            cut = None
        if cut is None or not torch.equal(torch.cat([part.flatten() for part in cut]).sort().values, columns):
            raise UnavailableValue(f"W_Q, W_K, W_V: block {layer}'s fused projection gives {columns.numel()} "
                                   f"columns, which are not {queries} query heads of {width} and as many keys as "
                                   f"values, so nnterp does not cut it")
        return fused, cut

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

    def _need_heads(self, word: str) -> None:
        if None in (self.model.num_heads, self.model.num_kv_heads, self.model.head_dim, self.model.qk_head_dim):
            raise UnavailableValue(f"{word}: {self.model.family.name} has no attention heads (a state-space model), "
                                   f"so it has no such matrix")

    def _output_projection(self, layer: int):
        self._need_heads("W_O")
        module, _ = self._attention(layer, "o_proj")
        if module is None:
            raise UnavailableValue(f"W_O: block {layer}'s attention has no output projection nnterp names o_proj")
        weight = _in_out(module, f"W_O: block {layer}'s o_proj")
        heads, width = self.model.num_heads, self.model.head_dim
        if weight.shape[0] != heads * width:
            raise UnavailableValue(f"W_O: block {layer}'s o_proj reads {weight.shape[0]} rows, not {heads} heads of "
                                   f"{width}, so its heads do not stack into TransformerLens's [n_layers n_heads "
                                   f"d_head d_model]")
        return module, weight

    def W_O(self) -> torch.Tensor:
        def one(layer):
            _, weight = self._output_projection(layer)
            return weight.reshape(self.model.num_heads, self.model.head_dim, weight.shape[-1])
        return self._stack(one)

    def b_O(self) -> torch.Tensor:
        def one(layer):
            module, weight = self._output_projection(layer)
            return _bias(module, weight.shape[-1], weight)
        return self._stack(one)

    def _mlp_projection(self, layer: int, name: str):
        """(module, which half or None) of the MLP's ``name`` projection (up_proj, gate_proj or down_proj) under any
        native name of MLP_NAMES, on the MLP or, where the block computes its MLP inline (OPT), on the block; else
        its half of a fused projection (FUSED_MLP); (None, None) where there is none."""
        block = self.model.layers[layer]
        hosts = (getattr(block, "mlp", None), block)
        for native in MLP_NAMES[name]:
            for host in hosts:
                module = _native(host, native)
                if isinstance(getattr(module, "weight", None), torch.Tensor) and module.weight.dim() == 2:
                    return module, None
        for native, halves in FUSED_MLP.items():
            module = _native(hosts[0], native)
            if name in halves and isinstance(getattr(module, "weight", None), torch.Tensor) and \
                    module.weight.dim() == 2:
                return module, halves.index(name)
        return None, None

    def gated(self) -> bool:
        return self._mlp_projection(0, "gate_proj")[0] is not None

    def _mlp(self, layer: int, name: str, word: str) -> tuple[torch.Tensor, torch.Tensor]:
        """(W [in out], b [out]) of the MLP's ``name`` projection: its own, or its half of a fused one."""
        module, half = self._mlp_projection(layer, name)
        if module is None:
            raise UnavailableValue(f"{word}: block {layer}'s MLP has no {name} matrix (a mixture of experts, a "
                                   f"state-space block, or a projection nnterp does not name), so nnterp does not "
                                   f"give {word}")
        weight = _in_out(module, f"{word}: block {layer}'s {name}")
        bias = _bias(module, weight.shape[-1], module.weight)
        if half is None:
            return weight, bias
        return weight.chunk(2, dim=-1)[half], bias.chunk(2)[half]

    def mlp_weight(self, name: str, word: str) -> torch.Tensor:
        return self._stack(lambda layer: self._mlp(layer, name, word)[0])

    def mlp_bias(self, name: str, word: str) -> torch.Tensor:
        return self._stack(lambda layer: self._mlp(layer, name, word)[1])


class WeightProperties:
    """HookedTransformer's weight properties (W_E, W_U, W_Q ... b_out, QK, OV), on a class with ``std``, ``cfg``,
    ``_weights`` (Weights), ``_path``, ``_host`` and ``_factors``."""

    @property
    def W_E(self) -> torch.Tensor:
        """The embedding matrix as the stream receives it: times the embedding's own scale (Gemma 3's
        embed_scale) or the scale the model applies after it (Gemma 2's sqrt(hidden_size)), in the weights'
        dtype, as TransformerLens converts it."""
        embed = module_of(self.std.embed_tokens)
        weight = embed.weight.detach()
        scale = getattr(embed, "embed_scale", None)
        if scale is None and "sqrt(hidden_size) scale" in names.TRANSFORMERLENS_MODEL["hook_embed"].families.get(
                self.std.family.name, ""):
            scale = torch.tensor(self.cfg.d_model ** 0.5)
        if scale is None and (multiplier := self._multipliers("hook_embed")) is not None:
            scale = multiplier[0]   # Granite's embedding_multiplier
        return weight if scale is None else weight * scale.to(weight.dtype)

    @property
    def W_U(self) -> torch.Tensor:
        return module_of(self.std.lm_head).weight.detach().T

    @property
    def b_U(self) -> torch.Tensor:
        bias = getattr(module_of(self.std.lm_head), "bias", None)
        return bias.detach() if bias is not None else torch.zeros(self.cfg.d_vocab_out, dtype=self.cfg.dtype)

    @property
    def W_pos(self) -> torch.Tensor:
        for name in ("transformer.wpe", "model.decoder.embed_positions"):
            module = dict(self.std.hf_model.named_modules()).get(name)
            if isinstance(module, torch.nn.Embedding):  # OPT's rows start at its offset (2): position 0 is row 2
                return module.weight.detach()[getattr(module, "offset", 0):]
        raise UnavailableValue(f"W_pos: {self.std.family.name} has no learned position embeddings "
                               f"({self.cfg.positional_embedding_type} positions)")

    W_Q = property(lambda self: self._weights.W("q"))
    W_K = property(lambda self: self._weights.W("k"))
    W_V = property(lambda self: self._weights.W("v"))
    b_Q = property(lambda self: self._weights.b("q"))
    b_K = property(lambda self: self._weights.b("k"))
    b_V = property(lambda self: self._weights.b("v"))
    _W_K = property(lambda self: self._weights.grouped("k"))
    _W_V = property(lambda self: self._weights.grouped("v"))
    _b_K = property(lambda self: self._weights.grouped("k", bias=True))
    _b_V = property(lambda self: self._weights.grouped("v", bias=True))
    W_O = property(lambda self: self._times("hook_attn_out", self._weights.W_O()))
    b_O = property(lambda self: self._times("hook_attn_out", self._weights.b_O()))
    W_in = property(lambda self: self._weights.mlp_weight("up_proj", "W_in"))
    b_in = property(lambda self: self._weights.mlp_bias("up_proj", "b_in"))
    W_out = property(lambda self: self._times("hook_mlp_out", self._weights.mlp_weight("down_proj", "W_out")))
    b_out = property(lambda self: self._times("hook_mlp_out", self._weights.mlp_bias("down_proj", "b_out")))

    def _multipliers(self, name: str) -> torch.Tensor | None:
        """Per block (one entry for a model-level name), the number the model multiplies the tensor under
        ``name`` by before adding it to the stream (Granite's embedding_multiplier and residual_multiplier), as its
        site declares it; None where it multiplies by none. Found once per model."""
        if name in self._factors:
            return self._factors[name]
        found = []
        for layer in range(self.cfg.n_layers) if name in ("hook_attn_out", "hook_mlp_out") else [None]:
            try:
                _, reads = self._path(name if layer is None else f"blocks.{layer}.{name}")
                read = reads[-1]
                scale = getattr(self._host(read)._nnterp_site(read.value), "scale", None)
            except (KeyError, NnterpError):
                scale = None
            found.append(None if scale is None else float(scale(self.std._nnterp_state.config)))
        self._factors[name] = None if all(factor is None for factor in found) else \
            torch.tensor([1.0 if factor is None else factor for factor in found], dtype=self.cfg.dtype)
        return self._factors[name]

    def _times(self, name: str, weights: torch.Tensor) -> torch.Tensor:
        """``weights`` [n_layers ...] times each block's multiplier of ``name``'s tensor, so that they compute the
        tensor the stream receives, as TransformerLens's weights do (z @ W_O + b_O is hook_attn_out)."""
        multipliers = self._multipliers(name)
        if multipliers is None:
            return weights
        return weights * multipliers.to(weights.dtype).reshape(-1, *[1] * (weights.ndim - 1))

    @property
    def W_gate(self):
        return self._weights.mlp_weight("gate_proj", "W_gate") if self.cfg.gated_mlp else None

    @property
    def QK(self):
        """TransformerLens's FactoredMatrix W_Q @ W_K^T [n_layers n_heads d_model d_model], as its own property."""
        return factored_matrix()(self.W_Q, self.W_K.transpose(-2, -1))

    @property
    def OV(self):
        """TransformerLens's FactoredMatrix W_V @ W_O [n_layers n_heads d_model d_model], as its own property."""
        return factored_matrix()(self.W_V, self.W_O)

    def accumulated_bias(self, layer: int, mlp_input: bool = False, include_mlp_biases: bool = True):
        total = torch.zeros(self.cfg.d_model, dtype=self.cfg.dtype)
        b_O, b_out = self.b_O, self.b_out if include_mlp_biases else None
        for index in range(layer):
            total = total + b_O[index] + (b_out[index] if b_out is not None else 0)
        if mlp_input:
            total = total + b_O[layer]
        return total

    def ln_final(self, residual: torch.Tensor) -> torch.Tensor:
        """The model's own final norm, applied to a stream."""
        return module_of(self.std.norm)(residual)
