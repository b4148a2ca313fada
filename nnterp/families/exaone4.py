"""EXAONE 4 (Exaone4ForCausalLM).

OLMo 2's post-norm block (the catalogue finds the same layer forward): no norm before either
sublayer, h = x + post_attention_layernorm(self_attn(x)), out = h + post_feedforward_layernorm(mlp(h));
attention_output and mlp_output are the post-norms' outputs, layer_mid is the MLP's input.
Queries and keys are normed per head (self_attn.q_norm, k_norm). With sliding-window layers in the
config (EXAONE 4.0 32B: three sliding to one full), only the sliding layers are rotated and the
full-attention layers carry no position (NoPE); without a window every layer is rotated. Which
applies is read per block.
"""

from nnterp.declare.blocks import OLMO2_POSTNORMS
from nnterp.declare.family import Family
from nnterp.families._llama import tiny
from nnterp.families._llama_renamed import normed_then_rotated_on_sliding_layers

FAMILY = Family(
    name="exaone4",
    summary="OLMo 2's post-norm block with per-head query and key norms, and no rotary on the full-attention "
            "layers of sliding-window checkpoints.",
    tags=("Post-norm block", "RMSNorm", "QK-norm", "Sliding window", "NoPE layers", "Gated MLP"),
    block=OLMO2_POSTNORMS,
    sites={
        "attention_queries": normed_then_rotated_on_sliding_layers("q_norm", "queries"),
        "attention_keys": normed_then_rotated_on_sliding_layers("k_norm", "keys"),
    },
    tiny=tiny("Exaone4Config", layer_types=["sliding_attention", "full_attention"]),
)
