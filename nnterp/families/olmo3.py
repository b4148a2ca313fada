"""OLMo 3 (Olmo3ForCausalLM).

OLMo 2's post-norm block: h = x + post_attention_layernorm(self_attn(x)),
out = h + post_feedforward_layernorm(mlp(h)), no norm before either sublayer (attention_output and
mlp_output are the post-norms' outputs, layer_mid is the MLP's input), q_norm and k_norm over the
whole projection width before the rotary. config.layer_types interleaves sliding-window layers
with full attention (three sliding to one full), passed to the kernel as sliding_window.
"""

from nnterp.families._llama import tiny
from nnterp.families.olmo2 import FAMILY as OLMO2

FAMILY = OLMO2.but(
    name="olmo3",
    summary="OLMo 2's post-norm block with sliding-window attention on three layers of four.",
    tags=("Post-norm block", "RMSNorm", "QK-norm", "Sliding window", "Gated MLP"),
    tiny=tiny("Olmo3Config", eos_token_id=2, layer_types=["sliding_attention", "full_attention"]),
)
