"""Notes of GPT-NeoX written by hand, added to the derived ones. Read against transformers' modeling_gpt_neox.py
(GPTNeoXLayer.forward's two residual branches, GPTNeoXAttention's per-head view of query_key_value,
apply_rotary_pos_emb's partial rotation, GPTNeoXRotaryEmbedding) and configuration_gpt_neox.py (rotary_pct and
rotary_emb_base become rope_parameters); the numbers quoted as Pythia-1.4B's and GPT-NeoX-20B's are their recorded
config facts, and the snippets run on the tiny GPT-NeoX."""

LOAD = "eager"

MORE = r'''
## `post_attention_layernorm` is a second norm of the block's input, not a norm after the attention

With `use_parallel_residual` true (Pythia-1.4B sets it; GPT-NeoX-20B's config.json has no such key, and `GPTNeoXConfig`'s default is true), `GPTNeoXLayer` computes `mlp(post_attention_layernorm(x)) + attention(input_layernorm(x)) + x`: both norms read the same `x`, the block's input, with weights and biases of their own, so the attention and the MLP see two different normalizations of one stream, and nothing of block i's attention reaches block i's MLP. The name is Llama's; the place is not. With `use_parallel_residual` false, the same module normalizes `x + attention` and the block is sequential: the switch changes what `post_attention_layernorm` reads, and only then is there a `layer_mid`. A reading of `post_attention_layernorm.input` as "the stream after the attention" is right only on the sequential variant.

```python
from transformers import GPTNeoXConfig
from nnterp import tiny

assert released("EleutherAI/pythia-1.4b")["use_parallel_residual"] is True
neox_20b = released("EleutherAI/gpt-neox-20b")
assert "use_parallel_residual" not in neox_20b and GPTNeoXConfig(**neox_20b).use_parallel_residual is True
block = model.layers[1]
norm = block.post_attention_layernorm
with model.trace(prompt):
    x = block.layer_input.save()
    mlp_in = block.mlp_norm_output.save()
    attn_in = block.attention_norm_output.save()
with model.trace(prompt):
    block.self_attn.attention_output[:] = 0
    mlp_in_ablated = block.mlp_norm_output.save()

E = model.hidden_size
torch.testing.assert_close(mlp_in, torch.nn.functional.layer_norm(x, (E,), norm.weight, norm.bias, norm.eps))
assert torch.equal(mlp_in, mlp_in_ablated)                    # the MLP never sees this block's attention
assert not torch.allclose(mlp_in, attn_in)                    # two norms of one input

sequential = tiny.load("gpt_neox", attn_implementation="eager", use_parallel_residual=False)
block = sequential.layers[1]
norm = block.post_attention_layernorm
with sequential.trace(prompt):
    x = block.layer_input.save()
    attn = block.self_attn.attention_output.save()
    mid = block.layer_mid.save()
    mlp_in = block.mlp_norm_output.save()
assert torch.equal(x + attn, mid)
torch.testing.assert_close(mlp_in, torch.nn.functional.layer_norm(x + attn, (E,), norm.weight, norm.bias, norm.eps))
```

## The block adds `(mlp + attention) + x`: in half precision the other order is another number

The parallel block's last line is `mlp_output + attn_output + hidden_states`, so the two contributions are summed first and the residual last. `layers[i].input + attention_output + mlp_output`, the identity in the stream's order, rounds differently; under a half-precision load (the files are float16) the difference is visible, and `torch.equal` on a rebuilt stream fails unless the sum is taken in the block's order.

```python
from nnterp import tiny

assert released("EleutherAI/pythia-1.4b")["dtype"] == "float16"
half = tiny.load("gpt_neox", attn_implementation="eager", dtype=torch.bfloat16)
block = half.layers[1]
with half.trace(prompt):
    x = block.layer_input.save()
    attn = block.self_attn.attention_output.save()
    mlp = block.mlp.mlp_output.save()
    out = block.layer_output.save()

assert torch.equal((mlp + attn) + x, out)                     # the block's order
assert not torch.equal((x + attn) + mlp, out)                 # the stream's order rounds otherwise
```

## `query_key_value` interleaves per head: head h's query, key and value are consecutive row blocks

`query_key_value` maps the normed stream to `3 · hidden_size` outputs, and `GPTNeoXAttention` views them as `[batch, seq, num_heads, 3 · head_dim]` before `chunk(3)`: the output is laid out head by head, each head's query, then its key, then its value. Head h's query weights are rows `3·h·d` to `3·h·d + d` of `query_key_value.weight` (d = `head_dim`, 128 on Pythia-1.4B and 96 on GPT-NeoX-20B), its key the next d rows, its value the d after: not GPT-2's `c_attn`, which puts all the queries first. Cut into three equal blocks, as GPT-2's is, the weight gives blocks that each hold whole heads' queries, keys and values in turn, not all the queries.

```python
for repo, head_dim in (("EleutherAI/pythia-1.4b", 128), ("EleutherAI/gpt-neox-20b", 96)):
    facts = released(repo)
    assert facts["hidden_size"] // facts["num_attention_heads"] == head_dim

attention = model.layers[0].self_attn
with model.trace(prompt):
    h = model.layers[0].attention_norm_output.save()
    v = attention.attention_values.save()

d = model.head_dim
W, b = attention.query_key_value.weight, attention.query_key_value.bias
for head in range(model.num_heads):
    rows = slice(3 * head * d + 2 * d, 3 * (head + 1) * d)            # head h's value rows
    torch.testing.assert_close(h @ W[rows].T + b[rows], v[:, head])
```

## Rotary turns a quarter of each head, with frequencies spaced over that quarter

The released configs give the rotary in legacy keys, `rotary_pct` 0.25 and (Pythia-1.4B) `rotary_emb_base` 10000; `GPTNeoXConfig` moves them into `rope_parameters` as `partial_rotary_factor` and `rope_theta`. `rotary_ndims` is 32 of Pythia-1.4B's 128 dimensions and 24 of GPT-NeoX-20B's 96. The frequencies are `base ** (-2i / rotary_ndims)` for i < rotary_ndims / 2, spaced over the rotated dimensions, not over `head_dim`: the slowest turns at 10000 ** (-30 / 32) on Pythia, not 10000 ** (-30 / 128). Inside the rotated part the pairs are `rotate_half`'s (i with i + rotary_ndims / 2); the other dimensions are the projection's output unchanged.

```python
from transformers import GPTNeoXConfig

facts = released("EleutherAI/pythia-1.4b")
assert facts["rotary_pct"] == 0.25 and facts["rotary_emb_base"] == 10000
assert GPTNeoXConfig(**facts).rope_parameters["partial_rotary_factor"] == 0.25
assert int(128 * 0.25) == 32 and int(96 * released("EleutherAI/gpt-neox-20b")["rotary_pct"]) == 24

from nnterp import tiny

neox = tiny.load("gpt_neox", attn_implementation="eager")
neox.instrument()   # query_key_value (a module) is read before attention_queries (inside the forward)
attention = neox.layers[0].self_attn
with neox.trace(prompt):
    qkv = attention.query_key_value.output.save()
    q = attention.attention_queries.save()

b, s, _ = qkv.shape
d = neox.head_dim
rot = attention.rotary_ndims
raw = qkv.view(b, s, neox.num_heads, 3 * d).transpose(1, 2)[..., :d]
freq = 1.0 / 10000.0 ** (torch.arange(0, rot, 2).float() / rot)
angle = torch.arange(s).float()[:, None] * freq
cos, sin = torch.cat((angle, angle), -1).cos(), torch.cat((angle, angle), -1).sin()
x = raw[..., :rot]
torch.testing.assert_close(q[..., :rot], x * cos + torch.cat((-x[..., rot // 2:], x[..., :rot // 2]), -1) * sin)
assert torch.equal(q[..., rot:], raw[..., rot:])
torch.testing.assert_close(neox._module.gpt_neox.rotary_emb.inv_freq, freq)
```

## Pythia runs exact GELU, GPT-NeoX-20B the fast tanh approximation

The two checkpoint lines do not share an activation: Pythia-1.4B's config says `hidden_act` `"gelu"`, the exact erf GELU, and GPT-NeoX-20B's says `"gelu_fast"`, `0.5·x·(1 + tanh(0.7978845608·x·(1 + 0.044715·x²)))`. They differ by up to 4.7e-4 per neuron; code that assumes one GELU for the family reproduces only one of them.

```python
from transformers.activations import ACT2FN
from nnterp import tiny

assert released("EleutherAI/pythia-1.4b")["hidden_act"] == "gelu"
assert released("EleutherAI/gpt-neox-20b")["hidden_act"] == "gelu_fast"
fast = tiny.load("gpt_neox", attn_implementation="eager", hidden_act="gelu_fast")
mlp = fast.layers[0].mlp
with fast.trace(prompt):
    x = fast.layers[0].mlp_input.save()
    act = mlp.mlp_activation.save()
pre = mlp.dense_h_to_4h(x)
torch.testing.assert_close(act, 0.5 * pre * (1 + torch.tanh(0.7978845608 * pre * (1 + 0.044715 * pre * pre))))
probe = torch.linspace(-4, 4, 801)
assert 4.5e-4 < (ACT2FN["gelu_fast"](probe) - ACT2FN["gelu"](probe)).abs().max() < 4.9e-4
```

## `dense` has a bias: a per-head decomposition adds it once, not per head

`attention_bias` is true by default and the released configs leave it so: `query_key_value` and `dense` (the attention's output projection, not an MLP layer) have biases, as do both MLP Linears. Head h's contribution to `attention_output` is its slot of `attention_premix` through its `head_dim` columns of `dense.weight`; the heads' contributions sum to `attention_output` minus `dense.bias`. A direct logit attribution that splits the bias among the heads, or leaves it out, misattributes `dense.bias`, the same vector at every position.

```python
attention = model.layers[0].self_attn
with model.trace(prompt):
    premix = attention.attention_premix.save()
    out = attention.attention_output.save()

d = model.head_dim
W = attention.dense.weight
per_head = [premix[:, :, head] @ W[:, head * d:(head + 1) * d].T for head in range(model.num_heads)]
assert attention.dense.bias is not None and "attention_bias" not in released("EleutherAI/pythia-1.4b")
torch.testing.assert_close(sum(per_head) + attention.dense.bias, out)
assert not torch.allclose(sum(per_head), out, atol=1e-4)
```
'''
