"""OLMo (OlmoForCausalLM).

The first generation.

Llama's modules and sequential pre-norm block with non-parametric LayerNorms (OlmoLayerNorm: no
weight, no bias, computed in float32) for input_layernorm, post_attention_layernorm and the final
norm. When config.clip_qkv is set, the attention clamps the q_proj, k_proj and v_proj outputs to
[-clip_qkv, clip_qkv] in place before the rotary: attention_queries, attention_keys and
attention_values, read at the kernel, are clamped.
"""

from nnterp.declare.family import Family
from nnterp.families._llama import tiny

FAMILY = Family(
    name="olmo",
    summary="Llama's block with LayerNorms that have no weight and no bias, and optional clamping of "
            "queries, keys and values.",
    tags=("Sequential block", "LayerNorm (no affine)", "Gated MLP"),
    tiny=tiny("OlmoConfig", eos_token_id=2),
)
