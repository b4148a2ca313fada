"""Gemma (GemmaForCausalLM).

The first generation.

Llama's modules and sequential pre-norm block with three differences in the arithmetic:
embed_tokens (GemmaTextScaledWordEmbedding) multiplies the embeddings by sqrt(hidden_size) inside
its own forward, so token_embeddings, its output, is already scaled; every RMSNorm computes
x * (1 + weight) in float32; and the gated MLP uses GELU-tanh. embed_tokens and lm_head are tied,
and logits are lm_head's output with nothing applied.
"""

from nnterp.declare.family import Family
from nnterp.families._llama import tiny

FAMILY = Family(
    name="gemma",
    summary="Llama's block with embeddings scaled by sqrt(hidden_size), RMSNorms that multiply by 1 + weight, "
            "a GELU-tanh gated MLP and a tied head.",
    tags=("Sequential block", "RMSNorm (1 + w)", "Scaled embeddings", "Gated MLP", "Tied embeddings"),
    sites={
        "token_embeddings": "The embedding module's output, already multiplied by sqrt(hidden_size) inside it; "
                            "layers[0].input is this tensor",
    },
    tiny=tiny("GemmaConfig", head_dim=16),
)

