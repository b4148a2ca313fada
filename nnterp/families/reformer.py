"""Reformer (ReformerModelWithLMHead).

reformer.{embeddings.{word_embeddings, position_embeddings}, encoder.{layers[i].{attention.{layer_norm,
self_attention, output.dense}, feed_forward.{layer_norm, dense.{dense, act_fn}, output.dense}}, layer_norm}}
and lm_head.decoder (biased, 2·hidden_size wide in). The embeddings are word plus axial position embeddings
(axial_pos_shape). A reversible residual of two streams: the encoder duplicates the embeddings into
(attn_output, hidden_states), and block i maps (x1, x2) to y1 = x1 + attention(x2), y2 = x2 +
feed_forward(y1), called with the keywords prev_attn_output and hidden_states and returning a
ReformerOutput (attn_output, hidden_states, attention_probs, buckets); the blocks run inside an autograd
Function under torch.no_grad. Each sublayer norms its own input (attention.layer_norm,
feed_forward.layer_norm, LayerNorms); the feed-forward is dense, act_fn (ReLU on the checkpoints), output,
with biases, applied in chunks of chunk_size_feed_forward positions when it is set. The attention is the
model's own code, no attention_interface: per config.attn_layers each block's self_attention is either a
LocalSelfAttention (query, key, value; the sequence cut into chunks of local_attn_chunk_length, each
attending causally to itself and local_num_chunks_before earlier chunks) or an LSHSelfAttention (one shared
query_key projection and value; positions hashed into num_buckets by random rotations, num_hashes rounds,
sorted and chunked, each chunk attending within itself and the previous one, with a mask against attending
to oneself), and a full n² attention only when the sequence fits in one chunk; attention.output.dense is the
output projection, without bias. After the last block the encoder concatenates [attn_output, hidden_states]
and its layer_norm (over 2·hidden_size) is the final norm; lm_head reads it. In eval the model pads the
ids on the right to a multiple of the chunk lengths' least common multiple (pad_token_id, masked) whenever
the sequence is longer than the smallest chunk length, runs the embeddings and every block at that length,
and cuts the final output back before lm_head. The per-block values are served at the call's positions, cut
from the padded length the model runs at (the call's length is recorded before the forward); an edit of one
leaves the padding's positions as the model computed them. attention_norm_output is attention.layer_norm's
output and mlp_norm_output feed_forward.layer_norm's; mlp_input is feed_forward's input, the first stream y1
itself (an edit reaches the next block too); the queries, keys and values are where the self-attention splits
its projections into heads (_split_hidden_size_dim), and on an LSH block attention_queries and attention_keys
are one tensor, the shared query_key projection; attention_head_outputs is the input of
_merge_hidden_size_dims (after LSH has sorted its chunks back into position order), attention_premix the
self-attention's merged output that attention.output takes, attention_output attention.output's output (y1 =
x1 + attention_output); mlp_activation is act_fn's output, mlp_neurons feed_forward.output's input and
mlp_output feed_forward's output (y2 = x2 + mlp_output). With hash_seed None (the checkpoints' setting) LSH
attention draws new random rotations on every forward, so two runs of one prompt differ; the tiny recipe
sets hash_seed=0. A batch of prompts of different lengths is left-padded and needs position_ids, which the
model cannot take (it computes its own and pads them with the ids), so such a batch is refused with that
reason; prompts of one length run together.
"""

from nnterp.declare.blocks import Block
from nnterp.declare.family import EAGER_LOADS, Family, Positions
from nnterp.declare.sites import SPLIT_HEADS, Argument, CallPositions, Child, Nowhere, Own, Read
from nnterp.declare.vocabulary import FORWARD_ORDER
from nnterp.families._reformer import (
    AT_CALL, HEAD_OUTPUTS, LOCAL_KEYS, LOCAL_QUERIES, LOCAL_VALUES, LSH_QUERY_KEY, LSH_VALUES, per_attention,
    per_feed_forward,
)

REVERSIBLE = ("a reversible residual: each block reads and returns two streams, (attn_output, hidden_states), with "
              "y1 = x1 + attention(x2) and y2 = x2 + feed_forward(y1), so no single [batch seq hidden_size] stream "
              "enters or leaves it (read layers[i].input's prev_attn_output and hidden_states keywords and "
              "layers[i].output.attn_output / .hidden_states natively)")
