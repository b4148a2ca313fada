"""EXAONE 3 (LlamaForCausalLM under ExaoneConfig).

transformers builds EXAONE 3.0 and 3.5 as LlamaForCausalLM: its own config class (model_type
exaone, with EXAONE's names num_layers, layer_norm_epsilon and activation_function mapped onto
Llama's) and Llama's modules, block and kernel call, so every value is read where Llama's is.
"""

from nnterp.declare.family import Family
from nnterp.families._llama import tiny

FAMILY = Family(
    name="exaone",
    summary="EXAONE 3's config on Llama's model class: every value where Llama's is.",
    tags=("Sequential block", "RMSNorm", "Grouped keys/values", "Gated MLP"),
    tiny=tiny("ExaoneConfig", head_dim=16, eos_token_id=2),
)
