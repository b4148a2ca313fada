"""OpenAI GPT (OpenAIGPTLMHeadModel).

transformer.{tokens_embed, positions_embed, drop, h[i].{attn.{c_attn, c_proj}, ln_1, mlp.{c_fc, act, c_proj},
ln_2}} and lm_head, tied to tokens_embed. The original GPT is post-norm: n = ln_1(x + attn(x)), out = ln_2(n +
mlp(n)), returned as a list. The attention reads the block's input itself (no norm precedes it), ln_1 follows the
attention's add (its output is what the MLP reads and the residual the MLP is added to: post_attention_layernorm),
and ln_2 follows the MLP's, so the norms sit on the residual path and the block is not a sum of its input and the
two contributions; the contributions are still exact (c_proj's outputs), and the block's own arithmetic
reproduces its output from them. There is no final norm: lm_head reads the last block's output, normed by that
block's ln_2. token_embeddings is tokens_embed's output, before the learned positions are added. Every projection
is a Conv1D (weight [in, out]) with a bias; attn.c_proj is o_proj and mlp.c_proj is down_proj. The attention is
GPT's own _attn (the model has no other, so the interior needs no eager load and no sdpa load exists): q @ k
scaled by 1/sqrt(head_dim), future positions set to -10000 (not the dtype's minimum) through the causal buffer,
the padding mask added, softmax, attn_dropout, @ v. The keys arrive transposed ([batch heads head_dim seq]) and
are served in the standard layout; q, k and v are views of one split() of c_attn's output, which torch forbids
editing in place while autograd records, so they are served as copies taken at the call and an edit is carried
back into it. The activation act is one module object shared by every block (transformers' ACT_FNS), so nnsight
knows it under block 0's path only: mlp_activation is read where each block's MLP calls it.
"""

from nnterp.declare.blocks import Block
from nnterp.declare.family import EAGER_LOADS, Family
from nnterp.declare.readout import Readout
from nnterp.declare.sites import HEADS_AFTER_POSITIONS, KEYS_LAST, WHOLE, Argument, Call, Child, Element, Nowhere, Read

_ATTN = "self._attn"


def _post_norm_arithmetic(layer, x, attn, mlp):
    """GPT's post-norm block: each norm follows its add."""
    n = layer.ln_1(x + attn)
    return layer.ln_2(n + mlp)


FAMILY = Family(
    name="openai-gpt",
    summary="The original GPT: a post-norm block (a LayerNorm after each residual add, no final norm) of Conv1D "
            "projections, learned positions, and its own attention code.",
    tags=("Post-norm block", "Fused qkv", "Learned positions", "LayerNorm", "Conv1D"),
    block=Block("post-norm", arithmetic=lambda config: _post_norm_arithmetic),
    rename={
        "transformer.tokens_embed": "embed_tokens", "transformer.h": "layers", "attn": "self_attn",
        "ln_1": "post_attention_layernorm", "attn.c_proj": "attn.o_proj", "mlp.c_proj": "mlp.down_proj",
        "c_fc": "up_proj", "act": "act_fn",
    },
    sites={
        "token_embeddings": "The token embedding tokens_embed's output, before the learned positions are added; "
                            "layers[0].input is the sum",
        "final_norm_output": Read(
            Child("lm_head", "input"), Argument(0),
            description="What lm_head reads: the last block's output, normed by that block's ln_2 (the model has "
                        "no final norm of its own)"),
        "attention_norm_output": Nowhere(
            "a post-norm block: the attention reads the block's input itself, and ln_1 follows the attention's add"),
        "layer_mid": Read(Child("post_attention_layernorm", "input"), Argument(0),
                          description="The residual stream after the attention add, ln_1's input"),
        "mlp_norm_output": "The normed stream entering the MLP: ln_1 of layer_mid, which is also the residual the MLP "
                           "is added to",
        # the MLP's input is also the residual its output is added to: an assignment is copied into it
        "mlp_input": Read(Child("mlp", "input"), Argument(0), shared=True),
        "attention_queries": Read(Call(_ATTN, "input"), Argument(0), snapshot=True),
        "attention_keys": Read(Call(_ATTN, "input"), Argument(1), KEYS_LAST, snapshot=True),
        "attention_values": Read(Call(_ATTN, "input"), Argument(2), snapshot=True),
        "attention_scores": Read(
            Call("nn.functional.softmax", "input", inside=_ATTN), Argument(0),
            description="The attention scores entering the softmax, masked: q @ k^T / sqrt(head_dim), future "
                        "positions set to -10000, plus the padding mask"),
        "attention_probabilities": Read(Call("self.attn_dropout", inside=_ATTN)),
        "attention_head_outputs": Read(Call(_ATTN), Element(0), HEADS_AFTER_POSITIONS),
        # act is one module object shared by every block: its own output is block 0's location
        "mlp_activation": Read(Call("self.act"), WHOLE,
                               description="The activation function's output, read where each block's MLP calls it"),
    },
    # no final norm: lm_head reads the last block's output
    readout=Readout(unembed=lambda model, hidden: model.lm_head(hidden)),
    loads=EAGER_LOADS,
    tiny={"config_class": "OpenAIGPTConfig", "overrides": {
        "n_embd": 64, "n_layer": 2, "n_head": 4, "vocab_size": 300}},
)
