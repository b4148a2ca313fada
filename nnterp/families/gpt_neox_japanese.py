"""GPT-NeoX-Japanese (GPTNeoXJapaneseForCausalLM).

gpt_neox_japanese.{embed_in, layers[i].{input_layernorm, post_attention_layernorm, attention, mlp},
final_layer_norm, rotary_emb} and embed_out, the head. GPT-NeoX's names, but a sequential block,
not a parallel one: post_attention_layernorm normalizes the stream after the attention has been
added. The block adds each sublayer through bias_dropout_add(x, bias, residual),
residual + dropout(x + bias), and returns (hidden_states, attn_weights). The attention returns
(attn_output, attn_weights, dense_bias): its output projection has no bias, and on the last block
only a separate dense_bias is handed to the block to add, so what the attention adds is its
output plus that bias: a sum served as attention_output, with an edit carried back to the
module's output minus the bias. The attention does its own arithmetic in _attn whatever
attn_implementation says (the model has no other): a baddbmm scaled by 1/sqrt(head_dim), the
mask added, softmax, attention_dropout, a cast to the values' dtype, @ v; the interior needs no
eager load.
"""

from nnterp.declare.family import EAGER_LOADS, Family
from nnterp.declare.sites import HEADS_AFTER_POSITIONS, Argument, Call, Element, Own, Read

FAMILY = Family(
    name="gpt_neox_japanese",
    summary="GPT-NeoX's module names on a sequential block, where the last block's attention returns a separate "
            "bias that the block adds and attention_output includes.",
    tags=("LayerNorm",),
    rename={
        "gpt_neox_japanese.embed_in": "embed_tokens", "gpt_neox_japanese.layers": "layers",
        "gpt_neox_japanese.final_layer_norm": "norm", "embed_out": "lm_head", "attention": "self_attn",
        "dense": "o_proj", "dense_4h_to_h": "down_proj", "act": "act_fn",
    },
    # Declared in the order the printout lists them; the attention's own _attn serves the interior.
    sites={
        "attention_queries": Read(Call("self._attn", "input"), Argument(0)),
        "attention_keys": Read(Call("self._attn", "input"), Argument(1)),
        "attention_values": Read(Call("self._attn", "input"), Argument(2)),
        "attention_scores": Read(Call("nn.functional.softmax", "input", inside="self._attn"), Argument(0)),
        "attention_head_outputs": Read(Call("self._attn", "output"), Element(0), HEADS_AFTER_POSITIONS),
        "attention_probabilities": Read(Call("self.attention_dropout", "output", inside="self._attn")),
        "attention_output": Read(
            Own("output"), Element(0), plus="dense_bias",
            description="What the attention adds to the residual stream: its output plus, on the last block, "
                        "the dense_bias the block adds"),
    },
    accessors={
        "num_kv_heads": lambda c: c.num_attention_heads,
        "intermediate_size": lambda c: c.hidden_size * c.intermediate_multiple_size,
    },
    loads=EAGER_LOADS,
    tiny={"config_class": "GPTNeoXJapaneseConfig", "overrides": {
        "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "vocab_size": 300,
        "bos_token_id": 1, "eos_token_id": 2}},
)
