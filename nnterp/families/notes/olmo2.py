"""Notes of OLMo 2 written by hand, added to the derived ones. Read against transformers' modeling_olmo2.py
(Olmo2DecoderLayer.forward, Olmo2Attention, Olmo2RMSNorm); the checkpoint numbers are OLMo-2-7B's config.json's, as
the family module records them. The derived rotary note (which gave the class's default base for a checkpoint
whose recorded facts have no rope_theta) and the derived q/k-norm note are replaced by the notes below."""

DROP = ("rotary_note", "qk_norm_note")

MORE = r'''
## The post-norms undo any scaling inside a sublayer

`h = x + post_attention_layernorm(self_attn(x))` and `out = h + post_feedforward_layernorm(mlp(h))`: what a sublayer adds to the stream is an RMSNorm of its output, so its size is set by the norm's weight, not by the sublayer. The native `self_attn.output[0]` is `o_proj`'s output before that norm, and `x + self_attn.output[0]` is not `layer_mid`; `attention_output` and `mlp_output` are the post-norms' outputs, what the stream receives. An edit that multiplies `o_proj`'s output (or one head's `attention_head_outputs`, or `down_proj`'s output) by a positive factor is normalized away: the block's output changes only through `rms_norm_eps`, 1e-6 on OLMo-2-7B, negligible once the mean square exceeds it. Scale `attention_output` or `mlp_output` to change what the block writes. The snippet uses a tiny model with eps 1e-12: its random weights give outputs small enough for the class's default eps, 1e-5, to matter:

```python
from nnterp import tiny

assert released("allenai/OLMo-2-1124-7B")["rms_norm_eps"] == 1e-06
small = tiny.load("olmo2", rms_norm_eps=1e-12)
block = small.layers[1]._module
with small.trace(prompt):
    x = small.layers[1].layer_input.save()
    native = small.layers[1].self_attn.output[0].save()
    attn = small.layers[1].self_attn.attention_output.save()
    mid = small.layers[1].layer_mid.save()
    out = small.layers[1].layer_output.save()
torch.testing.assert_close(block.post_attention_layernorm(native), attn)
assert not torch.allclose(x + native, mid)

with small.trace(prompt):
    small.layers[1].self_attn.o_proj.output[:] = small.layers[1].self_attn.o_proj.output * 3
    out_inside = small.layers[1].layer_output.save()
with small.trace(prompt):
    small.layers[1].self_attn.attention_output[:] = small.layers[1].self_attn.attention_output * 3
    out_after = small.layers[1].layer_output.save()

torch.testing.assert_close(out_inside, out)                  # x 3 inside the attention: undone
assert (out_after - out).abs().max() > 1e-2                  # x 3 on attention_output: the stream changes
```

## A head's write is divided by the RMS of all heads together

`attention_output` is `post_attention_layernorm.weight ⊙ Σₕ oₕ / rms(Σₕ oₕ)`, with `oₕ` head h's `attention_head_outputs` through its columns of `o_proj`. It is still a sum of per-head terms, but they share one divisor, the RMS of their sum: head h's contribution to the stream is `weight ⊙ oₕ / rms(Σ o)`, not a function of head h alone. Ablating one head rescales every other head's contribution; direct attribution per head must divide by the whole sum's RMS, as a logit lens divides by the final norm's.

```python
with model.trace(prompt):
    heads = model.layers[1].self_attn.attention_head_outputs.save()
    attn = model.layers[1].self_attn.attention_output.save()

block = model.layers[1]._module
w, eps, d = block.self_attn.o_proj.weight, block.post_attention_layernorm.variance_epsilon, model.head_dim
terms = torch.stack([heads[0, :, h] @ w[:, h * d:(h + 1) * d].T for h in range(model.num_heads)])
shared = (terms.sum(0).pow(2).mean(-1, keepdim=True) + eps).rsqrt()
per_head = block.post_attention_layernorm.weight * terms * shared
torch.testing.assert_close(per_head.sum(0), attn[0])
alone = (terms.pow(2).mean(-1, keepdim=True) + eps).rsqrt()      # each head normed on its own: another sum
assert not torch.allclose((block.post_attention_layernorm.weight * terms * alone).sum(0), attn[0], atol=1e-3)
```

## `q_norm` and `k_norm` normalize all heads at once, so heads are coupled

`q_norm` is an RMSNorm of width `num_heads · head_dim` (4096 on OLMo-2-7B), applied to `q_proj`'s whole output before it is split into heads; `k_norm` likewise over `num_key_value_heads · head_dim`. The RMS is taken over every head together: one head's query is divided by a number every other head's projection contributes to, and its own norm is not fixed. An edit of one head's rows of `q_proj` changes the other heads' queries. Olmo2 differs here from Qwen3 and Gemma 3, whose q/k norms are per head over `head_dim`. `attention_queries` and `attention_keys` are after the norm and the rotary.

```python
from nnterp import tiny

facts = released("allenai/OLMo-2-1124-7B")
assert (facts["hidden_size"], facts["num_attention_heads"], facts["num_key_value_heads"]) == (4096, 32, 32)
qwen3 = tiny.load("qwen3").layers[0].self_attn
assert qwen3.q_norm.weight.shape[0] == qwen3.head_dim                    # Qwen3: per head
gemma3 = tiny.load("gemma3_text")
assert gemma3.layers[0].self_attn.q_norm.weight.shape[0] == gemma3.head_dim   # Gemma 3: per head
attention = model.layers[1].self_attn
assert attention.q_norm.weight.shape[0] == model.num_heads * model.head_dim
with model.trace(prompt):
    raw = attention.source.self_q_proj_0.output.save()
    normed = attention.source.self_q_norm_0.output.save()
torch.testing.assert_close(attention.q_norm(raw), normed)
b, s, _ = raw.shape
per_head = torch.nn.functional.rms_norm(raw.view(b, s, model.num_heads, -1), (model.head_dim,),
                                        eps=attention.q_norm.variance_epsilon)
per_head = per_head.reshape(b, s, -1) * attention.q_norm.weight
assert not torch.allclose(per_head, normed, atol=1e-3)      # a per-head norm would be another model

d = model.head_dim
with model.trace(prompt):
    attention.source.self_q_proj_0.output[..., :d] *= 5      # head 0's rows only
    q_edited = attention.source.self_q_norm_0.output.save()
assert not torch.allclose(q_edited[..., d:2 * d], normed[..., d:2 * d])   # head 1 moved
```

## Rotary at base 500000: half of each head's pairs turn less than once over the context

OLMo-2-7B's config.json sets `rope_theta` 500000, `rope_scaling` null and `max_position_embeddings` 4096, with heads of 4096 / 32 = 128: rotary turns all 128 dimensions, in 64 pairs (`rotate_half`, pairing i with i + 64), pair i at frequency 500000^(-2i/128). At that base, 32 of the 64 pairs have a wavelength over 4096 positions, so across the whole context they turn less than one full turn, and the slowest turns 0.010 radians in 4096 positions: those dimensions carry little position within a context and act almost as unrotated. (OLMo-2-1B's recorded facts have no `rope_theta`, so this page gives no base for it.)

```python
import math
from nnterp import tiny

facts = released("allenai/OLMo-2-1124-7B")
assert (facts["rope_theta"], facts["rope_scaling"], facts["max_position_embeddings"]) == (500000, None, 4096)
d = facts["hidden_size"] // facts["num_attention_heads"]
wavelength = [2 * math.pi * facts["rope_theta"] ** (2 * i / d) for i in range(d // 2)]
assert d == 128 and sum(w > 4096 for w in wavelength) == 32
assert round(4096 * 2 * math.pi / wavelength[-1], 3) == 0.010

small = tiny.load("olmo2", rope_parameters={"rope_type": "default", "rope_theta": 500000.0})
inv_freq = small.model.rotary_emb.inv_freq
expected = 1.0 / 500000.0 ** (torch.arange(0, small.head_dim, 2, dtype=torch.float32) / small.head_dim)
torch.testing.assert_close(inv_freq, expected)
```

## Olmo2RMSNorm multiplies by its weight in float32, then rounds

`Olmo2RMSNorm` normalizes in float32 and returns `(weight * x_normed).to(input_dtype)`: the product is taken in float32 and rounded once. Llama's RMSNorm rounds `x_normed` to the input dtype first and multiplies after. In float32 the two agree; under a bfloat16 load they differ by one step on many entries, and every norm of the block (`q_norm`, `k_norm`, both post-norms, the final `norm`) is of this kind. A reimplementation or a hand-applied norm must multiply before rounding to match `attention_output` bit for bit.

```python
from nnterp import tiny

half = tiny.load("olmo2", dtype=torch.bfloat16)
norm = half.layers[0]._module.post_attention_layernorm
with half.trace(prompt):
    native = half.layers[0].self_attn.output[0].save()
    attn = half.layers[0].self_attn.attention_output.save()

x = native.float()
x_normed = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + norm.variance_epsilon)
assert torch.equal(attn, (norm.weight * x_normed).to(torch.bfloat16))
llama = norm.weight * x_normed.to(torch.bfloat16)                            # Llama's order
gap = (llama.float() - attn.float()).abs()
assert (gap > 0).float().mean() > 0.1 and (gap <= torch.finfo(torch.bfloat16).eps * attn.float().abs()).all()
```

## No norm stands before either sublayer

The attention reads `layers[i].input` and the MLP reads `layer_mid`, both raw: `attention_norm_output` and `mlp_norm_output` are refused, and the first norm a block's input meets is `q_norm` and `k_norm`, inside the attention. The values are not normed at all: `v_proj` reads the raw stream. A steering vector added to the stream enters the next block's `v_proj` and MLP at full size, where a Llama block would divide it by the stream's RMS first; the block's write is then normed again on the way out.

```python
with model.trace(prompt):
    x = model.layers[1].layer_input.save()
    attn_in = model.layers[1].self_attn.input.save()
    v_raw = model.layers[1].self_attn.source.self_v_proj_0.output.save()
    mid = model.layers[1].layer_mid.save()
    mlp_in = model.layers[1].mlp.input.save()

assert torch.equal(attn_in, x) and torch.equal(mlp_in, mid)
torch.testing.assert_close(v_raw, model.layers[1].self_attn.v_proj(x))
assert model.serves("attention_norm_output", 1) is not None and model.serves("mlp_norm_output", 1) is not None
```
'''
