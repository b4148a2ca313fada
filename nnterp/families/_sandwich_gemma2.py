"""Shared pieces of the Gemma 2 sandwich: four norms per block.

input_layernorm -> self_attn -> post_attention_layernorm -> add; pre_feedforward_layernorm -> mlp
-> post_feedforward_layernorm -> add. The name trap: post_attention_layernorm is a post-norm on the
attention's OUTPUT, not Llama's pre-MLP norm (that one is pre_feedforward_layernorm). What the
stream receives is each post-norm's output, a module of the block beside the attention and the
MLP: attention_output and mlp_output are read there (Sibling sites).
"""

from nnterp.sites import EAGER_ONLY, Argument, Call, Child, Read, Sibling


def sandwich_sites(post_attention="post_attention_layernorm", pre_mlp="pre_feedforward_layernorm",
                   post_mlp="post_feedforward_layernorm") -> dict:
    """The residual values of a sandwich block, by the names of its three non-input norms."""
    return {
        "attention_output": Read(
            Sibling(post_attention),
            description=f"What the attention adds to the residual stream: its output after the block's post-norm "
                        f"{post_attention}"),
        "layer_mid": Read(Child(pre_mlp, "input"), Argument(0), shared=True),
        "mlp_norm_output": Read(
            Child(pre_mlp), description=f"The normed stream entering the MLP: {pre_mlp}'s output"),
        "mlp_output": Read(
            Sibling(post_mlp),
            description=f"What the MLP adds to the residual stream: its output after the block's post-norm {post_mlp}"),
    }


SCALED_EMBEDDINGS = Read(
    Child("embed_tokens"),
    description="The embedding module's output, already multiplied by sqrt(hidden_size) inside it")


def softcapped_scores(kernel="eager_attention_forward") -> Read:
    """attention_scores read at the softmax's input, after the kernel's logit softcap and the mask."""
    return Read(
        Call("nn.functional.softmax", "input", inside="attention_interface", eager=kernel),
        Argument(0), condition=EAGER_ONLY,
        description="The attention scores entering the softmax: scaled by query_pre_attn_scalar ** -0.5, "
                    "soft-capped to attn_logit_softcapping * tanh(s / attn_logit_softcapping), then masked")
