"""RWKV-4 (RwkvForCausalLM).

rwkv.{embeddings, blocks[i].{pre_ln (block 0 only), ln1, attention.{key, value, receptance, output},
ln2, feed_forward.{key, receptance, value}}, ln_out} and head, the unembedding. A sequential
pre-norm block of two token-shift mixers, returned as (hidden, state, attentions): h = x +
attention(ln1(x))[0], out = h + feed_forward(ln2(h))[0]. The time mix (attention, standard name
self_attn) blends each position with the previous one (time_mix_*), projects key, value and
receptance, runs the WKV linear recurrence (per-channel time_decay and time_first bonus, computed
in float32) and returns output(sigmoid(receptance) * wkv); it has no softmax attention and no
heads. The channel mix (feed_forward, standard name mlp) returns sigmoid(receptance(x')) *
value(relu(key(x'))^2): the gate comes after the down projection (value). Block 0 first applies
pre_ln to the embeddings and its residual carries that normed stream, so layers[0].layer_input is
read at pre_ln's output. Under eval the model itself divides attention.output and
feed_forward.value weights by 2**(i // rescale_every) on its first forward and halves the stream
after every block i with (i + 1) % rescale_every == 0 (rescale_every is 6 on the checkpoints):
there layers[i + 1].layer_input is layers[i].layer_output / 2. When the last block is one of them
(12, 24 and 32 blocks at rescale_every 6), the model halves its output before ln_out, and
project_on_vocab halves its input likewise, so the last layer_output projects to the logits exactly.
The attention mask is ignored by the model. The time mix's output projection is a child named
output, which nnsight serves as E_output (output is the module's own output); o_proj is its alias.
"""

from nnterp.declare.blocks import Block
from nnterp.declare.engine import module_of
from nnterp.declare.family import EAGER_LOADS, Family, Positions
from nnterp.declare.mixers import no_attention
from nnterp.declare.readout import Readout
from nnterp.declare.sites import Argument, Call, Child, Own, Read

TIME_MIX = ("an RWKV time mix: a linear recurrence (WKV) with per-channel decay, with no softmax attention and no "
            "heads, so there are no queries, keys or pattern")

def _unembed(model, hidden):
    """ln_out and the head, after the halving the model applies past the last block when it is a rescaled one."""
    backbone = module_of(model).rwkv
    every = model._nnterp_state.config.rescale_every
    if backbone.layers_are_rescaled and every > 0 and len(backbone.blocks) % every == 0:
        hidden = hidden / 2
    return model.lm_head(model.norm(hidden))


_INPUT = Read(Own("input"), Argument(0, "hidden"), description="The residual stream entering the block")
_INPUT_AFTER_PRE_LN = Read(
    Child("pre_ln"),
    description="The residual stream entering the block: on block 0, the embeddings after pre_ln, which the "
                "block's residual carries")

FAMILY = Family(
    name="rwkv",
    summary="RWKV-4: a pre-norm block of two token-shift mixers, a WKV linear recurrence (time mix) and a "
            "receptance-gated squared-ReLU channel mix, with no attention.",
    tags=("Recurrent mixer", "No attention", "Token shift", "Gated channel mix", "LayerNorm"),
    block=Block("recurrent"),
    positions=Positions(padding_ignored="RwkvModel takes an attention_mask and never reads it"),
    rename={
        "rwkv.embeddings": "embed_tokens", "rwkv.blocks": "layers", "rwkv.ln_out": "norm", "head": "lm_head",
        "attention": "self_attn", "feed_forward": "mlp", "ln1": "input_layernorm",
        "ln2": "post_attention_layernorm", "feed_forward.key": "feed_forward.up_proj",
        "feed_forward.value": "feed_forward.down_proj", "E_output": "o_proj",
    },
    sites={
        "layer_input": lambda context: _INPUT_AFTER_PRE_LN if context.index == 0 else _INPUT,
        **no_attention(TIME_MIX),
        "attention_output": "What the time mix adds to the residual stream: output(sigmoid(receptance) * wkv)",
        "mlp_activation": Read(
            Call("torch.square"), description="The squared ReLU of the key projection, relu(key(x'))^2"),
        "mlp_neurons": Read(
            Call("self.value", "input"), Argument(0),
            description="What the value projection (down_proj) receives: relu(key(x'))^2"),
        "mlp_output": "What the channel mix adds to the residual stream: sigmoid(receptance(x')) times the value "
                      "projection",
    },
    accessors={
        "num_heads": lambda c: None, "num_kv_heads": lambda c: None, "head_dim": lambda c: None,
        "qk_head_dim": lambda c: None,
        "intermediate_size": lambda c: c.intermediate_size or 4 * c.hidden_size,
    },
    readout=Readout(unembed=_unembed),
    loads=EAGER_LOADS,
    tiny={"config_class": "RwkvConfig", "overrides": {
        "hidden_size": 64, "num_hidden_layers": 2, "intermediate_size": 128, "vocab_size": 300}},
    # the stream halved between blocks and before ln_out, as on the checkpoints (every sixth block there)
    variants={"rescale_every": {"num_hidden_layers": 4, "rescale_every": 2}},
)
