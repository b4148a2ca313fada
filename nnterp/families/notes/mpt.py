"""Notes of MPT written by hand, added to the derived ones. Read against transformers' modeling_mpt.py
(build_mpt_alibi_tensor, MptAttention, MptMLP's forward, MptBlock, MptModel.forward) and configuration_mpt.py
(MptConfig, MptAttentionConfig). nnterp/families/checkpoints/mpt.json records no source for its MPT-7B facts,
so these notes state what the class and the modeling code do, labelled as such, and quote no checkpoint's
number. The snippets run on the tiny MPT."""

LOAD = "eager"

MORE = r'''
## ALiBi is measured from the last key, not from the query: each row of `attention_scores` is shifted by a constant

`build_mpt_alibi_tensor` gives head h the bias slope_h · (j − (L − 1)) for key j, the same in every query row, and the attention slices its last columns for the keys it has: on a prompt of n tokens, key j gets slope_h · (j − (n − 1)), whatever the query. The paper's ALiBi is −slope_h · (i − j), which differs from it by slope_h · (n − 1 − i), a constant along each row; the softmax ignores it, so `attention_probabilities` are ALiBi's, but `attention_scores` are not: comparing the scores of two queries, or reading a score as "content plus distance penalty", carries that offset. The snippet recovers the bias from the scores:

```python
attention = model.layers[0].self_attn
with model.trace(prompt):
    q = attention.attention_queries.save()
    k = attention.attention_keys.save()
    scores = attention.attention_scores.save()
    probs = attention.attention_probabilities.save()

n, heads = scores.shape[-1], model.num_heads
slopes = 1.0 / 2 ** (torch.arange(1, heads + 1).float() * model.config.attn_config.alibi_bias_max / heads)
from_last = slopes[:, None, None] * (torch.arange(n) - (n - 1)).float()                  # [heads, 1, key]
textbook = -slopes[:, None, None] * (torch.arange(n)[:, None] - torch.arange(n)[None]).float()
live = scores > torch.finfo(scores.dtype).min / 2
content = q @ k.transpose(-1, -2) * attention._module.softmax_scale
torch.testing.assert_close(scores[live], (content + from_last.expand_as(content))[live])
textbook_probs = (content + textbook).masked_fill(~live, float("-inf")).softmax(-1)
torch.testing.assert_close(probs, textbook_probs)
assert not torch.allclose(scores[live], (content + textbook.expand_as(content))[live])
```

## The slopes are 2^(−8(h + 1)/n), interleaved when the head count is not a power of two

With `alibi_bias_max` 8 (the class's default), head h of n heads has slope 2^(−8(h + 1)/n) when n is a power of two: the first head's penalty grows fastest with distance and the last head's slowest, 1/256 of a logit per token for any power of two. When n is not a power of two, the slopes are those of the next power of two, odd positions first and then even ones, cut to n: with 12 heads, the slopes of 16 heads at positions 1, 3, …, 15, then 0, 2, 4, 6. Reading a head's distance preference by its index means using this order.

```python
from transformers.models.mpt.modeling_mpt import build_mpt_alibi_tensor

def slopes(n):
    bias = build_mpt_alibi_tensor(n, 2, alibi_bias_max=8)        # keys 0 and 1: the bias at key 0 is -slope
    return -bias[:, 0, 0]

torch.testing.assert_close(slopes(32), 2.0 ** (-8 * torch.arange(1, 33).float() / 32))
assert slopes(32)[-1].item() == slopes(8)[-1].item() == 1 / 256
sixteen = 2.0 ** (-8 * torch.arange(1, 17).float() / 16)
torch.testing.assert_close(slopes(12), torch.cat((sixteen[1::2], sixteen[0::2]))[:12])
```

## ALiBi is always on, and nothing else carries position: `alibi` and `learned_pos_emb` are not read

`MptModel.forward` builds the ALiBi tensor and passes it to every block unconditionally; `attn_config.alibi` (true by the class's default) is never read, and neither is `learned_pos_emb`: the model has no position-embedding module, whatever the config says. A config with `alibi` false computes exactly the same model. Position reaches the stream only through the scores' bias, so `token_embeddings` at two positions holding the same token are identical.

```python
from nnterp import tiny

plain = tiny.load("mpt", attn_config={"alibi": False}, learned_pos_emb=True)
assert plain.config.attn_config.alibi is False
plain._module.load_state_dict(model._module.state_dict())
with model.trace(prompt):
    logits = model.logits.save()
with plain.trace(prompt):
    logits_plain = plain.logits.save()
assert torch.equal(logits, logits_plain)
assert not any("wpe" in name or "pos" in name for name, _ in model._module.named_modules())

with model.trace("The cat saw the dog and the cat"):
    ids = model.input_ids.save()
    embedded = model.token_embeddings.save()
twice = [j for j in range(ids.shape[1]) if ids[0, j] == ids[0, -1]]       # " cat" at two positions
assert len(twice) == 2 and torch.equal(embedded[0, twice[0]], embedded[0, twice[1]])
```

## `clip_qkv` clamps queries, keys and values alike, before they are split

When `attn_config.clip_qkv` is set (the class's default is None), the attention clamps `Wqkv`'s fused output to ±clip_qkv before cutting it into queries, keys and values: all three are bounded, the values included, so no head's output entry exceeds clip_qkv in size (a head mixes its values with weights summing to one). `attention_queries`, `attention_keys` and `attention_values` are read after the clamp, which a hook on `Wqkv`'s output does not see.

```python
from nnterp import tiny

clip = 0.05
clipped = tiny.load("mpt", attn_config={"clip_qkv": clip})
clipped.instrument()
attention = clipped.layers[0].self_attn
with clipped.trace(prompt):
    fused = attention.Wqkv.output.save()
    q = attention.attention_queries.save()
    k = attention.attention_keys.save()
    v = attention.attention_values.save()
    heads = attention.attention_head_outputs.save()

assert fused.abs().max() > clip                                          # the projection passes the bound
for value in (q, k, v):
    assert value.abs().max() <= clip and bool((value.abs() == clip).any())
assert heads.abs().max() <= clip * (1 + 1e-6)
```

## `no_bias` and `expansion_ratio` are not read: every Linear and norm is bias-free and the MLP is 4 × wide

transformers builds MPT's modules one way, whatever the config: `Wqkv`, `out_proj`, `up_proj` and `down_proj` without bias, `norm_1`, `norm_2` and `norm_f` as LayerNorms whose bias is removed, and the MLP 4 · hidden_size wide with exact-erf GELU. A config with `no_bias` false or another `expansion_ratio` (MPT's own code reads both) loads into the same layout, and a checkpoint that has biases or another width cannot load into it. The norms centre the stream (they are LayerNorms) and scale it by their weight, with nothing added:

```python
from nnterp import tiny

other = tiny.load("mpt", no_bias=False, expansion_ratio=2)
block = other.layers[0]
assert all(getattr(block.self_attn, name).bias is None for name in ("Wqkv", "out_proj"))
assert all(getattr(block.mlp, name).bias is None for name in ("up_proj", "down_proj"))
assert block.mlp.up_proj.weight.shape[0] == 4 * other.hidden_size
assert block._module.norm_1.bias is None

norm = model.layers[0]._module.norm_1
with model.trace(prompt):
    x = model.layers[0].layer_input.save()
    normed = model.layers[0].attention_norm_output.save()
torch.testing.assert_close(normed, torch.nn.functional.layer_norm(x, x.shape[-1:], norm.weight, None, norm.eps))
```

## The `ffn` module returns the stream, not what the MLP adds

`MptMLP.forward(hidden_states, residual)` adds the residual itself: `ffn`'s output is `residual + down_proj(...)`, the block's whole output. nnterp's `mlp_output` is `down_proj`'s output, what the MLP adds, and `model.layers[i].mlp.output` is `layer_output`. A hook placed on the MLP module's output, the usual place for "the MLP's contribution" (a TransformerLens-style `mlp_out`, an SAE trained on MLP outputs), reads the residual stream on MPT; zeroing it zeroes the stream.

```python
block = model.layers[0]
with model.trace(prompt):
    x = block.layer_input.save()
    attn = block.self_attn.attention_output.save()
    module_out = block.mlp.output.save()
    added = block.mlp.mlp_output.save()
    out = block.layer_output.save()

assert torch.equal(module_out, out)
torch.testing.assert_close(x + attn + added, out)
assert torch.equal(added, block.mlp.down_proj(block.mlp.act(block.mlp.up_proj(block._module.norm_2(x + attn)))))
```
'''
