"""A.X K1 (AXK1ForCausalLM).

DeepSeek-V3's block under SK Telecom's name: Multi-head Latent Attention with q-LoRA (see _mla),
dense blocks per mlp_layer_types, and AXK1MoE blocks of a sigmoid, group-limited router gate
(logits = F.linear(x, weight) in float32, top_k of sigmoid + e_score_correction_bias, weights the
normalized sigmoid scores times routed_scaling_factor), fused experts and shared_experts; unlike
DeepSeek-V3 the MoE block normalizes its summed output (post_mlp_layernorm) before returning it, so
mlp_output on those blocks is after that norm.
"""

from nnterp.declare.sites import Element, Own, Read
from nnterp.families.deepseek_v3 import FAMILY as DEEPSEEK_V3

FAMILY = DEEPSEEK_V3.but(
    name="axk1",
    summary="SK Telecom's A.X K1: DeepSeek-V3's latent attention and sigmoid-routed experts, with an RMSNorm on the "
            "MoE block's output.",
    sites={
        "mlp_output": lambda context: MOE_OUTPUT if hasattr(context.module, "post_mlp_layernorm") else DENSE_OUTPUT,
    },
    tiny=DEEPSEEK_V3.tiny_for("AXK1Config", without=("first_k_dense_replace",), bos_token_id=1, eos_token_id=2),
)

MOE_OUTPUT = Read(Own("output"), Element(0), description="What the MoE block adds to the residual stream: the routed "
                                                         "and shared experts' sum after post_mlp_layernorm")
DENSE_OUTPUT = Read(Own("output"), Element(0))
