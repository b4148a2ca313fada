"""Bamba (BambaForCausalLM).

Jamba's names on a Mamba-2 hybrid: each block's token mixer is either a Mamba-2 mixer (mamba,
aliased self_attn: in_proj, a causal convolution, the selective state-space scan with gated
RMSNorm, out_proj) or, on the blocks in attn_layer_indices, Llama's attention with partial rotary
(self_attn). The block is sequential pre-norm: input_layernorm -> mixer -> add; pre_ff_layernorm
(aliased post_attention_layernorm) -> feed_forward (aliased mlp, a gated MLP) -> add, returned as
(hidden_states, attention weights or None). The final norm is final_layernorm. The attention
interior is served on the attention blocks only.
"""

from nnterp.declare.family import Family
from nnterp.declare.mixers import JAMBA_RENAME, MAMBA2, mixer_interior
from nnterp.families._llama import tiny

FAMILY = Family(
    name="bamba",
    summary="IBM's Bamba: Mamba-2 mixers on most blocks and Llama's attention on a few, each followed by a gated "
            "MLP.",
    tags=("Sequential block", "RMSNorm", "Hybrid mixers", "State-space (Mamba-2)", "Partial rotary", "Gated MLP"),
    rename=JAMBA_RENAME,
    sites=mixer_interior(MAMBA2),
    tiny=tiny("BambaConfig", mamba_n_heads=4, mamba_d_state=16, mamba_n_groups=1, attn_layer_indices=[1]),
)
