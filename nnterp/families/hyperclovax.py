"""HyperCLOVA X SEED (HyperCLOVAXForCausalLM).

Llama's modules in a sandwich block with Granite's multipliers: h = x + m * post_norm1(self_attn(
input_layernorm(x))), then out = h + m * post_norm2(mlp(post_attention_layernorm(h))), m the config's
residual_multiplier; post_attention_layernorm keeps Llama's meaning (the pre-MLP norm), and
post_norm1 and post_norm2 are identities when use_post_norm is false. attention_output and
mlp_output are the post-norms' outputs times m (an edit carried back divided). The model multiplies
the embeddings by embedding_multiplier before the first block (token_embeddings is the product), the
kernel scales scores by attention_multiplier, and the logits are lm_head's output MULTIPLIED by
logits_scaling (Granite divides), which project_on_vocab applies.
"""

from nnterp.declare.blocks import ConfigKey, PostNorms
from nnterp.declare.family import Family
from nnterp.families._llama import EMBEDDINGS_MULTIPLIED, GRANITE_TINY, logits_times_scaling, tiny

FAMILY = Family(
    name="hyperclovax",
    summary="A sandwich block with Granite-style multipliers: post-normed contributions times residual_multiplier, "
            "scaled embeddings, and logits multiplied by logits_scaling.",
    tags=("Sandwich norms", "RMSNorm", "Residual multiplier", "Scaled logits", "Gated MLP"),
    block=PostNorms("post_norm1", "post_norm2", scale=ConfigKey("residual_multiplier")),
    sites={
        "token_embeddings": EMBEDDINGS_MULTIPLIED,
    },
    readout=logits_times_scaling,
    tiny=tiny("HyperCLOVAXConfig", head_dim=16, **GRANITE_TINY),
)
