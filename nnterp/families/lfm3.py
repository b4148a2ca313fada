"""LFM3 (Lfm3ForCausalLM).

LFM2's hybrid (see _lfm) with a sandwich block: operator_norm -> mixer -> post_operator_norm -> add;
ffn_norm -> feed_forward -> post_ffn_norm -> add, so attention_output and mlp_output are the
post-norms' outputs. The mixers are, per layer_types, gated short convolutions (conv, aliased
self_attn) and full or sliding-window attention (self_attn: per-head q_norm/k_norm, proportional
partial rotary, and, when g_proj is set, the kernel's output multiplied per head by
sigmoid(g_proj(x)) before o_proj, so attention_head_outputs is before that gate and
attention_premix after it). The final norm is embedding_norm; embeddings are tied to lm_head.
"""

from nnterp.declare.family import Family
from nnterp.declare.mixers import SHORT_CONV, mixer_interior
from nnterp.declare.sites import Read, Sibling
from nnterp.families._lfm import LFM_RENAME, SILU
from nnterp.families._llama import tiny
from nnterp.families._mla import gated_outputs

FAMILY = Family(
    name="lfm3",
    summary="Liquid's LFM3: short convolutions, full and sliding-window gated attention, with norms both before and "
            "after each sublayer.",
    tags=("Sequential block", "Sandwich norms", "RMSNorm", "Hybrid mixers", "Short convolution", "Sliding window",
          "Gated attention", "QK-norm", "Gated MLP", "Tied embeddings"),
    rename=LFM_RENAME,
    sites={
        **mixer_interior(SHORT_CONV, gated_outputs("sigmoid(g_proj(x)), one gate per head")),
        "attention_output": Read(
            Sibling("post_operator_norm"),
            description="What the mixer adds to the residual stream: its output after post_operator_norm"),
        "mlp_activation": SILU,
        "mlp_output": Read(
            Sibling("post_ffn_norm"), description="What the MLP adds to the residual stream: its output after "
                                                  "post_ffn_norm"),
    },
    tiny=tiny("Lfm3Config", num_hidden_layers=3, head_dim=16, pad_token_id=0, bos_token_id=1, eos_token_id=2,
              layer_types=["conv", "full_attention", "sliding_attention"]),
)
