"""GPT-NeoX (GPTNeoXForCausalLM).

gpt_neox.{embed_in, emb_dropout, layers[i].{input_layernorm, post_attention_layernorm, attention.{query_key_value,
dense}, mlp.{dense_h_to_4h, act, dense_4h_to_h}}, final_layer_norm, rotary_emb} and lm_head (untied, no bias).
The block kind is the checkpoint's: with use_parallel_residual (the default, and Pythia's and GPT-NeoX-20B's
setting) the block is parallel with two norms, out = mlp(post_attention_layernorm(x)) + attention(input_layernorm(x))
+ x, so post_attention_layernorm normalizes the block's input, not a stream after the attention, and there is no
layer_mid; with use_parallel_residual=False it is a sequential pre-norm block, mid = attention + x, out = mlp +
mid, and layer_mid is post_attention_layernorm's input. post_attention_dropout and post_mlp_dropout wrap the two
contributions (inert in eval). The attention projects q, k and v in one fused query_key_value laid out per head
([q_h, k_h, v_h] for each head h), applies rotate_half rotary to the first partial_rotary_factor of each head
(0.25 by default), and calls the kernel chosen at run time through attention_interface, scaled by head_dim ** -0.5;
keys and values have num_heads heads.
"""

from nnterp.declare.blocks import Parallel
from nnterp.declare.family import Family
from nnterp.families._neox_fused_qkv import NEOX_RENAME


FAMILY = Family(
    name="gpt_neox",
    summary="Pythia's and GPT-NeoX-20B's block: parallel with two LayerNorms by default, sequential when "
            "use_parallel_residual is off, with a fused per-head query_key_value and rotary on a quarter of each head.",
    tags=("Parallel block", "Fused qkv", "Partial rotary", "LayerNorm"),
    rename=NEOX_RENAME,
    block=Parallel(
        mlp_norm="post_attention_layernorm", when="use_parallel_residual", default=True,
        description="The normed stream entering the MLP: post_attention_layernorm of the block's input, not of a "
                    "stream after the attention",
        sum=lambda x, attn, mlp: (mlp + attn) + x),
    accessors={"num_kv_heads": lambda c: c.num_attention_heads},
    variants={"sequential": {"use_parallel_residual": False}},
    tiny={"config_class": "GPTNeoXConfig", "overrides": {
        "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "intermediate_size": 128,
        "vocab_size": 300}},
)

