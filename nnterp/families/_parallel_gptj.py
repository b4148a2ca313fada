"""Shared by GPT-J and CodeGen: a parallel block with one shared norm, under GPT-J's names."""

from nnterp.sites import Child, Nowhere, Read

GPTJ_RENAME = {
    "transformer.wte": "embed_tokens", "transformer.h": "layers", "transformer.ln_f": "norm", "attn": "self_attn",
    "ln_1": "input_layernorm", "out_proj": "o_proj", "fc_in": "up_proj", "fc_out": "down_proj", "act": "act_fn",
}

PARALLEL = "a parallel block: the attention and the MLP read the same input, so there is no stream between them"

GPTJ_SITES = {
    "layer_mid": Nowhere(PARALLEL),
    "mlp_norm_output": Read(
        Child("input_layernorm"),
        description="The normed stream entering the MLP: the one norm ln_1 feeds both sublayers"),
}


def gptj_block_sum(x, attn, mlp):
    """The block's own order: attn_output + feed_forward_hidden_states + residual."""
    return (attn + mlp) + x


def intermediate_size(config) -> int:
    return config.n_inner or 4 * config.hidden_size
