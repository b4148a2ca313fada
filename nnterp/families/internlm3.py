"""InternLM3 (LlamaForCausalLM under InternLM3Config).

transformers builds InternLM3 as LlamaForCausalLM: its own config class (model_type internlm3,
with qkv_bias and bias mapped onto Llama's attention_bias and mlp_bias) and Llama's modules, block
and kernel call, so every value is read where Llama's is.
"""

from nnterp.declare.family import Family
from nnterp.families._llama import tiny

FAMILY = Family(
    name="internlm3",
    summary="InternLM3's config on Llama's model class: every value where Llama's is.",
    tags=("Sequential block", "RMSNorm", "Grouped keys/values", "Gated MLP"),
    tiny=tiny("InternLM3Config", head_dim=16),
)
