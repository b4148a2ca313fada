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

from nnterp.blocks import Parallel
from nnterp.families._neox_fused_qkv import NEOX_RENAME
from nnterp.family import Checkpoint, Family


FAMILY = Family(
    name="gpt_neox",
    model_types=("gpt_neox",),
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
    checkpoints=(
        Checkpoint("EleutherAI/pythia-1.4b", "Pythia-1.4B", {
            "architectures": ["GPTNeoXForCausalLM"], "num_hidden_layers": 24, "hidden_size": 2048,
            "intermediate_size": 8192, "num_attention_heads": 16, "vocab_size": 50304,
            "max_position_embeddings": 2048, "hidden_act": "gelu", "layer_norm_eps": 1e-05,
            "use_parallel_residual": True, "rotary_pct": 0.25, "rotary_emb_base": 10000,
            "tie_word_embeddings": False, "dtype": "float16",
        }),
        Checkpoint("EleutherAI/gpt-neox-20b", "GPT-NeoX-20B", {
            "architectures": ["GPTNeoXForCausalLM"], "num_hidden_layers": 44, "hidden_size": 6144,
            "intermediate_size": 24576, "num_attention_heads": 64, "vocab_size": 50432,
            "max_position_embeddings": 2048, "hidden_act": "gelu_fast", "layer_norm_eps": 1e-05,
            "use_parallel_residual": True, "rotary_pct": 0.25, "tie_word_embeddings": False, "dtype": "float16",
        }),
    ),
    tiny={"config_class": "GPTNeoXConfig", "overrides": {
        "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "intermediate_size": 128,
        "vocab_size": 300}},
)

