"""Notes of Mamba written by hand, added to the derived ones. Read against transformers' modeling_mamba.py:
MambaMixer.forward (in_proj split into the conv branch and the gate, causal_conv1d_fn with silu, x_proj split into
dt, B and C, dt_proj's weight applied by hand and its bias added inside the scan, mamba_selective_scan's recurrence
with A = -exp(A_log) and the D skip, the gate silu(z), out_proj), MambaBlock (the residual in float32 under
residual_in_fp32) and MambaForCausalLM (float32 logits). The snippets run on the tiny Mamba, on the torch reference
path of the scan and the conv. The derived mixer note is replaced: the mixer notes here contain its facts."""

DROP = ("ssm_note",)

MORE = r'''
## There is no attention and no MLP: what the standard values are here

Each block is `x + mixer(norm(x))`, one sublayer. The mixer, served as `self_attn`, is the whole token mixing, and it has no queries, keys, values, heads or pattern: `attention_queries`, `attention_scores`, `attention_probabilities` and the rest of the attention's interior are not served, and reading one raises the reason. `attention_norm_output` is the block's `norm` output, what the mixer reads, and `attention_output` is `out_proj`'s output, what the mixer adds. The block has no MLP, so `layer_mid`, `mlp_input` and `mlp_output` are not served either: the stream after the mixer's add is `layer_output`.

```python
for name in ("attention_queries", "attention_scores", "attention_probabilities", "mlp_output", "layer_mid"):
    assert model.serves(name, 0) is not None                     # not served: the reason
assert model.serves("attention_output", 0) is None and model.serves("attention_norm_output", 0) is None

layer = model.layers[0]
with model.trace(prompt):
    x = layer.layer_input.save()
    h = layer.attention_norm_output.save()
    mix = layer.self_attn.attention_output.save()
    out = layer.layer_output.save()

assert torch.equal(layer.norm(x), h)
assert torch.equal(x + mix, out)
```

## The mixer: a gated, causal conv, then a selective scan

`in_proj` maps the normed stream to 2 · `intermediate_size` channels and splits them in halves: the first half goes through a depthwise causal `conv1d` (kernel `conv_kernel` = 4) and silu, the second, `z`, is the gate. `x_proj` maps the conv branch to `time_step_rank + 2 · state_size` numbers per position, split into a low-rank `dt`, `B` and `C`. `dt_proj` lifts `dt` back to one step size per channel, softplus makes it positive, and per channel c and state dimension s the scan runs

```formula
h[t] = exp(dt[t,c] · A[c,s]) · h[t-1] + dt[t,c] · B[t,s] · x[t,c]        A = -exp(A_log) < 0
y[t,c] = Σ_s C[t,s] · h[t,s] + D[c] · x[t,c]
out[t] = out_proj(y[t] · silu(z[t]))
```

Because A is negative and dt positive, each step multiplies the state by a factor in (0, 1): a channel forgets at a rate its input chooses, and `dt`, `B` and `C` depend on the token (the selection); `A_log` and `D` do not. Nothing in the mixer is a softmax or a per-pair score, so "which token it reads" has no pattern to answer it; the closest is the scan's implicit kernel C[t] · Π exp(dt A) · B[s] dt[s] for each channel. The snippet recomputes the mixer from its weights and gets `attention_output` exactly.

```python
import torch.nn.functional as F

layer = model.layers[0]
with model.trace(prompt):
    h = layer.attention_norm_output.save()
    out = layer.self_attn.attention_output.save()

m = layer.self_attn._module
n = h.shape[1]
x, z = m.in_proj(h).transpose(1, 2).chunk(2, dim=1)                 # conv branch, gate
x = F.silu(F.conv1d(x, m.conv1d.weight, m.conv1d.bias, padding=m.conv_kernel_size - 1, groups=x.shape[1])[..., :n])
dt, B, C = m.x_proj(x.transpose(1, 2)).split([m.time_step_rank, m.ssm_state_size, m.ssm_state_size], dim=-1)
dt = F.softplus(dt @ m.dt_proj.weight.T + m.dt_proj.bias)
A = -torch.exp(m.A_log)
assert (A < 0).all() and (dt > 0).all()
state, ys = torch.zeros(x.shape[0], x.shape[1], A.shape[1]), []
for t in range(n):
    state = torch.exp(dt[:, t, :, None] * A) * state + dt[:, t, :, None] * B[:, t, None, :] * x[:, :, t, None]
    ys.append((state @ C[:, t, :, None])[..., 0] + m.D * x[:, :, t])
y = torch.stack(ys, 1) * F.silu(z.transpose(1, 2))
torch.testing.assert_close(m.out_proj(y), out)
```

## `conv1d` and `dt_proj` are never called: hooks on them never fire

The mixer uses `conv1d` and `dt_proj` only for their weights: the conv runs as `causal_conv1d_fn(x, conv1d.weight, conv1d.bias, activation)` (a CUDA kernel where `causal_conv1d` is installed, `F.conv1d` otherwise), `dt_proj.weight @ dt` is a plain product and `dt_proj.bias` is added inside the scan. `mixer.conv1d.output` and `mixer.dt_proj.output` are therefore never produced, and nnsight reports a read of them as a value the model "already ran past". The conv branch's output, after silu, is `x_proj`'s input; `in_proj`, `x_proj` and `out_proj` are called as modules. A hook-based tool that patches `conv1d` or `dt_proj` changes nothing.

```python
import torch.nn.functional as F

mixer = model.layers[0].self_attn
with model.trace(prompt):
    xz = mixer.in_proj.output.save()
    conv_out = mixer.x_proj.input.save()

m, n = mixer._module, xz.shape[1]
x = xz.transpose(1, 2).chunk(2, dim=1)[0]
causal = F.conv1d(x, m.conv1d.weight, m.conv1d.bias, padding=m.conv_kernel_size - 1, groups=x.shape[1])[..., :n]
assert torch.equal(F.silu(causal).transpose(1, 2), conv_out)

for never in (mixer.conv1d, mixer.dt_proj):
    try:
        with model.trace(prompt):
            never.output.save()
    except Exception as error:
        assert "ran past" in str(error)
    else:
        raise AssertionError("the module ran")
```

## The conv looks 3 positions back, and there are no position embeddings

`conv1d` is depthwise (`groups` = `intermediate_size`, one 4-tap filter per channel) with `padding` 3, and the forward keeps its first n outputs, so the conv branch at position t mixes positions t − 3 to t only; the scan carries everything older. Nothing else encodes position: `layers[0].input` is the embedding row itself (`token_embeddings`), and the order of the tokens exists only through the conv and the recurrence. Changing the token at position p changes the conv branch at positions p to p + 3 and nowhere before.

```python
mixer = model.layers[0].self_attn
ids = model.tokenizer(prompt, return_tensors="pt").input_ids
with model.trace(prompt):
    tokens = model.token_embeddings.save()
    x = model.layers[0].input.save()
    conv = mixer.x_proj.input.save()
edited = ids.clone()
edited[0, 4] = (edited[0, 4] + 1) % model.config.vocab_size
with model.trace(edited):
    conv_edited = mixer.x_proj.input.save()

assert torch.equal(model.embed_tokens(ids), tokens) and torch.equal(tokens, x)
changed = (conv - conv_edited).abs().amax(-1)[0] > 0
assert changed.tolist() == [4 <= t <= 4 + 3 for t in range(ids.shape[1])]
assert mixer.conv1d.groups == mixer.conv1d.in_channels and mixer.conv1d.kernel_size == (4,)
```

## The residual is float32 and so are the logits, whatever the load's dtype

`residual_in_fp32` is true on Mamba 2.8B (and is the config class's default): `MambaBlock` casts the residual to float32 before adding the mixer's output, so under a bfloat16 or float16 load every block's `layer_output` is float32, while `attention_norm_output` (the norm casts its input to the weights' dtype) and `attention_output` are in the load's dtype. The next block's norm casts the float32 stream back down. `MambaForCausalLM` casts the final hidden state to `lm_head`'s dtype and returns `logits` as float32. Compare streams across loads in float32, and expect `layer_output` to take twice the memory of the weights' dtype.

```python
from nnterp import tiny

from transformers import MambaConfig

assert released("state-spaces/mamba-2.8b-hf")["residual_in_fp32"] is True and MambaConfig().residual_in_fp32 is True
half = tiny.load("mamba", dtype=torch.bfloat16)
layer = half.layers[0]
with half.trace(prompt):
    h = layer.attention_norm_output.save()
    mix = layer.self_attn.attention_output.save()
    out = layer.layer_output.save()
    logits = half.logits.save()

assert h.dtype == mix.dtype == torch.bfloat16
assert out.dtype == torch.float32 and logits.dtype == torch.float32
```

## The released sizes: 2 × hidden channels, a 16-wide state, a step rank of hidden / 16

Both checkpoints set `expand` 2, so `intermediate_size` is twice `hidden_size` (1536 on Mamba 130M, 5120 on Mamba 2.8B), with `state_size` 16 and `conv_kernel` 4; `time_step_rank` is `hidden_size / 16` (48 and 160), the width `dt` passes through between `x_proj` and `dt_proj`. `x_proj` thus maps 1536 channels to 48 + 2 · 16 = 80 numbers per position on 130M. On both, `in_proj` and `out_proj` have no bias (`use_bias` false) and the conv has one (`use_conv_bias`). The vocabulary is 50280 rows; neither config.json sets `tie_word_embeddings`, so MambaConfig's default (true) ties them to `lm_head`.

```python
small, large = released("state-spaces/mamba-130m-hf"), released("state-spaces/mamba-2.8b-hf")
for facts in (small, large):
    assert facts["intermediate_size"] == facts["expand"] * facts["hidden_size"] and facts["expand"] == 2
    assert facts["time_step_rank"] == facts["hidden_size"] // 16 and facts["state_size"] == 16
    assert facts["conv_kernel"] == 4 and facts["vocab_size"] == 50280 and "tie_word_embeddings" not in facts
    assert facts["use_bias"] is False and facts["use_conv_bias"] is True
assert (small["intermediate_size"], small["time_step_rank"]) == (1536, 48)
assert (large["intermediate_size"], large["time_step_rank"]) == (5120, 160)
from transformers import MambaConfig
assert MambaConfig().tie_word_embeddings is True   # the class's default, which both files leave in place

m = model.layers[0].self_attn._module
assert m.x_proj.out_features == m.time_step_rank + 2 * m.ssm_state_size
assert m.in_proj.out_features == 2 * model.config.intermediate_size
```
## Left padding is exact: the mixer zeroes padded positions before they reach the state

Mamba has no attention mask to hide pads, but `MambaMixer` multiplies its input by the attention mask before `in_proj` and the conv branch by it again after the conv (`apply_mask_to_padding_states`), so a padded position feeds zeros into the conv and the scan: it adds nothing to the state, and the state a real token meets is the one it would meet alone (the conv's own zero padding looks the same). A left-padded row of a batch therefore gives, at its real tokens, the logits the prompt gives on its own, up to float32 rounding. This holds only with the mask: the same padded ids passed without an `attention_mask` run the pad tokens as tokens, and their state changes what follows.

```python
short = "The Eiffel"
assert model.tokenizer.padding_side == "left"
with model.trace([short, prompt]):                     # the short row is padded on the left
    batched = model.logits.save()
with model.trace(short):
    alone = model.logits.save()

n = alone.shape[1]
torch.testing.assert_close(batched[0, -n:], alone[0])

padded = model.tokenizer([short, prompt], padding=True, return_tensors="pt").input_ids
with model.trace(padded[:1]):                         # no attention mask: the pads count as tokens
    unmasked = model.logits.save()
assert not torch.allclose(unmasked[0, -n:], alone[0], atol=1e-4)
```
'''
