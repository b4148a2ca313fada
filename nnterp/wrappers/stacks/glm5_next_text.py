"""GLM-5-Next, the language model (Glm5NextTextModel).

GLM-MoE-DSA's latent attention and router (see _mla and glm_moe_dsa) inside DeepSeek-V4's
hyper-connections (see _hyper), with Kimi delta attention on some layers. The residual is hc_mult
streams [batch, seq, hc_mult, hidden]: in each block attn_hc computes pre, post and comb weights
(a Sinkhorn-projected mixing matrix, in float32) and the collapsed stream; the token mixer reads
input_layernorm(collapsed) and the streams become post·mixer + comb^T·streams; ffn_hc does the same
around post_attention_layernorm and the MLP. After the last block hc_head takes the streams'
unweighted mean, which the final norm and lm_head read. The self_attn slot holds, per layer_types,
Kimi delta attention (Glm5NextTextLinearAttention: short convolutions on q, k and v; a low-rank
forget gate f_b_proj(f_a_proj(x)) whose log-decay is linear_lower_bound · sigmoid(exp(A_log) ·
(f + dt_bias)) when the bound is set; a sigmoid input gate b_proj; a gated delta rule over a
recurrent state; a per-head RMSNorm gated by sigmoid(g_b_proj(g_a_proj(x))); o_proj; no softmax)
or DSA-indexed latent attention with q-LoRA and no rotary at all (qk_rope_head_dim 0; the model
passes no position embeddings): the indexer scores pools of index_kpool consecutive keys (a pool
once its last key is visible), keeps index_topk / index_kpool of them and, when
index_kpool_always_select_tail, the newest incomplete pool; the mask the kernel receives is that
choice alone (causality and padding are the indexer's). A layer whose indexer_types entry is
'shared' reuses the choice of the indexed layer just before it. The MLP slot holds, per
mlp_layer_types, a dense SwiGLU whose gate is clamped above and whose up projection is clamped to
±swiglu_limit before the product, or DeepSeek-V3's sigmoid router over experts with the same
clamped SwiGLU, beside a shared expert.
"""

from dataclasses import replace

from nnterp.declare.blocks import Block
from nnterp.declare.family import COMMON_SITES, described
from nnterp.declare.mixers import KIMI_DELTA, mixer_interior, per_mixer
from nnterp.declare.sites import Call, Companion, Read, input_of
from nnterp.declare.vocabulary import FORWARD_ORDER, up_first
from nnterp.families._hyper import contract_note, stream_sites
from nnterp.wrappers.stacks import like

INDEXED = ("; the mask the kernel receives is the indexer's choice of key pools (and the newest incomplete one) "
           "alone (keys outside it get the dtype's minimum under eager, False under sdpa), the previous indexed "
           "layer's on a layer whose indexer_types entry is 'shared'")

#: the latent attention's interior, on the blocks whose layer_types entry is indexed_attention
LATENT_ATTENTION = {
    "attention_queries": described(
        "attention_queries", "The queries entering attention, which exist only as the kernel's argument: q_b_proj of "
                             "the normed q-LoRA latent, split into heads (no rotary: qk_rope_head_dim is 0)"),
    "attention_keys": described(
        "attention_keys", "The keys entering attention, which exist only as the kernel's argument: each head's part "
                          "of kv_b_proj's output on the normed latent (no rotary: qk_rope_head_dim is 0)"),
    # a split's view of kv_b_proj's output, which autograd forbids editing in place: served as a copy
    "attention_values": described(
        "attention_values", "The values entering attention: each head's v_head_dim-wide part of kv_b_proj's output "
                            "on the normed latent", snapshot=True),
    "attention_scores": described("attention_scores", "The attention scores entering the softmax, masked" + INDEXED),
    # no rotary: what would enter it is the queries and keys themselves
    "attention_queries_unrotated": Companion("attention_queries", lambda site, module: site),
    "attention_keys_unrotated": Companion("attention_keys", lambda site, module: site),
}
_OUTPUT = COMMON_SITES["attention_output"]
HYPER_OUTPUT = ("computes from the collapsed stream; the hyper-connection adds it to every stream with its own post "
                "weight")


def _clamped_up(context):
    """A dense block's up projection as the product takes it: clamped to ±swiglu_limit (the common site elsewhere)."""
    if context is not None and context.module is not None and not hasattr(context.module, "experts"):
        return CLAMPED_UP
    return COMMON_SITES["mlp_up"](context)


def _clamped_gate(activation, module):
    """What the activation reads, wherever mlp_activation is read: on a dense block the gate clamped above."""
    found = input_of(activation, module, "mlp_activation")
    return replace(found, description="What the activation function reads: the gate projection's output clamped "
                                      "above at swiglu_limit") if found.served else found


CLAMPED_UP = Read(Call("up.clamp", "output"), description=(
    "The up projection clamped to ±swiglu_limit, which the activation multiplies: mlp_activation · mlp_up == "
    "mlp_neurons"))

FAMILY = like(
    "glm_moe_dsa", __name__,
    summary="Hyper-connections over hc_mult residual streams, around Kimi delta attention or position-free "
            "DSA-indexed latent attention by layer, and clamped-SwiGLU MLPs and experts with a sigmoid router.",
    tags=("Hyper-connections", "Multi-stream residual", "Hybrid mixers", "Linear attention", "Latent attention (MLA)",
          "Sparse attention", "NoPE layers", "Mixture of experts", "Shared experts", "RMSNorm"),
    # the dense MLP clamps its up projection before it calls the activation
    block=Block(order=up_first(FORWARD_ORDER["block"])),
    contract_note=contract_note(
        "hc_mult", "the model's values (embeddings, final norm after hc_head's mean, lm_head, logits), and per block "
                   "attention_norm_output, attention_output, mlp_norm_output, mlp_input and mlp_output on the "
                   "collapsed stream, with the latent attention's queries, keys, values, scores and head outputs at "
                   "the kernel on its layers"),
    sites={
        **stream_sites("hc_mult"),
        **mixer_interior(KIMI_DELTA, LATENT_ATTENTION),
        **{name: LATENT_ATTENTION[name] for name in ("attention_queries_unrotated", "attention_keys_unrotated")},
        "attention_output": per_mixer(
            described(_OUTPUT, "What the attention " + HYPER_OUTPUT),
            described(_OUTPUT, "What the Kimi delta-attention mixer (on this block, no softmax attention) "
                      + HYPER_OUTPUT)),
        "mlp_preactivation": Companion("mlp_activation", _clamped_gate),
        "mlp_up": _clamped_up,
    },
)
