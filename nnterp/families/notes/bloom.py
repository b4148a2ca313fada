"""Notes of BLOOM written by hand, added to the derived ones. Read against transformers' modeling_bloom.py:
_get_alibi_slopes and build_alibi_tensor (a slope per head times each key's position, counted from the attention
mask), BloomAttention.forward (alibi.baddbmm with alpha 1/sqrt(head_dim), _reshape's view [.., heads, 3, head_dim],
dropout_add of the residual inside the module, the sliced F.linear path without dense's bias under
slow_but_exact), BloomMLP (4 * hidden_size, bloom_gelu_forward) and BloomModel (word_embeddings_layernorm after the
embedding)."""

MORE = r'''
## ALiBi adds slope × key position, not −slope × distance: the scores carry a per-row offset

BLOOM has no position embeddings: `build_alibi_tensor` gives every head h a slope m_h and adds m_h · j to the score of key j, for every query. The paper's bias is −m_h · (i − j); the two differ by m_h · i, constant along a query's row, so the softmax and the pattern are the same, but `attention_scores` are not the paper's: on a head with slope 0.5 the row of query 100 is 50 higher than the textbook scores. With `attention_scores = alibi + q · kᵀ / √head_dim + mask` (one `baddbmm`, alpha `1 / √head_dim`: 1/8 on BLOOM-560M's 64-wide heads, 1024 / 16), the scores' differences along a row are what to compare. The positions j are the attention mask's cumulative sum minus 1, so left padding does not shift them.

For a power of two n of heads the slopes are 2^(−8h/n), h = 1 … n: on BLOOM-560M's 16 heads, 2^−0.5 = 0.707, 2^−1, …, 2^−8 = 0.0039, a geometric sequence from a head that looks a few tokens back to one that barely discounts distance. For a head count that is not a power of two, 112 say, the first 64 slopes are 2^(−h/8) and the other 48 are the odd powers 1, 3, …, 95 of 2^(−1/16), taken from the 128-head sequence, so the slopes are not sorted by head index.

```python
from transformers.models.bloom.modeling_bloom import _get_alibi_slopes, build_alibi_tensor

attention = model.layers[0].self_attn
with model.trace(prompt):
    q = attention.attention_queries.save()
    k = attention.attention_keys.save()
    scores = attention.attention_scores.save()

n, heads = scores.shape[-1], model.num_heads
slopes = torch.tensor([2 ** (-8 * h / heads) for h in range(1, heads + 1)])
by_key = slopes[:, None, None] * torch.arange(n)                  # m_h · j, the same for every query
causal = torch.ones(n, n, dtype=torch.bool).tril()
torch.testing.assert_close((q @ k.transpose(-1, -2) / model.head_dim ** 0.5 + by_key)[..., causal], scores[..., causal])
left_padded = build_alibi_tensor(torch.tensor([[0, 0, 1, 1, 1]]), heads, torch.float32)    # two pads, three tokens
torch.testing.assert_close(left_padded, slopes[:, None, None] * torch.tensor([0.0, 0, 0, 1, 2]))

assert released("bigscience/bloom-560m")["hidden_size"] // released("bigscience/bloom-560m")["n_head"] == 64
assert released("bigscience/bloom-560m")["n_head"] == 16
torch.testing.assert_close(_get_alibi_slopes(16, "cpu"), torch.tensor([2 ** (-h / 2) for h in range(1, 17)]))
big = _get_alibi_slopes(112, "cpu")
torch.testing.assert_close(big[:64], torch.tensor([2 ** (-h / 8) for h in range(1, 65)]))
torch.testing.assert_close(big[64:], torch.tensor([2 ** (-h / 16) for h in range(1, 96, 2)]))
assert big[64] > big[63]                                            # not sorted by head index
```

## `query_key_value` is interleaved per head, not three blocks

The attention has one fused Linear, `query_key_value`, hidden → 3 · hidden with a bias, and `_reshape` views its output as `[batch, seq, heads, 3, head_dim]`: the columns run q, k, v of head 0, then q, k, v of head 1, and so on. Splitting the weight into three thirds, as for a `[Q | K | V]` layout, gives for "the queries" a mix of queries, keys and values of the first third of the heads. Head h's query rows of the weight are `weight.view(heads, 3, head_dim, hidden)[h, 0]`. `attention_queries`, `attention_keys` and `attention_values` are `_reshape`'s three outputs, already split.

```python
attention = model.layers[0].self_attn
with model.trace(prompt):
    h = model.layers[0].attention_norm_output.save()
    q = attention.attention_queries.save()

fused = attention.query_key_value
heads, d, hidden = model.num_heads, model.head_dim, model.hidden_size
w_q = fused.weight.view(heads, 3, d, hidden)[:, 0]                 # per head: q rows, then k, then v
b_q = fused.bias.view(heads, 3, d)[:, 0]
per_head = torch.einsum("bsi,hdi->bhsd", h, w_q) + b_q[None, :, None, :]
torch.testing.assert_close(per_head, q)
thirds = (h @ fused.weight.chunk(3)[0].T + fused.bias.chunk(3)[0]).view(1, -1, heads, d).transpose(1, 2)
assert not torch.allclose(thirds, q)
```

## The embedding is normed before the first block

`BloomModel` applies `word_embeddings_layernorm`, a LayerNorm with its own weight and bias, to `word_embeddings`' output before the first block. `token_embeddings` is the raw embedding row; `layers[0].input` is its normed form, so the first block never sees the embedding matrix's scale, and a vector added to `token_embeddings` passes through that LayerNorm with the embedding, which recentres and rescales the sum (add it to `layers[0].input` to reach the stream as written). The head is tied to the raw `word_embeddings`, not to the normed rows.

```python
with model.trace(prompt):
    tokens = model.token_embeddings.save()
    x = model.layers[0].input.save()

norm = model._module.transformer.word_embeddings_layernorm
assert isinstance(norm, torch.nn.LayerNorm) and norm.bias is not None
assert torch.equal(norm(tokens), x)
assert model.lm_head.weight is model.embed_tokens.weight
```

## The attention and the MLP add the residual themselves: their outputs are the stream

`self_attention(ln(x), residual)` ends with `dropout_add(output, residual)` and returns the stream after the add, and so does `mlp(ln(h), residual)`. A hook on the native `self_attention`'s output reads `layer_mid`, `x + attn`, and one on `mlp`'s output reads the block's output: not what the sublayer contributes. nnterp's `attention_output` and `mlp_output` are the branches handed to `dropout_add` (`dense`'s and `dense_4h_to_h`'s outputs), which is what a block adds to its stream; zeroing `attention_output` removes the attention's contribution, zeroing the native module's output zeroes the stream.

```python
attention = model.layers[0].self_attn
with model.trace(prompt):
    x = model.layers[0].layer_input.save()
    attn = attention.attention_output.save()
    native = attention.output.save()
    mid = model.layers[0].layer_mid.save()
    mlp = model.layers[0].mlp.mlp_output.save()
    mlp_native = model.layers[0].mlp.output.save()
    out = model.layers[0].layer_output.save()

assert torch.equal(native[0], mid) and torch.equal(x + attn, mid)
assert torch.equal(mlp_native, out) and torch.equal(mid + mlp, out)
```

## The MLP is 4 × hidden with BLOOM's own tanh GELU

`BloomMLP` builds `dense_h_to_4h` and `dense_4h_to_h` at exactly `4 * hidden_size`: the config has no `intermediate_size` to change it. The activation, `gelu_impl`, is `bloom_gelu_forward`, `x · 0.5 · (1 + tanh(0.79788456 · x · (1 + 0.044715 · x²)))`, the tanh approximation with the constant √(2/π) rounded to 8 digits, behind a custom autograd function whose backward is written by hand. `mlp_activation` is that function of `dense_h_to_4h`'s output, bit for bit, and is not `torch.nn.functional.gelu` of it.

```python
mlp = model.layers[0].mlp
with model.trace(prompt):
    h = model.layers[0].mlp_norm_output.save()
    act = mlp.mlp_activation.save()

assert mlp.up_proj.out_features == 4 * model.hidden_size
u = mlp.up_proj(h)
assert torch.equal(u * 0.5 * (1.0 + torch.tanh(0.79788456 * u * (1 + 0.044715 * u * u))), act)
assert not torch.allclose(torch.nn.functional.gelu(u), act, rtol=0, atol=1e-7)
```

## `pretraining_tp` changes nothing, unless `slow_but_exact` is set, and then the biases go

`pretraining_tp` records the tensor parallelism of the training run; BLOOM-560M's config.json sets it to 1 and `slow_but_exact` to false. The sliced path runs only when both `pretraining_tp > 1` and `slow_but_exact` hold: it replaces `dense` and `dense_4h_to_h` by a sum of `F.linear` calls over slices of their weights, and passes no bias, so a model loaded with `slow_but_exact=True` drops both output projections' biases (`attention_output` is `premix @ dense.weight.T`, `dense`'s bias never added). As released, the plain Linears run, biases included. The snippet builds a tiny BLOOM with the sliced path on to show it.

```python
from nnterp import tiny

assert released("bigscience/bloom-560m")["pretraining_tp"] == 1 and released("bigscience/bloom-560m")["slow_but_exact"] is False
unsliced = tiny.load("bloom", pretraining_tp=4)                          # without slow_but_exact: the Linear runs
with unsliced.trace(prompt):
    premix = unsliced.layers[0].self_attn.attention_premix.save()
    attn = unsliced.layers[0].self_attn.attention_output.save()
torch.testing.assert_close(unsliced.layers[0].self_attn._module.dense(premix.flatten(-2)), attn)

sliced = tiny.load("bloom", pretraining_tp=2, slow_but_exact=True)
attention = sliced.layers[0].self_attn
with sliced.trace(prompt):
    premix = attention.attention_premix.save()
    attn = attention.attention_output.save()

dense = attention._module.dense
torch.testing.assert_close(premix.flatten(-2) @ dense.weight.T, attn)     # no bias
assert not torch.allclose(dense(premix.flatten(-2)), attn)

with model.trace(prompt):                                                # as released: the Linear, bias included
    premix = model.layers[0].self_attn.attention_premix.save()
    attn = model.layers[0].self_attn.attention_output.save()
torch.testing.assert_close(model.layers[0].self_attn._module.dense(premix.flatten(-2)), attn)
```
## One attention code path: no sdpa, and the interior is always served

BLOOM's attention is its own code, with no `attention_interface` to switch: transformers refuses `attn_implementation="sdpa"` for it at load time, and every load runs the same `baddbmm`, softmax (in float32, cast back to the model's dtype) and `bmm`, so `attention_scores` and `attention_probabilities` are served under the default load. The heads are folded into the batch inside the module (`[batch · heads, seq, head_dim]` for the `bmm`); nnterp serves `attention_head_outputs` unfolded, `[batch, seq, heads, head_dim]`, as the pattern times the values.

```python
from nnterp import tiny

try:
    tiny.load("bloom", attn_implementation="sdpa")
except ValueError as error:
    assert "scaled_dot_product_attention" in str(error)
else:
    raise AssertionError("an sdpa load was accepted")
default = tiny.load("bloom")
assert default.config._attn_implementation == "eager" and default.serves("attention_probabilities", 0) is None

attention = model.layers[0].self_attn
with model.trace(prompt):
    p = attention.attention_probabilities.save()
    v = attention.attention_values.save()
    heads = attention.attention_head_outputs.save()
assert heads.shape == (1, p.shape[-1], model.num_heads, model.head_dim)
torch.testing.assert_close((p @ v).transpose(1, 2), heads)
```
'''
