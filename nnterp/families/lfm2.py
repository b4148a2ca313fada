"""LFM2 (Lfm2ForCausalLM).

Liquid's hybrid (see _lfm): per layer_types a gated short-convolution mixer (conv, aliased
self_attn) or an attention with per-head RMSNorms q_layernorm/k_layernorm and rotary, whose output
projection out_proj is aliased o_proj. The block is pre-norm: operator_norm -> mixer -> add;
ffn_norm -> feed_forward (w2(silu(w1(x))·w3(x))) -> add. The final norm is embedding_norm;
embeddings are tied to lm_head. The attention interior is served on attention blocks only.
"""

from nnterp.declare.family import Family
from nnterp.declare.mixers import SHORT_CONV, mixer_interior
from nnterp.families._lfm import LFM_RENAME, SILU, lfm2_intermediate_size
from nnterp.families._llama import tiny

FAMILY = Family(
    name="lfm2",
    summary="Liquid's LFM2: gated short convolutions on most blocks and grouped-query attention with query/key norms "
            "on the others, each followed by a SwiGLU MLP.",
    tags=("Sequential block", "RMSNorm", "Hybrid mixers", "Short convolution", "QK-norm", "Gated MLP",
          "Tied embeddings"),
    rename=LFM_RENAME,
    sites={**mixer_interior(SHORT_CONV), "mlp_activation": SILU},
    accessors={"intermediate_size": lfm2_intermediate_size},
    tiny=tiny("Lfm2Config", layer_types=["conv", "full_attention"]),
)
