"""Helium (HeliumForCausalLM).

Llama's modules and sequential pre-norm block. The RMSNorm multiplies by its weight in float32
before casting back, where Llama casts first; the attention and MLP are Llama's. Every value is
read where Llama's is.
"""

from nnterp.declare.family import Family
from nnterp.families._llama import tiny

FAMILY = Family(
    name="helium",
    summary="Llama's block, with the RMSNorm's weight applied in float32.",
    tags=("Sequential block", "RMSNorm", "Gated MLP"),
    tiny=tiny("HeliumConfig", head_dim=16),
)
