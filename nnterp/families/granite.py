"""Granite 3 (GraniteForCausalLM).

Llama's modules and sequential pre-norm block with four multipliers from the config: the model
multiplies the embeddings by embedding_multiplier before the first block, each block adds
residual_multiplier times each sublayer's output (h = x + m * attn, out = h + m * mlp), the kernel
scales the query-key product by attention_multiplier instead of head_dim ** -0.5, and the logits
are lm_head's output divided by logits_scaling. token_embeddings, attention_output and mlp_output
are the products the stream receives (an edit is carried back divided); project_on_vocab divides
by logits_scaling.
"""

from nnterp.declare.blocks import GRANITE_BLOCK
from nnterp.declare.family import Family
from nnterp.families._llama import EMBEDDINGS_MULTIPLIED, GRANITE_TINY, logits_divided_by_scaling, tiny

FAMILY = Family(
    name="granite",
    summary="Llama's block with multipliers on the embeddings, on each sublayer's contribution and on the "
            "attention scores, and logits divided by logits_scaling.",
    tags=("Sequential block", "RMSNorm", "Grouped keys/values", "Residual multiplier", "Scaled logits", "Gated MLP"),
    block=GRANITE_BLOCK,
    sites={"token_embeddings": EMBEDDINGS_MULTIPLIED},
    readout=logits_divided_by_scaling,
    tiny=tiny("GraniteConfig", **GRANITE_TINY),
)

