"""Notes of Seed-OSS written by hand, added to the derived ones. Read against transformers' modeling_seed_oss.py
(SeedOssAttention: q_proj, k_proj, v_proj with attention_bias, o_proj with attention_out_bias, the widths
num_attention_heads * head_dim, the residual dropout after o_proj; SeedOssMLP's dropout after down_proj) and
configuration_seed_oss.py (the class defaults: hidden_size 4096, no rope_theta, attention_dropout and residual_dropout
0.1). The checkpoint numbers are Seed-OSS-36B-Instruct's config.json as nnterp/families/checkpoints/seed_oss.json
records it (the fields hlky/dinoml_v2's Seed-OSS report quotes from the file), and its parameter count the
safetensors index total the same report quotes. The snippets run on the tiny Seed-OSS."""

LOAD = "eager"

MORE = r'''
## The attention is twice as wide as the stream: 80 heads of 128 against a hidden size of 5120

Seed-OSS-36B-Instruct's config.json sets `hidden_size` 5120, `num_attention_heads` 80 and `head_dim` 128, so `q_proj` maps 5120 to 10240, `o_proj` maps 10240 back to 5120, and `attention_premix` (o_proj's input) is 10240 wide: `num_heads * head_dim` is twice `hidden_size`, where Llama's are equal. Code that takes a head's width to be `hidden_size // num_heads` (64 here), that treats `o_proj` as square, or that reshapes a stream vector into heads, is wrong on this model without an error, since 10240 divides into 64-wide chunks too. Head h's write into the stream is `o_proj.weight[:, 128 h : 128 (h + 1)]` applied to its 128-dimensional output; the heads' writes sum to `attention_output`. The snippet gives the tiny model a `head_dim` of 32, so that its 4 heads are 128 wide against a stream of 64:

```python
from nnterp import tiny

facts = released("ByteDance-Seed/Seed-OSS-36B-Instruct")
assert (facts["hidden_size"], facts["num_attention_heads"], facts["head_dim"]) == (5120, 80, 128)
assert facts["num_attention_heads"] * facts["head_dim"] == 2 * facts["hidden_size"]

wide = tiny.load("seed_oss", attn_implementation="eager", head_dim=32)
attention = wide.layers[0].self_attn
assert wide.num_heads * wide.head_dim == 2 * wide.hidden_size
assert attention.q_proj.weight.shape == (128, 64) and attention.o_proj.weight.shape == (64, 128)
with wide.trace(prompt):
    premix = attention.attention_premix.save()
    out = attention.attention_output.save()

W, d = attention.o_proj.weight, wide.head_dim
writes = [premix[:, :, h] @ W[:, h * d:(h + 1) * d].T for h in range(wide.num_heads)]
torch.testing.assert_close(sum(writes), out)
narrow = wide.hidden_size // wide.num_heads                # Llama's head width: the wrong slices here
assert W.shape[1] // narrow == 2 * wide.num_heads
```

## `v_proj`'s bias is a constant write: every position of every prompt gets `o_proj(b_v)`

`q_proj`, `k_proj` and `v_proj` have a bias (`attention_bias` true on Seed-OSS-36B-Instruct), and `o_proj` has none (`attention_out_bias` false). Because each row of the attention pattern sums to 1, the value bias passes through the mixing unchanged: `attention_output = o_proj(Σ_j p_ij W_v x_j) + o_proj(b_v)`, with `b_v` repeated for the query heads of each key and value head. The second term depends on neither the token, the position nor the prompt: every block's attention writes the same fixed vector at every position, alongside whatever its heads read. `o_proj` has no bias of its own, but `v_proj`'s acts as one; a direct logit attribution of the attention, or an ablation that zeroes the heads' outputs, has to decide where this constant goes. On block 0, where the input is the same either way, dropping the bias moves `attention_output` by exactly that vector at every position:

```python
from nnterp import tiny

facts = released("ByteDance-Seed/Seed-OSS-36B-Instruct")
assert facts["attention_bias"] is True and facts["attention_out_bias"] is False
attention = model.layers[0].self_attn
assert attention.v_proj.bias is not None and attention.o_proj.bias is None
with model.trace(prompt):
    out = attention.attention_output.save()
unbiased = tiny.load("seed_oss", attn_implementation="eager")
with torch.no_grad():
    unbiased.layers[0].self_attn.v_proj.bias.zero_()
with unbiased.trace(prompt):
    out_unbiased = unbiased.layers[0].self_attn.attention_output.save()

group = model.num_heads // model.num_kv_heads
b_v = attention.v_proj.bias.view(model.num_kv_heads, model.head_dim).repeat_interleave(group, 0).flatten()
constant = attention.o_proj.weight @ b_v
torch.testing.assert_close(out - out_unbiased, constant.expand_as(out))
assert constant.norm() > 0.1 * out.norm(dim=-1).mean()    # not a rounding: a tenth of the write or more
```

## The query and key biases give every head a fixed preference by distance

The rotary turns the projections' outputs, biases included: `q_i = R_i (W_q x_i + b_q)` and `k_j = R_j (W_k x_j + b_k)`. A score therefore has four parts, and the last, `b_qᵀ R_(j−i) b_k / √128`, depends on the distance between the two positions and on nothing else: each head carries a built-in preference for keys at certain distances, the same on every prompt. The key bias is not the harmless constant it would be without a rotary either: `(W_q x_i + b_q)ᵀ R_(j−i) b_k` changes from key to key, so softmax does not cancel it, and zeroing `k_proj.bias` changes the pattern. With the projections' weights zeroed, only the biases remain and the scores are the same for any two prompts and constant along each diagonal:

```python
from nnterp import tiny

def scores_of(m, text):
    with m.trace(text):
        scores = m.layers[0].self_attn.attention_scores.save()
    return scores

biases_only = tiny.load("seed_oss", attn_implementation="eager")
with torch.no_grad():
    biases_only.layers[0].self_attn.q_proj.weight.zero_()
    biases_only.layers[0].self_attn.k_proj.weight.zero_()
first, second = scores_of(biases_only, prompt), scores_of(biases_only, "Completely different words here, and more")
n = min(first.shape[-1], second.shape[-1])
causal = torch.ones(n, n, dtype=torch.bool).tril()
torch.testing.assert_close(first[..., :n, :n][..., causal], second[..., :n, :n][..., causal])   # no input in it
for lag in range(n):
    diagonal = first[..., :n, :n].diagonal(-lag, dim1=-2, dim2=-1)
    torch.testing.assert_close(diagonal, diagonal[..., :1].expand_as(diagonal))   # the distance alone
assert not torch.allclose(first[..., 0, 0], first[..., n - 1, 0])   # and it differs from one distance to another

no_key_bias = tiny.load("seed_oss", attn_implementation="eager")
with torch.no_grad():
    no_key_bias.layers[0].self_attn.k_proj.bias.zero_()
with model.trace(prompt):
    probs = model.layers[0].self_attn.attention_probabilities.save()
with no_key_bias.trace(prompt):
    probs_no_key_bias = no_key_bias.layers[0].self_attn.attention_probabilities.save()
assert not torch.allclose(probs, probs_no_key_bias, atol=1e-4)
```

## Three dropouts sit inside the forward: in train mode `attention_output` is not `o_proj`'s output

`SeedOssAttention` applies dropout to the attention pattern (`attention_dropout`) and again to `o_proj`'s output (`residual_dropout`), and `SeedOssMLP` applies `residual_dropout` to `down_proj`'s output, each inside the module's own forward; both rates are 0.1 in `SeedOssConfig`'s defaults. In eval they are inert, and `attention_output` equals `o_proj`'s output. A model switched to train mode, for a fine-tune or by code that calls `.train()` to get gradients (which eval mode gives as well), drops about one entry in ten of each sublayer's write and scales the rest by 1/0.9, and its `attention_probabilities` rows no longer sum to 1. The tiny model keeps the class's rates:

```python
from transformers import SeedOssConfig

assert SeedOssConfig().attention_dropout == 0.1 and SeedOssConfig().residual_dropout == 0.1
assert (model.config.attention_dropout, model.config.residual_dropout) == (0.1, 0.1)
attention = model.layers[0].self_attn
with model.trace(prompt):
    projected = attention.o_proj.output.save()
    out = attention.attention_output.save()
assert torch.equal(projected, out)                      # eval: no dropout

torch.manual_seed(0)
model._module.train()
try:
    with model.trace(prompt):
        probs = attention.attention_probabilities.save()
        projected = attention.o_proj.output.save()
        out = attention.attention_output.save()
finally:
    model._module.eval()

dropped = (out == 0) & (projected != 0)
assert 0.02 < float(dropped.float().mean()) < 0.3
kept = out != 0
torch.testing.assert_close(out[kept], projected[kept] / 0.9)
assert not torch.allclose(probs.sum(-1), torch.ones_like(probs.sum(-1)))
```

## `SeedOssConfig()` is not Seed-OSS-36B: its defaults are 4096 wide and rotate at base 10000

`SeedOssConfig`'s docstring calls its defaults "SeedOss-36b style", and most of them are the release's (64 blocks, 80 heads of 128 over 8, 27648 MLP neurons, 155136 tokens), but not two: `hidden_size` is 4096 where Seed-OSS-36B-Instruct has 5120, and with no `rope_theta` the rotary base is 10000 where the release sets 10000000. A model built from `SeedOssConfig()` as a random-weights stand-in for the 36B has 28.9B parameters instead of 36.15B (the release's safetensors index gives 36151104512, the count its config.json builds to), attention 2.5 times the stream's width instead of twice, and a rotary a thousand times faster at the slow end. Build stand-ins from the released config.json:

```python
from transformers import AutoModelForCausalLM, SeedOssConfig

facts = released("ByteDance-Seed/Seed-OSS-36B-Instruct")
assert facts["hidden_size"] == 5120 and facts["rope_theta"] == 10000000.0
default = SeedOssConfig()
assert default.hidden_size == 4096 and default.rope_parameters["rope_theta"] == 10000.0
assert SeedOssConfig(**facts).rope_parameters == {"rope_type": "default", "rope_theta": 10000000.0}
with torch.device("meta"):
    release = AutoModelForCausalLM.from_config(SeedOssConfig(**facts))
    stand_in = AutoModelForCausalLM.from_config(default)
assert sum(p.numel() for p in release.parameters()) == 36151104512
assert sum(p.numel() for p in stand_in.parameters()) == 28921040896
```

## Half a million positions with no scaling: 19 of each head's 64 rotary pairs turn less than once across them

Seed-OSS-36B-Instruct's config.json gives `max_position_embeddings` 524288 with `rope_scaling` `{"rope_type": "default"}`: no YaRN, no Llama 3 scaling, no NTK. The long context rests on the base alone, 10000000 over all 128 dimensions of each head. At that base, 19 of the 64 frequency pairs have wavelengths over 524288 positions, so across the whole context they turn less than once, and 30 turn less than once across 32768 positions. On a prompt of a few thousand tokens those slow pairs barely move (at most 4096 · 2π / 524288 ≈ 0.05 radians over 4096 positions), so a third of each query and key scores keys almost by content alone, and position is told by the faster pairs. The tiny model's rotary is the same function of its own config:

```python
import math

facts = released("ByteDance-Seed/Seed-OSS-36B-Instruct")
assert facts["max_position_embeddings"] == 524288 and facts["rope_scaling"] == {"rope_type": "default"}
assert facts["rope_theta"] == 10000000.0 and facts["head_dim"] == 128
d = 128
inv_freq = 1.0 / 10000000.0 ** (torch.arange(0, d, 2).float() / d)
wavelength = 2 * math.pi / inv_freq
assert int((wavelength > 524288).sum()) == 19 and int((wavelength > 32768).sum()) == 30
assert float((4096 * inv_freq[wavelength > 524288]).max()) < 0.05

rotary = model._module.model.rotary_emb
theta, dim = model.config.rope_parameters["rope_theta"], model.head_dim
torch.testing.assert_close(rotary.inv_freq, 1.0 / theta ** (torch.arange(0, dim, 2).float() / dim))
```
'''
