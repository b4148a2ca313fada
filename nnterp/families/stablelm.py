"""StableLM (StableLmForCausalLM).

Llama's module names with LayerNorms (weight and bias), rotary on partial_rotary_factor (0.25) of
each head, and a dropout on the MLP's output (inert in eval). The block kind is per checkpoint:
with use_parallel_residual false (StableLM-3B-4E1T, StableLM 2 1.6B) the block is Llama's
sequential one; with it true (StableLM 2 12B) input_layernorm feeds both sublayers, there is no
post_attention_layernorm, and out = x + attn + mlp, so there is no layer_mid. qk_layernorm (true
on StableLM 2 12B) adds a LayerNorm per query and key head (self_attn.q_layernorm, k_layernorm,
StableLmLayerNormPerHead) before the rotary; use_qkv_bias adds biases on q, k and v.
"""

from nnterp.blocks import Parallel
from nnterp.family import Checkpoint, Family

from ._llama import tiny


FAMILY = Family(
    name="stablelm",
    model_types=("stablelm",),
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
    checkpoints=(
        Checkpoint("stabilityai/stablelm-2-1_6b", "StableLM 2 1.6B", {
            "architectures": ["StableLmForCausalLM"], "num_hidden_layers": 24, "hidden_size": 2048,
            "intermediate_size": 5632, "num_attention_heads": 32, "num_key_value_heads": 32, "vocab_size": 100352,
            "max_position_embeddings": 4096, "hidden_act": "silu", "layer_norm_eps": 1e-05,
            "partial_rotary_factor": 0.25, "use_qkv_bias": True, "use_parallel_residual": False,
            "qk_layernorm": False, "tie_word_embeddings": False, "dtype": "bfloat16",
        }),
        Checkpoint("stabilityai/stablelm-3b-4e1t", "StableLM-3B-4E1T"),
        Checkpoint("stabilityai/stablelm-2-12b", "StableLM 2 12B (parallel, qk_layernorm)"),
    ),
    tiny=tiny("StableLmConfig"),
)
