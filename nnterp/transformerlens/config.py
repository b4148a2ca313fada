"""``model.cfg``: the HookedTransformerConfig fields a TransformerLens script reads, from the wrapped model."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import torch

from nnterp.declare.companions import norm_centres
from nnterp.declare.conventions import _rotary_calls
from nnterp.declare.engine import module_of
from nnterp.transformerlens.weights import Weights


@dataclass
class HookedTransformerConfig:
    """The fields of TransformerLens's config, each read from the model (None where it has no such thing)."""

    n_layers: int
    d_model: int
    n_heads: int
    d_head: int
    n_key_value_heads: int | None
    d_mlp: int | None
    d_vocab: int
    d_vocab_out: int
    n_ctx: int | None
    act_fn: str | None
    normalization_type: str | None
    positional_embedding_type: str | None
    rotary_dim: int | None
    parallel_attn_mlp: bool
    gated_mlp: bool
    eps: float | None
    model_name: str
    original_architecture: str
    device: Any
    dtype: torch.dtype
    tokenizer_prepends_bos: bool | None
    default_prepend_bos: bool = True
    attn_only: bool = False
    final_rms: bool = False
    use_attn_result: bool = False
    use_split_qkv_input: bool = False
    use_hook_mlp_in: bool = False
    use_attn_in: bool = False
    extra: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {name: getattr(self, name) for name in self.__dataclass_fields__}


#: the architectures TransformerLens 3.9's loading_from_pretrained converts with default_prepend_bos False (their
#: checkpoints were trained without a BOS); every other architecture prepends one by default, as TransformerLens does
NO_BOS_BY_DEFAULT = frozenset({"GPTNeoXForCausalLM", "BloomForCausalLM", "QWenLMHeadModel", "Qwen2ForCausalLM",
                               "Qwen3ForCausalLM", "PhiForCausalLM"})


def _first(config, *names):
    for name in names:
        value = getattr(config, name, None)
        if value is not None:
            return value
    return None


def config_of(model) -> HookedTransformerConfig:
    """The config of a StandardizedTransformer, in TransformerLens's fields."""
    native = model._nnterp_state.config
    text = native.get_text_config() if hasattr(native, "get_text_config") else native
    norm = module_of(model.norm) if hasattr(model, "norm") else None
    centres = norm_centres(norm) if norm is not None else None
    normalization = None if norm is None else ("LN" if centres else "RMS")
    attention = module_of(model.layers[0].self_attn) if hasattr(model.layers[0], "self_attn") else None
    rotary = bool(attention is not None and _rotary_calls(attention)[1])
    if rotary:
        positions = "rotary"
    elif getattr(text, "alibi", False) or text.model_type in ("bloom", "mpt") or \
            getattr(getattr(text, "attn_config", None), "alibi", False):
        positions = "alibi"
    elif _first(text, "n_positions", "max_position_embeddings") is not None and any(
            name in dict(model.hf_model.named_modules()) for name in ("transformer.wpe", "model.decoder.embed_positions")):
        positions = "standard"
    else:
        positions = None
    factor = (getattr(text, "rope_parameters", None) or {}).get("partial_rotary_factor") \
        if isinstance(getattr(text, "rope_parameters", None), dict) else None
    factor = factor or _first(text, "partial_rotary_factor")
    rotary_dim = _first(text, "rotary_dim") or (int(model.qk_head_dim * factor) if factor else None)
    if rotary and rotary_dim is None:
        rotary_dim = model.qk_head_dim
    try:
        d_mlp = model.intermediate_size
    except Exception:  # a family without one MLP width (state-space blocks)
        d_mlp = None
    kind = model.family.block.kind(native)
    tokenizer = model.tokenizer
    # as TransformerLens tells: a tokenizer that adds anything to an empty text adds a BOS
    prepends = len(tokenizer.encode("")) > 0 if tokenizer is not None else None
    architecture = (getattr(native, "architectures", None) or [type(model.hf_model).__name__])[0]
    return HookedTransformerConfig(
        n_layers=model.num_layers, d_model=model.hidden_size, n_heads=model.num_heads, d_head=model.head_dim,
        n_key_value_heads=model.num_kv_heads if model.num_kv_heads != model.num_heads else None,
        d_mlp=d_mlp, d_vocab=model.vocab_size, d_vocab_out=model.vocab_size,
        n_ctx=_first(text, "max_position_embeddings", "n_positions", "n_ctx", "seq_length"),
        act_fn=_first(text, "hidden_act", "hidden_activation", "activation_function"),
        normalization_type=normalization, positional_embedding_type=positions, rotary_dim=rotary_dim,
        parallel_attn_mlp=kind == "parallel",
        gated_mlp=Weights(model).gated(),
        eps=_first(text, "rms_norm_eps", "layer_norm_eps", "layer_norm_epsilon", "norm_eps"),
        model_name=getattr(native, "_name_or_path", "") or text.model_type,
        original_architecture=architecture, device=model.device, dtype=model.dtype, tokenizer_prepends_bos=prepends,
        default_prepend_bos=architecture not in NO_BOS_BY_DEFAULT and type(model.hf_model).__name__ not in
        NO_BOS_BY_DEFAULT,
        final_rms=normalization == "RMS",
    )
