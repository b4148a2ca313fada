"""IQuest-Coder (LlamaForCausalLM under IQuestCoderConfig).

transformers builds IQuest-Coder as LlamaForCausalLM: its own config class (model_type
iquestcoder) and Llama's modules, block and kernel call, so every value is read where Llama's is.
"""

from nnterp.declare.family import Family
from nnterp.families._llama import tiny

FAMILY = Family(
    name="iquestcoder",
    summary="IQuest-Coder's config on Llama's model class: every value where Llama's is.",
    tags=("Sequential block", "RMSNorm", "Grouped keys/values", "Gated MLP"),
    tiny=tiny("IQuestCoderConfig", head_dim=16),
)
