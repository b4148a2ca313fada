"""Notes of StableLM written by hand, added to the derived ones. Read against transformers' modeling_stablelm.py
(StableLmRotaryEmbedding's frequencies over the rotated width, StableLmAttention's split at rotary_ndims and
use_qkv_bias, StableLmLayerNormPerHead, StableLmDecoderLayer's use_parallel_residual) and configuration_stablelm.py.
The checkpoint numbers are StableLM 2 1.6B's and StableLM-3B-4E1T's config.json's as
nnterp/families/checkpoints/stablelm.json records them; the snippets run on the tiny StableLM (16-dimensional heads,
4 of them rotated)."""

LOAD = "eager"

MORE = r'''
## A quarter of each head turns, with the whole frequency range squeezed into it

`partial_rotary_factor` is 0.25 on StableLM 2 1.6B (heads of 2048 / 32 = 64: the first 16 dimensions turn) and on StableLM-3B-4E1T (heads of 2560 / 32 = 80: the first 20). `StableLmRotaryEmbedding` computes its frequencies over the rotated width, not the head: `1 / 10000^(2i / 16)` for the 8 pairs of the 1.6B, so they still run from one radian a token down to `10000^(−14/16)` = 3.2 × 10⁻⁴, the range a full 64-dimensional rotary spreads over 32 pairs. The rotated part is `rotate_half` within those 16 dimensions (i with i + 8). The other 48 dimensions of every query and key are the projection's output as it is: three quarters of each score is a content term that is the same at any distance.

```python
facts, three = released("stabilityai/stablelm-2-1_6b"), released("stabilityai/stablelm-3b-4e1t")
for f, rotated in ((facts, 16), (three, 20)):
    assert f["partial_rotary_factor"] == 0.25 and int(f["hidden_size"] // f["num_attention_heads"] * 0.25) == rotated
assert round(10000 ** (-14 / 16) * 1e4, 1) == 3.2

model.instrument()
attention = model.layers[0].self_attn
rot = model._module.model.layers[0].self_attn.rotary_ndims
assert rot == int(model.head_dim * model.config.rope_parameters["partial_rotary_factor"])
base = model.config.rope_parameters["rope_theta"]
torch.testing.assert_close(model._module.model.rotary_emb.inv_freq, 1.0 / base ** (torch.arange(0, rot, 2).float() / rot))
with model.trace(prompt):
    raw = attention.q_proj.output.save()
    q = attention.attention_queries.save()
b, s, _ = raw.shape
heads = raw.view(b, s, -1, model.head_dim).transpose(1, 2)
assert torch.equal(q[..., rot:], heads[..., rot:])                        # past rot: the projection itself
assert not torch.equal(q[..., 1:, :rot], heads[..., 1:, :rot])            # the first rot dimensions turn
```

## The key bias cancels in the softmax on the unrotated dimensions, not on the rotated ones

StableLM 2 1.6B sets `use_qkv_bias` (StableLM-3B-4E1T does not). A key bias `b` adds `q · b` to every score of a query. On the 48 unrotated dimensions that term is the same for every key, and the softmax removes it: those entries of `k_proj.bias` change no attention pattern at all. On the 16 rotated dimensions the bias is turned with the key's position, so it adds a term that depends on the distance between query and key: a learned positional preference, and the only part of the key bias that matters. The snippet gives the tiny model biases and zeroes each part in turn:

```python
from nnterp import tiny

assert released("stabilityai/stablelm-2-1_6b")["use_qkv_bias"] is True
assert released("stabilityai/stablelm-3b-4e1t")["use_qkv_bias"] is False
biased = tiny.load("stablelm", attn_implementation="eager", use_qkv_bias=True)
inner = biased._module.model.layers[0].self_attn
rot, d = inner.rotary_ndims, biased.head_dim
def probabilities():
    with biased.trace(prompt):
        probs = biased.layers[0].self_attn.attention_probabilities.save()
    return probs
original = inner.k_proj.bias.detach().clone()
probs = probabilities()
with torch.no_grad():
    inner.k_proj.bias.view(-1, d)[:, rot:] = 0
probs_unrotated_zeroed = probabilities()
with torch.no_grad():
    inner.k_proj.bias.copy_(original)
    inner.k_proj.bias.view(-1, d)[:, :rot] = 0
probs_rotated_zeroed = probabilities()
with torch.no_grad():
    inner.k_proj.bias.copy_(original)
assert original.view(-1, d)[:, rot:].abs().max() > 0.05
torch.testing.assert_close(probs_unrotated_zeroed, probs)                  # cancelled by the softmax
assert (probs_rotated_zeroed - probs).abs().max() > 1e-4                   # turned with the key: it counts
```

## The value bias is one constant write of every attention, whatever the input

With `use_qkv_bias`, every value carries `v_proj.bias`, and because a query's attention weights sum to one, each head's output is its weighted values plus that bias, unchanged: the attention writes `o_proj(b_v)` (`o_proj` has no bias) at every position, whatever the prompt. On StableLM 2 1.6B this constant is part of every block's `attention_output`; an attribution that splits the write per key position must put it aside, and an ablation that zeroes the pattern removes it too.

```python
from nnterp import tiny

biased = tiny.load("stablelm", attn_implementation="eager", use_qkv_bias=True)
attention = biased.layers[0].self_attn
inner = biased._module.model.layers[0].self_attn
with biased.trace(prompt):
    probs = attention.attention_probabilities.save()
    v = attention.attention_values.save()
    out = attention.attention_output.save()

group = biased.num_heads // biased.num_kv_heads
b_v = inner.v_proj.bias.view(biased.num_kv_heads, 1, biased.head_dim).repeat_interleave(group, 0)
content = probs @ (v.repeat_interleave(group, 1) - b_v)                    # the values without their bias
constant = inner.o_proj(b_v.squeeze(1).flatten()[None, None])
assert inner.o_proj.bias is None
torch.testing.assert_close(inner.o_proj(content.transpose(1, 2).flatten(2)) + constant, out)
assert constant.abs().max() > 1e-3
```

## The norms have biases, so a logit lens adds one vector whatever the input

`input_layernorm`, `post_attention_layernorm` and the final `norm` are `nn.LayerNorm`s with a weight and a bias. Through the final norm and `lm_head`, a logit lens at any block adds `lm_head.weight @ norm.bias` to the logits of every position and every input, the readout of the zero vector. It is part of the model's own logits too, but in an early-block lens it can dominate the ranking of tokens that the stream itself says little about. StableLM-3B-4E1T's `lm_head` is its own matrix (`tie_word_embeddings` false).

```python
assert released("stabilityai/stablelm-3b-4e1t")["tie_word_embeddings"] is False
assert model.norm.bias is not None and model.layers[0].input_layernorm.bias is not None
constant = model.lm_head.weight @ model.norm.bias
zero = torch.zeros(1, 1, model.hidden_size)
torch.testing.assert_close(model.project_on_vocab(zero)[0, 0], constant)
with model.trace(prompt):
    last = model.layers[-1].layer_output.save()
    logits = model.logits.save()
normed = torch.nn.functional.layer_norm(last, (model.hidden_size,), model.norm.weight, None, model.norm.eps)
torch.testing.assert_close(normed @ model.lm_head.weight.T + constant, logits)
```

## One flag decides the block: `use_parallel_residual`

`StableLmDecoderLayer` builds two different blocks from one class. With `use_parallel_residual` false (StableLM 2 1.6B and StableLM-3B-4E1T leave it unset, the class default), the block is Llama's: `h = x + attn(ln1(x))`, `out = h + mlp(ln2(h))`, and `layer_mid` is the stream between. With it true, there is no `post_attention_layernorm`: `input_layernorm`'s output feeds both sublayers, `out = x + attn + mlp`, `layer_mid` is refused, and the MLP never sees its own block's attention. Code written against one StableLM checkpoint's block reads the other's wrongly; check the flag.

```python
from nnterp import tiny

for repo in ("stabilityai/stablelm-2-1_6b", "stabilityai/stablelm-3b-4e1t"):
    assert "use_parallel_residual" not in released(repo)
assert model.config.use_parallel_residual is False and model.serves("layer_mid", 0) is None
parallel = tiny.load("stablelm", attn_implementation="eager", use_parallel_residual=True)
assert "post_attention_layernorm" not in dict(parallel._module.model.layers[0].named_children())
assert parallel.serves("layer_mid", 0) is not None
with parallel.trace(prompt):
    x = parallel.layers[0].layer_input.save()
    normed = parallel.layers[0].attention_norm_output.save()
    attn = parallel.layers[0].self_attn.attention_output.save()
    mlp_in = parallel.layers[0].mlp.input.save()
    mlp = parallel.layers[0].mlp.mlp_output.save()
    out = parallel.layers[0].layer_output.save()
assert torch.equal(mlp_in, normed)
torch.testing.assert_close(x + attn + mlp, out)
```

## `qk_layernorm` is one separate LayerNorm per head, with no bias

With `qk_layernorm` (set on the parallel StableLM 2 configurations, not on the two recorded here), `q_layernorm` and `k_layernorm` are `StableLmLayerNormPerHead`s: a list of `num_heads` (or `num_key_value_heads`) `nn.LayerNorm`s over `head_dim`, each with its own weight and no bias, applied to its head's slice before the rotary. Each head's query has its mean removed and its own gain, unlike Qwen3's shared per-head RMSNorm. The weights are `q_layernorm.norms[h].weight`, not one [heads, head_dim] tensor.

```python
from nnterp import tiny

for repo in ("stabilityai/stablelm-2-1_6b", "stabilityai/stablelm-3b-4e1t"):
    assert "qk_layernorm" not in released(repo)
normed = tiny.load("stablelm", attn_implementation="eager", qk_layernorm=True)
inner = normed._module.model.layers[0].self_attn
assert len(inner.q_layernorm.norms) == normed.num_heads and len(inner.k_layernorm.norms) == normed.num_kv_heads
assert all(n.bias is None and n.weight.shape == (normed.head_dim,) for n in inner.q_layernorm.norms)
with torch.no_grad():
    for h, norm in enumerate(inner.q_layernorm.norms):
        norm.weight.fill_(h + 1.0)                                          # a different gain per head
normed.instrument()
with normed.trace(prompt):
    raw = normed.layers[0].self_attn.q_proj.output.save()
    q = normed.layers[0].self_attn.attention_queries.save()
b, s, _ = raw.shape
heads = raw.view(b, s, -1, normed.head_dim).transpose(1, 2)
unit = torch.nn.functional.layer_norm(heads, (normed.head_dim,), eps=normed.config.layer_norm_eps)
gains = torch.arange(1.0, normed.num_heads + 1)[None, :, None, None]
rot = inner.rotary_ndims
torch.testing.assert_close(q[..., rot:], unit[..., rot:] * gains)          # past the rotary: each head's own gain
```
'''
