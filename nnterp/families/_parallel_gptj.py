"""Shared by GPT-J and CodeGen: a parallel block with one shared norm, under GPT-J's names."""

from nnterp.declare.blocks import Parallel

GPTJ_RENAME = {
    "transformer.wte": "embed_tokens", "transformer.h": "layers", "transformer.ln_f": "norm", "attn": "self_attn",
    "ln_1": "input_layernorm", "out_proj": "o_proj", "fc_in": "up_proj", "fc_out": "down_proj", "act": "act_fn",
}



def gptj_block_sum(x, attn, mlp):
    """The block's own order: attn_output + feed_forward_hidden_states + residual."""
    return (attn + mlp) + x


GPTJ_BLOCK = Parallel(description="The normed stream entering the MLP: the one norm ln_1 feeds both sublayers",
                      sum=gptj_block_sum)


def intermediate_size(config) -> int:
    return config.n_inner or 4 * config.hidden_size
