"""GLM-4 (Glm4ForCausalLM).

GLM-4-0414 and its descendants.

GLM's attention (bias on q, k, v; rotary on half of each head) and fused MLP (mlp.gate_up_proj split
in halves, mlp.activation_fn (act_fn) on the gate, down_proj taking act(gate) * up) in a sandwich
block: h = x + post_self_attn_layernorm(self_attn(input_layernorm(x))), then
out = h + post_mlp_layernorm(mlp(post_attention_layernorm(h))). post_attention_layernorm keeps
Llama's meaning (the pre-MLP norm on the stream, so layer_mid and mlp_norm_output are where
Llama's are); attention_output and mlp_output are the post-norms' outputs.
"""

from nnterp.declare.blocks import GLM4_POSTNORMS
from nnterp.declare.family import Family
from nnterp.families._llama import tiny

FAMILY = Family(
    name="glm4",
    summary="GLM's attention and fused MLP in a sandwich block, with a post-norm on each sublayer's output.",
    tags=("Sandwich norms", "RMSNorm", "Biased q, k, v", "Partial rotary", "Fused gate/up", "Grouped keys/values"),
    rename={"activation_fn": "act_fn"},
    block=GLM4_POSTNORMS,
    tiny=tiny("Glm4Config", head_dim=16, pad_token_id=0),
)

