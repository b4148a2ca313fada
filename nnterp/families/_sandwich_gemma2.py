"""Shared pieces of the Gemma 2 sandwich: four norms per block.

input_layernorm -> self_attn -> post_attention_layernorm -> add; pre_feedforward_layernorm -> mlp
-> post_feedforward_layernorm -> add. The name trap: post_attention_layernorm is a post-norm on the
attention's OUTPUT, not Llama's pre-MLP norm (that one is pre_feedforward_layernorm). What the
stream receives is each post-norm's output, a module of the block beside the attention and the
MLP: attention_output and mlp_output are read there (Sibling sites).
"""

from nnterp.declare.family import described
from nnterp.declare.sites import EAGER_ONLY, Argument, Call, Read


#: token_embeddings' description where embed_tokens scales inside its own forward
SCALED_EMBEDDINGS = "The embedding module's output, already multiplied by sqrt(hidden_size) inside it"


def softcapped_scores(kernel="eager_attention_forward") -> Read:
    """attention_scores read at the softmax's input, after the kernel's logit softcap and the mask."""
    return Read(
        Call("nn.functional.softmax", "input", inside="attention_interface", eager=kernel),
        Argument(0), condition=EAGER_ONLY,
        description="The attention scores entering the softmax: scaled by query_pre_attn_scalar ** -0.5, "
                    "soft-capped to attn_logit_softcapping * tanh(s / attn_logit_softcapping), then masked")


# --------------------------------------------------------------------------- Gemma 4
def gemma4_block_dims(context) -> dict:
    """Gemma 4's per-layer dimensions: full-attention layers have wider heads (global_head_dim) and may
    have their own key/value head count; KV-shared layers may have a double-wide MLP."""
    layer = context.layer if context.layer is not None else context.module
    attention, mlp = layer.self_attn, layer.mlp
    return {"head_dim": attention.head_dim, "qk_head_dim": attention.head_dim,
            "num_kv_heads": attention.config.num_attention_heads // attention.num_key_value_groups,
            "intermediate_size": mlp.intermediate_size}


def _global(name):
    """A config value that Gemma 4 also sets per layer, read at the config's top level (the
    sliding-window layers' value)."""
    return lambda config: vars(config).get(name)


GEMMA4_ACCESSORS = {
    "head_dim": _global("head_dim"), "qk_head_dim": _global("head_dim"), "num_kv_heads": _global("num_key_value_heads"),
}


def gemma4_attention_sites() -> dict:
    kv_note = ("; on a KV-shared layer (num_kv_shared_layers) they are those an earlier layer of the same type "
               "computed")
    return {
        "attention_queries": "The queries entering attention: normed per head by q_norm, then rotated (the kernel's "
                             "scale is 1)",
        # one tensor serves its own layer and the KV-shared layers after it: an assignment is copied into it, so
        # it reaches them all as an in-place edit does
        "attention_keys": described(
            "attention_keys", "The keys entering attention: normed per head by k_norm, then rotated" + kv_note,
            shared=True),
        "attention_values": described(
            "attention_values", "The values entering attention: RMS-normed per head by v_norm (no weight; the key "
                                "projection's output where attention_k_eq_v)" + kv_note, shared=True),
    }


def layer_scalar_arithmetic(layer, x, attention, mlp):
    """Gemma 4's block output: the stream after both adds, times the block's layer_scalar."""
    return (x + attention + mlp) * layer.layer_scalar
