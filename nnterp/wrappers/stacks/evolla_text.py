"""Evolla, the language stack (EvollaModel's embed_tokens, layers and norm, inside EvollaForProteinText2Text).

model.{embed_tokens, protein_encoder, layers[j], norm} and lm_head. The blocks (EvollaDecoderLayer) are Llama's:
input_layernorm, self_attn.{q,k,v,o}_proj (rotary inside the attention, the kernel chosen at run time through
attention_interface, grouped keys and values), post_attention_layernorm, a gated MLP. Every
num_hidden_layers // aligner_num_add_layers-th block also holds an adapter (EvollaSequenceAlignerCrossAttention),
which its forward calls after the MLP's add: h = x + tanh(gate_attention) * cross_attention(x, protein), then
out = h + tanh(gate_ffw) * ff(h), where cross_attention is a method of the adapter (attention_norm, an RMSNorm, then
query on the stream, key_protein and value_protein on the protein encoder's compressed features, every head its
own key and value, the queries scaled by num_attention_heads ** -0.5, each score row less its maximum, masked,
softmax, out_proj) and ff its feed-forward (norm, a LayerNorm, then fc1, GELU, fc2). nnterp's model.layers places
each adapter as a block of its own after the block holding it: that block's layer_output is the adapter's input,
the adapter block's layer_output the holding block's output. On a call without a protein the adapter returns its
input as it is. The adapter's structure and MSA keys exist only where those encoders' widths are given, which
EvollaDecoderLayer never does.
"""

from nnterp.declare.blocks import Interleaved
from nnterp.declare.crossattention import CrossAttentionBlocks
from nnterp.declare.layouts import SPLIT_HEADS
from nnterp.declare.locations import Argument, Assigned, Call, Child, ChildInside, Own
from nnterp.declare.writeback import Nowhere, Read
from nnterp.wrappers.stacks import like

ADAPTER = "EvollaSequenceAlignerCrossAttention"
#: the cross-attention's interior: assignments of the adapter's cross_attention method, called in its forward
INSIDE = {"inside": "self.cross_attention", "from_block": True, "forward_of": ADAPTER}
#: the protein's features, as every adapter's keys and values are made from them
PROTEIN = ("from the protein encoder's compressed features (the protein_key_value_states it reads), over the "
           "protein's latent positions, not the call's: [batch num_heads image_keys head_dim], every head its own")


def forward_order(holder, config):
    """The blocks as EvollaModel.forward runs them: each of model.layers, then the adapter it holds, which its
    forward calls last."""
    for layer in holder.layers:
        yield layer
        if "adapter" in getattr(layer, "_module", layer)._modules:
            yield layer.adapter


def _inside(name: str, occurrence: int, description: str) -> Read:
    return Read(Assigned(name, occurrence=occurrence, **INSIDE), description=description)


