"""Notes of XGLM written by hand, added to the derived ones. Read against transformers' modeling_xglm.py
(XGLMScaledWordEmbedding, XGLMSinusoidalPositionalEmbedding's offset, growth and tensor2tensor frequencies,
XGLMAttention.forward's pre-scaled queries and clamp) and tokenization_xglm.py (the post-processor's template); the
checkpoint numbers are the released config.json files of XGLM-564M, 1.7B, 2.9B, 4.5B and 7.5B, as
nnterp/families/checkpoints/xglm.json records them. The snippets run on the tiny XGLM."""

LOAD = "eager"

DROP = ("scale_note",)

MORE = r'''
## Every text starts with `</s>`, not `<s>`

XGLM follows fairseq, which separates documents with `</s>`: `XGLMTokenizer`'s post-processor is `</s> $A` (and `</s> $A </s> </s> $B` for a pair), so a tokenized text starts with `</s>`, id 2, the config's `eos_token_id`. `<s>`, id 0, the config's `bos_token_id`, is never added. Position 0 of a traced text is therefore `</s>`, and ids built by hand without it (or with `<s>` in front, as for a Llama-style model) do not start as the tokenizer starts every text. The config's `pad_token_id` is 1.

```python
from transformers import XGLMTokenizer

for size in ("564M", "1.7B", "2.9B", "4.5B", "7.5B"):
    facts = released(f"facebook/xglm-{size}")
    assert (facts["bos_token_id"], facts["eos_token_id"], facts["pad_token_id"]) == (0, 2, 1)

tokenizer = XGLMTokenizer()   # the class's own template, on its default vocabulary
assert (tokenizer.bos_token_id, tokenizer.eos_token_id, tokenizer.pad_token_id) == (0, 2, 1)
ids = tokenizer("hello").input_ids
assert ids[0] == tokenizer.eos_token_id and tokenizer.bos_token_id not in ids
pair = tokenizer("hello", "world").input_ids
assert pair.count(tokenizer.eos_token_id) == 3
```

## The token embeddings are multiplied by √d_model inside `embed_tokens`; the tied head reads them unscaled

`scale_embedding` is true on every released checkpoint: `embed_tokens` multiplies its rows by √d_model in its own forward, 32 on XGLM-564M, 45.25 on XGLM-1.7B, 2.9B and 4.5B, and 64 on XGLM-7.5B. `token_embeddings` is the scaled row, and `embed_tokens.weight[id]` is not what enters the stream. `lm_head` is the same matrix, used without the factor, so the lens of a token's own embedding scores it √d_model times higher than the row itself would. To compare a stream vector with a token's input direction, scale the row; to undo the embedding, divide by the factor.

```python
for size, d in (("564M", 1024), ("1.7B", 2048), ("4.5B", 2048), ("7.5B", 4096)):
    facts = released(f"facebook/xglm-{size}")
    assert facts["scale_embedding"] is True and facts["d_model"] == d
assert 2048 ** 0.5 == 45.254833995939045

with model.trace(prompt):
    ids = model.input_ids.save()
    tokens = model.token_embeddings.save()

scale = model.config.d_model ** 0.5
assert model.embed_tokens.embed_scale == scale
assert torch.equal(tokens, model.embed_tokens.weight[ids] * scale)
assert model.lm_head.weight is model.embed_tokens.weight
```

## Positions are tensor2tensor sinusoids, sines then cosines, read two rows down

`embed_positions` has no weights: it is a table of sinusoids added after the scaled token embeddings, so `layers[0].input` is `token_embeddings` plus the table's row. Three details differ from the "Attention Is All You Need" formula a reimplementation writes. The frequencies are `10000^(−i / (d/2 − 1))` for i < d/2, not `10000^(−2i / d)`. The first half of the row holds all the sines and the second half all the cosines; they are not interleaved. And position p reads row p + 2 (fairseq's offset, from when position ids began after the padding id, 1): the first token gets the sinusoid of 2, not of 0.

```python
import math

with model.trace(prompt):
    tokens = model.token_embeddings.save()
    x = model.layers[0].layer_input.save()

n, d = x.shape[1], model.config.d_model
half = d // 2
freq = torch.exp(torch.arange(half) * -(math.log(10000) / (half - 1)))
angle = (torch.arange(n) + 2)[:, None] * freq
torch.testing.assert_close(x - tokens, torch.cat([angle.sin(), angle.cos()], dim=-1)[None])
assert model._module.model.embed_positions.offset == 2
```

## No position limit: the table grows past `max_position_embeddings`

`max_position_embeddings` is 2048 on every released checkpoint, but it only sizes the table built at load (2048 + 2 rows). When a call needs more, `XGLMSinusoidalPositionalEmbedding` builds a longer table and goes on: an input longer than 2048 tokens runs without an error. Past 2048 tokens the model reads sinusoids of positions it was never trained on, and the logits are computed all the same. Cut inputs to 2048 tokens yourself.

```python
assert all(released(f"facebook/xglm-{size}")["max_position_embeddings"] == 2048
           for size in ("564M", "1.7B", "2.9B", "4.5B", "7.5B"))

positions = model._module.model.embed_positions
limit = model.config.max_position_embeddings
assert positions.weights.shape[0] == limit + 2
too_long = torch.randint(3, model.vocab_size, (1, limit + 50))
with model.trace(too_long):
    logits = model.logits.save()
assert logits.shape[1] == limit + 50 and bool(logits.isfinite().all())
assert positions.weights.shape[0] >= limit + 52   # the table grew
```

## `attention_queries` are already scaled, and the scores are not scaled again

`XGLMAttention` multiplies `q_proj`'s output by `head_dim ** -0.5` before anything else (1/8 on XGLM-564M's 64-dimensional heads, 1/√128 on the 128-dimensional heads of the 1.7B to 7.5B checkpoints), then computes `q · k` with no further factor. `attention_queries` is read where the forward binds the queries, so it holds the scaled queries: `attention_scores` is `attention_queries @ attention_keys.T` as it is, and the projection's own output is `attention_queries · √head_dim`. A query norm or a query–key dot product compared across families must undo it.

```python
facts = released("facebook/xglm-564M")
assert facts["d_model"] // facts["attention_heads"] == 64
assert all(released(f"facebook/xglm-{size}")["d_model"] // released(f"facebook/xglm-{size}")["attention_heads"] == 128
           for size in ("1.7B", "2.9B", "4.5B", "7.5B"))

attention = model.layers[0].self_attn
with model.trace(prompt):
    normed = model.layers[0].attention_norm_output.save()
    q = attention.attention_queries.save()
    k = attention.attention_keys.save()
    scores = attention.attention_scores.save()

b, s, _ = normed.shape
projected = attention.q_proj(normed).view(b, s, model.num_heads, model.head_dim).transpose(1, 2)
torch.testing.assert_close(q * model.head_dim ** 0.5, projected)
causal = torch.ones(s, s, dtype=torch.bool).tril()
torch.testing.assert_close((q @ k.transpose(-1, -2))[..., causal], scores[..., causal])
```

## A masked score is the dtype's minimum, not −inf

The mask is added to the scores and the sum is clamped below at `torch.finfo(dtype).min`, so every masked entry of `attention_scores` is exactly −3.4e38 in float32 (−65504 in float16), a finite number. The softmax gives it zero weight, but a mean, a norm or a sum of `attention_scores` over keys that includes the masked entries is that number times their count, and `isinf` finds nothing to drop. Select the causal entries, or read `attention_probabilities`.

```python
with model.trace(prompt):
    scores = model.layers[0].self_attn.attention_scores.save()

s = scores.shape[-1]
masked = torch.ones(s, s, dtype=torch.bool).triu(1)
assert bool((scores[..., masked] == torch.finfo(scores.dtype).min).all())
assert not bool(scores.isinf().any())
```

## XGLM-4.5B's MLP is a ReLU of width 8 · d_model; the others are GELU of width 4 · d_model

The five released checkpoints are not one recipe scaled. XGLM-564M, 1.7B, 2.9B and 7.5B use `gelu` with `ffn_dim` four times `d_model` (4096, 8192, 8192, 16384). XGLM-4.5B uses `relu` and `ffn_dim` 16384, eight times its `d_model` of 2048: its `mlp_activation` is exactly zero wherever `fc1`'s output is negative, so its neurons are sparse and a neuron's activation is never negative, unlike the other four. It is also the one whose released weights are float16 (`torch_dtype`); the others' config.json files name no dtype. Analyses that pool neurons across XGLM sizes mix two activation functions.

```python
from nnterp import tiny

for size, act, width in (("564M", "gelu", 4), ("1.7B", "gelu", 4), ("2.9B", "gelu", 4), ("4.5B", "relu", 8),
                         ("7.5B", "gelu", 4)):
    facts = released(f"facebook/xglm-{size}")
    assert facts["activation_function"] == act and facts["ffn_dim"] == width * facts["d_model"]
assert released("facebook/xglm-4.5B")["dtype"] == "float16" and "dtype" not in released("facebook/xglm-564M")

relu = tiny.load("xglm", attn_implementation="eager", activation_function="relu")
with relu.trace(prompt):
    pre = relu.layers[0].fc1.output.save()
    act = relu.layers[0].mlp.mlp_activation.save()
assert torch.equal(act, pre.clamp(min=0)) and bool((pre < 0).any())
```
'''
