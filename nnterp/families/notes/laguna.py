"""Notes of Laguna written by hand, added to the derived ones. Read against transformers' modeling_laguna.py
(LagunaAttention.forward multiplies the kernel's output by softplus(g_proj(hidden_states)) before o_proj, one gate
per head when config.gating is True or "per-head"); the snippet runs on the family's tiny model."""

MORE = r'''
## Each head's output is multiplied by its own gate, softplus(g_proj(x)), before o_proj

On laguna-XS.2 (`gating: true`), `g_proj` maps the attention's input to one number per head; the attention multiplies each head's kernel output by `softplus` of it (computed in float32, cast back) and only then concatenates the heads for `o_proj`. `attention_head_outputs` is read before the gate and `attention_premix` after it, so a head's contribution to the stream is its gated output through its slice of `o_proj`: a head whose gate is near zero contributes little whatever its pattern says. The gate is positive and has no upper bound; it depends on the token, not only on the head.

```python
model.instrument()   # the trace reads a child's output and values inside the same forward
attention = model.layers[0].self_attn
with model.trace(prompt):
    x = model.layers[0].input_layernorm.output.save()   # what the attention and g_proj read
    heads = attention.attention_head_outputs.save()
    premix = attention.attention_premix.save()

gate = torch.nn.functional.softplus(attention.g_proj(x).float()).to(heads.dtype)
assert attention.g_proj.out_features == model.num_heads   # one gate per head
torch.testing.assert_close(premix, heads * gate.unsqueeze(-1))
assert (gate > 0).all() and gate.std(dim=1).max() > 0   # positive, and it varies along the sequence
```
'''
