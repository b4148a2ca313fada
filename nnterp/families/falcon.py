"""Falcon (FalconForCausalLM).

transformer.{word_embeddings, h[i].{input_layernorm | ln_attn + ln_mlp | input_layernorm + post_attention_layernorm,
self_attention.{query_key_value, dense, attention_dropout}, mlp.{dense_h_to_4h, act, dense_4h_to_h}}, ln_f} and
lm_head, tied to word_embeddings. Three layouts, read from the checkpoint's config. Falcon-7B (parallel_attn): one
input_layernorm feeds both sublayers and out = x + (mlp + attn). Falcon-40B/180B (new_decoder_architecture): the
same parallel sum with two norms, ln_attn and ln_mlp (aliased input_layernorm and post_attention_layernorm), both of
the block's input. Falcon-RW (parallel_attn=False): a sequential block, mid = x + attn, out = mid +
mlp(post_attention_layernorm(mid)). Neither parallel layout has a layer_mid. On the parallel layouts the block adds
the attention into the MLP's output in place (mlp_output += attention_output) after the MLP returns: mlp_output is
a copy taken when the MLP returns, and an edit of it is carried back before the add. The attention is Falcon's own
code, not a kernel chosen at run time: one fused query_key_value, split per layout (multi-query: num_heads queries
and one key and value head; new_decoder_architecture: num_kv_heads groups of queries sharing a key and a value,
broadcast to num_heads copies before the kernel, served at num_kv_heads, with an edit repeated back over the
group), rotate_half rotary on whole heads, or ALiBi (alibi=True) in place of rotary. Under sdpa it calls torch's
scaled_dot_product_attention; under eager it computes q @ k^T / sqrt(head_dim) + mask, softmax, @ v (rotary), or
(q @ k^T + alibi) / sqrt(head_dim) + mask in float32 for half-precision loads, softmax, attention_dropout, @ v
(ALiBi). Queries and keys are read where the rotary returns them (with ALiBi, where the forward binds them), values
where the forward hands them to the cache beside the rotated keys (with ALiBi, where it binds them), all before
that branch, so they need no eager load; the head outputs are the dense projection's input.
"""

from nnterp.declare.blocks import PARALLEL_REASON, Block
from nnterp.declare.family import COMMON_SITES, Family
from nnterp.declare.sites import (
    KEY_VALUE_GROUPS, SPLIT_HEADS, WHOLE, Argument, Assigned, Call, Child, Element, Nowhere, Own, Read, eager_only,
)

EAGER = eager_only("Falcon", "torch's scaled_dot_product_attention")


def _parallel(config) -> bool:
    return bool(config.new_decoder_architecture or config.parallel_attn)


def _two_norms(config) -> bool:
    return bool(config.new_decoder_architecture and (config.num_ln_in_parallel_attn or 2) == 2)


def _grouped(config) -> bool:
    """Keys and values broadcast to num_heads copies before the kernel (new_decoder_architecture)."""
    return bool(config.new_decoder_architecture) and config.num_kv_heads < config.num_attention_heads


def _num_kv_heads(config) -> int:
    return config.num_kv_heads if (config.new_decoder_architecture or not config.multi_query) else 1


