"""Notes of RecurrentGemma (Griffin) written by hand, added to the derived ones. Read against transformers'
modeling_recurrent_gemma.py (RecurrentGemmaRglru and its _rnn_scan, RecurrentGemmaRecurrentBlock's
convolution, RecurrentGemmaMlp, the model's normalizer and masks) and configuration_recurrent_gemma.py
(__post_init__, layers_block_type, attribute_map). No public copy of google/recurrentgemma-2b's config.json
with a repository and path to cite was found, so these notes state what the class and the modeling code do,
with the class's defaults (its docstring's recurrentgemma-2b-style configuration) labelled as such. The snippets
run on the tiny RecurrentGemma (two recurrent blocks, then a local attention)."""

LOAD = "eager"

MORE = r'''
## The RG-LRU is a gated linear recurrence that restarts wherever `position_ids` is 0

Each recurrent block's `rg_lru` computes, per channel, h_t = a_t · h_{t−1} + √(1 − a_t²) · (i_t · x_t), with an input gate i_t = σ(x_t W_i + b_i), a decay a_t = exp(−8 · σ(x_t W_a + b_a) · softplus(Λ)) (Λ is `recurrent_param`), and the state accumulated in float32. The gates' weights are block-diagonal: `num_attention_heads` blocks of `lru_width / num_attention_heads` channels, so a gate mixes channels only within its block. At any position whose `position_ids` is 0 the decay is replaced by 0 and the input is not rescaled: the state restarts there. A batch of packed documents with `position_ids` restarting at each one restarts the recurrence at each; a left-padded batch whose `position_ids` start at 0 on the padding carries the padding's state into the prompt. The snippet reproduces `rg_lru`'s output from its input, with a restart in the middle:

```python
import torch.nn.functional as F

lru = model.layers[0].self_attn.rg_lru
module = lru._module
ids = model.tokenizer(prompt, return_tensors="pt").input_ids
n = ids.shape[1]
positions = torch.cat((torch.arange(4), torch.arange(n - 4)))[None]       # a second document from position 4
with model.trace(ids, position_ids=positions):
    x = lru.inputs[0][0].save()
    h = lru.output.save()

heads, width = module.num_attention_heads, module.block_width
blocks = x.view(1, n, heads, width)
gate_in = torch.sigmoid(torch.einsum("bthi,hij->bthj", blocks, module.input_gate_weight) + module.input_gate_bias).flatten(-2)
gate_a = torch.sigmoid(torch.einsum("bthi,hij->bthj", blocks, module.recurrent_gate_weight) + module.recurrent_gate_bias).flatten(-2)
log_a = -8.0 * gate_a * F.softplus(module.recurrent_param)
restart = (positions == 0)[..., None]
a = torch.where(restart, torch.zeros_like(log_a), log_a.exp())
scale = torch.where(restart, torch.ones_like(log_a), (1 - (2 * log_a).exp()).sqrt())
state, expected = torch.zeros(module.recurrent_param.shape), []
for t in range(n):
    state = a[0, t] * state + scale[0, t] * gate_in[0, t] * x[0, t]
    expected.append(state)
torch.testing.assert_close(h[0], torch.stack(expected))
```

## The 4-wide convolution before the RG-LRU is not restarted: three positions after a restart still see the last document

The recurrent block's x branch is `linear_x`, then a causal depthwise `conv_1d` of width `conv1d_width` (4 by the class's default), then `rg_lru`. The restart at `position_ids` 0 is in `rg_lru` only: the convolution keeps mixing each channel over the current and three previous positions across the boundary. On packed documents, the first three tokens of a document enter the recurrence with the end of the previous one mixed in; from the fourth on, the first block's recurrence input is the same as for the document alone. The snippet compares the second document packed after another and run alone:

```python
lru = model.layers[0].self_attn.rg_lru
width = model.config.conv1d_width
ids = model.tokenizer(prompt, return_tensors="pt").input_ids
n, cut = ids.shape[1], 3
positions = torch.cat((torch.arange(cut), torch.arange(n - cut)))[None]
with model.trace(ids, position_ids=positions):
    packed = lru.inputs[0][0].save()
with model.trace(ids[:, cut:]):
    alone = lru.inputs[0][0].save()

assert width == 4
assert not torch.allclose(packed[:, cut], alone[:, 0])                                   # still mixed
torch.testing.assert_close(packed[:, cut + width - 1:], alone[:, width - 1:])            # past the kernel: equal
```

## The blocks cycle recurrent, recurrent, attention: with 26 layers, 8 attend and the last two recur

`RecurrentGemmaConfig.layers_block_type` repeats `block_types`, ("recurrent", "recurrent", "attention") by the class's default, over the layers: layer i is a local attention when i % 3 == 2. With the class's default 26 layers, layers 2, 5, …, 23 attend (8 of them) and the other 18 are recurrent, the last two (24, 25) included. On a recurrent layer there are no queries, keys or pattern (those values are unavailable there); `attention_output` is the block's `linear_out` output either way. The config aliases `layer_types` to this list, in transformers' names: `linear_attention` for recurrent, `sliding_attention` for attention.

```python
from transformers import RecurrentGemmaConfig

types = RecurrentGemmaConfig().layers_block_type
assert len(types) == 26 and RecurrentGemmaConfig().num_hidden_layers == 26
assert [i for i, kind in enumerate(types) if kind == "sliding_attention"] == list(range(2, 26, 3))
assert types[-2:] == ["linear_attention", "linear_attention"]
kinds = [type(model.layers[i].self_attn._module).__name__ for i in range(model.num_layers)]
assert kinds == ["RecurrentGemmaRecurrentBlock", "RecurrentGemmaRecurrentBlock", "RecurrentGemmaAttention"]
assert model.serves("attention_probabilities", 0) is not None and model.serves("attention_probabilities", 2) is None
```

## The attention layers are local: each query sees the last `attention_window_size` keys, 2048 by the class's default

The attention blocks are built with a sliding-window mask of `attention_window_size` (the config also answers to `sliding_window`), 2048 by the class's default: past that many tokens, the attention layers see only the recent window, and everything older reaches the model only through the recurrent blocks' fixed-size state. On the tiny model loaded with a window of 3, the attention layer's pattern is zero beyond the query and the two keys before it:

```python
from transformers import RecurrentGemmaConfig
from nnterp import tiny

assert RecurrentGemmaConfig().attention_window_size == 2048 == RecurrentGemmaConfig().sliding_window
small = tiny.load("recurrent_gemma", attn_implementation="eager", attention_window_size=3)
with small.trace(prompt):
    probs = small.layers[2].self_attn.attention_probabilities.save()
n = probs.shape[-1]
i, j = torch.meshgrid(torch.arange(n), torch.arange(n), indexing="ij")
inside = (j <= i) & (i - j < 3)
assert bool((probs[..., ~inside] == 0).all()) and bool((probs[..., inside] > 0).all())
```

## The embeddings are multiplied by √hidden_size rounded to bfloat16, whatever the load's dtype

`RecurrentGemmaModel.normalizer` is a buffer created as bfloat16: √hidden_size rounded to 8 bits of mantissa, cast to the stream's dtype before the product. With the class's default width, 2560, that is 50.5, not 50.596: a float32 load multiplies by 50.5 too. `token_embeddings` is `embed_tokens`'s output before the product, and `layers[0].input` is after it; reproducing the first block's input with the exact root is off by 0.2%.

```python
from transformers import RecurrentGemmaConfig

normalizer = model._module.model.normalizer
assert normalizer.dtype == torch.bfloat16
assert normalizer.item() == torch.tensor(model.config.hidden_size ** 0.5).to(torch.bfloat16).item()
assert torch.tensor(RecurrentGemmaConfig().hidden_size ** 0.5).to(torch.bfloat16).item() == 50.5

with model.trace(prompt):
    embedded = model.token_embeddings.save()
    first = model.layers[0].layer_input.save()
assert torch.equal(first, embedded * normalizer.to(embedded.dtype))
assert 50.5 != 2560 ** 0.5 and abs(50.5 / 2560 ** 0.5 - 1) > 1e-3     # the class default's width: off by 0.2%
```

## The MLP is half of `intermediate_size` wide, and `num_attention_heads` also cuts the RG-LRU's gates

`RecurrentGemmaMlp` builds `gate_proj`, `up_proj` and `down_proj` with `intermediate_size // 2` neurons: the config's `intermediate_size` counts the gate and up projections together, and `mlp_neurons` has half that many entries. `num_attention_heads` is the number of blocks of the RG-LRU's block-diagonal gates as well as the attention's head count: the recurrent blocks have no heads, but each of their gates is `num_attention_heads` independent square matrices of `lru_width / num_attention_heads` channels, and a channel's gate reads only the channels of its block. (The class's rules, whatever the checkpoint.)

```python
with model.trace(prompt):
    neurons = model.layers[0].mlp.mlp_neurons.save()
assert neurons.shape[-1] == model.config.intermediate_size // 2 == model.layers[0].mlp.gate_proj.out_features
module = model.layers[0].self_attn.rg_lru._module
blocks, width = model.config.num_attention_heads, model.config.lru_width // model.config.num_attention_heads
assert module.input_gate_weight.shape == module.recurrent_gate_weight.shape == (blocks, width, width)
```
'''
