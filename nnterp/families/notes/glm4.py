"""Notes of GLM-4 written by hand, added to the derived ones. Read against transformers' modeling_glm4.py:
Glm4DecoderLayer (post_self_attn_layernorm on the attention's output and post_mlp_layernorm on the MLP's, each
before its add; post_attention_layernorm the pre-MLP norm), apply_rotary_pos_emb (cos and sin cut to their first
half and repeated per pair, rotate_half on even/odd dimensions, the dimensions past rotary_dim passed through),
Glm4Attention (biased q/k/v under attention_bias, o_proj without bias) and Glm4MLP (gate_up_proj cut in halves).
Numbers quoted as a checkpoint's are asserted against its recorded config.json facts. The derived rotary and grouped
notes are replaced by the rotary and grouping notes here."""

DROP = ("rotary_note", "grouped_note")

MORE = r'''
## Each sublayer's output is RMS-normed before it is added: the contribution's scale is the post-norm's

GLM-4's block is a sandwich: `h = x + post_self_attn_layernorm(self_attn(input_layernorm(x)))`, then `out = h + post_mlp_layernorm(mlp(post_attention_layernorm(h)))`. `attention_output` and `mlp_output` are the post-norms' outputs, what the block adds, not `o_proj`'s and `down_proj`'s. An RMSNorm forgets the scale of its input: divided by the post-norm's weight, every position's contribution has an RMS of √(ms / (ms + eps)), 1 unless the raw output's mean square ms is near the eps, whatever the attention or the MLP computed. So scaling `o_proj`'s output (amplifying a head, a steering vector added before the post-norm, an ablation by a factor) changes nothing downstream beyond the eps's share; an edit before the post-norm changes only the contribution's direction, and its size is the post-norm weight's. Edit `attention_output` or `mlp_output` to change what the block adds.

```python
layer = model.layers[1]
with model.trace(prompt):
    o = layer.self_attn.o_proj.output.save()
    attn = layer.self_attn.attention_output.save()
    mid = layer.layer_mid.save()

post, eps = layer.post_self_attn_layernorm, layer.post_self_attn_layernorm.variance_epsilon
torch.testing.assert_close(post(o), attn)
ms = o.pow(2).mean(-1, keepdim=True)
rms = (attn / post.weight).pow(2).mean(-1, keepdim=True).sqrt()
torch.testing.assert_close(rms, (ms / (ms + eps)).sqrt())                 # 1, up to the eps

with model.trace(prompt):
    layer.self_attn.o_proj.output[:] = 10 * layer.self_attn.o_proj.output
    mid_scaled = layer.layer_mid.save()
# the post-norm undoes the factor: what is left is the eps's share and the add's rounding
bound = attn.abs() * eps / (2 * ms) + 2 * 2 ** -23 * mid.abs()
assert ((mid_scaled - mid).abs() <= bound).all()

with model.trace(prompt):
    layer.self_attn.attention_output[:] = 10 * layer.self_attn.attention_output
    mid_edited = layer.layer_mid.save()
assert not torch.allclose(mid_edited, mid)                  # after the post-norm it counts
```

## `post_attention_layernorm` is the MLP's pre-norm, not the attention's post-norm

The four norms of a block are `input_layernorm` (before the attention), `post_self_attn_layernorm` (on the attention's output), `post_attention_layernorm` (on the stream, before the MLP) and `post_mlp_layernorm` (on the MLP's output). `post_attention_layernorm` keeps Llama's meaning despite the sandwich around it: it normalizes `layer_mid`, the stream after the attention's add, into `mlp_norm_output`, which the MLP reads. Code that takes it for the attention's post-norm (as on Gemma 2, whose `post_attention_layernorm` is one) normalizes the wrong tensor.

```python
layer = model.layers[0]
with model.trace(prompt):
    x = layer.layer_input.save()
    attn = layer.self_attn.attention_output.save()
    mid = layer.layer_mid.save()
    h = layer.mlp_norm_output.save()
    mlp = layer.mlp.mlp_output.save()
    out = layer.layer_output.save()

assert torch.equal(x + attn, mid)
assert torch.equal(layer.post_attention_layernorm(mid), h)
assert torch.equal(layer.post_mlp_layernorm(layer.mlp._module(h)), mlp)          # the MLP reads h
assert torch.equal(mid + mlp, out)
```

## Rotary turns half of each head, in adjacent pairs

GLM-4-9B-0414 sets `partial_rotary_factor` 0.5 with a `head_dim` of 128: the rotary turns the first 64 dimensions of every query and key head and the last 64 carry no position, passed through as projected. The rotation is GLM's interleaved one, not Llama's halves: dimension 2i is paired with 2i + 1 and turned by the i-th frequency (`apply_rotary_pos_emb` keeps the first half of cos and sin and repeats each entry twice, and `rotate_half` here takes the even and odd dimensions). Recomputing the rotary with Llama's `rotate_half`, or rotating the whole head, gives other queries and keys. GLM-OCR, also in this family, sets `partial_rotary_factor` 1.0 in its `rope_parameters`: it turns all 128.

```python
facts = released("THUDM/GLM-4-9B-0414")
assert facts["partial_rotary_factor"] == 0.5 and facts["head_dim"] == 128
assert released("zai-org/GLM-OCR")["rope_parameters"]["partial_rotary_factor"] == 1.0

attention = model.layers[0].self_attn
with model.trace(prompt):
    q_raw = attention.q_proj.output.save()
with model.trace(prompt):
    q = attention.attention_queries.save()

b, n, _ = q_raw.shape
q_pre = q_raw.view(b, n, -1, model.head_dim).transpose(1, 2)
rot = int(model.head_dim * model.config.rope_parameters["partial_rotary_factor"])
assert torch.equal(q_pre[..., rot:], q[..., rot:])                       # no position past rot
angle = torch.arange(n)[:, None] * model._module.model.rotary_emb.inv_freq    # [n, rot / 2]
even, odd = q_pre[..., :rot:2], q_pre[..., 1:rot:2]
turned = torch.stack((even * angle.cos() - odd * angle.sin(), odd * angle.cos() + even * angle.sin()), -1).flatten(-2)
torch.testing.assert_close(turned, q[..., :rot])                         # pairs (2i, 2i + 1)
```

## q, k and v have biases and `o_proj` has none; the MLP's `gate_up_proj` is cut in halves

`attention_bias` is true on GLM-4-9B-0414, which gives `q_proj`, `k_proj` and `v_proj` a bias; `o_proj` is built with `bias=False` whatever the config says, and so are the MLP's two Linears. GLM-OCR sets `attention_bias` false. The MLP is one fused `gate_up_proj`, hidden → 2 · `intermediate_size` (4096 → 2 × 13696 on the 9B), whose first half is the gate and second half the up projection (`chunk(2)`, not interleaved columns): `mlp_activation` is silu of the first half, `mlp_neurons` that times the second half, what `down_proj` reads.

```python
assert released("THUDM/GLM-4-9B-0414")["attention_bias"] is True and released("zai-org/GLM-OCR")["attention_bias"] is False
assert released("THUDM/GLM-4-9B-0414")["intermediate_size"] == 13696
attention = model.layers[0].self_attn
assert all(getattr(attention, name).bias is not None for name in ("q_proj", "k_proj", "v_proj"))
assert attention.o_proj.bias is None

mlp = model.layers[0].mlp
with model.trace(prompt):
    h = model.layers[0].mlp_norm_output.save()
    act = mlp.mlp_activation.save()
    neurons = mlp.mlp_neurons.save()

fused = mlp.gate_up_proj
assert fused.out_features == 2 * model.config.intermediate_size and fused.bias is None
assert mlp.down_proj.bias is None
gate, up = fused(h).chunk(2, dim=-1)
assert torch.equal(torch.nn.functional.silu(gate), act)
assert torch.equal(act * up, neurons)
```

## 32 query heads share 2 key and value heads on GLM-4-9B-0414

GLM-4-9B-0414 has 32 query heads of 128 over `num_key_value_heads` 2: each key and value head serves 16 query heads, so `attention_keys` and `attention_values` carry 2 heads and a per-head analysis of keys finds only two. `q_proj` maps 4096 to 32 × 128 = 4096 and `k_proj` and `v_proj` to 2 × 128 = 256 each. Query head h reads key and value head h // 16. GLM-OCR groups less: 16 query heads over 8.

```python
facts = released("THUDM/GLM-4-9B-0414")
assert (facts["num_attention_heads"], facts["num_key_value_heads"], facts["head_dim"], facts["hidden_size"]) == (32, 2, 128, 4096)
ocr = released("zai-org/GLM-OCR")
assert (ocr["num_attention_heads"], ocr["num_key_value_heads"]) == (16, 8)

attention = model.layers[0].self_attn
with model.trace(prompt):
    k = attention.attention_keys.save()
    v = attention.attention_values.save()
    p = attention.attention_probabilities.save()
    heads = attention.attention_head_outputs.save()

group = model.num_heads // model.num_kv_heads
assert k.shape[1] == v.shape[1] == model.num_kv_heads
torch.testing.assert_close((p @ v.repeat_interleave(group, dim=1)).transpose(1, 2), heads)
```

## Per-head attribution goes through the post-norm: one factor per position, shared by the heads

`o_proj`'s output is the sum of the heads' pieces, head h's being its slice of `attention_head_outputs` times its columns of `o_proj.weight`, and `o_proj` has no bias. The post-norm then multiplies that sum by `weight / rms(sum)`: each position gets one factor, the same for all heads, set by the whole sum. A head's share of `attention_output` is its piece times that factor, and the shares add up to `attention_output`; but the factor depends on every head, so removing a head changes the others' shares, and a head's piece pushed through the post-norm alone (as a direct logit attribution would) is not its share. Zeroing `o_proj`'s whole output zeroes the contribution (0 / √eps is 0), but shrinking it by a factor c leaves c / √(c² + eps / ms) of it, about all of it until c² · ms falls near `rms_norm_eps` (1e-5 on GLM-4-9B-0414).

```python
attention = model.layers[1].self_attn
with model.trace(prompt):
    heads = attention.attention_head_outputs.save()          # [batch, seq, heads, head_dim]
    o = attention.o_proj.output.save()
    attn = attention.attention_output.save()

post = model.layers[1].post_self_attn_layernorm
d = model.head_dim
pieces = torch.stack([heads[:, :, h] @ attention.o_proj.weight[:, h * d:(h + 1) * d].T
                      for h in range(model.num_heads)], 2)
torch.testing.assert_close(pieces.sum(2), o)
factor = post.weight / (o.pow(2).mean(-1, keepdim=True) + post.variance_epsilon).sqrt()
shares = pieces * factor[:, :, None]
torch.testing.assert_close(shares.sum(2), attn)                          # the shares add up
assert not torch.allclose(post(pieces[:, :, 0]), shares[:, :, 0])       # one head alone through the norm differs
assert torch.equal(post(torch.zeros_like(o)), torch.zeros_like(o))
assert released("THUDM/GLM-4-9B-0414")["rms_norm_eps"] == 1e-05
```
'''
