"""Notes of LFM2 written by hand, added to the derived ones. Read against transformers' configuration_lfm2.py
(Lfm2Config.__post_init__, which builds layer_types from full_attn_idxs, defaults full_attn_idxs to every block
and takes block_ff_dim as intermediate_size) and modeling_lfm2.py (Lfm2ShortConv, whose forward zeroes padded
positions, splits in_proj into B, C and x and runs causal_conv1d_fn on conv.weight without calling conv;
Lfm2MLP's two-thirds rule; Lfm2DecoderLayer's conv or self_attn child; Lfm2Model, whose embedding_norm runs after
the last block and whose rotary reaches only the attention blocks). The snippets run on the tiny LFM2 (block 0 a
short-convolution block, block 1 an attention block) and on configs built from LFM2-1.2B's recorded config.json."""

LOAD = "eager"

MORE = r'''
## Six blocks of sixteen attend; the other ten run a short convolution

Each LFM2 block holds one mixer: `self_attn` (an `Lfm2Attention`) on the blocks that attend, and `conv` (an `Lfm2ShortConv`) on the others, which nnterp serves as `self_attn` too; every block then has the same SwiGLU MLP, `feed_forward`. LFM2-1.2B's config.json lists the attention blocks in `full_attn_idxs`, [2, 5, 8, 10, 12, 14], and `Lfm2Config` turns that list into `layer_types`: blocks 0, 1, 3, 4, 6, 7, 9, 11, 13 and 15 are convolutions, so the first two blocks a prompt meets never attend and the last block convolves. `full_attn_idxs` is the list the config class reads; a config that gives neither it nor `layer_types` gets the class's default, every block an attention block, a Llama with QK-norm and no convolution at all, and loads without complaint. Read `model.config.layer_types`, not the number of blocks, to know which blocks attend.

```python
from transformers import Lfm2Config

facts = released("LiquidAI/LFM2-1.2B")
config = Lfm2Config(**facts)
attending = [i for i, kind in enumerate(config.layer_types) if kind == "full_attention"]
assert facts["num_hidden_layers"] == 16 and attending == facts["full_attn_idxs"] == [2, 5, 8, 10, 12, 14]
assert [i for i, kind in enumerate(config.layer_types) if kind == "conv"] == [0, 1, 3, 4, 6, 7, 9, 11, 13, 15]
assert set(Lfm2Config(num_hidden_layers=4).layer_types) == {"full_attention"}   # no list: no convolution

for i, kind in enumerate(model.config.layer_types):   # the tiny model: conv, then attention
    block = model.layers[i]._module
    assert hasattr(block, "conv") == (kind == "conv") and hasattr(block, "self_attn") == (kind == "full_attention")
```

## The short convolution is B·x through three causal taps per channel, times C: no activation, no state, no norm

`Lfm2ShortConv` splits `in_proj` (hidden → 3 · hidden) into three hidden-wide thirds, B, C and x in that order, multiplies B and x, runs the product through a depthwise causal convolution (one filter of `conv_L_cache` taps per channel, 3 on LFM2-1.2B, no bias there since `conv_bias` is false), multiplies by C and projects back with `out_proj`:

```formula
B, C, x = in_proj(h).chunk(3)                       h = operator_norm(stream)
y[t]    = C[t] · (w0 · (B·x)[t-2] + w1 · (B·x)[t-1] + w2 · (B·x)[t])     per channel
out     = out_proj(y)
```

Both gates are linear (no sigmoid, no silu), so the mixer is a cubic polynomial of its input; there is no state carried over the whole past, no decay and no scan as in Mamba, and no norm inside. `conv_L_cache` is the kernel's width, whatever its name suggests. The snippet recomputes the mixer from its weights and gets `attention_output` bit for bit; with x and B swapped for C it does not.

```python
import torch.nn.functional as F

assert released("LiquidAI/LFM2-1.2B")["conv_L_cache"] == 3 and released("LiquidAI/LFM2-1.2B")["conv_bias"] is False
conv_block = model.config.layer_types.index("conv")
mixer = model.layers[conv_block].self_attn
with model.trace(prompt):
    h = model.layers[conv_block].attention_norm_output.save()
    out = mixer.attention_output.save()

m = mixer._module
def short_conv(h, gate_first, gate_last):
    parts = dict(zip("BCx", m.in_proj(h).transpose(1, 2).chunk(3, dim=1)))
    bx = parts[gate_first] * parts["x"]
    taps = F.conv1d(bx, m.conv.weight, m.conv.bias, padding=m.conv_kernel_size - 1, groups=bx.shape[1])
    return m.out_proj((parts[gate_last] * taps[..., :h.shape[1]]).transpose(1, 2))

assert m.conv.weight.shape == (model.hidden_size, 1, model.config.conv_L_cache)   # one filter per channel
assert torch.equal(short_conv(h, "B", "C"), out)
assert not torch.allclose(short_conv(h, "C", "B"), out)
```

## A short-convolution block reads its own position and the two before it, and no position index

A conv block's output at position t is a function of the normed stream at t - 2, t - 1 and t alone: change the stream at position 0, and the block's `attention_output` changes at positions 0, 1 and 2 and at no later position, bit for bit. The block takes no `position_ids`, so shifting them changes nothing in it. Position enters LFM2 in two ways only: the order of the three taps in each conv block, and the rotary of the attention blocks (every one of each 64-dimensional head's dimensions turns, at base 1000000 on LFM2-1.2B; the derived notes below prove it). Windows add up through the stack: on LFM2-1.2B, blocks 0 and 1 convolve, so what reaches the first attention block (block 2) at position t has read tokens t - 4 to t and nothing earlier; the snippet builds that schedule and finds the same five-token window.

```python
conv_block = model.config.layer_types.index("conv")
layer = model.layers[conv_block]
with model.trace(prompt):
    h = layer.attention_norm_output.save()
    out = layer.self_attn.attention_output.save()
changed = h.clone()
changed[:, 0] += 1.0
with model.trace(prompt):
    layer.attention_norm_output[:] = changed
    moved = layer.self_attn.attention_output.save()
assert not torch.equal(moved[:, 2], out[:, 2])   # the third tap reaches back two positions
assert torch.equal(moved[:, 3:], out[:, 3:])     # and no further

ids = model.tokenizer(prompt, return_tensors="pt").input_ids
with model.trace(ids, position_ids=torch.arange(ids.shape[1])[None] + 1000):
    shifted = layer.layer_output.save()
with model.trace(ids):
    plain = layer.layer_output.save()
assert torch.equal(shifted, plain)

from nnterp import tiny
stacked = tiny.load("lfm2", num_hidden_layers=3, layer_types=["conv", "conv", "full_attention"])
with stacked.trace(prompt):
    emb = stacked.token_embeddings.save()
    reached = stacked.layers[2].layer_input.save()
changed = emb.clone()
changed[:, 0] += 1.0
with stacked.trace(prompt):
    stacked.token_embeddings[:] = changed
    moved = stacked.layers[2].layer_input.save()
assert not torch.equal(moved[:, 4], reached[:, 4]) and torch.equal(moved[:, 5:], reached[:, 5:])
```

## `conv` itself is never called: a hook on it never fires

The module `self_attn.conv` (`nn.Conv1d` with `padding` 2) holds the filters, but the forward never calls it: it passes `conv.weight` to `causal_conv1d_fn` (a kernel from the hub where one is installed, `F.conv1d` on the weight otherwise), and a decode step with a cache passes it to `causal_conv1d_update`. `self_attn.conv.output` is therefore never produced, and nnsight reports a read of it as a value the model "already ran past"; a tool that patches the `Conv1d` module changes nothing. The convolution's gated output, C times the taps, is what `out_proj` reads: `self_attn.out_proj.input`; B·x before the taps is not a module's input or output.

```python
conv_block = model.config.layer_types.index("conv")
mixer = model.layers[conv_block].self_attn
with model.trace(prompt):
    bcx = mixer.in_proj.output.save()
    gated = mixer.out_proj.input.save()
    out = mixer.attention_output.save()
assert torch.equal(mixer._module.out_proj(gated), out)
B, C, x = bcx.chunk(3, dim=-1)
assert gated.shape == x.shape and not torch.equal(gated, C * B * x)   # the taps mix positions in

try:
    with model.trace(prompt):
        mixer.conv.output.save()
except Exception as error:
    assert "ran past" in str(error)
else:
    raise AssertionError("the Conv1d module ran")
```

## The MLP's width is two thirds of `block_ff_dim` rounded up to 256: 8192 on LFM2-1.2B, not `config.intermediate_size`

`Lfm2Config` stores the released `block_ff_dim` (12288 on LFM2-1.2B) as `intermediate_size`, and `Lfm2MLP` does not use it as given: with `block_auto_adjust_ff_dim` (true on LFM2-1.2B) it takes int(2/3 of it), multiplies by `block_ffn_dim_multiplier` and rounds up to a multiple of `block_multiple_of` (256). On LFM2-1.2B, 12288 is 6 · `hidden_size` and two thirds of it is 8192, already a multiple of 256: `w1`, `w3` and `w2` are 8192 wide (4 · `hidden_size`), while `model.config.intermediate_size` says 12288. nnterp's `model.intermediate_size` and the layout of `mlp_neurons` are the built width. The rounding goes up: the tiny model's `intermediate_size` of 128 becomes int(85.3) = 85, rounded up to 256, an MLP twice as wide as the config says.

```python
from transformers import Lfm2Config
from transformers.models.lfm2.modeling_lfm2 import Lfm2MLP

facts = released("LiquidAI/LFM2-1.2B")
assert facts["block_ff_dim"] == 12288 and facts["block_auto_adjust_ff_dim"] is True and facts["block_multiple_of"] == 256
config = Lfm2Config(**facts)
assert config.intermediate_size == 12288
with torch.device("meta"):
    built = Lfm2MLP(config)
assert built.w1.out_features == built.w3.out_features == built.w2.in_features == 8192

assert model.config.intermediate_size == 128 and model.intermediate_size == 256
assert model.layers[0].mlp._module.w1.out_features == model.intermediate_size
with model.trace(prompt):
    neurons = model.layers[0].mlp.mlp_neurons.save()
assert neurons.shape[-1] == model.intermediate_size
```

## `embedding_norm` is the final norm: the embeddings enter the first block unnormed

The model's last RMSNorm is named `embedding_norm`, and it does not touch the embeddings: `Lfm2Model.forward` applies it once, after the last block, to what `lm_head` reads (the name comes from the tied embedding matrix it feeds). nnterp serves it as `model.norm` and its output as `final_norm_output`. The first block's input is `embed_tokens`' output as it is, and a lens that applies `embedding_norm` to the stream at block i applies the model's own final norm.

```python
assert model.norm._module is model._module.model.embedding_norm
with model.trace(prompt):
    emb = model.token_embeddings.save()
    x0 = model.layers[0].layer_input.save()
    last = model.layers[-1].layer_output.save()
    final = model.final_norm_output.save()
assert torch.equal(emb, x0)   # no norm between the table and block 0
assert torch.equal(model._module.model.embedding_norm(last), final)
```

## What each kind of block serves

On a conv block `self_attn` is the short convolution: `attention_norm_output` is `operator_norm`'s output, what the mixer reads, and `attention_output` is `out_proj`'s output, what it adds. The attention's interior (`attention_queries`, `attention_keys`, `attention_values`, `attention_scores`, `attention_probabilities`, `attention_head_outputs`, `attention_premix`) is not served there: a per-channel convolution has no queries, keys, heads or pattern, and nothing splits its `out_proj` input into heads. On an attention block the interior is served (scores and pattern under `attn_implementation="eager"`). Both kinds are pre-norm with `ffn_norm` between the two sublayers, so `layer_mid`, `mlp_norm_output` and the MLP's values exist on every block and the block is x + mixer(norm(x)), then + mlp(norm(·)).

```python
attention_block = model.config.layer_types.index("full_attention")
conv_block = model.config.layer_types.index("conv")
for name in ("attention_queries", "attention_keys", "attention_values", "attention_scores",
             "attention_probabilities", "attention_head_outputs", "attention_premix"):
    assert model.serves(name, conv_block) is not None and model.serves(name, attention_block) is None
for i in (conv_block, attention_block):
    layer = model.layers[i]
    with model.trace(prompt):
        x = layer.layer_input.save()
        mix = layer.self_attn.attention_output.save()
        mid = layer.layer_mid.save()
        mlp = layer.mlp.mlp_output.save()
        out = layer.layer_output.save()
    assert torch.equal(x + mix, mid) and torch.equal(mid + mlp, out)
```

## Left padding is exact: the convolution zeroes the pads and the rotary is relative

A left-padded row's tokens sit at later positions than they would alone. `Lfm2ShortConv` multiplies its input by the padding mask before `in_proj`, which has no bias, so a pad contributes B·x = 0 to the taps, exactly the zeros the convolution pads with before position 0; the attention's mask hides the pads, and a rotary score depends only on the distance between query and key. A left-padded row therefore gives, at its real tokens, the logits the prompt gives alone, up to float32 rounding; run without the mask, the pads enter the taps and the attention as tokens, and it does not.

```python
short = "The Eiffel"
assert model.tokenizer.padding_side == "left"
with model.trace([short, prompt]):
    batched = model.logits.save()
with model.trace(short):
    alone = model.logits.save()
n = alone.shape[1]
torch.testing.assert_close(batched[0, -n:], alone[0])

padded = model.tokenizer([short, prompt], padding=True, return_tensors="pt").input_ids
with model.trace(padded[:1]):
    unmasked = model.logits.save()
assert not torch.allclose(unmasked[0, -n:], alone[0], atol=1e-4)
```
'''
