"""Apertus (ApertusForCausalLM).

Llama's sequential pre-norm block with other names for its norms: attention_layernorm before the
attention (input_layernorm) and feedforward_layernorm before the MLP (post_attention_layernorm).
The attention normalizes each query and key head with an RMSNorm (self_attn.q_norm, k_norm) before
the rotary (Llama 3's). The MLP is plain, mlp.{up_proj, act_fn, down_proj} with the xIELU
activation and no gate_proj, so mlp_activation and mlp_neurons are the same tensor.
"""

from nnterp.declare.family import Family
from nnterp.families._llama import tiny
from nnterp.families._llama_renamed import normed_then_rotated

FAMILY = Family(
    name="apertus",
    summary="Llama's block with renamed norms, per-head query and key norms and a plain xIELU MLP.",
    tags=("Sequential block", "RMSNorm", "QK-norm", "Grouped keys/values", "xIELU MLP"),
    rename={"attention_layernorm": "input_layernorm", "feedforward_layernorm": "post_attention_layernorm"},
    sites={
        "attention_queries": normed_then_rotated("q_norm", "queries"),
        "attention_keys": normed_then_rotated("k_norm", "keys"),
    },
    tiny=tiny("ApertusConfig"),
)
