"""Shared pieces of the GLM-4 sandwich: four norms per block, with Llama's meaning kept for two.

input_layernorm -> self_attn -> post_self_attn_layernorm -> add; post_attention_layernorm (the
pre-MLP norm, as in Llama) -> mlp -> post_mlp_layernorm -> add. What the stream receives is each
post-norm's output, a module of the block beside the attention and the MLP (Sibling sites), times
residual_multiplier where the family has one (HyperCLOVA X).
"""

from nnterp.sites import Read, Sibling


def glm4_sites(post_attention="post_self_attn_layernorm", post_mlp="post_mlp_layernorm", scale=None) -> dict:
    times = " times residual_multiplier" if scale is not None else ""
    return {
        "attention_output": Read(
            Sibling(post_attention), scale=scale,
            description=f"What the attention adds to the residual stream: its output after the block's post-norm "
                        f"{post_attention}{times}"),
        "mlp_output": Read(
            Sibling(post_mlp), scale=scale,
            description=f"What the MLP adds to the residual stream: its output after the block's post-norm "
                        f"{post_mlp}{times}"),
    }
