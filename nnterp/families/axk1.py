"""A.X K1 (AXK1ForCausalLM).

DeepSeek-V3's block under SK Telecom's name: Multi-head Latent Attention with q-LoRA (see _mla),
dense blocks per mlp_layer_types, and AXK1MoE blocks of a sigmoid, group-limited router gate
(logits = F.linear(x, weight) in float32, top_k of sigmoid + e_score_correction_bias, weights the
normalized sigmoid scores times routed_scaling_factor), fused experts and shared_experts; unlike
DeepSeek-V3 the MoE block normalizes its summed output (post_mlp_layernorm) before returning it, so
mlp_output on those blocks is after that norm.
"""

from nnterp.families.deepseek_v3 import FAMILY as DEEPSEEK_V3
from nnterp.sites import Element, Own, Read

FAMILY = DEEPSEEK_V3.but(
    name="axk1",
    summary="SK Telecom's A.X K1: DeepSeek-V3's latent attention and sigmoid-routed experts, with an RMSNorm on the "
            "MoE block's output.",
    tags=("Sequential block", "RMSNorm", "Latent attention (MLA)", "Mixture of experts", "Shared experts"),
    sites={
        "mlp_output": lambda context: MOE_OUTPUT if hasattr(context.module, "post_mlp_layernorm") else DENSE_OUTPUT,
    },
    tiny={"config_class": "AXK1Config", "overrides": {
        "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 4,
        "intermediate_size": 128, "moe_intermediate_size": 64, "vocab_size": 300, "n_routed_experts": 4,
        "num_experts_per_tok": 2, "n_group": 1, "topk_group": 1, "kv_lora_rank": 32, "q_lora_rank": 32,
        "qk_rope_head_dim": 16, "qk_nope_head_dim": 16, "v_head_dim": 16, "bos_token_id": 1, "eos_token_id": 2}},
)

MOE_OUTPUT = Read(Own("output"), Element(0), description="What the MoE block adds to the residual stream: the routed "
                                                         "and shared experts' sum after post_mlp_layernorm")
DENSE_OUTPUT = Read(Own("output"), Element(0))