FINAL_NORM = ("the final LayerNorm normalizes the two streams concatenated, [batch, seq, 2·hidden_size], at the "
              "padded length, not a [batch seq hidden_size] stream; read model.norm.output natively (the logits "
              "are lm_head of its first seq positions)")

def _random_hashing_hazard(model):
    config = model._nnterp_state.config
    if "lsh" in config.attn_layers and config.hash_seed is None:
        return ("Reformer's LSH attention draws new random rotations for its hashing on every forward when hash_seed is "
                "None (as on the checkpoints): two runs of the same prompt give different logits, so a clean run and "
                "an edited one differ by more than the edit; load with hash_seed=0 (a config override) or set "
                "hash_seed on every layers[i].attention.self_attention that is an LSHSelfAttention")
    return None


NOTE = ("A reversible residual of two streams, (attn_output, hidden_states): block i maps (x1, x2) to y1 = x1 + "
        "attention(x2) and y2 = x2 + feed_forward(y1), so there is no single stream for layer_input, layer_mid or "
        "layer_output and no identity to check; neither the streams' sum (the final norm reads their "
        "concatenation, and an edit of a sum has no unique way back into two streams) nor their concatenation "
        "(2·hidden_size wide) is a Residual [batch seq hidden_size]. The model pads the ids on the right to a "
        "multiple of its chunk length inside the forward, so the embeddings and every block run at that padded "
        "length; the sublayers' values (attention_norm_output, the queries, keys and values, the head outputs, "
        "attention_premix, attention_output, mlp_norm_output, mlp_input, the feed-forward's activation and "
        "neurons, mlp_output) and token_embeddings are served at the call's positions, cut from the padded "
        "length, and an edit of them leaves the padding's positions as the model computed them. LSH blocks share "
        "one query_key projection, served as both attention_queries and attention_keys; the chunked attentions "
        "have no [query key] pattern, so attention_scores and attention_probabilities are unavailable. "
        "project_on_vocab takes the concatenated streams [attn_output, hidden_states] of the last block, "
        "[batch, seq, 2·hidden_size], and gives the logits.")

# the pattern is not a [query key] matrix even at the call's length: local attention scores each chunk against
# itself and the chunks before it, LSH attention scores hash-sorted chunks
CHUNKED = ("chunked attention: local attention scores each chunk of local_attn_chunk_length positions against "
           "itself and local_num_chunks_before earlier chunks, LSH attention scores chunks of positions sorted by "
           "hash bucket, so no [query key] pattern over the sequence exists (only when the whole sequence fits in "
           "one chunk is it a full causal attention)")
CHUNKED_FEED_FORWARD = (
    "the feed-forward is applied in chunks (config.chunk_size_feed_forward > 0): its layer_norm, dense and "
    "output run once per chunk of chunk_size_feed_forward positions, so no single tensor holds this value over "
    "the sequence (mlp_input and mlp_output, the feed-forward's own input and output, are whole); read "
    "layers[i].mlp.layer_norm / .dense.act_fn / .E_output natively, one call per chunk")


def _mlp_input_before_its_norm(order):
    """The feed-forward norms its own input: the block calls it (mlp_input) before its layer_norm runs."""
    order = [pair for pair in order if pair != ("layer", "mlp_input")]
    at = order.index(("layer", "mlp_norm_output"))
    return tuple(order[:at] + [("layer", "mlp_input")] + order[at:])


