"""Notes of Zamba written by hand, added to the derived ones. Read against transformers' configuration_zamba.py
(ZambaConfig.__post_init__: the default layers_block_type, two Mamba blocks and a hybrid one, then the period counted
from block 3; attention_hidden_size, attention_head_dim and mamba_dt_rank filled in) and modeling_zamba.py
(ZambaModel, which builds one ZambaAttentionDecoderLayer per hybrid block and ties their parameters through
_tied_weights_keys, and passes position_ids that no block reads; ZambaAttentionDecoderLayer's concatenation with the
embeddings and its missing residual; ZambaAttention, with no rotary and the (head_dim / 2)^-0.5 scale;
ZambaMambaMixer's interleaved in_proj split, its n_mamba_heads independent scans with bare x_proj_weight and
dt_proj_weight, and conv1d used for its weights only; ZambaMambaDecoderLayer adding the shared output to the mixer's
input). No copy of Zamba-7B-v1's config.json was found, so the numbers here are the config class's defaults, said as
the class's. The snippets run on the tiny Zamba (a Mamba block, then two hybrid blocks)."""

LOAD = "eager"

MORE = r'''
## The class's default stack has 13 hybrid blocks in 76, at 2, 7, 13, … 73: the period is counted from block 3

`ZambaConfig` builds `layers_block_type` when a config does not list it: two Mamba blocks ("linear_attention"), one hybrid block, and then, for the remaining `num_hidden_layers` − 3 blocks counted from 0 at block 3, a hybrid block wherever that count modulo `attn_layer_period` equals `attn_layer_offset`. With the class's defaults (76 blocks, period 6, offset 4) the hybrid blocks are 2, 7, 13, 19, 25, 31, 37, 43, 49, 55, 61, 67 and 73, not the blocks i with i % 6 == 4 that the keys' docstrings suggest (4, 10, 16, …): 13 uses of attention, the first at block 2 and then every sixth block from 7. A config that lists `layers_block_type` is used as listed. Read `model.config.layers_block_type` to know which blocks attend.

```python
from transformers import ZambaConfig

default = ZambaConfig()
assert (default.num_hidden_layers, default.attn_layer_period, default.attn_layer_offset) == (76, 6, 4)
hybrid = [i for i, kind in enumerate(default.layers_block_type) if kind == "hybrid"]
assert hybrid == [2] + list(range(7, 76, 6)) and len(hybrid) == 13
assert hybrid != [i for i in range(76) if i % 6 == 4]
assert default.layers_block_type[:2] == ["linear_attention", "linear_attention"]

for i, kind in enumerate(model.config.layers_block_type):   # the tiny model: a Mamba block, then two hybrid blocks
    block = model.layers[i]._module
    assert type(block).__name__ == {"hybrid": "ZambaHybridLayer", "linear_attention": "ZambaMambaDecoderLayer"}[kind]
```

## A hybrid block runs the shared attention+MLP on the stream joined to the embeddings, and feeds it to the Mamba mixer

A hybrid block (`ZambaHybridLayer`) is three modules: `shared_transf`, `linear` and `mamba_decoder`. The shared block reads the stream x concatenated with the prompt's token embeddings (`embed_tokens`' output, cloned once and the same at every hybrid block), 2 · `hidden_size` wide, normed by its own `input_layernorm`; it runs the attention, `pre_ff_layernorm` on the attention's output, and the gated MLP down(act(gate) · up) with `hidden_act` (gelu by the class's default), with no residual anywhere. `linear` projects the result, which is added not to the stream but to the Mamba mixer's input:

```formula
s   = feed_forward(pre_ff_layernorm(self_attn(input_layernorm([x ; emb]))))
out = x + mamba(mamba_decoder.input_layernorm(x + linear(s)))
```

The stream never receives the attention's or the MLP's output directly: it receives the Mamba mixer's output alone, which is `attention_output` on both kinds of block, and `layer_input + attention_output == layer_output`. The token's own embedding re-enters at every hybrid block, however deep. The snippet recomputes the block from the shared attention's output, read at `self_attn.output`, and gets `attention_output`.

```python
i = model.config.layers_block_type.index("hybrid")
layer = model.layers[i]
hybrid = layer._module
with model.trace(prompt):
    emb = model.token_embeddings.save()
    x = layer.layer_input.save()
    shared_in = layer.self_attn.input.save()
    attention = layer.self_attn.output[0].save()
    mix = layer.self_attn.attention_output.save()
    out = layer.layer_output.save()

shared = hybrid.shared_transf
assert torch.equal(shared.input_layernorm(torch.cat([x, emb], dim=-1)), shared_in)   # 2 · hidden_size wide
s = shared.feed_forward(shared.pre_ff_layernorm(attention))
decoder = hybrid.mamba_decoder
torch.testing.assert_close(decoder.mamba(decoder.input_layernorm(x + hybrid.linear(s))), mix)
assert not torch.allclose(decoder.mamba(decoder.input_layernorm(x)), mix)   # the shared block's part matters
assert torch.equal(x + mix, out)
```

## The shared block is one set of parameters held by a separate module in each hybrid block

`ZambaModel` builds a new `ZambaAttentionDecoderLayer` for every hybrid block and then ties their parameters to the first one's (`_tied_weights_keys` maps every other block's `shared_transf` onto the first's): after loading, `q_proj.weight` of block 7's shared block is block 2's tensor, and so is every weight of the attention, the MLP and both norms. On the class's default stack, the same attention and MLP run 13 times. The modules, however, are distinct objects, one per block: a hook or an nnsight read on `layers[i].self_attn` acts at block i only, while an edit to a weight acts at every hybrid block at once. `linear` and the Mamba mixer are each block's own. An attribution that sums over weights, or a weight-level edit meant for one depth, has to account for the 13 uses.

```python
blocks = model._module.model.layers
hybrid = [i for i, kind in enumerate(model.config.layers_block_type) if kind == "hybrid"]
a, b = hybrid[:2]
assert blocks[a].shared_transf is not blocks[b].shared_transf                 # two modules
for (name, p), (_, q) in zip(blocks[a].shared_transf.named_parameters(), blocks[b].shared_transf.named_parameters()):
    assert p is q, name                                                         # one set of weights
assert blocks[a].linear.weight is not blocks[b].linear.weight
assert blocks[a].mamba_decoder.mamba.in_proj.weight is not blocks[b].mamba_decoder.mamba.in_proj.weight

calls = []
hook = blocks[a].shared_transf.self_attn.register_forward_hook(lambda module, args, output: calls.append(module))
try:
    with model.trace(prompt):
        model.logits.save()
finally:
    hook.remove()
assert len(calls) == 1   # block a's module runs once per forward, though its weights run at every hybrid block
```

## The shared attention is twice as wide as the stream, and scales by (head_dim / 2)^-0.5

The attention reads `attention_hidden_size` = 2 · `hidden_size` numbers, and `ZambaConfig` fills `attention_head_dim` with 2 · `hidden_size` / `num_attention_heads`: with the class's defaults, 7424 inputs and heads of 464 (2 · 3712 / 16), where a standard attention on the stream would have 232. `o_proj` returns `hidden_size` numbers. The scores are q · k · (head_dim / 2)^-0.5, as if each head's dot product counted only the stream's half: a pattern recomputed from `attention_queries` and `attention_keys` with `head_dim ** -0.5` is too flat, its logits too small by √2. `model.head_dim` is `attention_head_dim`.

```python
from transformers import ZambaConfig

default = ZambaConfig()
assert default.attention_hidden_size == 2 * default.hidden_size == 7424
assert default.attention_head_dim == 2 * default.hidden_size // default.num_attention_heads == 464
assert model.head_dim == model.config.attention_head_dim == 2 * model.config.hidden_size // model.num_heads

i = model.config.layers_block_type.index("hybrid")
attention = model.layers[i].self_attn
with model.trace(prompt):
    q = attention.attention_queries.save()
    k = attention.attention_keys.save()
    scores = attention.attention_scores.save()
k = k.repeat_interleave(q.shape[1] // k.shape[1], dim=1)
causal = torch.ones(q.shape[2], q.shape[2]).tril().bool()
ours = (q @ k.transpose(-1, -2)) * (model.head_dim / 2) ** -0.5
torch.testing.assert_close(ours[..., causal], scores[..., causal])
assert not torch.allclose((q @ k.transpose(-1, -2) * model.head_dim ** -0.5)[..., causal], scores[..., causal])
```

## The attention has no positional encoding, and `position_ids` reach no layer

`ZambaAttention` hands its projections to the kernel as they are: no rotary, no `rotary_emb` in the model, no position bias or position embedding. A query's score against a key depends on the two vectors alone, so the shared attention treats the tokens before a query as a set; the snippet shuffles the earlier positions of its input and the last query's scores come out shuffled the same way. The order of tokens reaches the stream only through the Mamba mixers' causal conv (`mamba_d_conv` taps, 4 by the class's default) and scan, and the class's default stack starts with two Mamba blocks. `ZambaModel.forward` computes `position_ids` and no block reads them: any `position_ids` give the same logits bit for bit, and `max_position_embeddings` (4096 by the class's default) is read by no layer of the forward.

```python
from transformers import ZambaConfig

assert (ZambaConfig().mamba_d_conv, ZambaConfig().max_position_embeddings) == (4, 4096)
assert not any("rotary" in name for name, _ in model._module.named_modules())
i = model.config.layers_block_type.index("hybrid")
attention = model.layers[i].self_attn
with model.trace(prompt):
    h = attention.input.save()
    q = attention.attention_queries.save()
    q_unrotated = attention.attention_queries_unrotated.save()
    scores = attention.attention_scores.save()
assert torch.equal(q, q_unrotated)
n = h.shape[1]
order = torch.cat([torch.arange(n - 2, -1, -1), torch.tensor([n - 1])])   # earlier positions reversed, last kept
with model.trace(prompt):
    attention.input[:] = h[:, order]
    shuffled = attention.attention_scores.save()
torch.testing.assert_close(shuffled[..., -1, :], scores[..., -1, order])

ids = model.tokenizer(prompt, return_tensors="pt").input_ids
with model.trace(ids):
    logits = model.logits.save()
with model.trace(ids, position_ids=torch.arange(ids.shape[1])[None] + 100000):
    shifted = model.logits.save()
assert torch.equal(logits, shifted)
```

## The Mamba mixer is `n_mamba_heads` independent Mambas, and `in_proj` interleaves the input and the gate

`ZambaMambaMixer` differs from Mamba's mixer in two ways a reader of its tensors meets. First, `in_proj`'s 2 · intermediate outputs are not two halves: the forward views them as (intermediate, 2), so output 2j is channel j's input and output 2j + 1 its gate. Second, after the depthwise causal conv (all channels at once, `conv1d`'s weight passed to `causal_conv1d_fn`, the module itself never called) the channels are split into `n_mamba_heads` heads of intermediate / n_mamba_heads (2 heads of 3712 channels by the class's default), and each head runs its own selective scan with its own `x_proj_weight`, `dt_proj_weight`, `dt_proj_bias`, `A_log` and `D`, all bare parameters rather than `Linear` modules, so no hook sees dt, B or C. A head's dt, B and C are computed from its own channels only, and the heads meet first in `out_proj`. The snippet perturbs one channel's input in `in_proj`'s output: `out_proj`'s input changes in that channel's head and nowhere else; perturbing its gate changes that one channel alone.

```python
mamba_block = model.config.layers_block_type.index("linear_attention")
mixer = model.layers[mamba_block].self_attn
m = mixer._module
width = m.mamba_head_dim
assert m.n_mamba_heads == model.config.n_mamba_heads and m.intermediate_size == m.n_mamba_heads * width
assert m.x_proj_weight.shape == (m.n_mamba_heads, m.time_step_rank + 2 * m.ssm_state_size, width)
with model.trace(prompt):
    proj = mixer.in_proj.output.save()
    y = mixer.out_proj.input.save()

channel = width + 1   # in the second head
for index, changed_channels in ((2 * channel, range(width, 2 * width)), (2 * channel + 1, [channel])):
    bumped = proj.clone()
    bumped[..., index] += 1.0
    with model.trace(prompt):
        mixer.in_proj.output[:] = bumped
        moved = mixer.out_proj.input.save()
    differs = (moved != y).any(dim=(0, 1)).nonzero().flatten().tolist()
    assert differs == list(changed_channels), (index, differs)

try:
    with model.trace(prompt):
        mixer.conv1d.output.save()
except Exception as error:
    assert "ran past" in str(error)
else:
    raise AssertionError("the conv1d module ran")
```

## What each kind of block serves

On a Mamba block `self_attn` is the Mamba mixer: `attention_norm_output` is the block's `input_layernorm` output and `attention_output` the mixer's `out_proj` output, and the attention's interior is not served (a scan has no queries, keys or pattern). On a hybrid block `self_attn` is the shared attention and its interior is served (queries, keys, values, scores and pattern under eager); `attention_output` is still the Mamba mixer's output, the only thing the stream receives, so it is not the attention's own output, which is `layers[i].self_attn.output[0]`. `attention_norm_output` is not served there: the attention reads 2 · `hidden_size` numbers, which is `self_attn.input`. No block of either kind has an MLP on the stream, so `layer_mid`, `mlp_output` and the MLP's values are refused with the reason; the shared MLP is read natively at `shared_transf.feed_forward`.

```python
mamba_block = model.config.layers_block_type.index("linear_attention")
hybrid_block = model.config.layers_block_type.index("hybrid")
assert model.serves("attention_scores", mamba_block) is not None and model.serves("attention_scores", hybrid_block) is None
assert model.serves("attention_norm_output", mamba_block) is None
assert model.serves("attention_norm_output", hybrid_block) is not None
for block in (mamba_block, hybrid_block):
    for name in ("mlp_output", "layer_mid", "mlp_neurons"):
        assert model.serves(name, block) is not None

layer = model.layers[hybrid_block]
with model.trace(prompt):
    head_outputs = layer.self_attn.attention_premix.save()
    attention_own = layer.self_attn.output[0].save()
    mix = layer.self_attn.attention_output.save()
assert attention_own.shape == mix.shape and not torch.allclose(attention_own, mix)
torch.testing.assert_close(layer.self_attn._module.o_proj(head_outputs.flatten(-2)), attention_own)
```
'''
