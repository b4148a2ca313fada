"""Notes of Mamba-2 written by hand, added to the derived ones. Read against transformers' configuration_mamba2.py
(the time_step_* defaults, validate_architecture's hidden_size · expand == num_heads · head_dim) and
modeling_mamba2.py (Mamba2Mixer.forward: one in_proj split into the gate, the conv input x|B|C and one dt per head,
causal_conv1d_fn over x, B and C together, apply_mask_to_padding_states, mamba2_chunk_scan with dt_bias, softplus
and the time_step_limit clamp, a scalar A per head, B and C shared by n_groups groups; MambaRMSNormGated, which
gates before it normalizes, per group; Mamba2Block's float32 residual; Mamba2ForCausalLM's float32 logits). The
snippets run on the tiny Mamba-2 (4 heads of 32, one group, state 128), on the torch reference path of the scan and
the conv. The derived mixer note is replaced: the mixer notes here contain its facts."""

DROP = ("ssm_note",)

MORE = r'''
## There is no attention and no MLP: what the standard values are, and which `norm` is which

Each block is `x + mixer(norm(x))`, one sublayer, and the mixer, served as `self_attn`, is the block's only token mixing. Its heads are the scan's (`model.num_heads` is `num_heads`, 128 on Mamba-Codestral 7B), not attention heads: `attention_queries`, `attention_scores`, `attention_probabilities`, `attention_head_outputs` and `attention_premix` are not served, and reading one raises the reason. `attention_norm_output` is the block's `norm` output and `attention_output` is `out_proj`'s. The block has no MLP, so `layer_mid`, `mlp_input` and `mlp_output` are not served either. Two modules are called `norm` in each block: `model.layers[i].norm` is the block's RMSNorm on the stream, and `model.layers[i].self_attn.norm` is the mixer's gated norm before `out_proj` (below), which the stream never meets; the block's norm keeps its native name so that the standard name `input_layernorm` cannot bind to both.

```python
assert model.num_heads == model.config.num_heads and released("mistralai/Mamba-Codestral-7B-v0.1")["num_heads"] == 128
for name in ("attention_queries", "attention_scores", "attention_probabilities", "attention_premix", "mlp_output",
             "layer_mid"):
    assert model.serves(name, 0) is not None
layer = model.layers[0]
assert type(layer.norm._module).__name__ == "Mamba2RMSNorm"
assert type(layer.self_attn.norm._module).__name__ == "MambaRMSNormGated"
with model.trace(prompt):
    x = layer.layer_input.save()
    h = layer.attention_norm_output.save()
    mix = layer.self_attn.attention_output.save()
    out = layer.layer_output.save()
assert torch.equal(layer.norm(x), h) and torch.equal(x + mix, out)
```

## One projection makes the gate, the conv input and one step per head, and the conv runs over B and C too

`in_proj` maps the normed stream to `intermediate_size + conv_dim + num_heads` numbers per position, split in that order into the gate `z`, the conv input and `dt`, one step per head. The conv input is `x`, `B` and `C` side by side (`conv_dim = intermediate_size + 2 · n_groups · state_size`), and the depthwise causal `conv1d` (kernel `conv_kernel`) with silu runs over all three: unlike Mamba 1, where `B` and `C` come out of a projection of the conv's output, here the state's input and output maps are themselves mixed over the last `conv_kernel` positions. On Mamba-Codestral 7B, `expand` 2 gives 8192 channels (128 heads × 64), `state_size` 128 and `n_groups` 8 make `conv_dim` 8192 + 2 · 8 · 128 = 10240, and `in_proj` has 8192 + 10240 + 128 = 18560 outputs. Changing the token at position p changes `B` at positions p to p + `conv_kernel` − 1 and nowhere before.

```python
import torch.nn.functional as F

facts = released("mistralai/Mamba-Codestral-7B-v0.1")
inner = facts["expand"] * facts["hidden_size"]
assert inner == facts["num_heads"] * facts["head_dim"] == 8192
conv_dim = inner + 2 * facts["n_groups"] * facts["state_size"]
assert conv_dim == 10240 and inner + conv_dim + facts["num_heads"] == 18560 and facts["conv_kernel"] == 4

mixer = model.layers[0].self_attn
m = mixer._module
assert m.in_proj.out_features == m.intermediate_size + m.conv_dim + m.num_heads
assert m.conv1d.in_channels == m.conv1d.groups == m.intermediate_size + 2 * m.n_groups * m.ssm_state_size

def B_of(ids):
    with model.trace(ids):
        projected = mixer.in_proj.output.save()
    n = projected.shape[1]
    xBC = projected.split([m.intermediate_size, m.conv_dim, m.num_heads], dim=-1)[1].transpose(1, 2)
    xBC = F.silu(F.conv1d(xBC, m.conv1d.weight, m.conv1d.bias, padding=m.conv_kernel_size - 1, groups=m.conv_dim)[..., :n])
    return xBC[:, m.intermediate_size:m.intermediate_size + m.n_groups * m.ssm_state_size]

ids = model.tokenizer(prompt, return_tensors="pt").input_ids
edited = ids.clone()
edited[0, 4] = (edited[0, 4] + 1) % model.config.vocab_size
changed = (B_of(ids) - B_of(edited)).abs().amax(1)[0] > 0
k = m.conv_kernel_size
assert changed.tolist() == [4 <= t < 4 + k for t in range(ids.shape[1])]
```

## Each head is a causal linear attention with a decay: the scan as a matrix you can read

The chunked scan (SSD) computes, for each head h, what a causal attention would with the pattern

```formula
M[t, s] = (C[t] · B[s]) · exp(Σ_{s<r≤t} dt[r] A_h) · dt[s]       for s ≤ t, 0 after
y[t]    = Σ_s M[t, s] x[s] + D_h x[t]
dt      = softplus(dt_raw + dt_bias)      A_h = -exp(A_log[h]) < 0
```

with one scalar decay `A_h` per head (`A_log` has `num_heads` entries: Mamba 2's scalar decay, against Mamba 1's one per channel and state dimension) and `B`, `C` shared by the `num_heads / n_groups` heads of a group (16 on Mamba-Codestral 7B). `M` is not normalized (no softmax: its rows do not sum to 1) and its entries can be negative, but it is the closest thing to an attention pattern this model has: nnterp does not serve it, and the snippet builds it from the mixer's own weights and checks that it reproduces the scan's output, read at the gated norm's input (`self_attn.norm.input`), to float32 rounding. Mamba-Codestral 7B's `time_step_limit` is (0, inf), the class's default too: it clamps nothing.

```python
import torch.nn.functional as F

mixer = model.layers[0].self_attn
m = mixer._module
with model.trace(prompt):
    projected = mixer.in_proj.output.save()
    y = mixer.norm.input.save()

n = projected.shape[1]
H, P, N, G = m.num_heads, m.head_dim, m.ssm_state_size, m.n_groups
z, xBC, dt = projected.split([m.intermediate_size, m.conv_dim, H], dim=-1)
xBC = F.silu(F.conv1d(xBC.transpose(1, 2), m.conv1d.weight, m.conv1d.bias, padding=m.conv_kernel_size - 1,
                      groups=m.conv_dim)[..., :n]).transpose(1, 2)
x, B, C = xBC.split([m.intermediate_size, G * N, G * N], dim=-1)
x = x.view(1, n, H, P)
B, C = (t.view(1, n, G, N).repeat_interleave(H // G, dim=2) for t in (B, C))
assert tuple(m.time_step_limit) == tuple(released("mistralai/Mamba-Codestral-7B-v0.1")["time_step_limit"]) \
    == (0.0, float("inf"))                                   # no clamp
dt = F.softplus(dt + m.dt_bias)
A = -torch.exp(m.A_log)
assert A.shape == (H,) and (A < 0).all()
decay = (dt * A).cumsum(1)                                            # [1, n, H]
M = torch.einsum("bthn,bshn->btsh", C, B) * torch.exp(decay[:, :, None] - decay[:, None]) * dt[:, None]
M = M * torch.ones(n, n).tril()[None, :, :, None]                      # causal
ours = torch.einsum("btsh,bshp->bthp", M, x) + m.D[:, None] * x
torch.testing.assert_close(ours.reshape(1, n, H * P), y)
```

## The gated RMSNorm before `out_proj`: the gate multiplies first, and each group's scale is normalized away

`MambaRMSNormGated` (the mixer's `norm`) multiplies the scan output by `silu(z)` and then RMS-normalizes it over groups of `intermediate_size / n_groups` channels (1024 on Mamba-Codestral 7B: 16 heads), in float32, before its learned weight and `out_proj`. Two consequences for a reader. First, the gate acts before the norm, so it shapes each group's direction but not its size: multiplying the whole scan output of a group by any s > 0 changes the mixer's output only through `layer_norm_epsilon` (it equals the norm computed with eps / s²), and the overall size of a group's scan output is invisible downstream (only the heads' sizes relative to each other within the group survive). Second, the norm mixes the heads of a group, so there is no per-head output to project: `attention_premix` and per-head contributions are not served.

```python
import torch.nn.functional as F

facts = released("mistralai/Mamba-Codestral-7B-v0.1")
assert facts["expand"] * facts["hidden_size"] // facts["n_groups"] == 1024 and facts["layer_norm_epsilon"] == 1e-05

mixer = model.layers[0].self_attn
m, norm = mixer._module, mixer._module.norm
assert norm.group_size == m.intermediate_size // m.n_groups
with model.trace(prompt):
    projected = mixer.in_proj.output.save()
    y = mixer.norm.input.save()
    out = mixer.attention_output.save()
z = projected[..., :m.intermediate_size]

def gated_norm(y, eps):
    g = (y * F.silu(z)).view(*y.shape[:-1], -1, norm.group_size)
    return norm.weight * (g * torch.rsqrt(g.pow(2).mean(-1, keepdim=True) + eps)).view(y.shape)

torch.testing.assert_close(m.out_proj(gated_norm(y, norm.variance_epsilon)), out)
scale = 10.0
with model.trace(prompt):
    mixer.norm.input[:] = mixer.norm.input * scale
    scaled = mixer.attention_output.save()
torch.testing.assert_close(scaled, m.out_proj(gated_norm(y, norm.variance_epsilon / scale ** 2)))
```

## Codestral's `norm_before_gate` and `rms_norm` are read by nothing: the mixer always gates, then normalizes

Mamba-Codestral 7B's config.json sets `norm_before_gate` true and `rms_norm` true, keys of the original `mamba_ssm` code. `Mamba2Config` has no such fields (it keeps them as plain attributes) and `Mamba2Mixer` never reads them: its gated norm always multiplies by silu(gate) first and normalizes after (the fused training kernel is even called with `norm_before_gate=False`). Whatever those keys say, the forward is the one above; a reimplementation that follows `norm_before_gate: true` (normalize, then gate) computes another model. The snippet builds the tiny model with both keys set each way and gets the same logits, bit for bit.

```python
from nnterp import tiny
from transformers import Mamba2Config

facts = released("mistralai/Mamba-Codestral-7B-v0.1")
assert facts["norm_before_gate"] is True and facts["rms_norm"] is True
assert "norm_before_gate" not in Mamba2Config.__dataclass_fields__ and "rms_norm" not in Mamba2Config.__dataclass_fields__
logits = []
for flag in (True, False):
    variant = tiny.load("mamba2", norm_before_gate=flag, rms_norm=flag)
    assert variant.config.norm_before_gate is flag
    with variant.trace(prompt):
        logits.append(variant.logits.save())
assert torch.equal(logits[0], logits[1])
```

## The residual is float32 and so are the logits, whatever the load's dtype

`residual_in_fp32` is true on Mamba-Codestral 7B (and is the config class's default): `Mamba2Block` casts the residual to float32 before adding the mixer's output, so under a bfloat16 load every block's `layer_output` is float32 while `attention_output` is bfloat16, and the next block's norm casts the stream back to the weights' dtype. `Mamba2ForCausalLM` returns `logits` in float32. Compare streams across loads in float32, and expect the stream to take twice the memory of the weights' dtype.

```python
from nnterp import tiny
from transformers import Mamba2Config

assert released("mistralai/Mamba-Codestral-7B-v0.1")["residual_in_fp32"] is True
assert Mamba2Config().residual_in_fp32 is True
half = tiny.load("mamba2", dtype=torch.bfloat16)
layer = half.layers[0]
with half.trace(prompt):
    mix = layer.self_attn.attention_output.save()
    out = layer.layer_output.save()
    logits = half.logits.save()
assert mix.dtype == torch.bfloat16 and out.dtype == torch.float32 and logits.dtype == torch.float32
```

## Left padding is exact: the mixer zeroes padded positions before the conv and before the scan

There is no attention mask to hide pads, but `Mamba2Mixer` multiplies its input by the attention mask before `in_proj` and the conv output by it again before the scan (`apply_mask_to_padding_states`), so a pad feeds zeros to the conv window and adds nothing to the state (its `x` and `B` are zero). A left-padded row of a batch gives, at its real tokens, the logits the prompt gives alone, up to float32 rounding; the same padded ids without the mask run the pads as tokens.

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