FAMILY = Family(
    name="reformer",
    positions=Positions(refused="Reformer computes its positions itself and pads them with the ids inside its forward"),
    summary="A reversible residual of two streams around chunked local and LSH attentions with their own code, "
            "axial position embeddings, and a final norm and head over the two streams concatenated.",
    tags=("Reversible residual", "Two streams", "LSH attention", "Local chunked attention",
          "Axial position embeddings", "LayerNorm", "Internal padding"),
    block=Block("reversible", order=_mlp_input_before_its_norm(FORWARD_ORDER["block"])),
    rename={
        "reformer.embeddings.word_embeddings": "embed_tokens", "reformer.encoder.layers": "layers",
        "reformer.encoder.layer_norm": "norm", "attention": "self_attn", "feed_forward": "mlp",
    },
    sites={
        "layer_input": Nowhere(REVERSIBLE),
        "layer_mid": Nowhere(REVERSIBLE),
        "layer_output": Nowhere(REVERSIBLE),
        "token_embeddings": Read(
            Child("embed_tokens"), layout=AT_CALL,
            description="The word embeddings' output at the call's positions, before the axial position embeddings "
                        "are added; the model embeds the ids padded to a multiple of its chunk length and this is "
                        "the first seq positions of that"),
        "final_norm_output": Nowhere(FINAL_NORM),
        "attention_norm_output": Read(
            Child("self_attn.layer_norm"), layout=AT_CALL,
            description="The attention's LayerNorm of the second stream x2, at the call's positions, what the "
                        "self-attention projects"),
        "attention_queries": per_attention(LOCAL_QUERIES, LSH_QUERY_KEY),
        "attention_keys": per_attention(LOCAL_KEYS, LSH_QUERY_KEY),
        "attention_values": per_attention(LOCAL_VALUES, LSH_VALUES),
        "attention_head_outputs": HEAD_OUTPUTS,
        "attention_premix": Read(
            Child("E_output", "input"), Argument(0), CallPositions(dim=1, then=SPLIT_HEADS),
            description="Every head's output side by side at the call's positions, the self-attention's merged "
                        "output as the attention's output module (its dense projection) takes it"),
        "attention_output": Read(
            Child("E_output"), layout=AT_CALL,
            description="The attention's output projection at the call's positions, what the block adds to the "
                        "first stream: y1 = x1 + attention_output"),
        "mlp_input": Read(
            Child("mlp", "input"), Argument(0, "attention_output"), layout=AT_CALL, shared=True,
            description="The first stream y1 = x1 + attention_output at the call's positions, which the feed-forward "
                        "is called with and the next block reads, so an edit reaches both"),
        "mlp_norm_output": per_feed_forward(Read(
            Child("mlp.layer_norm"), layout=AT_CALL,
            description="The feed-forward's LayerNorm of y1 at the call's positions, what its first dense reads"),
            Nowhere(CHUNKED_FEED_FORWARD)),
        "mlp_activation": per_feed_forward(Read(
            Child("dense.act_fn"), layout=AT_CALL,
            description="The feed-forward's activation function's output at the call's positions"),
            Nowhere(CHUNKED_FEED_FORWARD)),
        "mlp_neurons": per_feed_forward(Read(
            Child("E_output", "input"), Argument(0, "hidden_states"), layout=AT_CALL,
            description="What the feed-forward's output module (its second dense) receives at the call's "
                        "positions, the activation itself"),
            Nowhere(CHUNKED_FEED_FORWARD)),
        "mlp_output": Read(
            Own("output"), layout=AT_CALL,
            description="The feed-forward's output at the call's positions, what the block adds to the second "
                        "stream: y2 = x2 + mlp_output"),
        "attention_scores": Nowhere(CHUNKED),
        "attention_probabilities": Nowhere(CHUNKED),
    },
    accessors={
        "num_kv_heads": lambda c: c.num_attention_heads,
        "head_dim": lambda c: c.attention_head_size,
        "qk_head_dim": lambda c: c.attention_head_size,
        "intermediate_size": lambda c: c.feed_forward_size,
    },
    contract_note=NOTE,
    hazard=_random_hashing_hazard,
    loads=EAGER_LOADS,
    variants={"chunked_feed_forward": {"chunk_size_feed_forward": 2}},
    tiny={"config_class": "ReformerConfig", "overrides": {
        "hidden_size": 64, "num_attention_heads": 4, "feed_forward_size": 128, "vocab_size": 300,
        "attention_head_size": 16, "is_decoder": True, "attn_layers": ["local", "lsh"], "axial_pos_shape": [4, 4],
        "axial_pos_embds_dim": [32, 32], "max_position_embeddings": 16, "local_attn_chunk_length": 4,
        "lsh_attn_chunk_length": 4, "num_buckets": 2, "hash_seed": 0}},
)
