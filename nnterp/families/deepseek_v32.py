"""DeepSeek-V3.2 (DeepseekV32ForCausalLM).

DeepSeek-V3 (Multi-head Latent Attention with q-LoRA, interleaved rotary; dense first blocks, then
the sigmoid, group-limited router beside a shared expert) with DeepSeek Sparse Attention: a
lightning indexer on each attention scores every key from the hidden states and the q-LoRA latent
and keeps index_topk of them per query. Under eager and sdpa the choice becomes part of the mask the
kernel receives (the other keys get the dtype's minimum), so attention_scores are masked to the
indexer's keys and the probabilities are zero elsewhere; other kernels receive the indices instead.
"""

from nnterp.families._mla import mla_sites
from nnterp.families.deepseek_v3 import FAMILY as DEEPSEEK_V3

FAMILY = DEEPSEEK_V3.but(
    name="deepseek_v32",
    summary="DeepSeek-V3.2: DeepSeek-V3 with sparse attention, a lightning indexer choosing the keys each query "
            "attends to.",
    tags=("Sequential block", "RMSNorm", "Latent attention (MLA)", "Sparse attention", "Mixture of experts",
          "Shared experts"),
    sites=mla_sites(indexed=True),
    tiny=DEEPSEEK_V3.tiny_for("DeepseekV32Config", head_dim=16, index_head_dim=32, index_n_heads=2, index_topk=4),
)
