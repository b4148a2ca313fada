"""Youtu-LLM (YoutuForCausalLM).

A dense model with DeepSeek-V3's Multi-head Latent Attention (see _mla: q-LoRA queries, keys and
values expanded per head from a normed latent with one shared rotary key) on Llama's sequential
pre-norm block and gated MLP.
"""

from nnterp.declare.family import Family
from nnterp.families._llama import tiny
from nnterp.families._mla import MLA_ACCESSORS, mla_sites

FAMILY = Family(
    name="youtu",
    summary="Tencent's Youtu-LLM: a dense model with DeepSeek's Multi-head Latent Attention on Llama's block.",
    tags=("Sequential block", "RMSNorm", "Latent attention (MLA)", "Gated MLP"),
    sites=mla_sites(),
    accessors=MLA_ACCESSORS,
    tiny=tiny("YoutuConfig", num_key_value_heads=4, kv_lora_rank=32, q_lora_rank=32, qk_rope_head_dim=16,
              qk_nope_head_dim=16, v_head_dim=16, bos_token_id=1, eos_token_id=2),
)
