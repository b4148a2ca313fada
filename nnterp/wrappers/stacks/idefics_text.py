"""IDEFICS, the language stack (IdeficsModel's embed_tokens, layers, gated_cross_attn_layers and norm, inside
IdeficsForVisionText2Text).

model.{embed_tokens, layers[j], gated_cross_attn_layers[k], norm} and lm_head. Two kinds of block in two module
lists. Self-attention blocks (IdeficsDecoderLayer) are Llama's with every head its own key and value:
input_layernorm, self_attn.{q,k,v,o}_proj (rotary inside the attention, the kernel chosen at run time through
attention_interface), post_attention_layernorm, a gated MLP. Gated cross-attention blocks
(IdeficsGatedCrossAttentionLayer) hold cross_attn (q_proj on the stream, k_proj and v_proj on the image features,
no rotary, q_layer_norm and k_layer_norm under qk_layer_norms) and an MLP, each added through tanh of a learned gate
(act_cross_attn and act_dense are nn.Tanh; the gates alpha_cross_attn and alpha_dense are one float or one per
channel, alpha_type): h = x + tanh(alpha_cross_attn) * cross_attn(...), with the rows that attend no image
(cross_attention_gate, from image_attention_mask) zeroed before the gate, then out = h + tanh(alpha_dense) *
mlp(post_attention_layernorm(h)) on every row. IdeficsModel.forward runs gated_cross_attn_layers[j //
cross_layer_interval] before layers[j] whenever j % cross_layer_interval == 0, so nnterp's model.layers is both
lists in that order: layers[0] is gated_cross_attn_layers[0], layers[1] is model.layers[0], and so on (a block's
path names its native list and index). The cross-attention's queries come from the stream, its keys and values
from the image features over their positions, not the call's; attention_output and mlp_output are what the stream
receives, the gates included. embed_tokens and lm_head are IdeficsDecoupledEmbedding and IdeficsDecoupledLinear:
additional_vocab_size rows of their own after the vocabulary's, the head's logits concatenated after its.
"""

from nnterp.declare.blocks import Interleaved
from nnterp.declare.crossattention import CrossAttentionBlocks
from nnterp.declare.locations import Call, Own
from nnterp.wrappers.stacks import like

CROSS = "IdeficsGatedCrossAttentionLayer"


def forward_order(holder, config):
    """The blocks as IdeficsModel.forward runs them: gated_cross_attn_layers[j // interval] before layers[j] where j
    is a multiple of config.cross_layer_interval."""
    interval = config.cross_layer_interval
    for j, layer in enumerate(holder.layers):
        if j % interval == 0:
            yield holder.gated_cross_attn_layers[j // interval]
        yield layer


BLOCK = CrossAttentionBlocks(
    CROSS, "alpha_cross_attn", "alpha_dense",
    # hidden_states = hidden_states.masked_fill((cross_attention_gate == 0)[:, :, None], 0.0): the cross-attention's
    # output with the rows that attend no image zeroed, as the block multiplies it by the gate
    attention_at=Call("hidden_states.masked_fill", from_block=True, forward_of=CROSS),
    mlp_at=Own("output"),
    image_states="key_value_states",
    activations=("act_cross_attn", "act_dense"),
    notes={"attention": " with the rows that attend no image zeroed (cross_attention_gate, made from "
                        "image_attention_mask)"},
    interleaved=Interleaved(
        "gated_cross_attn_layers.*", forward_order,
        "its cross-attention blocks are a second module list (gated_cross_attn_layers), run before every "
        "cross_layer_interval-th block of model.layers: layers is both in forward order"),
)

FAMILY = like(
    "llama", __name__,
    summary="Llama's blocks with tanh-gated cross-attention blocks to the image, a second module list run before "
            "every cross_layer_interval-th block, and decoupled embedding and head rows for its added tokens.",
    tags=("Sequential block", "RMSNorm", "Gated MLP", "Cross-attention blocks"),
    rename={"cross_attn": "self_attn"},
    block=BLOCK,
)