def _interior(rotary: bool, grouped: bool) -> dict:
    groups = {"layout": KEY_VALUE_GROUPS, "snapshot": True} if grouped else {}
    if rotary:
        queries = Read(Call("apply_rotary_pos_emb"), Element(0),
                       description="The queries entering attention, after the rotary")
        keys = Read(Call("apply_rotary_pos_emb"), Element(1), **groups,
                    description="The keys entering attention, after the rotary")
        scores = Read(Call("F.softmax", "input"), Argument(0), condition=EAGER,
                      description="The attention scores entering the softmax, masked: q @ k^T / sqrt(head_dim) + mask")
        probabilities = Read(Call("F.softmax"), WHOLE, condition=EAGER)
        # bound before the rotary of the queries, so read where they are next handed over, with the rotated keys
        values = Read(Call("layer_past.update", "input"), Argument(1), **groups,
                      description="The values entering attention, read where the forward hands them to the cache "
                                  "with the rotated keys (a forward with use_cache=False makes no such call)")
    else:
        queries = Read(Assigned("query_layer"), WHOLE,
                       description="The queries entering attention (ALiBi: no rotary)")
        keys = Read(Assigned("key_layer"), WHOLE, **groups,
                    description="The keys entering attention (ALiBi: no rotary)")
        scores = Read(
            Call("F.softmax", "input", occurrence=1), Argument(0), condition=EAGER,
            description="The attention scores entering the softmax, masked, ALiBi included: (q @ k^T + alibi) / "
                        "sqrt(head_dim) + mask, in float32 under a half-precision load")
        probabilities = Read(Child("attention_dropout"), condition=EAGER)
        values = Read(Assigned("value_layer"), WHOLE, **groups)
    return {
        "attention_queries": queries,
        "attention_keys": keys,
        "attention_values": values,
        "attention_scores": scores,
        "attention_probabilities": probabilities,
        "attention_head_outputs": Read(
            Child("o_proj", "input"), Argument(0), SPLIT_HEADS,
            description="The per-head outputs before the output projection: dense's input, as nothing happens "
                        "between mixing the values and the projection"),
    }


_INTERIOR = {(rotary, grouped): _interior(rotary, grouped) for rotary in (True, False) for grouped in (True, False)}

NO_LAYER_MID = Nowhere(PARALLEL_REASON)
SHARED_NORM = Read(Child("input_layernorm"),
                   description="The normed stream entering the MLP: the one norm feeds both sublayers")

# ln_mlp runs before the attention, but nothing reads its output until the MLP is called with it: read there, so
# that the values of one block read in the order of the standard vocabulary
MLP_NORM_AT_MLP = Read(Child("mlp", "input"), Argument(0),
                       description="The normed stream entering the MLP: ln_mlp's output, the MLP's input")


def _site(name):
    def choose(context):
        config = context.config
        if name in _INTERIOR[True, False]:
            return _INTERIOR[not config.alibi, _grouped(config)][name]
        if name == "layer_mid":
            return NO_LAYER_MID if _parallel(config) else COMMON_SITES["layer_mid"]
        # mlp_norm_output
        if not _parallel(config):
            return COMMON_SITES["mlp_norm_output"]
        return MLP_NORM_AT_MLP if _two_norms(config) else SHARED_NORM
    return choose


FAMILY = Family(
    name="falcon",
    summary="Three layouts in one class: a parallel block with one norm (7B) or two (40B, 180B) or a sequential one "
            "with ALiBi (RW), with a fused query_key_value, multi-query or grouped keys, and its own attention code.",
    tags=("Parallel block", "Fused qkv", "Multi-query", "Grouped keys/values", "ALiBi", "LayerNorm"),
    block=Block(lambda config: "parallel" if _parallel(config) else "sequential", sum=lambda x, attn, mlp: x + (mlp + attn)),
    rename={
        "transformer.word_embeddings": "embed_tokens", "transformer.h": "layers", "transformer.ln_f": "norm",
        "self_attention": "self_attn", "dense": "o_proj", "dense_h_to_4h": "up_proj", "dense_4h_to_h": "down_proj",
        "act": "act_fn", "ln_attn": "input_layernorm", "ln_mlp": "post_attention_layernorm",
    },
    sites={
        **{name: _site(name) for name in (
            "attention_queries", "attention_keys", "attention_values", "attention_scores",
            "attention_probabilities", "attention_head_outputs", "layer_mid", "mlp_norm_output")},
        "mlp_output": Read(
            Own("output"), snapshot=True,
            description="What the MLP adds to the residual stream: its output as returned, before the block adds "
                        "the attention into it in place"),
    },
    accessors={"num_kv_heads": _num_kv_heads, "intermediate_size": lambda c: c.ffn_hidden_size},
    variants={
        "new_decoder_architecture": {"new_decoder_architecture": True},
        "rw_alibi_sequential": {"num_kv_heads": 4, "alibi": True, "parallel_attn": False, "multi_query": False,
                                "bias": True},
    },
    tiny={"config_class": "FalconConfig", "overrides": {
        "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "num_kv_heads": 2,
        "ffn_hidden_size": 128, "vocab_size": 300}},
)

