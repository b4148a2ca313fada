"""Reformer's sites: values the model computes at its padded length (it pads the ids on the right to a multiple
of its chunk length inside its forward), served at the call's positions with ``CallPositions``; modules two
levels below a host (the attention's layer_norm seen from the block, the feed-forward's act_fn); and the
attention's interior, which differs between its LocalSelfAttention and LSHSelfAttention blocks.
"""

from __future__ import annotations


from nnterp.declare.sites import HEADS_AFTER_POSITIONS, Argument, Call, CallPositions, Read

#: [batch seq ...] at the padded length, cut to the call's positions
AT_CALL = CallPositions(dim=1)
#: [batch heads seq dim] at the padded length, cut to the call's positions
HEADS_AT_CALL = CallPositions(dim=2)


def _split(occurrence: int) -> Call:
    """The ``occurrence``-th call of _split_hidden_size_dim in the self-attention's forward: a projection's
    [batch seq heads·dim] made [batch heads seq dim]."""
    return Call("self._split_hidden_size_dim", "output", child="self_attention", occurrence=occurrence)


def _is_lsh(context) -> bool:
    """Whether the block's self-attention is an LSHSelfAttention (from the attention host's module)."""
    if context is None or context.module is None:
        return False
    return type(getattr(context.module, "self_attention", None)).__name__ == "LSHSelfAttention"


# LocalSelfAttention: query, key and value split in that order (its forward has no other split)
LOCAL_QUERIES = Read(_split(0), layout=HEADS_AT_CALL,
                     description="The local attention's queries, the query projection split into heads")
LOCAL_KEYS = Read(_split(1), layout=HEADS_AT_CALL,
                  description="The local attention's keys, the key projection split into heads before the model "
                              "divides them by sqrt(head_dim)")
LOCAL_VALUES = Read(_split(2), layout=HEADS_AT_CALL,
                    description="The local attention's values, the value projection split into heads")
# LSHSelfAttention: split 0 is the query of its incremental-decoding branch; on a forward over the prompt the
# shared query_key projection is split 1 and the value split 2
LSH_QUERY_KEY = Read(_split(1), layout=HEADS_AT_CALL,
                     description="The LSH attention's one shared query_key projection split into heads, which it "
                                 "hashes into buckets and uses as its queries and, normalized to unit length and "
                                 "divided by sqrt(head_dim), as its keys: attention_queries and attention_keys are "
                                 "this one tensor, so an edit of either is an edit of both")
LSH_VALUES = Read(_split(2), layout=HEADS_AT_CALL,
                  description="The LSH attention's values, the value projection split into heads")


def per_attention(local: Read, lsh: Read):
    """A site chosen by the block's self-attention: LocalSelfAttention or LSHSelfAttention."""
    def site(context):
        return lsh if _is_lsh(context) else local
    return site


def per_feed_forward(whole: Read, chunked):
    """A site of the feed-forward's interior, which runs once per chunk of chunk_size_feed_forward positions when
    the config sets it: then ``chunked`` (a Nowhere) holds."""
    def site(context):
        if context is None or not getattr(context.config, "chunk_size_feed_forward", 0):
            return whole
        return chunked
    return site


HEAD_OUTPUTS = Read(
    Call("self._merge_hidden_size_dims", "input", child="self_attention"), Argument(0),
    layout=CallPositions(dim=2, then=HEADS_AFTER_POSITIONS),
    description="Every head's attention output, [batch heads seq dim] as the self-attention merges its heads, "
                "after LSH attention has sorted its hashed chunks back into position order")
