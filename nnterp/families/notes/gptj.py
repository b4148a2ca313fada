"""Notes of GPT-J written by hand, added to the derived ones. Read against transformers' modeling_gptj.py
(create_sinusoidal_positions, GPTJRotaryEmbedding, rotate_every_two, apply_rotary_pos_emb, GPTJAttention's partial
rotation, eager_attention_forward's float32 product, GPTJBlock.forward); the numbers quoted as GPT-J 6B's are its
recorded config facts, and the snippets run on the tiny GPT-J (rotary_dim 8 of a 16-dimensional head)."""

LOAD = "eager"

MORE = r'''
## Rotary is interleaved, on the first `rotary_dim` dimensions: pairs (2i, 2i + 1), not (i, i + d/2)

`GPTJAttention` rotates the first `rotary_dim` dimensions of each query and key head, 64 of GPT-J 6B's 256, and passes the other 192 unchanged: three quarters of every query and key carry no position. The rotation is `rotate_every_two`: dimensions 2i and 2i + 1 turn together, by the angle `position · 10000 ** (-2i / rotary_dim)`, with sin and cos `repeat_interleave`d to match. Llama's `rotate_half` pairs i with i + `rotary_dim` / 2 instead; code written for it (a rotary undone to read the queries before it, a relative-position analysis, a port to a rotate_half kernel) mixes the wrong dimensions on GPT-J.

```python
facts = released("EleutherAI/gpt-j-6b")
assert facts["rotary_dim"] == 64 and facts["n_embd"] // facts["n_head"] == 256

attention = model.layers[0].self_attn
with model.trace(prompt):
    raw = attention.q_proj.output.save()
    q = attention.attention_queries.save()

b, s, _ = raw.shape
d, rot = model.head_dim, model.config.rotary_dim
raw = raw.view(b, s, model.num_heads, d).transpose(1, 2)
angle = torch.arange(s).float()[:, None] / 10000.0 ** (torch.arange(0, rot, 2).float() / rot)
sin, cos = angle.sin().repeat_interleave(2, -1), angle.cos().repeat_interleave(2, -1)
x = raw[..., :rot]
every_two = torch.stack((-x[..., 1::2], x[..., ::2]), dim=-1).flatten(-2)
torch.testing.assert_close(q[..., :rot], x * cos + every_two * sin)
assert torch.equal(q[..., rot:], raw[..., rot:])
half = torch.cat((-x[..., rot // 2:], x[..., :rot // 2]), -1)
assert not torch.allclose(q[..., :rot], x * torch.cat((angle.cos(), angle.cos()), -1) + half * torch.cat((angle.sin(), angle.sin()), -1), atol=1e-4)
```

## To hand GPT-J's queries and keys to rotate_half code, permute the rotated dimensions

The two conventions are the same rotation with the dimensions reordered: taking the even dimensions of the rotated part first and the odd ones after, `perm = [0, 2, 4, …, 1, 3, 5, …]`, turns GPT-J's interleaved pairs into rotate_half's split halves. Applied to the rows of `q_proj` and `k_proj` (within each head's first `rotary_dim` rows), it is how a GPT-J checkpoint is ported to a Llama-style rotary; applied to `attention_queries` and `attention_keys`, it gives tensors that rotate_half code can read. Scores are unchanged by the permutation, since queries and keys move together.

```python
attention = model.layers[0].self_attn
with model.trace(prompt):
    raw = attention.q_proj.output.save()
    q = attention.attention_queries.save()
    k = attention.attention_keys.save()
    scores = attention.attention_scores.save()

b, s, _ = raw.shape
d, rot = model.head_dim, model.config.rotary_dim
perm = torch.cat((torch.arange(0, rot, 2), torch.arange(1, rot, 2), torch.arange(rot, d)))
x = raw.view(b, s, model.num_heads, d).transpose(1, 2)[..., perm][..., :rot]
angle = torch.arange(s).float()[:, None] / 10000.0 ** (torch.arange(0, rot, 2).float() / rot)
cos, sin = torch.cat((angle, angle), -1).cos(), torch.cat((angle, angle), -1).sin()
rotate_half = x * cos + torch.cat((-x[..., rot // 2:], x[..., :rot // 2]), -1) * sin
torch.testing.assert_close(q[..., perm][..., :rot], rotate_half)
live = scores > torch.finfo(scores.dtype).min / 2
torch.testing.assert_close((q[..., perm] @ k[..., perm].transpose(-1, -2) * attention.scaling)[live], scores[live])
```

## The only positions are a fixed table of `n_positions` sines and cosines, stored sin first

GPT-J has no position embedding matrix: `GPTJRotaryEmbedding.embed_positions` is a buffer built at load (not stored in the checkpoint), `n_positions` rows (2048 on GPT-J 6B) of `rotary_dim` entries, the sines of the `rotary_dim / 2` angles followed by their cosines; the forward indexes it by position and splits it into `sin, cos`, in that order. A position past 2048 indexes past the table. A copy of the table made for an analysis, or a port that builds it as `[cos | sin]` as other rotaries do, swaps the two.

```python
facts = released("EleutherAI/gpt-j-6b")
assert facts["n_positions"] == 2048
table = model._module.transformer.rotary_emb.embed_positions
rot = model.config.rotary_dim
assert tuple(table.shape) == (model.config.n_positions, rot)
p = torch.arange(table.shape[0]).float()[:, None]
angle = p * (1.0 / 10000 ** (torch.arange(0, rot, 2) / rot))
torch.testing.assert_close(table, torch.cat((angle.sin(), angle.cos()), dim=1))
assert "rotary_emb.embed_positions" not in "".join(model._module.state_dict().keys())
```

## Under a half-precision load the scores are float32 and the pattern is the values' dtype

GPT-J's `eager_attention_forward` casts queries and keys to float32 before their product, whatever the model's dtype, adds the mask and takes the softmax in float32, then casts the pattern to the values' dtype before mixing them. Under a bfloat16 or float16 load, `attention_scores` are float32 and `attention_probabilities` are bfloat16 or float16: the pattern read is the rounded one the values are mixed with, the float32 softmax of the scores cast to the model's dtype, bit for bit.

```python
from nnterp import tiny

half = tiny.load("gptj", attn_implementation="eager", dtype=torch.bfloat16)
attention = half.layers[0].self_attn
with half.trace(prompt):
    q = attention.attention_queries.save()
    scores = attention.attention_scores.save()
    probs = attention.attention_probabilities.save()

assert q.dtype == torch.bfloat16 and scores.dtype == torch.float32 and probs.dtype == torch.bfloat16
assert torch.equal(scores.softmax(-1).to(torch.bfloat16), probs)
```

## One norm feeds both sublayers, and the block adds `(attention + mlp) + x`

`GPTJBlock` applies `ln_1` once and hands the same tensor to the attention and to the MLP; there is no second norm and no stream between them, so block i's attention first reaches an MLP at block i + 1. The block returns `attn_output + feed_forward_hidden_states + residual`: the two contributions are summed first. In bfloat16 the stream's order, `x + attn + mlp`, rounds to another tensor.

```python
from nnterp import tiny

block = model.layers[1]
with model.trace(prompt):
    attn_in = block.attention_norm_output.save()
    mlp_in = block.mlp_input.save()
with model.trace(prompt):
    block.self_attn.attention_output[:] = 0
    mlp_in_ablated = block.mlp_input.save()
assert torch.equal(attn_in, mlp_in) and torch.equal(mlp_in, mlp_in_ablated)

half = tiny.load("gptj", attn_implementation="eager", dtype=torch.bfloat16)
block = half.layers[1]
with half.trace(prompt):
    x = block.layer_input.save()
    attn = block.self_attn.attention_output.save()
    mlp = block.mlp.mlp_output.save()
    out = block.layer_output.save()
assert torch.equal((attn + mlp) + x, out)
assert not torch.equal((x + attn) + mlp, out)
```

## The attention has no bias: the heads' contributions sum exactly to `attention_output`

`q_proj`, `k_proj`, `v_proj` and `out_proj` are Linears without bias (the MLP's `fc_in` and `fc_out` and `lm_head` have one). Head h's contribution to the stream is its slot of `attention_premix` through its `head_dim` columns of `out_proj.weight`, and the 16 contributions of GPT-J 6B's heads sum to `attention_output` with nothing left over: a direct attribution per head accounts for the whole attention, unlike GPT-NeoX's or GPT-2's, whose output projections add a bias.

```python
assert released("EleutherAI/gpt-j-6b")["n_head"] == 16
attention = model.layers[0].self_attn
with model.trace(prompt):
    premix = attention.attention_premix.save()
    out = attention.attention_output.save()

d = model.head_dim
W = attention.out_proj.weight
assert attention.out_proj.bias is None and attention.q_proj.bias is None
assert model.layers[0].mlp.fc_in.bias is not None and model.lm_head.bias is not None
per_head = [premix[:, :, head] @ W[:, head * d:(head + 1) * d].T for head in range(model.num_heads)]
torch.testing.assert_close(sum(per_head), out)
```
'''