ON_ADAPTER = {
    "layer_input": Read(Own("input"), Argument(0, "query_states"), description=(
        "The residual stream entering the adapter: the holding block's layer_output")),
    "attention_norm_output": Read(ChildInside("attention_norm", inside="self.cross_attention"), description=(
        "The normed stream the cross-attention's queries are made from (attention_norm, an RMSNorm)")),
    # hidden_states = residual + hidden_states: the assignment the feed-forward's residual and input are bound from
    "layer_mid": Read(Assigned("hidden_states", occurrence=3), description=(
        "The residual stream after the cross-attention's gated add, which the feed-forward reads")),
    "mlp_norm_output": Read(Child("mlp.norm"), description=(
        "The normed stream inside the feed-forward (ff.norm, a LayerNorm), which fc1 reads")),
    # ff normalizes its own input: what its layers read is its norm's output, as on every other block
    "mlp_input": Read(Child("mlp.fc1", "input"), Argument(0), description=(
        "What the feed-forward's first layer (fc1) reads: ff normalizes its own input, so this is mlp_norm_output, "
        "and ff is called with layer_mid")),
    "layer_output": Read(Own("output"), description=(
        "The residual stream leaving the adapter, which the holding block returns")),
    "attention_queries": _inside("query_layer", 2, (
        "The queries the cross-attention makes from the stream, heads first, before the forward scales them by "
        "num_attention_heads ** -0.5")),
    "attention_queries_unrotated": _inside("query_layer", 2, "The queries: the cross-attention has no rotary"),
    "attention_keys": _inside("key_layer", 3, f"The keys the cross-attention makes {PROTEIN}"),
    "attention_keys_unrotated": _inside("key_layer", 3, "The keys: the cross-attention has no rotary"),
    "attention_values": _inside("value_layer", 3, f"The values the cross-attention makes {PROTEIN}"),
    "attention_scores": _inside("attention_scores", 0, (
        "The scores entering the softmax: the scaled queries times the keys, each row less its maximum (the "
        "forward subtracts it for stability), masked where the call's or the protein's mask is zero")),
    "attention_probabilities": _inside("attention_probs", 0, (
        "The pattern the protein's values are mixed with (the softmax's output; the adapter applies no dropout)")),
    "attention_head_outputs": _inside("context_layer", 1, "Every head's output, positions first, before out_proj"),
    "attention_premix": Read(Child("out_proj", "input", from_block=True), Argument(0), SPLIT_HEADS, description=(
        "Every head's output side by side, as out_proj takes it")),
    "mlp_up": Nowhere("the adapter's feed-forward is not gated: fc1, GELU and fc2"),
    "mlp_activation": Read(Child("activation"), description="The feed-forward's GELU output"),
    "mlp_preactivation": Read(Child("activation", "input"), Argument(0),
                              description="What the GELU reads: fc1's output"),
    "mlp_neurons": Read(Child("fc2", "input"), Argument(0), description="What fc2 receives: the GELU's output"),
}

BLOCK = CrossAttentionBlocks(
    ADAPTER, "gate_attention", "gate_ffw",
    attention_at=Call("self.cross_attention", from_block=True, forward_of=ADAPTER),
    mlp_at=Own("output"),
    image_states="protein_key_value_states",
    activations=(Call("torch.tanh", occurrence=0, from_block=True, forward_of=ADAPTER),
                 Call("torch.tanh", occurrence=1, from_block=True, forward_of=ADAPTER)),
    method="cross_attention",
    # every head its own key and value; the feed-forward aligner_ffn_mult times as wide as the stream
    cross_dims=lambda config: {"num_kv_heads": config.num_attention_heads,
                               "intermediate_size": int(config.hidden_size * config.aligner_ffn_mult)},
    skipped="on a call without a protein (protein_input_ids with protein_attention_mask) the adapter returns the "
            "stream as it is: EvollaSequenceAlignerCrossAttention.forward runs its sublayers only where a protein's "
            "features are given",
    given=("protein_input_ids",),
    passes_through=True,
    on_cross=ON_ADAPTER,
    holding={"layer_output": Read(Child("adapter", "input"), Argument(0, "query_states"), description=(
        "The residual stream after the MLP's add, as the block hands it to its adapter (the next block of "
        "model.layers), whose output the block returns"))},
    interleaved=Interleaved(
        "layers.*.adapter", forward_order,
        "every few blocks hold an adapter their forward calls last, a block of its own in model.layers: layers is "
        "the blocks and their adapters in forward order"),
)

FAMILY = like(
    "llama", __name__,
    summary="Llama 3's blocks, every few of which end in a protein adapter: a tanh-gated cross-attention to the "
            "protein encoder's compressed features, then a tanh-gated feed-forward, a block of its own in "
            "model.layers.",
    tags=("Sequential block", "RMSNorm", "Gated MLP", "Cross-attention blocks"),
    rename={"ff": "mlp"},
    block=BLOCK,
)
