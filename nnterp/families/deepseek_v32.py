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
    tiny={"config_class": "DeepseekV32Config", "overrides": {
        "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 4,
        "intermediate_size": 128, "moe_intermediate_size": 64, "vocab_size": 300, "head_dim": 16,
        "n_routed_experts": 4, "num_experts_per_tok": 2, "n_group": 1, "topk_group": 1, "first_k_dense_replace": 1,
        "kv_lora_rank": 32, "q_lora_rank": 32, "qk_rope_head_dim": 16, "qk_nope_head_dim": 16, "v_head_dim": 16,
        "index_head_dim": 32, "index_n_heads": 2, "index_topk": 4}},
)
