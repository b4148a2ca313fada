"""Notes of Qwen2 and Qwen2.5 written by hand, added to the derived ones. Read against transformers'
modeling_qwen2.py (biased q_proj, k_proj, v_proj, unbiased o_proj; rotary after the projections; each layer's
sliding_window from config.layer_types) and configuration_qwen2.py (__post_init__ sets sliding_window to None
unless use_sliding_window, and marks sliding the layers from max_window_layers on); the snippets run on the
family's tiny model."""

MORE = r'''
## The sliding window is off on the released configs, whatever `sliding_window` says

Qwen2.5-0.5B's config.json carries `sliding_window` 32768 and Qwen2-0.5B's 131072, each equal to its context, but both set `use_sliding_window` false, and `Qwen2Config.__post_init__` then replaces `sliding_window` with None: the loaded config reads `sliding_window = None` and every entry of `layer_types` is `full_attention`. The number in the file is never used. Even switched on, it would change nothing on these two: the window would apply only to the layers from `max_window_layers` (24) on, and both have 24 layers.

```python
from transformers import Qwen2Config

for repo, window in (("Qwen/Qwen2.5-0.5B", 32768), ("Qwen/Qwen2-0.5B", 131072)):
    facts = released(repo)
    assert facts["use_sliding_window"] is False and facts["sliding_window"] == facts["max_position_embeddings"] == window
    loaded = Qwen2Config(**facts)
    assert loaded.sliding_window is None and set(loaded.layer_types) == {"full_attention"}
    switched_on = Qwen2Config(**{**facts, "use_sliding_window": True})
    assert facts["max_window_layers"] == facts["num_hidden_layers"] == 24
    assert set(switched_on.layer_types) == {"full_attention"}     # no layer from 24 on: none slides
```

## With the window on, only the layers from `max_window_layers` up slide

The name reads like a count of windowed layers; it is the opposite. Layer i slides when `use_sliding_window` is set and i ≥ `max_window_layers`: the bottom `max_window_layers` layers attend over the whole context and the top ones within the window. The attention of each layer takes its own `sliding_window` (None on full layers), and the model builds one mask per layer type. On the tiny model (2 layers) with the window on, `max_window_layers` 1 and a window of 2, block 0 attends to every earlier key and block 1 only to the last two:

```python
from nnterp import tiny

top = tiny.load("qwen2", attn_implementation="eager", use_sliding_window=True, sliding_window=2, max_window_layers=1)
assert top.config.layer_types == ["full_attention", "sliding_attention"]
with top.trace(prompt):
    bottom_probs = top.layers[0].self_attn.attention_probabilities.save()
    top_probs = top.layers[1].self_attn.attention_probabilities.save()
n = top_probs.shape[-1]
i, j = torch.meshgrid(torch.arange(n), torch.arange(n), indexing="ij")
assert (bottom_probs[..., j <= i] > 0).all()                 # block 0: full
assert (top_probs[..., i - j >= 2] == 0).all()               # block 1: windowed
```

## The value bias is a constant in every attention output

`q_proj`, `k_proj` and `v_proj` have biases and `o_proj` has none. Each row of the pattern sums to one, so `v_proj`'s bias passes through the attention unchanged: every head's output is its pattern applied to the unbiased values, plus that head's bias. `o_proj` then maps the concatenated biases to one fixed vector, `o_proj.weight @ v_proj.bias` (with the bias repeated for each group of query heads), added to `attention_output` at every position of every input. An attention output's direction or norm includes it; subtract it to compare what heads wrote.

```python
attention = model.layers[0].self_attn
assert all(getattr(attention, name).bias is not None for name in ("q_proj", "k_proj", "v_proj"))
assert attention.o_proj.bias is None
with model.trace(prompt):
    v = attention.attention_values.save()
    p = attention.attention_probabilities.save()
    heads = attention.attention_head_outputs.save()

group = model.num_heads // model.num_kv_heads
bias = attention.v_proj.bias.view(model.num_kv_heads, 1, model.head_dim)
unbiased = (p @ (v - bias).repeat_interleave(group, dim=1)).transpose(1, 2)
per_head_bias = bias.repeat_interleave(group, dim=0).view(model.num_heads, model.head_dim)
torch.testing.assert_close(heads, unbiased + per_head_bias)          # head output = pattern · values + bias
constant = attention.o_proj.weight @ per_head_bias.reshape(-1)
torch.testing.assert_close(attention.o_proj(heads.flatten(-2)), attention.o_proj(unbiased.flatten(-2)) + constant)
```

## The key bias does not cancel in the softmax, because the rotary turns it

A bias added to every key adds q·b to every score in a query's row, which a softmax ignores; without position encoding `k_proj`'s bias would do nothing. Here the rotary is applied after the projection, so the bias that reaches key position j is R_j(b), turned by j's angle, and q·R_j(b) differs from key to key: the key bias moves the pattern. `attention_keys` are read after the rotary, bias included; the bias's share of each score is q · R_j(b) times the scale:

```python
from transformers.models.qwen2.modeling_qwen2 import apply_rotary_pos_emb

attention = model.layers[0].self_attn
with model.trace(prompt):
    q = attention.attention_queries.save()
    k = attention.attention_keys.save()
    x = model.layers[0].attention_norm_output.save()

n = q.shape[2]
cos, sin = model._module.model.rotary_emb(x, torch.arange(n)[None])
b = attention.k_proj.bias.view(1, model.num_kv_heads, 1, model.head_dim).expand(1, model.num_kv_heads, n, model.head_dim)
_, turned_bias = apply_rotary_pos_emb(b, b, cos, sin)              # R_j(b) at each key position j
k_raw = attention.k_proj(x).view(1, n, model.num_kv_heads, model.head_dim).transpose(1, 2)
_, again = apply_rotary_pos_emb(k_raw, k_raw, cos, sin)
torch.testing.assert_close(again, k)                                 # keys: rotary of the biased projection
share = q @ turned_bias.repeat_interleave(model.num_heads // model.num_kv_heads, 1).transpose(-1, -2)
row_spread = share[..., -1, :].amax(-1) - share[..., -1, :].amin(-1)
assert (row_spread > 1e-3).all()          # not constant along the keys: the bias shifts the pattern
```

## Qwen2.5's rotary base is 1,000,000, not the class's 10,000

Qwen2.5-0.5B and Qwen2-0.5B set `rope_theta` 1000000.0; `Qwen2Config`'s default is 10000. Frequency i of a head of d dimensions is base^(−2i/d), so a config built by hand without `rope_theta`, or a reimplementation that takes the class default, turns every frequency but the first faster than the checkpoint was trained with, by 100^(2i/d): the slowest, at Qwen2.5-0.5B's head_dim of 64, 100^(62/64) ≈ 87 times faster. Read the base from the checkpoint's config, not the class. On the tiny model (head_dim 16), loaded at each base:

```python
from transformers import Qwen2Config

assert released("Qwen/Qwen2.5-0.5B")["rope_theta"] == 1000000.0 == released("Qwen/Qwen2-0.5B")["rope_theta"]
assert Qwen2Config().rope_parameters["rope_theta"] == 10000.0
assert Qwen2Config(**released("Qwen/Qwen2.5-0.5B")).rope_parameters == {"rope_theta": 1000000.0, "rope_type": "default"}

from nnterp import tiny
inv_freq = {base: tiny.load("qwen2", rope_parameters={"rope_type": "default", "rope_theta": base})
            ._module.model.rotary_emb.inv_freq for base in (10000.0, 1000000.0)}
d = model.head_dim
ratio = inv_freq[10000.0] / inv_freq[1000000.0]
torch.testing.assert_close(ratio, 100.0 ** (torch.arange(0, d, 2) / d))
assert ratio[0] == 1 and round(100 ** (62 / 64)) == 87
```

## Qwen2.5-0.5B: 14 query heads over 2, and a quarter of the weights is the vocabulary

Qwen2.5-0.5B's config: 24 blocks, `hidden_size` 896, 14 attention heads of 896 / 14 = 64 over 2 key and value heads, so each key and value head serves 7 query heads; `intermediate_size` 4864; `vocab_size` 151936 with `tie_word_embeddings` true. Counted on the meta device, it has 494,032,768 parameters, and the one embedding matrix, 151936 × 896 = 136,134,656, is 27.6 % of them: a logit lens reads the same matrix the tokens enter through.

```python
from transformers import AutoModelForCausalLM, Qwen2Config

facts = released("Qwen/Qwen2.5-0.5B")
assert (facts["num_hidden_layers"], facts["hidden_size"], facts["intermediate_size"]) == (24, 896, 4864)
assert (facts["num_attention_heads"], facts["num_key_value_heads"], facts["vocab_size"]) == (14, 2, 151936)
assert facts["hidden_size"] // facts["num_attention_heads"] == 64 and facts["tie_word_embeddings"] is True
with torch.device("meta"):
    meta = AutoModelForCausalLM.from_config(Qwen2Config(**facts))
total = sum(p.numel() for p in meta.parameters())
assert meta.lm_head.weight is meta.model.embed_tokens.weight
assert total == 494032768 and meta.model.embed_tokens.weight.numel() == 151936 * 896 == 136134656
assert round(136134656 / total, 3) == 0.276
```
'''
