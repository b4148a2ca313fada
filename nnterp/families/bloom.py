"""BLOOM (BloomForCausalLM).

transformer.{word_embeddings, word_embeddings_layernorm, h[i].{input_layernorm, self_attention.{query_key_value,
dense, attention_dropout}, post_attention_layernorm, mlp.{dense_h_to_4h, gelu_impl, dense_4h_to_h}}, ln_f} and
lm_head, tied to word_embeddings. The embedding is normed by word_embeddings_layernorm before the first block:
token_embeddings is word_embeddings' output, and layers[0].input is its normed form. A sequential pre-norm block
whose sublayers add the residual themselves: self_attention(ln(x), residual) and mlp(ln(h), residual) each return
residual + dropout(branch) through dropout_add, so the modules' outputs are the stream (the attention's is
layer_mid) and attention_output and mlp_output are the branches handed to dropout_add: dense's output and
dense_4h_to_h's, or, with pretraining_tp > 1 and slow_but_exact, the sum of the sliced F.linear calls that replace
them (without dense's bias), which is what the model adds either way; attention_premix is read where the heads are
merged, which both paths share, and on the sliced path mlp_neurons where the activation returns. With
apply_residual_connection_post_layernorm the residual each sublayer adds to is its norm's output, not the stream, so
the block is out = post_attention_layernorm(input_layernorm(x) + attn) + mlp: layer_mid is input_layernorm(x) +
attn (the attention module's output) and the block is not a sum of layer_input and the two contributions. No position embeddings: ALiBi, a per-head linear bias on the key
distance, added to the scores. The attention is BLOOM's own code (the model has no other, so the interior needs no
eager load and no sdpa load exists): scores = alibi + q k^T / sqrt(head_dim) in one baddbmm, plus the mask, softmax
in float32 cast back to the model's dtype, attention_dropout, and a bmm with the values, heads folded into the
batch.
"""

from nnterp.declare.blocks import Block
from nnterp.declare.family import COMMON_SITES, EAGER_LOADS, Family
from nnterp.declare.sites import BATCH_HEADS, SPLIT_HEADS, WHOLE, Argument, Call, Child, Element, Read
from nnterp.families._internal_residual import ATTENTION_BRANCH, MLP_BRANCH



def _post_ln_residual(config) -> bool:
    return bool(config.apply_residual_connection_post_layernorm)


# with the residual taken after the norm, the attention adds to input_layernorm's output: its module's output, the
# stream after the add, is input_layernorm(layer_input) + attention_output
POST_LN_LAYER_MID = Read(
    COMMON_SITES["layer_mid"].where, COMMON_SITES["layer_mid"].element,
    description="The stream after the attention's add, input_layernorm(layer_input) + attention_output: the residual "
                "is the norm's output (apply_residual_connection_post_layernorm)")
# with the residual taken after the norm, the MLP is called with one tensor twice, as its input and its residual:
# an assignment is copied into it, so it reaches both as an in-place edit does
SHARED_MLP_INPUT = Read(Child("mlp", "input"), Argument(0), shared=True)


# with pretraining_tp > 1 and slow_but_exact, sliced F.linear calls replace dense_4h_to_h: the neurons are read
# where the activation returns them
SLICED_NEURONS = Read(Call("self.gelu_impl"), WHOLE,
                      description="What the down projection receives: the activation itself, which pretraining_tp "
                                  "sliced F.linear calls take in place of dense_4h_to_h")


def _sliced(config) -> bool:
    return config.pretraining_tp > 1 and bool(config.slow_but_exact)


def _post_ln_mid(layer, x, attn):
    """The stream after the attention's add when the residual is input_layernorm's output."""
    return layer.input_layernorm(x) + attn


def _post_ln_arithmetic(layer, x, attn, mlp):
    """The block with apply_residual_connection_post_layernorm: each sublayer adds to its norm's output."""
    return layer.post_attention_layernorm(_post_ln_mid(layer, x, attn)) + mlp


FAMILY = Family(
    name="bloom",
    summary="A sequential block whose attention and MLP add the residual inside themselves, ALiBi in place of "
            "position embeddings, and a LayerNorm on the embeddings.",
    tags=("Sequential block", "Residual inside modules", "ALiBi", "Fused qkv", "LayerNorm"),
    block=Block(lambda config: "post-norm residual" if _post_ln_residual(config) else "sequential", arithmetic=lambda config: _post_ln_arithmetic if _post_ln_residual(config) else None, mid=lambda config: _post_ln_mid if _post_ln_residual(config) else None),
    rename={
        "transformer.word_embeddings": "embed_tokens", "transformer.h": "layers", "transformer.ln_f": "norm",
        "self_attention": "self_attn", "dense": "o_proj", "dense_h_to_4h": "up_proj", "dense_4h_to_h": "down_proj",
        "gelu_impl": "act_fn",
    },
    sites={
        "token_embeddings": "The embedding word_embeddings' output, before word_embeddings_layernorm; layers[0].input "
                            "is its normed form",
        "attention_queries": Read(Call("self._reshape"), Element(0)),
        "attention_keys": Read(Call("self._reshape"), Element(1)),
        "attention_values": Read(Call("self._reshape"), Element(2)),
        "attention_scores": Read(
            Call("F.softmax", "input"), Argument(0),
            description="The attention scores entering the softmax, masked, ALiBi included: alibi + q k^T / "
                        "sqrt(head_dim) + mask"),
        "attention_probabilities": Read(Child("attention_dropout")),
        "attention_head_outputs": Read(Call("torch.bmm"), WHOLE, BATCH_HEADS),
        "attention_premix": Read(Call("self._merge_heads"), WHOLE, SPLIT_HEADS),
        "attention_output": ATTENTION_BRANCH,
        "mlp_output": MLP_BRANCH,
        "mlp_neurons": lambda context: SLICED_NEURONS if _sliced(context.config) else COMMON_SITES["mlp_neurons"],
        "layer_mid": lambda context: (
            POST_LN_LAYER_MID if _post_ln_residual(context.config) else COMMON_SITES["layer_mid"]),
        "mlp_input": lambda context: (
            SHARED_MLP_INPUT if _post_ln_residual(context.config) else COMMON_SITES["mlp_input"]),
    },
    accessors={"num_kv_heads": lambda c: c.num_attention_heads},
    loads=EAGER_LOADS,
    variants={
        "post_ln_residual": {"apply_residual_connection_post_layernorm": True},
        "tp_slow_but_exact": {"pretraining_tp": 2, "slow_but_exact": True},
    },
    tiny={"config_class": "BloomConfig", "overrides": {
        "hidden_size": 64, "n_layer": 2, "n_head": 4, "vocab_size": 300}},
)

