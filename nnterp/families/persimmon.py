"""Persimmon (PersimmonForCausalLM).

model.{embed_tokens, layers[i].{input_layernorm, self_attn.{query_key_value, q_layernorm, k_layernorm, dense},
post_attention_layernorm, mlp.{dense_h_to_4h, act, dense_4h_to_h}, dropout}, final_layernorm} and lm_head, untied.
A sequential pre-norm block with LayerNorms, h = x + attn(input_layernorm(x)), out = h +
mlp(post_attention_layernorm(h)) (the block's dropout after the MLP is inert in eval). The attention projects q, k
and v in one fused query_key_value laid out per head ([q_h, k_h, v_h] for each head h), normalizes every query and
key head with one LayerNorm over head_dim that all heads share, with a weight and a bias (q_layernorm,
k_layernorm), before the rotary, applies rotate_half
rotary to the first partial_rotary_factor of each head (half on Persimmon-8B), and calls the kernel chosen at run
time through attention_interface, scaled by head_dim ** -0.5; keys and values have num_heads heads. The MLP is
dense_h_to_4h, squared ReLU (relu2) and dense_4h_to_h, with biases, ungated.
"""

from nnterp.declare.family import Family

FAMILY = Family(
    name="persimmon",
    summary="Adept's Persimmon: a sequential LayerNorm block with a fused per-head query_key_value, a LayerNorm on "
            "every query and key head, rotary on half of each head and a squared-ReLU MLP.",
    tags=("Sequential block", "Fused qkv", "qk-norm", "Partial rotary", "LayerNorm"),
    rename={
        "model.final_layernorm": "norm", "dense": "o_proj", "dense_h_to_4h": "up_proj",
        "dense_4h_to_h": "down_proj", "act": "act_fn",
    },
    accessors={"num_kv_heads": lambda c: c.num_attention_heads},
    tiny={"config_class": "PersimmonConfig", "overrides": {
        "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "intermediate_size": 128,
        "vocab_size": 300}},
)
