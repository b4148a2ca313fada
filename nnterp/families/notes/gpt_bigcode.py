"""Notes of GPT-BigCode written by hand, added to the derived ones. Read against transformers' modeling_gpt_bigcode.py
(GPTBigCodeAttention.forward's two splits of c_attn, eager_attention_forward, the unused upcast_* softmax helpers,
GPTBigCodeModel.forward's positions and token types, the causal buffer ``bias``) and configuration_gpt_bigcode.py;
the checkpoint numbers are the released config.json files of bigcode/gpt_bigcode-santacoder and
bigcode/tiny_starcoder_py, as nnterp/families/checkpoints/gpt_bigcode.json records them. The snippets run on the tiny
GPT-BigCode."""

LOAD = "eager"

DROP = ("grouped_note",)

MORE = r'''
## One key and one value for all heads: an edit to a key reaches every head

With `multi_query` true (SantaCoder, tiny_starcoder_py), `c_attn` projects to `hidden_size + 2 · head_dim`: all the query heads, then one key head and one value head, which every query head reads. On SantaCoder that is 2048 → 2304 (16 heads of 128), on tiny_starcoder_py 768 → 896 (12 heads of 64). `attention_keys` and `attention_values` have one head, `[batch, 1, seq, head_dim]`, and the cache holds one head per block: 2 · 128 numbers per token and block on SantaCoder, against 2 · 2048 for a multi-head model of its width. There is no key or value of a single head to ablate or patch: an edit to `attention_keys` moves the scores of every query head at once. To act on one head, edit its row of `attention_scores` or its slice of `attention_premix`.

```python
facts = released("bigcode/gpt_bigcode-santacoder")
head_dim = facts["n_embd"] // facts["n_head"]
assert facts["multi_query"] is True and head_dim == 128 and facts["n_embd"] + 2 * head_dim == 2304
tiny_starcoder = released("bigcode/tiny_starcoder_py")
assert tiny_starcoder["multi_query"] is True and tiny_starcoder["n_embd"] // tiny_starcoder["n_head"] == 64
assert tiny_starcoder["n_embd"] + 2 * 64 == 896

attention = model.layers[0].self_attn
assert attention.c_attn.out_features == model.hidden_size + 2 * model.head_dim
with model.trace(prompt):
    k = attention.attention_keys.save()
    probs = attention.attention_probabilities.save()
with model.trace(prompt):
    attention.attention_keys[:] = attention.attention_keys * 2
    probs_edited = attention.attention_probabilities.save()

assert k.shape[1] == 1 and model.num_kv_heads == 1
moved = (probs_edited - probs).abs().amax(dim=(0, 2, 3))
assert bool((moved > 1e-4).all())   # every query head's pattern moved

ids = model.tokenizer(prompt, return_tensors="pt").input_ids
cache = model._module(ids, use_cache=True).cache
assert cache.layers[0].keys.shape == (1, 1, ids.shape[1], model.head_dim)
```

## With `multi_query` false, `c_attn` interleaves the heads: q, k, v of head 0, then of head 1

The two settings lay `c_attn`'s output out differently. With one key head it is `[all queries | k | v]`, split at `hidden_size`. With `multi_query=False` the forward views the output as `[batch, seq, num_heads, 3 · head_dim]` and splits each head's slice into its query, key and value: the first `hidden_size` outputs are not the queries but the q, k and v of the first heads. Code that cuts `c_attn.weight` into thirds, as one would GPT-2's `c_attn` or a multi-query checkpoint's first `hidden_size` rows, mixes the queries, keys and values of different heads. SantaCoder and tiny_starcoder_py set `multi_query` true; the class's default is true as well.

```python
from nnterp import tiny

mha = tiny.load("gpt_bigcode", attn_implementation="eager", multi_query=False)
attention = mha.layers[0].self_attn
with mha.trace(prompt):
    raw = attention.c_attn.output.save()
    q = attention.attention_queries.save()
    k = attention.attention_keys.save()
    v = attention.attention_values.save()

b, s, _ = raw.shape
d = mha.head_dim
per_head = raw.view(b, s, mha.num_heads, 3 * d).transpose(1, 2)
assert torch.equal(per_head[..., :d], q)
assert torch.equal(per_head[..., d:2 * d], k) and torch.equal(per_head[..., 2 * d:], v)
thirds = raw[..., :mha.hidden_size].view(b, s, mha.num_heads, d).transpose(1, 2)
assert not torch.equal(thirds, q)   # the first third is not the queries
```

## `attention_softmax_in_fp32` and `scale_attention_softmax_in_fp32` are read by nothing

SantaCoder's and tiny_starcoder_py's config.json set both true, and the attention module stores them, but its forward calls `eager_attention_forward` (or sdpa), which takes the softmax in float32 and casts the pattern back to the model's dtype whatever the keys say. The fused helpers that read them, `upcast_softmax`, `upcast_masked_softmax` and `masked_softmax`, are still defined in the modeling file and never called. A load with both keys false computes the same logits, in bfloat16 too, and a reimplementation or a port that follows the keys follows a code path that no longer runs:

```python
import transformers.models.gpt_bigcode.modeling_gpt_bigcode as modeling
from nnterp import tiny

assert released("bigcode/gpt_bigcode-santacoder")["attention_softmax_in_fp32"] is True
assert released("bigcode/tiny_starcoder_py")["scale_attention_softmax_in_fp32"] is True

def never(*args, **kwargs):
    raise AssertionError("a fused softmax helper ran")

helpers = ("upcast_softmax", "upcast_masked_softmax", "masked_softmax")
kept = {name: getattr(modeling, name) for name in helpers}
runs = []
try:
    for name in helpers:
        setattr(modeling, name, never)
    for flag in (True, False):
        hf, tokenizer = tiny.build("gpt_bigcode", attn_implementation="eager", dtype=torch.bfloat16,
                                   attention_softmax_in_fp32=flag, scale_attention_softmax_in_fp32=flag)
        half = StandardizedTransformer(hf, tokenizer=tokenizer)
        with half.trace(prompt):
            runs.append(half.logits.save())
finally:
    for name, helper in kept.items():
        setattr(modeling, name, helper)

assert runs[0].dtype == torch.bfloat16 and torch.equal(runs[0], runs[1])
```

## Positions come from a table the bare model indexes from 0, padding included

`GPTBigCodeModel` adds `wpe(position_ids)` to the token embeddings, and when it is called without `position_ids` it numbers the positions 0, 1, 2, … whatever the attention mask says. Called directly on a left-padded batch, a prompt then starts at the position after its padding and reads other rows of `wpe`, and its logits change. nnterp gives a left-padded batch its positions from the attention mask, so a prompt's logits in a batch are its logits alone:

```python
hf = model._module
ids = model.tokenizer(prompt, return_tensors="pt").input_ids
padded = torch.cat([torch.zeros(1, 3, dtype=ids.dtype), ids], dim=1)
mask = torch.cat([torch.zeros(1, 3, dtype=torch.long), torch.ones_like(ids)], dim=1)
alone = hf(ids).logits[0, -1]
assert (hf(padded, attention_mask=mask).logits[0, -1] - alone).abs().max() > 1e-3   # the bare model shifts it

with model.trace([prompt, "Hello"]):   # nnterp left-pads "Hello" and gives each prompt its own positions
    batch = model.logits.save()
with model.trace(prompt):
    single = model.logits.save()
torch.testing.assert_close(batch[0, -1], single[0, -1])
```

The table has `n_positions` rows: 2048 on SantaCoder and 8192 on tiny_starcoder_py. A longer input indexes past it and fails inside the embedding with `IndexError: index out of range in self`; cut the input to `n_positions` tokens.

```python
assert released("bigcode/gpt_bigcode-santacoder")["n_positions"] == 2048
assert released("bigcode/tiny_starcoder_py")["n_positions"] == 8192
too_long = torch.zeros(1, model.config.n_positions + 1, dtype=torch.long)
try:
    with model.trace(too_long):
        model.logits.save()
    raise AssertionError("a prompt past n_positions ran")
except IndexError:
    pass
```

## `token_type_ids` are looked up in the token table

The model accepts `token_type_ids` and adds `wte(token_type_ids)`, the rows of the token embeddings, to the stream: there is no separate type table. A call that passes the type ids a BERT-style tokenizer returns (all zeros) adds the embedding of token 0 at every position, and `layers[0].input` differs from a call without them by exactly that row. `token_embeddings` does not show it, since it is `wte`'s output for the input ids alone. Pass only `input_ids` and `attention_mask`.

```python
ids = model.tokenizer(prompt, return_tensors="pt").input_ids
with model.trace(ids):
    x = model.layers[0].layer_input.save()
    tokens = model.token_embeddings.save()
with model.trace({"input_ids": ids, "token_type_ids": torch.zeros_like(ids)}):
    x_typed = model.layers[0].layer_input.save()
    tokens_typed = model.token_embeddings.save()

torch.testing.assert_close(x_typed - x, model.embed_tokens.weight[0].expand_as(x))
assert torch.equal(tokens_typed, tokens)
```

## `transformer.bias`, an `n_positions` × `n_positions` causal mask, is read by nothing

`GPTBigCodeModel` builds a buffer `bias`, the lower triangle of an `n_positions` square of booleans, as GPT-2 did for its mask. The forward no longer reads it: the mask comes from `create_causal_mask` for each call. It is not saved with the weights (a non-persistent buffer) and it still takes `n_positions`² bytes: 4 MiB on SantaCoder, 64 MiB on tiny_starcoder_py. Editing it changes nothing, and it is not a place to read or change the mask:

```python
facts = released("bigcode/tiny_starcoder_py")
assert facts["n_positions"] ** 2 == 64 * 2 ** 20

hf = model._module
ids = model.tokenizer(prompt, return_tensors="pt").input_ids
mask = hf.transformer.bias
assert mask.dtype == torch.bool and mask.shape == (model.config.n_positions,) * 2
assert "transformer.bias" not in hf.state_dict()
with torch.no_grad():
    before = hf(ids).logits
    saved = mask.clone()
    mask.zero_()
    after = hf(ids).logits
    mask.copy_(saved)
assert torch.equal(before, after)
```
'''
