"""Falcon-Mamba (FalconMambaForCausalLM).

backbone.{embeddings, layers[i].{norm, mixer.{in_proj, conv1d, x_proj, dt_proj, out_proj,
dt_layernorm, b_layernorm, c_layernorm}}, norm_f} and lm_head. Mamba's block and names: one
pre-norm sublayer, out = x + mixer(norm(x)), a bare tensor, no attention and no MLP. The mixer
(self_attn) differs from Mamba's by weightless RMSNorms (eps mixer_rms_eps) on the scan's dt, B
and C before the selective scan. attention_output is what the mixer adds, out_proj's (o_proj's)
output, and the identity is layer_input + attention_output == layer_output. residual_in_fp32 keeps
the residual in float32 (layer_output is float32 under a half-precision load), and the model
returns float32 logits from a head run in the weights' dtype.
"""

from nnterp.families.mamba import FAMILY as MAMBA

FAMILY = MAMBA.but(
    name="falcon_mamba",
    summary="Mamba's pure state-space block, with weightless RMSNorms on the scan's dt, B and C: no attention, "
            "no MLP.",
    tags=("State-space mixer", "No attention", "No MLP", "RMSNorm"),
    tiny=MAMBA.tiny_for("FalconMambaConfig"),
)
