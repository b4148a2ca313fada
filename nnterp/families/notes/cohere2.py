"""Notes of Cohere 2 (Command R7B) written by hand, added to the derived ones. Read against transformers'
modeling_cohere2.py (Cohere2Attention, Cohere2DecoderLayer, Cohere2LayerNorm, rotate_half, Cohere2RotaryEmbedding,
Cohere2ForCausalLM) and configuration_cohere2.py; the checkpoint numbers are Command R7B's recorded config facts. The
derived rotary and window notes (which had every layer rotated) and the
derived logit-scale note are replaced by the notes below."""

DROP = ("rotary_note", "sliding_note", "past_head_note")

MORE = r'''
## Three sliding layers, then one global layer without any position

`config.layer_types` decides each block. Command R7B's config.json gives `sliding_window` 4096, `sliding_window_pattern` 4 and no `layer_types`, so the config class builds them from the pattern: blocks 3, 7, 11, …, 31 (8 of 32) are `full_attention`, the other 24 `sliding_attention`. The two kinds differ in two ways at once. A sliding block rotates its queries and keys and attends to the last 4096 keys. A full block attends to every earlier key and applies no rotary at all: `attention_queries` and `attention_keys` are `q_proj`'s and `k_proj`'s outputs split into heads, and nothing in that block depends on position except the causal mask. Positional information reaches a global block only through the stream the sliding blocks wrote. On the tiny model, block 0 is sliding and block 1 full:

```python
from transformers import Cohere2Config

facts = released("CohereForAI/c4ai-command-r7b-12-2024")
assert facts["sliding_window"] == 4096 and facts["sliding_window_pattern"] == 4 and "layer_types" not in facts
types = Cohere2Config(**facts).layer_types
assert [i for i, kind in enumerate(types) if kind == "full_attention"] == list(range(3, 32, 4))

assert model.config.layer_types == ["sliding_attention", "full_attention"]
with model.trace(prompt):
    raw_0 = model.layers[0].self_attn.source.self_q_proj_0.output.save()
    q_0 = model.layers[0].self_attn.attention_queries.save()
    raw_1 = model.layers[1].self_attn.source.self_q_proj_0.output.save()
    q_1 = model.layers[1].self_attn.attention_queries.save()
raw, q = (raw_0, raw_1), (q_0, q_1)

b, s, _ = raw[1].shape
split = [r.view(b, s, -1, model.head_dim).transpose(1, 2) for r in raw]
assert torch.equal(split[1], q[1])                        # full block: no rotary
assert not torch.equal(split[0][:, :, 1:], q[0][:, :, 1:])   # sliding block: rotated past position 0
assert model.layers[0].self_attn._module.sliding_window == 4096 and model.layers[1].self_attn._module.sliding_window is None
```

## Rotary pairs adjacent dimensions, in float32

Cohere's `rotate_half` is not Llama's: it pairs dimensions (0, 1), (2, 3), … and maps each pair (a, b) to (−b, a), and `Cohere2RotaryEmbedding` repeats each frequency twice side by side (`repeat_interleave`) where Llama concatenates two halves. Dimension 2i of a rotated query is `q[2i]·cos − q[2i+1]·sin` at frequency `inv_freq[i]`. `apply_rotary_pos_emb` casts queries and keys to float32, rotates, and casts back. A Llama-style rotation of `q_proj`'s output, or a hand-made one pairing i with i + 64, does not reproduce `attention_queries`.

```python
attention = model.layers[0].self_attn                    # a sliding block
with model.trace(prompt):
    raw = attention.source.self_q_proj_0.output.save()
    q = attention.attention_queries.save()

b, s, _ = raw.shape
heads = raw.view(b, s, -1, model.head_dim).transpose(1, 2)
angle = torch.arange(s, dtype=torch.float32)[:, None] * model.model.rotary_emb.inv_freq
even, odd = heads[..., 0::2], heads[..., 1::2]
adjacent = torch.stack([even * angle.cos() - odd * angle.sin(), odd * angle.cos() + even * angle.sin()], -1).flatten(-2)
torch.testing.assert_close(adjacent, q)

half = model.head_dim // 2
cos, sin = torch.cat([angle.cos()] * 2, -1), torch.cat([angle.sin()] * 2, -1)
llama = heads * cos + torch.cat([-heads[..., half:], heads[..., :half]], -1) * sin
assert not torch.allclose(llama, q, atol=1e-4)
```

## The logits are `lm_head`'s output times 0.25

`Cohere2ForCausalLM` multiplies `lm_head`'s output by `logit_scale`, 0.25 in Command R7B's recorded facts (the class default is 0.0625): `logits` is `lm_head_output × 0.25`, the tied embeddings' dot products with the final stream divided by 4. The softmax sees the scaled logits, so a logit lens that stops at `lm_head` reads a distribution four times sharper in log space than the model's. `project_on_vocab` applies the scale: at the last block it gives `logits` exactly. Compare logit differences across families only after the scale.

```python
from transformers import Cohere2Config

assert released("CohereForAI/c4ai-command-r7b-12-2024")["logit_scale"] == 0.25 and Cohere2Config().logit_scale == 0.0625
with model.trace(prompt):
    last = model.layers[-1].layer_output.save()
    head = model.lm_head.output.save()
    logits = model.logits.save()

assert model.config.logit_scale == 0.25
torch.testing.assert_close(logits, head * 0.25)
assert torch.equal(model.project_on_vocab(last), logits)
assert model.lm_head.weight is model.embed_tokens.weight
```

## The norms are mean-centred, so a constant shift of the stream does nothing

`Cohere2LayerNorm` subtracts each position's mean over the hidden dimension before dividing by the standard deviation, and has a weight but no bias; the final `norm` is the same class. Every sublayer and the head read the stream only through such a norm, so adding the same number to every entry of the stream changes nothing any block or the head computes: the mean is removed before it is read. A steering vector's component along the all-ones direction is inert, and so is a difference of means that is mostly that component. The norm computes in float32, including the weight's product, and rounds once.

```python
block = model.layers[1]._module
with model.trace(prompt):
    x = model.layers[1].layer_input.save()
    normed = model.layers[1].attention_norm_output.save()
    logits = model.logits.save()

x32 = x.float()
centred = x32 - x32.mean(-1, keepdim=True)
by_hand = block.input_layernorm.weight * centred * (centred.pow(2).mean(-1, keepdim=True) + block.input_layernorm.variance_epsilon).rsqrt()
torch.testing.assert_close(by_hand, normed)
assert not hasattr(block.input_layernorm, "bias")

with model.trace(prompt):
    model.layers[0].output[:] = model.layers[0].output + 3.0
    logits_shifted = model.logits.save()
torch.testing.assert_close(logits_shifted, logits)
```

## The MLP reads the same normed stream as the attention, never its own block's attention

`h = input_layernorm(x)` feeds both sublayers and `out = x + attn + mlp`, summed in that order: there is no `layer_mid` and no second norm. `mlp_norm_output` is `attention_norm_output`, one tensor. Block i's MLP cannot see block i's attention; an edit of `attention_output` reaches block i's output directly and the next block's sublayers, never the MLP beside it.

```python
with model.trace(prompt):
    x = model.layers[0].layer_input.save()
    attn_in = model.layers[0].attention_norm_output.save()
    mlp_in = model.layers[0].mlp_norm_output.save()
    attn = model.layers[0].self_attn.attention_output.save()
    mlp = model.layers[0].mlp.mlp_output.save()
    out = model.layers[0].layer_output.save()
with model.trace(prompt):
    model.layers[0].self_attn.attention_output[:] = 0
    mlp_after = model.layers[0].mlp.mlp_output.save()

assert torch.equal(attn_in, mlp_in) and torch.equal(x + attn + mlp, out)
assert torch.equal(mlp, mlp_after)
assert model.serves("layer_mid", 0) is not None
```

## A global block cannot tell the order of the keys it reads

Without rotary, a full-attention block's output at a position is a function of the set of earlier stream vectors, not of their order: swapping two earlier positions of its input leaves every later position's `attention_output` the same up to the order of a float sum. A sliding block, which rotates, changes. Order reaches the global blocks only as content: what the sliding blocks below wrote into each position's stream. A probe for position at a global block's queries and keys reads that content, not a positional encoding. On the tiny model, swapping positions 1 and 2 of each block's input:

```python
moved = {}
for index in (0, 1):                                       # block 0 sliding, block 1 full
    with model.trace(prompt):
        before = model.layers[index].self_attn.attention_output.save()
    with model.trace(prompt):
        x = model.layers[index].layer_input
        model.layers[index].layer_input[:, [1, 2]] = x[:, [2, 1]].clone()
        after = model.layers[index].self_attn.attention_output.save()
    moved[index] = float((after[:, 3:] - before[:, 3:]).abs().max())   # the positions that read both

assert moved[1] < 1e-6 < 1e-5 < moved[0]
```
'''
