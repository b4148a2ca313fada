"""StableLM (StableLmForCausalLM).

Llama's module names with LayerNorms (weight and bias), rotary on partial_rotary_factor (0.25) of
each head, and a dropout on the MLP's output (inert in eval). The block kind is per checkpoint:
with use_parallel_residual false (StableLM-3B-4E1T, StableLM 2 1.6B) the block is Llama's
sequential one; with it true (StableLM 2 12B) input_layernorm feeds both sublayers, there is no
post_attention_layernorm, and out = x + attn + mlp, so there is no layer_mid. qk_layernorm (true
on StableLM 2 12B) adds a LayerNorm per query and key head (self_attn.q_layernorm, k_layernorm,
StableLmLayerNormPerHead) before the rotary; use_qkv_bias adds biases on q, k and v.
"""

from nnterp.declare.blocks import Parallel
from nnterp.declare.family import Family
from nnterp.families._llama import tiny


FAMILY = Family(
    name="stablelm",
    summary="LayerNorms and rotary on a quarter of each head; the block is sequential or parallel per checkpoint "
            "(use_parallel_residual), with optional per-head query and key norms.",
    tags=("Sequential or parallel block", "LayerNorm", "Partial rotary", "Gated MLP"),
    block=Parallel(when="use_parallel_residual",
                   description="The normed stream entering the MLP: on a parallel block the one input norm feeds "
                               "both sublayers"),
    sites={
        "attention_queries": "The queries entering attention: normed per head where qk_layernorm is set, then rotary "
                             "on the first partial_rotary_factor of each head",
        "attention_keys": "The keys entering attention: normed per head where qk_layernorm is set, then rotary on "
                          "the first partial_rotary_factor of each head",
    },
    variants={"parallel_qknorm": {"use_parallel_residual": True, "qk_layernorm": True}},
    tiny=tiny("StableLmConfig"),
)
