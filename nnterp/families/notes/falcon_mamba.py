"""Notes of Falcon-Mamba written by hand, added to the derived ones. Read against transformers'
configuration_falcon_mamba.py (tie_word_embeddings and mixer_rms_eps defaults, time_step_rank "auto") and
modeling_falcon_mamba.py (FalconMambaWeightlessRMSNorm and its unsaved dummy weight, FalconMambaMixer.forward: the
norms on dt, B and C after x_proj, dt_proj's weight applied by hand and its bias in the scan,
apply_mask_to_padding_states; FalconMambaBlock's float32 residual; FalconMambaForCausalLM's float32 logits). The
snippets run on the tiny Falcon-Mamba, on the torch reference path of the scan and the conv. The derived mixer note
is replaced: the mixer notes here contain its facts."""

DROP = ("ssm_note",)

MORE = r'''
## The mixer is Mamba's, with weightless RMSNorms on dt, B and C

`FalconMambaMixer` runs Mamba's mixer (in_proj split into the conv branch and the gate `z`, a depthwise causal conv with silu, `x_proj` split into the low-rank step `dt`, `B` and `C`, a selective scan with A = −exp(`A_log`) and the `D` skip, the gate silu(`z`), `out_proj`) with one difference: `dt`, `B` and `C` each go through `FalconMambaWeightlessRMSNorm`, an RMS normalization in float32 with no gain, before the scan. Its eps is `mixer_rms_eps`, which falcon-mamba-7b's config.json does not set, so the class's default 1e-06 applies, not the blocks' `layer_norm_epsilon` (1e-05). On falcon-mamba-7b, 4096 hidden channels widen to 8192 (`intermediate_size`), the state is 16 wide and the step's rank 256 (`hidden_size / 16`), so `x_proj` maps 8192 channels to 256 + 2 · 16 = 288 numbers per position. The snippet recomputes the mixer from its weights and gets `attention_output` exactly.

```python
import torch.nn.functional as F

from transformers import FalconMambaConfig

facts = released("tiiuae/falcon-mamba-7b")
assert "mixer_rms_eps" not in facts and FalconMambaConfig(**facts).mixer_rms_eps == 1e-06
assert facts["layer_norm_epsilon"] == 1e-05 and facts["intermediate_size"] == 8192
assert facts["time_step_rank"] == facts["hidden_size"] // 16 == 256 and facts["state_size"] == 16

layer = model.layers[0]
with model.trace(prompt):
    h = layer.attention_norm_output.save()
    out = layer.self_attn.attention_output.save()

m = layer.self_attn._module
def rms(t):
    return (t.float() * torch.rsqrt(t.float().pow(2).mean(-1, keepdim=True) + m.rms_eps)).type_as(t)
n = h.shape[1]
x, z = m.in_proj(h).transpose(1, 2).chunk(2, dim=1)
x = F.silu(F.conv1d(x, m.conv1d.weight, m.conv1d.bias, padding=m.conv_kernel_size - 1, groups=x.shape[1])[..., :n])
dt, B, C = m.x_proj(x.transpose(1, 2)).split([m.time_step_rank, m.ssm_state_size, m.ssm_state_size], dim=-1)
dt, B, C = rms(dt), rms(B), rms(C)                        # no gain: nothing multiplies them after
dt = F.softplus(dt @ m.dt_proj.weight.T + m.dt_proj.bias)
A = -torch.exp(m.A_log)
state, ys = torch.zeros(x.shape[0], x.shape[1], A.shape[1]), []
for t in range(n):
    state = torch.exp(dt[:, t, :, None] * A) * state + dt[:, t, :, None] * B[:, t, None, :] * x[:, :, t, None]
    ys.append((state @ C[:, t, :, None])[..., 0] + m.D * x[:, :, t])
torch.testing.assert_close(m.out_proj(torch.stack(ys, 1) * F.silu(z.transpose(1, 2))), out)
```

## `expand` is 16 in falcon-mamba-7b's config, and the mixer is 8192 wide anyway

falcon-mamba-7b's config.json sets `expand` 16 and `intermediate_size` 8192, which disagree: 16 · 4096 is 65536. `FalconMambaConfig.__post_init__` first sets `intermediate_size` to `expand · hidden_size`, then the explicit `intermediate_size` from the file overwrites it, so the model is built 8192 channels wide (twice the stream) and `expand` has no effect. A config that copies `expand` but drops `intermediate_size` builds a mixer of 65536 channels, eight times too wide, whose weights the checkpoint cannot fill; a reader who computes the width from `expand` is wrong by the same factor. The mixer's width is `config.intermediate_size`, which is also `in_proj.out_features / 2`.

```python
from transformers import FalconMambaConfig

facts = released("tiiuae/falcon-mamba-7b")
assert (facts["expand"], facts["hidden_size"], facts["intermediate_size"]) == (16, 4096, 8192)
assert FalconMambaConfig(**facts).intermediate_size == 8192
dropped = {key: value for key, value in facts.items() if key != "intermediate_size"}
assert FalconMambaConfig(**dropped).intermediate_size == 16 * 4096 == 65536

m = model.layers[0].self_attn._module
assert m.intermediate_size == model.config.intermediate_size == m.in_proj.out_features // 2
```

## The selection has a fixed size: only the direction of dt, B and C depends on the token

Because the three norms have no gain, `B` and `C` have a mean square of 1 at every position (a norm of 4 over falcon-mamba-7b's 16 state dimensions, less only by eps), and `dt_proj` always reads a unit-RMS vector of `time_step_rank` (256) numbers. A token chooses which state directions it writes and reads and how its step is set, but not how strongly: everything `x_proj` emits is normalized away in size. Scaling `x_proj`'s whole output by any s > 0 leaves the mixer's output unchanged but for eps, whose relative effect is at most `mixer_rms_eps` over the smallest mean square the three parts reach. A steering vector or an ablation that rescales the selection does nothing; the strength of what enters the state is the conv branch `x` and the step.

```python
mixer = model.layers[0].self_attn
m = mixer._module
with model.trace(prompt):
    selection = mixer.x_proj.output.save()
    out = mixer.attention_output.save()
parts = selection.split([m.time_step_rank, m.ssm_state_size, m.ssm_state_size], dim=-1)
for part in parts[1:]:
    ms = m.b_layernorm(part).pow(2).mean(-1)
    raw = part.pow(2).mean(-1)
    torch.testing.assert_close(ms, raw / (raw + m.rms_eps))             # 1, less only by eps
smallest = min(part.pow(2).mean(-1).min() for part in parts)

for scale in (3.0, 0.5):
    with model.trace(prompt):
        mixer.x_proj.output[:] = mixer.x_proj.output * scale
        scaled = mixer.attention_output.save()
    assert (scaled - out).abs().max() <= m.rms_eps / min(1.0, scale ** 2) / smallest * out.abs().max()
```

## The norms' `weight` is a dummy: unsaved, unused, and dt's is the wrong width

Each `FalconMambaWeightlessRMSNorm` holds a `weight`, a buffer of ones that is not persistent (it is not in the state dict, so a checkpoint has none to load) and that the forward never reads: it is there for the fused CUDA training kernel's signature. `dt_layernorm.weight` is even `intermediate_size` wide (8192 on falcon-mamba-7b) while the `dt` it would scale is `time_step_rank` (256) wide. Editing these buffers, as a tool that folds or patches norm gains would, changes nothing in an inference forward.

```python
m = model.layers[0].self_attn._module
assert not any("layernorm" in key for key in model._module.state_dict())
assert m.dt_layernorm.weight.shape == (m.intermediate_size,) and m.time_step_rank != m.intermediate_size
with model.trace(prompt):
    before = model.logits.save()
for norm in (m.dt_layernorm, m.b_layernorm, m.c_layernorm):
    norm.weight.mul_(5.0)
with model.trace(prompt):
    after = model.logits.save()
for norm in (m.dt_layernorm, m.b_layernorm, m.c_layernorm):
    norm.weight.div_(5.0)
assert torch.equal(before, after)
```

## The config class ties the embeddings, and falcon-mamba-7b does not

`FalconMambaConfig` defaults `tie_word_embeddings` to true, as Mamba's does; falcon-mamba-7b's config.json sets it false, and its `lm_head` is a matrix of its own (65024 rows). A config written without the key (a reduced copy, a conversion script's) builds a model whose head is the embedding matrix, and loading the 7B's weights into it keeps one of the two. The tiny model here is built from the class's defaults and is tied; with the checkpoint's value it is not.

```python
from nnterp import tiny
from transformers import FalconMambaConfig

facts = released("tiiuae/falcon-mamba-7b")
assert facts["tie_word_embeddings"] is False and facts["vocab_size"] == 65024
assert FalconMambaConfig().tie_word_embeddings is True
unset = {key: value for key, value in facts.items() if key != "tie_word_embeddings"}
assert FalconMambaConfig(**unset).tie_word_embeddings is True

assert model._module.lm_head.weight is model._module.backbone.embeddings.weight
untied = tiny.load("falcon_mamba", tie_word_embeddings=False)
assert untied._module.lm_head.weight is not untied._module.backbone.embeddings.weight
```

## There is no attention and no MLP: what the standard values are here

Each block is `x + mixer(norm(x))`, one sublayer. The mixer, served as `self_attn`, has no queries, keys, heads or pattern, so the attention's interior is not served, and the block has no MLP, so `layer_mid`, `mlp_input` and `mlp_output` are not served either. `attention_norm_output` is the block's `norm` output, `attention_output` is `out_proj`'s, and the stream after the add is `layer_output`. The order of tokens reaches the stream only through the conv (3 positions back) and the scan: there are no position embeddings.

```python
for name in ("attention_queries", "attention_scores", "attention_probabilities", "mlp_output", "layer_mid"):
    assert model.serves(name, 0) is not None
layer = model.layers[0]
with model.trace(prompt):
    tokens = model.token_embeddings.save()
    x = layer.layer_input.save()
    h = layer.attention_norm_output.save()
    mix = layer.self_attn.attention_output.save()
    out = layer.layer_output.save()
assert torch.equal(tokens, x)
assert torch.equal(layer.norm(x), h) and torch.equal(x + mix, out)
```

## The residual is float32 and so are the logits, whatever the load's dtype

falcon-mamba-7b is stored in bfloat16 with `residual_in_fp32` true: `FalconMambaBlock` casts the residual to float32 before the add, so under the checkpoint's own dtype every `layer_output` is float32 while `attention_output` is bfloat16, and `FalconMambaForCausalLM` returns float32 `logits`. The stream therefore takes twice the memory of the weights' dtype, and comparing it across loads is done in float32.

```python
from nnterp import tiny

facts = released("tiiuae/falcon-mamba-7b")
assert facts["residual_in_fp32"] is True and facts["dtype"] == "bfloat16"
half = tiny.load("falcon_mamba", dtype=torch.bfloat16)
layer = half.layers[0]
with half.trace(prompt):
    mix = layer.self_attn.attention_output.save()
    out = layer.layer_output.save()
    logits = half.logits.save()
assert mix.dtype == torch.bfloat16 and out.dtype == torch.float32 and logits.dtype == torch.float32
```
'''
