"""OLMo 2 (Olmo2ForCausalLM).

Llama's module names on a post-norm block with no norm before either sublayer:
h = x + post_attention_layernorm(self_attn(x)), out = h + post_feedforward_layernorm(mlp(h)).
post_attention_layernorm normalizes the attention's output, not the stream the MLP reads; the MLP
reads h unnormed. attention_output and mlp_output are the post-norms' outputs, layer_mid is the
MLP's input, and attention_norm_output and mlp_norm_output do not exist. q_norm and k_norm are
RMSNorms over the whole q_proj and k_proj outputs (all heads at once) before the rotary.
"""

from nnterp.declare.blocks import OLMO2_POSTNORMS
from nnterp.declare.family import Family
from nnterp.families._llama import tiny
from nnterp.families._postnorm_olmo2 import WIDE_QK_NORM

FAMILY = Family(
    name="olmo2",
    summary="A post-norm block: each sublayer reads the raw stream and its output is normed before the add, with "
            "query and key RMSNorms over the whole projection.",
    tags=("Post-norm block", "RMSNorm", "QK-norm", "Gated MLP"),
    block=OLMO2_POSTNORMS,
    sites={
        "attention_queries": "The queries entering attention:" + WIDE_QK_NORM.format(norm="q_norm"),
        "attention_keys": "The keys entering attention:" + WIDE_QK_NORM.format(norm="k_norm"),
    },
    tiny=tiny("Olmo2Config", eos_token_id=2),
)

