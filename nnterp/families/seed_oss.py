"""Seed-OSS (SeedOssForCausalLM).

Llama's modules and sequential pre-norm block with a bias on q_proj, k_proj and v_proj
(attention_out_bias, off by default, adds one on o_proj). The attention and the MLP each end with a
residual dropout inside their own forward (inert in eval), so attention_output and mlp_output, the
modules' own outputs, are what the block adds.
"""

from nnterp.declare.family import Family
from nnterp.families._llama import tiny

FAMILY = Family(
    name="seed_oss",
    summary="Llama's block with biased query, key and value projections and a residual dropout inside each sublayer.",
    tags=("Sequential block", "RMSNorm", "Grouped keys/values", "Biased q, k, v", "Gated MLP"),
    tiny=tiny("SeedOssConfig", head_dim=16),
)
