"""ERNIE 4.5 (Ernie4_5ForCausalLM).

The dense ERNIE 4.5 models.

Llama's modules and sequential pre-norm block. The rotary pairs interleaved dimensions (2i, 2i+1)
rather than rotating halves; embed_tokens and lm_head are tied. Every value is read where Llama's is.
"""

from nnterp.declare.family import Family
from nnterp.families._llama import tiny

FAMILY = Family(
    name="ernie4_5",
    summary="Llama's block with interleaved rotary and a tied head.",
    tags=("Sequential block", "RMSNorm", "Grouped keys/values", "Gated MLP", "Tied embeddings"),
    tiny=tiny("Ernie4_5Config", head_dim=16),
)
