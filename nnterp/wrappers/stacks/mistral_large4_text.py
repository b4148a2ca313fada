"""Mistral Large 4, the language model (MistralLarge4TextModel).

GLM-MoE-DSA's block (see _mla and glm_moe_dsa): Multi-head Latent Attention made sparse by a
lightning indexer, dense first_k_dense_replace blocks, then experts beside a shared expert. What
differs: the queries come from one q_proj (no q-LoRA); after the interleaved rotary every query head
is multiplied by a learned scale on log position (softmax_scaling: scale · log(position + 1) + bias,
one scale and bias per head), and the indexer's queries likewise. Layers whose no_rope_layers entry
is 0 apply no rotary: their whole query and key heads are non-rotary (the latent carries no rotary
key). A layer whose kv_source_layers entry is another layer's index has no kv_a_proj_with_mqa and
no kv_a_layernorm: it reads that layer's normed latent and rotated shared key (passed between the
blocks in shared_kv_states) and expands them with its own kv_b_proj, so its keys and values are its
own tensors made from the source layer's latent. Layers whose indexer_types entry is 'shared' have
no indexer and reuse the previous indexer layer's top-k choice. The router is Mistral 4's softmax
router with group-limited choice, in float32, its top_k weights always renormalized. The wrapper's
logits are lm_head's output soft-capped by final_logit_softcapping.
"""

from functools import lru_cache

from nnterp.declare.family import described
from nnterp.declare.readout import Readout
from nnterp.declare.sites import Nowhere
from nnterp.families._mla import INDEXED
from nnterp.families.mistral4 import MOE as MISTRAL4_MOE
from nnterp.wrappers.stacks import like

QUERY_SCALE = ("then multiplied per head by softmax_scaling's scale · log(position + 1) + bias")
QUERIES = ("The queries entering attention, which exist only as the kernel's argument: each head of q_proj's output, "
           "its qk_rope_head_dim slice rotated (interleaved) on layers with rotary, " + QUERY_SCALE)


@lru_cache(maxsize=None)
def _kv_sites(source: int | None, rotary: bool) -> dict:
    """The keys and values of a layer that makes its own latent (``source`` None) or reads layer ``source``'s,
    with rotary or without."""
    if source is None:
        latent = "its kv_a_proj_with_mqa's normed latent"
        shared_key = "the one rotated key all heads share (qk_rope_head_dim)"
    else:
        latent = (f"layer {source}'s normed latent (kv_source_layers: this layer has no kv_a_proj_with_mqa and "
                  f"reads that layer's, as the blocks pass it in shared_kv_states)")
        shared_key = (f"layer {source}'s rotated shared key (qk_rope_head_dim), so that slice of every head equals "
                      f"layer {source}'s keys")
    keys = f"each head's non-rotary part from this layer's kv_b_proj of {latent}"
    keys += f", joined to {shared_key}" if rotary else " (a layer without rotary: the whole head, no rotated key)"
    return {
        "attention_keys": described(
            "attention_keys", f"The keys entering attention, which exist only as the kernel's argument: {keys}"),
        # a split's view of kv_b_proj's output, which autograd forbids editing in place: served as a copy
        "attention_values": described(
            "attention_values", f"The values entering attention: each head's v_head_dim-wide part of this layer's "
                                f"kv_b_proj's output on {latent}",
            snapshot=True),
    }


def _kv_site(name: str):
    """A value chosen per block: where its latent comes from (kv_source_layers), and whether it has rotary."""
    def site(context):
        if context is None or context.layer is None:
            return _kv_sites(None, True)[name]
        attention = context.layer.self_attn
        source = context.config.kv_source_layers[context.index] if attention.is_kv_shared_layer else None
        return _kv_sites(source, bool(attention.use_rope))[name]
    return site


MOE = MISTRAL4_MOE.but(
    logits="The router's score for every expert, before the softmax over all experts (computed in float32)",
    weights_description="The chosen experts' softmax probabilities over all experts, renormalized over the top_k "
                        "and multiplied by routed_scaling_factor; the shared experts run on every token unweighted",
)

FAMILY = like(
    "glm_moe_dsa", __name__,
    summary="GLM-5's indexed latent attention without q-LoRA, with a learned per-head query scale on log position, "
            "layers without rotary, and layers that read an earlier layer's latent keys and values and key choice.",
    tags=("Sequential block", "RMSNorm", "Latent attention (MLA)", "Sparse attention", "Shared KV",
          "Mixture of experts", "Shared experts", "Logit softcap"),
    moe=MOE,
    sites={
        "attention_queries": described("attention_queries", QUERIES),
        "attention_keys": _kv_site("attention_keys"),
        "attention_values": _kv_site("attention_values"),
        "attention_scores": described(
            "attention_scores", "The attention scores entering the softmax, masked" + INDEXED + "; on layers "
                                "whose indexer_types entry is 'shared' the choice is the previous indexer layer's"),
        "attention_keys_unrotated": Nowhere(
            "no one tensor holds the whole keys before the rotary: the attention rotates only the one key all heads "
            "share, cut from its latent (kv_a_proj_with_mqa's output, or the source layer's on a layer reading "
            "another's, rotated there), and makes each head's rest from the normed latent with kv_b_proj"),
        # the scale multiplies the rotated queries: what entered the rotary is not attention_queries unturned
        "attention_queries_unrotated": Nowhere(
            "the attention multiplies the rotated queries by softmax_scaling's learned per-head scale on log "
            "position before the kernel, so what entered the rotary is not attention_queries unturned"),
    },
    readout=Readout(softcap="final_logit_softcapping"),
)
