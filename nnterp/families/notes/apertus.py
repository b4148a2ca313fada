"""Notes of Apertus written by hand, added to the derived ones. Read against transformers' activations.py
(XIELUActivation: alpha_p and alpha_n stored through softplus, beta 0.5, eps -1e-6, the two branches of
_xielu_python), modeling_apertus.py (ApertusMLP building ACT2CLS["xielu"] per block, ApertusAttention's q_norm and
k_norm before the rotary, ApertusDecoderLayer's attention_layernorm and feedforward_layernorm) and
configuration_apertus.py (no qk_norm, post_norm or mlp_bias key; the llama3 rotary it fills in). The checkpoint
numbers are Apertus-70B's config.json (and Apertus-8B's recorded facts) as nnterp/families/checkpoints/apertus.json
records them. The snippets run on the tiny Apertus."""

LOAD = "eager"

MORE = r'''
## xIELU is quadratic above zero, and a strongly negative pre-activation fires positive

Apertus' MLP is `down_proj(xielu(up_proj(x)))` with no gate (`hidden_act` "xielu" on Apertus-8B and Apertus-70B), and xIELU is neither ReLU-like nor monotone. With `u` the pre-activation (`up_proj`'s output), β = 0.5 and ε = −1e-6:

```formula
u > 0:   αp · u² + β · u
u ≤ 0:   αn · (expm1(min(u, ε)) − u) + β · u
```

Above zero it grows with the square, like a ReLU² with a linear term. Below zero it dips to a minimum at u* = ln(1 − β / αn), where its value is negative, then rises again: as u → −∞, `expm1` tends to −1 and the value tends to `−αn + (β − αn) · u`, positive and growing linearly, since αn > β. So `mlp_activation` (the same tensor as `mlp_neurons`) is negative only for moderately negative pre-activations and never below the minimum, and a neuron whose pre-activation is very negative writes with the same sign as one strongly on. Reading the sign of `up_proj`'s output as "on" or "off", or clamping `mlp_activation` at zero to ablate the "inactive" part, misreads this activation.

```python
import torch.nn.functional as F

assert released("swiss-ai/Apertus-70B-2509")["hidden_act"] == "xielu"
assert released("swiss-ai/Apertus-8B-Instruct-2509")["hidden_act"] == "xielu"
mlp = model.layers[0].mlp
act = mlp.act_fn
with model.trace(prompt):
    u = mlp.up_proj.output.save()
    out = mlp.mlp_activation.save()

beta = act.beta
alpha_p, alpha_n = F.softplus(act.alpha_p), beta + F.softplus(act.alpha_n)
assert float(beta) == 0.5 and bool(alpha_n > beta)
expected = torch.where(u > 0, alpha_p * u * u + beta * u, alpha_n * (torch.expm1(u.clamp(max=-1e-6)) - u) + beta * u)
torch.testing.assert_close(out, expected)

floor = act(torch.log(1 - beta / alpha_n))             # the value at the minimum u*
assert float(floor) < 0 and bool((out >= floor - 1e-6).all())
far = torch.tensor([-30.0, -100.0, -1000.0])
assert bool((act(far) > 0).all()) and bool((act(far).diff() > 0).all())   # more negative, larger
torch.testing.assert_close(act(far), -alpha_n + (beta - alpha_n) * far)
```

## Each block's activation has its own two learned scalars, stored through softplus

`ApertusMLP` builds a fresh `XIELUActivation` for every block, and its `alpha_p` and `alpha_n` are parameters of the model (`model.layers.{i}.mlp.act_fn.alpha_p` in the state dict), so the activation's shape is learned block by block: the curve of block 0 is not the curve of block 20. The parameters are not the coefficients: αp is `softplus(alpha_p)` and αn is `0.5 + softplus(alpha_n)`, which keeps αp > 0 and αn > β whatever the parameters hold. A freshly built activation starts at αp = αn = 0.8. Anything that reads `act_fn.alpha_p` as the curvature, or freezes "the MLP's weights" by `up_proj` and `down_proj` alone during a fine-tune, leaves these two out. At u = 1 the activation is αp + β, which reads the coefficient back:

```python
import torch.nn.functional as F
from transformers.activations import XIELUActivation

names = [name for name, _ in model._module.named_parameters() if ".act_fn." in name]
assert sorted(names) == sorted(f"model.layers.{i}.mlp.act_fn.{p}" for i in range(model.num_layers)
                               for p in ("alpha_p", "alpha_n"))
first, second = model.layers[0].mlp.act_fn, model.layers[1].mlp.act_fn
assert first.alpha_p is not second.alpha_p and first.alpha_p.shape == (1,)
one = torch.ones(1)
torch.testing.assert_close(first(one), F.softplus(first.alpha_p) + 0.5)
assert not torch.allclose(first(one), first.alpha_p + 0.5)
fresh = XIELUActivation(dtype=torch.float32)
torch.testing.assert_close(F.softplus(fresh.alpha_p), torch.tensor([0.8]))
torch.testing.assert_close(fresh.beta + F.softplus(fresh.alpha_n), torch.tensor([0.8]))
```

## The stream's scale never reaches the pattern: `q_norm` and `k_norm` bound every score

`q_norm` and `k_norm` are RMSNorms over each head of the projections' outputs, applied before the rotary, and the rotary preserves a head's length. A query therefore has length at most `√head_dim · max|q_norm.weight|` and a key at most `√head_dim · max|k_norm.weight|`, so every score `q · k / √head_dim` lies within `√head_dim · max|q_norm.weight| · max|k_norm.weight|` of zero, on every block (head_dim is 128 on Apertus-8B and Apertus-70B). Scaling what enters the attention by 1000 leaves the pattern as it was, up to the eps (`rms_norm_eps`, 1e-05) against the projections' mean square, and multiplies `attention_output` by 1000 through the values alone; on Llama the same edit would multiply every score by a million. A steering vector added before the attention cannot sharpen a pattern past what the two norms' weights allow. (The snippet loads the tiny model with eps 1e-12, so that the eps does not blur the comparison.)

```python
from nnterp import tiny

facts = released("swiss-ai/Apertus-70B-2509")
assert facts["rms_norm_eps"] == 1e-05 and facts["hidden_size"] // facts["num_attention_heads"] == 128
small = tiny.load("apertus", attn_implementation="eager", rms_norm_eps=1e-12)
attention = small.layers[1].self_attn
with small.trace(prompt):
    scores = attention.attention_scores.save()
    probs = attention.attention_probabilities.save()
    out = attention.attention_output.save()
with small.trace(prompt):
    small.layers[1].attention_norm_output[:] = small.layers[1].attention_norm_output * 1000
    probs_big = attention.attention_probabilities.save()
    out_big = attention.attention_output.save()

torch.testing.assert_close(probs_big, probs)
torch.testing.assert_close(out_big, 1000 * out, rtol=1e-4, atol=1e-3)
d = small.head_dim
bound = d ** 0.5 * attention.q_norm.weight.abs().max() * attention.k_norm.weight.abs().max()
n = scores.shape[-1]
causal = torch.ones(n, n, dtype=torch.bool).tril()
assert bool((scores[..., causal].abs() <= bound * (1 + 1e-5)).all())
```

## `qk_norm`, `post_norm` and `mlp_bias` in the config.json are read by nothing

Apertus-70B's config.json sets `"qk_norm": true`, `"post_norm": false` and `"mlp_bias": false`, as if the architecture could switch them. `ApertusConfig` declares none of the three: they are kept on the config as extra attributes, and the modeling code does not read them. `ApertusAttention` always builds `q_norm` and `k_norm`, `ApertusDecoderLayer` always normalizes before each sublayer, and `ApertusMLP` builds `up_proj` and `down_proj` with `bias=False` as literals. A config edited to `qk_norm: false` or `post_norm: true` to test an ablation or to describe another variant loads the same model:

```python
from nnterp import tiny

facts = released("swiss-ai/Apertus-70B-2509")
assert facts["qk_norm"] is True and facts["post_norm"] is False and facts["mlp_bias"] is False
with model.trace(prompt):
    logits = model.logits.save()
other = tiny.load("apertus", attn_implementation="eager", qk_norm=False, post_norm=True, mlp_bias=True)
assert other.config.qk_norm is False and other.config.post_norm is True
assert hasattr(other.layers[0].self_attn, "q_norm") and other.layers[0].mlp.up_proj.bias is None
with other.trace(prompt):
    logits_other = other.logits.save()
assert torch.equal(logits_other, logits)
```

## The norms are not where Llama's are: `attention_layernorm` and `feedforward_layernorm`

`ApertusDecoderLayer` names its two RMSNorms `attention_layernorm` (before the attention) and `feedforward_layernorm` (before the MLP); it has no `input_layernorm` or `post_attention_layernorm`. Code written against Llama's module tree (a hook on `model.model.layers[i].input_layernorm`, a weight-folding script, a TransformerLens-style conversion) fails with an AttributeError or, looking names up by pattern, silently skips the norms. nnterp serves Llama's names for them, and the native names work too; both are the same module:

```python
block = model._module.model.layers[0]
assert not hasattr(block, "input_layernorm") and not hasattr(block, "post_attention_layernorm")
assert model.layers[0].input_layernorm._module is block.attention_layernorm
assert model.layers[0].post_attention_layernorm._module is block.feedforward_layernorm
with model.trace(prompt):
    standard = model.layers[0].attention_norm_output.save()
    native = model.layers[0].attention_layernorm.output.save()
    feed = model.layers[0].feedforward_layernorm.output.save()
    mlp_in = model.layers[0].mlp.input.save()

assert torch.equal(standard, native) and torch.equal(mlp_in, feed)
```

## More than half of each head's rotary pairs turn less than once over the whole 65536-token context

Apertus' rotary is Llama 3's scaling on a base of 12000000 (`rope_theta`), `factor` 8 over `original_max_position_embeddings` 8192, for a `max_position_embeddings` of 65536. The base is 24 times Llama 3's 500000, so the slow end of the spectrum is very slow: of the 64 frequencies of a 128-dimensional head, 35 have a wavelength over 8192 positions and are divided by 8, and 6 more are blended. After the scaling, those 35 pairs have wavelengths over 65536 positions: across the longest context the model takes they turn less than once, and across a 512-token prompt by at most 512 · 2π / 65536 ≈ 0.05 radians. On an ordinary prompt, these 70 of 128 dimensions of every query and key are close to unrotated, so they score keys almost by content alone; position is told apart by the other 29 pairs.

```python
import math
from transformers import ApertusConfig
from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

facts = released("swiss-ai/Apertus-70B-2509")
scaling = facts["rope_scaling"]
assert facts["rope_theta"] == 12000000 and facts["max_position_embeddings"] == 65536
assert (scaling["rope_type"], scaling["factor"], scaling["original_max_position_embeddings"]) == ("llama3", 8.0, 8192)
config = ApertusConfig(**facts)
scaled, _ = ROPE_INIT_FUNCTIONS["llama3"](config)
d = 128
plain = 1.0 / 12000000 ** (torch.arange(0, d, 2).float() / d)
assert len(scaled) == 64 and int((2 * math.pi / plain > 8192).sum()) == 35
assert int((scaled < plain * (1 - 1e-6)).sum()) == 35 + 6
slow = 2 * math.pi / scaled > 65536
assert int(slow.sum()) == 35 and float((512 * scaled[slow]).max()) < 0.05

# the tiny model's rotary is the same function of its own config (head_dim 16)
rotary = model._module.model.rotary_emb
inv_freq, _ = ROPE_INIT_FUNCTIONS[model.config.rope_parameters["rope_type"]](model.config)
torch.testing.assert_close(rotary.inv_freq, inv_freq)
```
'''
