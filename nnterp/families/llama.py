"""Llama (LlamaForCausalLM): the common conventions every other family is declared against.

model.{embed_tokens, layers[i].{input_layernorm, self_attn.{q_proj, k_proj, v_proj, o_proj},
post_attention_layernorm, mlp.{gate_proj, up_proj, down_proj, act_fn}}, norm, rotary_emb} and
lm_head. A sequential pre-norm block: h = x + self_attn(input_layernorm(x)), then
out = h + mlp(post_attention_layernorm(h)), returned as a bare tensor. The attention calls the
kernel chosen at run time through attention_interface(self, q, k, v, mask, ...), with keys and
values at num_kv_heads (grouped) and repeated inside the kernel; the gated MLP sends
act(gate_proj(x)) * up_proj(x) to down_proj. logits are lm_head's output with nothing applied.
"""

from nnterp.declare.family import Family

FAMILY = Family(
    name="llama",
    summary="The common conventions: a sequential pre-norm block with RMSNorm, grouped keys and values, "
            "rotary on every dimension, and a gated MLP.",
    tags=("Sequential block", "RMSNorm", "Grouped keys/values", "Gated MLP"),
    tiny={"config_class": "LlamaConfig", "overrides": {
        "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
        "intermediate_size": 128, "vocab_size": 300, "head_dim": 16}},
)
