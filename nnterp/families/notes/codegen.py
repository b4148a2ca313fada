"""Notes of CodeGen written by hand, added to the derived ones. Read against transformers' modeling_codegen.py
(CodeGenAttention.forward's mp_num = 4 split of qkv_proj, create_sinusoidal_positions, rotate_every_two,
eager_attention_forward's float32 scores) and configuration_codegen.py, and against CodeGen's own repository
(salesforce/CodeGen codegen1/jaxformer/hf/sample.py: the tokenizer it builds for each checkpoint); the checkpoint
numbers are the released config.json files of CodeGen-350M-nl, 2B-mono, 6B-mono and 16B-multi, as
nnterp/families/checkpoints/codegen.json records them. The snippets run on the tiny CodeGen."""

LOAD = "eager"

MORE = r'''
## `qkv_proj` is four shards, each holding its heads' queries, values and keys, in that order

CodeGen was trained split over four model-parallel shards, and its fused projection keeps that layout: `mp_num = 4` is written into `CodeGenAttention`, for every checkpoint size, and no config key sets it. The forward views `qkv_proj`'s output as `[batch, seq, 4, 3 · hidden / 4]` and cuts each shard's slice into queries, **values**, then keys; the shard's heads are a quarter of all heads, consecutive (4 of 16 on CodeGen-350M-nl, 6 of 24 on CodeGen-16B-multi). The first `hidden_size` outputs of `qkv_proj` are therefore not the queries, and the middle third of a shard is the values, not the keys: code that cuts `qkv_proj.weight` as GPT-J's separate `q_proj`, `k_proj`, `v_proj` or as `[q | k | v]` reads the wrong rows. `attention_values` is the shard's middle third as it is; the keys' and queries' dimensions past the rotary are their thirds unchanged:

```python
facts = released("Salesforce/codegen-350M-nl")
assert facts["n_head"] // 4 == 4 and released("Salesforce/codegen-16B-multi")["n_head"] // 4 == 6

attention = model.layers[0].self_attn
assert attention.mp_num == 4
with model.trace(prompt):
    raw = attention.qkv_proj.output.save()
    q = attention.attention_queries.save()
    k = attention.attention_keys.save()
    v = attention.attention_values.save()

b, s, _ = raw.shape
local = model.hidden_size // 4
shard_q, shard_v, shard_k = raw.view(b, s, 4, 3 * local).split(local, dim=-1)
heads = lambda t: t.reshape(b, s, model.num_heads, model.head_dim).transpose(1, 2)
r = model.config.rotary_dim
assert torch.equal(heads(shard_v), v)
assert torch.equal(heads(shard_k)[..., r:], k[..., r:]) and torch.equal(heads(shard_q)[..., r:], q[..., r:])
assert not torch.equal(heads(raw[..., :model.hidden_size])[..., r:], q[..., r:])   # not [q | k | v]
```

## The rotary turns interleaved pairs, on the first `rotary_dim` dimensions only

Each head's first `rotary_dim` dimensions are rotated as GPT-J rotates them (`rotate_every_two`): dimension 2i is paired with 2i + 1, not with i + `rotary_dim`/2 as in Llama's `rotate_half`, and pair i turns at angle `p · 10000^(−2i / rotary_dim)` at position p. The rest of the head carries no position. The share differs by size: 32 of 64 dimensions on CodeGen-350M-nl, 64 of 80 on CodeGen-2B-mono, and 64 of 256 on CodeGen-6B-mono and CodeGen-16B-multi, a quarter of each head. `attention_queries_unrotated` and `attention_keys_unrotated` are the heads before the rotation; a port that uses `rotate_half` or rotates the whole head computes other scores:

```python
assert released("Salesforce/codegen-350M-nl")["rotary_dim"] == 32
for repo, rotated, width in (("Salesforce/codegen-2B-mono", 64, 80), ("Salesforce/codegen-6B-mono", 64, 256),
                             ("Salesforce/codegen-16B-multi", 64, 256)):
    facts = released(repo)
    assert facts["rotary_dim"] == rotated and facts["n_embd"] // facts["n_head"] == width

attention = model.layers[0].self_attn
with model.trace(prompt):
    before = attention.attention_queries_unrotated.save()
    after = attention.attention_queries.save()

r = model.config.rotary_dim
s = before.shape[2]
angle = torch.arange(s)[:, None] * 10000.0 ** (-torch.arange(0, r, 2) / r)
cos, sin = angle.cos().repeat_interleave(2, -1), angle.sin().repeat_interleave(2, -1)
x = before[..., :r]
turned = torch.stack((-x[..., 1::2], x[..., 0::2]), dim=-1).flatten(-2)   # (x0, x1) -> (-x1, x0)
torch.testing.assert_close(x * cos + turned * sin, after[..., :r])
assert torch.equal(before[..., r:], after[..., r:])
```

## Positions are a float32 table of 2048 rows: `n_ctx` is read by nothing, and longer inputs fail

The sines and cosines are not computed per call: `CodeGenRotaryEmbedding` builds a table of `n_positions` rows (2048 on every released checkpoint) with the base 10000 written into the code, and the forward indexes it with the position ids. No config key sets the base. `n_ctx`, also 2048 in every released config.json, is kept for old checkpoints and read by nothing. An input longer than `n_positions` indexes past the table and fails with `IndexError`; cut it to 2048 tokens. The table is a float32 buffer that a half-precision load leaves in float32 (next note).

```python
from nnterp import tiny

for repo in ("Salesforce/codegen-350M-nl", "Salesforce/codegen-2B-mono", "Salesforce/codegen-16B-multi"):
    assert released(repo)["n_positions"] == 2048 and released(repo)["n_ctx"] == 2048

table = model._module.transformer.rotary_emb.embed_positions
assert table.shape == (model.config.n_positions, model.config.rotary_dim) and table.dtype == torch.float32
with model.trace(prompt):
    logits = model.logits.save()
other = tiny.load("codegen", attn_implementation="eager", n_ctx=3)
with other.trace(prompt):
    logits_other = other.logits.save()
assert torch.equal(logits_other, logits)   # n_ctx changes nothing

too_long = torch.zeros(1, model.config.n_positions + 1, dtype=torch.long)
try:
    with model.trace(too_long):
        model.logits.save()
    raise AssertionError("a prompt past n_positions ran")
except IndexError:
    pass
```

## In half precision the rotary and the scores run in float32

The released weights are float16 (`torch_dtype` in every config.json recorded here). Under a float16 or bfloat16 load, the rotary table stays float32, so the rotation is computed in float32 and the rotated queries and keys are cast back to the model's dtype. The eager kernel then casts them to float32 again for `q · k`: `attention_scores` is a float32 tensor while the stream is bfloat16, and the pattern is its softmax cast back to the model's dtype. A comparison of scores with a bfloat16 recomputation must cast the queries and keys to float32 first.

```python
assert released("Salesforce/codegen-2B-mono")["dtype"] == "float16"

hf, tokenizer = nnterp.tiny.build("codegen", attn_implementation="eager", dtype=torch.bfloat16)
half = StandardizedTransformer(hf, tokenizer=tokenizer)
attention = half.layers[1].self_attn
with half.trace(prompt):
    q = attention.attention_queries.save()
    k = attention.attention_keys.save()
    scores = attention.attention_scores.save()
    probs = attention.attention_probabilities.save()
    stream = half.layers[1].layer_output.save()

assert stream.dtype == q.dtype == torch.bfloat16 and scores.dtype == torch.float32
assert hf.transformer.rotary_emb.embed_positions.dtype == torch.float32
n = scores.shape[-1]
causal = torch.ones(n, n, dtype=torch.bool).tril()
again = (q.float() @ k.float().transpose(-1, -2)) * half.head_dim ** -0.5
torch.testing.assert_close(again[..., causal], scores[..., causal])
assert torch.equal(scores.softmax(-1).to(torch.bfloat16), probs)
```

## `scale_attn_weights` is read by nothing: the scores are always scaled by `head_dim ** -0.5`

Every released config.json recorded here sets `scale_attn_weights: true`, a key of GPT-2's config. `CodeGenConfig` has no such field and `CodeGenAttention` sets `scaling = head_dim ** -0.5` unconditionally; the key rides along on the config and setting it false changes nothing. On CodeGen-6B-mono and CodeGen-16B-multi, whose heads are 256 wide, the scale is 1/16.

```python
from nnterp import tiny

assert all(released(repo)["scale_attn_weights"] is True
           for repo in ("Salesforce/codegen-350M-nl", "Salesforce/codegen-6B-mono"))
facts = released("Salesforce/codegen-6B-mono")
assert (facts["n_embd"] // facts["n_head"]) ** -0.5 == 1 / 16

unscaled = tiny.load("codegen", attn_implementation="eager", scale_attn_weights=False)
assert unscaled.config.scale_attn_weights is False
for loaded in (model, unscaled):
    assert loaded.layers[0].self_attn.scaling == loaded.head_dim ** -0.5
with model.trace(prompt):
    logits = model.logits.save()
with unscaled.trace(prompt):
    logits_unscaled = unscaled.logits.save()
assert torch.equal(logits_unscaled, logits)
```

## The code checkpoints tokenize runs of spaces and tabs as single tokens

CodeGen's own sampling code builds the tokenizer of the -multi and -mono checkpoints from GPT-2's 50257 tokens plus 30 added tokens for runs of 31 down to 2 spaces and 8 for runs of 9 down to 2 tabs (ids 50257 to 50294, longest first); the -nl checkpoints get GPT-2's tokenizer alone. Added tokens are split out of the text before the BPE runs, so an indentation of 2 to 31 spaces is one token and the word after it is tokenized as at the start of a text, without its leading space: `"    return x"` is `'    '`, `'return'`, `' x'`, and `return` after an indent is not the token `' return'` it is mid-line. One space stays part of the next word (`' ='`), two do not (`'  '`, `'='`). A run of 33 spaces is 31 + 2. The 50295 ids of the -multi and -mono tokenizer leave 905 of the 51200 rows of `wte` and `lm_head` that no token reaches. The snippet adds the same tokens to the tiny model's tokenizer, as CodeGen's code does:

```python
assert released("Salesforce/codegen-350M-nl")["vocab_size"] - (50257 + 30 + 8) == 905

tokenizer = nnterp.tiny.tokenizer(model.vocab_size)
tokenizer.add_tokens([" " * n for n in reversed(range(2, 32))])
tokenizer.add_tokens(["\t" * n for n in reversed(range(2, 10))])
pieces = lambda text: tokenizer.convert_ids_to_tokens(tokenizer(text).input_ids)

indented = pieces("    return x")
assert indented[0] == "    " and indented[1:] == pieces("return x")   # the word loses its leading space
assert pieces("x  = 1")[1] == "  " and "  " not in pieces("x = 1")
assert pieces(" " * 33 + "x")[:2] == [" " * 31, "  "]
assert pieces("\t\tpass")[0] == "\t\t"
```

## The released configs name id 1 as the BOS: a call to `generate()` without a prompt starts there

Every released config.json recorded here sets `bos_token_id: 1` and `eos_token_id: 50256`. Id 1 is an ordinary token of GPT-2's vocabulary, not the end-of-text id 50256 that CodeGen's own sampling code pads with. The forward never reads the BOS id, and a trace of text holds only the tokenizer's ids. It matters where transformers fills in a start: `generate()` called with no input starts from `bos_token_id`, so an unprompted sample from a CodeGen checkpoint continues after token 1. Give `generate()` a prompt, or the eos id 50256 as its first token.

```python
from nnterp import tiny

for repo in ("Salesforce/codegen-350M-nl", "Salesforce/codegen-16B-multi"):
    assert released(repo)["bos_token_id"] == 1 and released(repo)["eos_token_id"] == 50256

hf, _ = tiny.build("codegen", attn_implementation="eager", bos_token_id=1, eos_token_id=2)
sample = hf.generate(max_new_tokens=1, do_sample=False)
assert sample[0, 0].item() == 1
```
'''
