"""Notes of Gemma 3n (text model) written by hand, added to the derived ones. Read against transformers'
modeling_gemma3n.py (Gemma3nTextDecoderLayer.forward, Gemma3nTextAltUp.predict and correct,
Gemma3nTextLaurelBlock, Gemma3nTextMLP._gaussian_topk, Gemma3nTextAttention) and configuration_gemma3n.py
(Gemma3nTextConfig: its defaults, __post_init__ and kv_sharing_modes). nnterp/families/checkpoints/gemma3n_text.json
records no source for its facts, so these notes state what the class and the modeling code do, with the class's
defaults labelled as such. The snippets run on the tiny Gemma 3n (four layers, sliding and full alternating, the
last two sharing keys and values, the first two sparse)."""

LOAD = "eager"

MORE = r'''
## The first 10 layers' MLPs zero every gate below mean + 1.645 standard deviations, before the GELU

`Gemma3nTextConfig` without an `activation_sparsity_pattern` makes the first 10 layers sparse at 0.95 and the rest dense (when there are more than 10 layers: 10 of the class's default 35). On a sparse layer, `Gemma3nTextMLP` replaces the gate g by relu(g − (mean(g) + std(g) · Φ⁻¹(0.95))), per token over the neurons, before `gelu_pytorch_tanh`: every neuron whose gate falls below mean + 1.645 standard deviations is exactly zero, and the others are shifted down by the cutoff. For a roughly normal gate that keeps about 5% of the neurons (5.3% of the entries on the tiny model's first layer). `mlp_activation` on those layers is the GELU of that shifted, clipped gate, not of `gate_proj`'s output, and its zeros are exact: a neuron-level analysis sees hard sparsity in the first layers and dense GELUs after.

```python
from transformers import Gemma3nTextConfig

assert Gemma3nTextConfig().activation_sparsity_pattern == [0.95] * 10 + [0.0] * 25
mlp = model.layers[0].mlp
assert model.config.activation_sparsity_pattern[0] == 0.95
with model.trace(prompt):
    x = mlp.input.save()
    act = mlp.mlp_activation.save()

gate = mlp.gate_proj(x)
cutoff = gate.mean(-1, keepdim=True) + gate.std(-1, keepdim=True, unbiased=False) * torch.distributions.Normal(0, 1).icdf(torch.tensor(0.95))
torch.testing.assert_close(act, mlp._module.act_fn(torch.relu(gate - cutoff)))
kept = (act != 0).float().mean()
assert 0 < kept < 0.15                                          # about one in twenty survives
assert not torch.allclose(act, mlp._module.act_fn(gate), atol=1e-4)
```

## LAuReL adds the normed input back, and the stream is divided by √2 after the attention

`laurel` is a low-rank residual beside the attention: given the normed active stream n, it returns n + post_laurel_norm(linear_right(linear_left(n))) (rank `laurel_rank`, 64 by the class's default). The block then forms (x + post_attention_layernorm(attention) + laurel(n)) / √2, x being the active stream as the block predicts it (the next note), before the norm: the normed input enters the stream a second time, through LAuReL, and the sum is scaled down by √2 at every block before the MLP adds its part. Reading the attention's share of the stream, or a "residual stream" norm across layers, has to account for both.

```python
import math
from transformers import Gemma3nTextConfig

assert Gemma3nTextConfig().laurel_rank == 64
block = model.layers[1]
layer = block._module
model.instrument()
with model.trace(prompt):
    stack = block.input.save()
    normed = block.input_layernorm.output.save()
    attn = block.post_attention_layernorm.output.save()
    mid = block.pre_feedforward_layernorm.input.save()

x = layer.altup.predict(stack)[model.config.altup_active_idx]
laurel = normed + layer.laurel.post_laurel_norm(layer.laurel.linear_right(layer.laurel.linear_left(normed)))
torch.testing.assert_close(layer.laurel(normed), laurel)
torch.testing.assert_close(mid, (x + attn + laurel) / math.sqrt(2))
assert not torch.allclose(mid, x + attn + laurel, atol=1e-4)
```

## Each block reads four streams and computes on one: the attention's input is a prediction from all four

With AltUp (`altup_num_inputs` 4 by the class's default) the blocks pass a stack of 4 streams, `[4, batch, seq, hidden]`: `layers[i].input` and `.output` are that stack, not one residual stream. A block first predicts every stream as a per-token mix of all four (`altup.predict`, its coefficients routed from the active stream), then computes attention and MLP on the active prediction (stream `altup_active_idx`, 0) only, and `altup.correct` adds that stream's change, scaled per stream, to all four predictions. So the attention reads `input_layernorm` of a mix of the four streams, not of stream 0 as it entered the block. A probe or a lens on "the" stream has to choose one of the four (or their average, as the head does after the last block).

```python
from transformers import Gemma3nTextConfig

assert Gemma3nTextConfig().altup_num_inputs == 4 and Gemma3nTextConfig().altup_active_idx == 0
block = model.layers[1]
layer = block._module
model.instrument()
with model.trace(prompt):
    stack = block.input.save()
    normed = block.input_layernorm.output.save()
    out = block.output.save()

assert stack.shape[0] == model.config.altup_num_inputs == 4 and out.shape == stack.shape
active = layer.altup.predict(stack)[model.config.altup_active_idx]
torch.testing.assert_close(normed, layer.input_layernorm(active))
assert not torch.allclose(normed, layer.input_layernorm(stack[model.config.altup_active_idx]), atol=1e-5)
```

## The last 15 layers (by the class's default) compute no keys or values: they reuse earlier layers'

`Gemma3nTextConfig` defaults to `num_kv_shared_layers` 15 of 35 layers: from layer 20 on, the attention has no `k_proj` or `v_proj` and takes the keys and values of the last earlier layer of its own type (sliding or full), which the config marks `"store"`. `attention_keys` and `attention_values` of a shared layer are those tensors; only its queries are its own, and an edit of a producer's keys reaches every layer that shares them. On the tiny model, the last two of four layers reuse layers 0's and 1's:

```python
from transformers import Gemma3nTextConfig

default = Gemma3nTextConfig()
modes = default.kv_sharing_modes
assert default.num_kv_shared_layers == 15 and modes.index("reuse") == 20 and modes[20:] == ["reuse"] * 15

assert model.config.kv_sharing_modes == ["store", "store", "reuse", "reuse"]
assert not hasattr(model.layers[2].self_attn._module, "k_proj")
keys, values = [], []
with model.trace(prompt):
    for i in range(model.num_layers):
        keys.append(model.layers[i].self_attn.attention_keys.save())
        values.append(model.layers[i].self_attn.attention_values.save())
assert torch.equal(keys[2], keys[0]) and torch.equal(values[3], values[1])
assert not torch.equal(keys[1][..., :keys[0].shape[-1]], keys[0])
```

## Values are RMS-normalized per head without a gain, and the scores are not scaled

As in Gemma 4, `v_norm` has no weight (`with_scale=False`): every value head enters the kernel with length √head_dim whatever the stream, and each head's output, a convex mix of them, is no longer than that. Queries and keys are normalized per head by `q_norm` and `k_norm` (with weights), and the kernel's `scaling` is 1: `attention_scores` are the plain dot products of the normed, rotated queries and keys, with no 1/√head_dim.

```python
attention = model.layers[0].self_attn
d = model.head_dim
with model.trace(prompt):
    q = attention.attention_queries.save()
    k = attention.attention_keys.save()
    v = attention.attention_values.save()
    scores = attention.attention_scores.save()
    heads = attention.attention_head_outputs.save()

assert not hasattr(attention._module.v_norm, "weight") and attention._module.scaling == 1.0
lengths = v.norm(dim=-1)
torch.testing.assert_close(lengths, torch.full_like(lengths, d ** 0.5), rtol=1e-4, atol=0)   # eps: 1e-6 / mean square
assert bool((heads.norm(dim=-1) <= d ** 0.5 * (1 + 1e-5)).all())
k = k.repeat_interleave(model.num_heads // model.num_kv_heads, dim=1)
live = scores > torch.finfo(scores.dtype).min / 2
torch.testing.assert_close(scores[live], (q @ k.transpose(-1, -2))[live])
```

## `config.intermediate_size` is a list, one width per layer, even when the config gives one number

`Gemma3nTextConfig` accepts `intermediate_size` as an integer (16384 by the class's default) or as a list with one entry per layer, and its `__post_init__` turns an integer into that list: `config.intermediate_size` always reads back as a list, 35 entries of 16384 for the class's defaults. `Gemma3nTextMLP` takes its layer's entry, so the MLPs of one model need not share a width; `model.intermediate_size` reports the first layer's. A list of the wrong length is refused. Code that reads `config.intermediate_size` as a number, to size neuron buffers say, gets a list.

```python
from transformers import Gemma3nTextConfig
from nnterp import tiny

assert Gemma3nTextConfig().intermediate_size == [16384] * 35
assert Gemma3nTextConfig(num_hidden_layers=4, intermediate_size=64, layer_types=["sliding_attention", "full_attention"] * 2,
                         activation_sparsity_pattern=[0.0] * 4).intermediate_size == [64] * 4
varied = tiny.load("gemma3n_text", attn_implementation="eager", intermediate_size=[32, 48, 64, 80])
widths = []
with varied.trace(prompt):
    for i in range(varied.num_layers):
        widths.append(varied.layers[i].mlp.mlp_neurons.save())
assert [w.shape[-1] for w in widths] == [32, 48, 64, 80] and varied.intermediate_size == 32
try:
    Gemma3nTextConfig(num_hidden_layers=4, intermediate_size=[32, 48],
                      layer_types=["sliding_attention", "full_attention"] * 2, activation_sparsity_pattern=[0.0] * 4)
except ValueError:
    pass
else:
    raise AssertionError("a list of the wrong length was accepted")
```
'''
