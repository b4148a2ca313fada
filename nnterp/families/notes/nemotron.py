"""Notes of Nemotron (the dense NemotronForCausalLM models) written by hand, added to the derived ones. Read against
transformers' modeling_nemotron.py (NemotronLayerNorm1P.forward's `self.weight + 1.0`, NemotronMLP's
down_proj(act_fn(up_proj(x))) with ACT2FN["relu2"], NemotronPreTrainedModel._init_weights setting the LayerNorm1P
weights to ones, apply_rotary_pos_emb's split at the rotary width) and configuration_nemotron.py (head_dim from
hidden_size // num_attention_heads, no kv_channels key, partial_rotary_factor defaulted to 0.5). The checkpoint numbers
are the released config.json files of Nemotron-3-8B (thhaus/nemotron3-8b) and Nemotron-4-Mini-Hindi-4B-Instruct, as
nnterp/families/checkpoints/nemotron.json records them. The snippets run on the tiny Nemotron."""

LOAD = "eager"

MORE = r'''
## A norm's `weight` is its gain minus one: LayerNorm1P multiplies by `1 + weight`

`input_layernorm`, `post_attention_layernorm` and the final `norm` are `NemotronLayerNorm1P`s, which compute `F.layer_norm(x, (hidden_size,), weight + 1, bias, eps)`, with `eps` the config's `norm_eps` (1e-05 on Nemotron-3-8B and Nemotron-4-Mini-Hindi-4B-Instruct). The stored `weight` is an offset from unit gain: an entry near 0 is a dimension kept at gain 1, not a dead one, and only an entry of −1 silences a dimension. Anything that reads the parameter as the gain, as one would Llama's RMSNorm weight, is wrong by one everywhere: a lens that folds the final norm into the head as `lm_head.weight * norm.weight` multiplies each dimension by the offset instead of the gain. The right fold is `lm_head.weight * (1 + norm.weight)`, plus the bias's constant logits `lm_head.weight @ norm.bias`:

```python
import torch.nn.functional as F

assert released("thhaus/nemotron3-8b")["norm_eps"] == 1e-05
assert released("nvidia/Nemotron-4-Mini-Hindi-4B-Instruct")["norm_eps"] == 1e-05
with model.trace(prompt):
    x = model.layers[1].layer_input.save()
    normed = model.layers[1].attention_norm_output.save()
    last = model.layers[-1].layer_output.save()
    logits = model.logits.save()

d, eps = model.hidden_size, model.config.norm_eps
norm = model.layers[1].input_layernorm
torch.testing.assert_close(normed, F.layer_norm(x, (d,), norm.weight + 1, norm.bias, eps))
assert not torch.allclose(normed, F.layer_norm(x, (d,), norm.weight, norm.bias, eps), atol=1e-2)

standard = F.layer_norm(last, (d,), eps=eps)        # the final norm without its gain and bias
constant = model.lm_head.weight @ model.norm.bias
torch.testing.assert_close(standard @ (model.lm_head.weight * (1 + model.norm.weight)).T + constant, logits)
wrong = standard @ (model.lm_head.weight * model.norm.weight).T + constant
assert not torch.allclose(wrong, logits, atol=1e-2)
```

## A Nemotron built without a checkpoint has gain 2 in every norm

`NemotronPreTrainedModel._init_weights` sets every LayerNorm1P's `weight` to ones and its `bias` to zeros, as it would a plain LayerNorm's. With the `1 +` of the forward, a model built from a config alone (`from_config`, `NemotronForCausalLM(config)`: a random-weights control for a probe or a lens, a model to train from scratch) starts with every norm at gain 2, not 1: each normed read is twice the standardized stream, and the squared-ReLU MLP below answers four times as strongly as at unit gain. To start at unit gain, zero the norms' weights after building:

```python
import torch.nn.functional as F
from transformers import NemotronForCausalLM

fresh = NemotronForCausalLM(model.config)            # a config, no checkpoint
norms = [m for m in fresh.modules() if type(m).__name__ == "NemotronLayerNorm1P"]
assert len(norms) == 2 * model.num_layers + 1
assert all(bool((n.weight == 1).all()) and bool((n.bias == 0).all()) for n in norms)
x = torch.randn(2, 3, model.hidden_size)
standard = F.layer_norm(x, (model.hidden_size,), eps=model.config.norm_eps)
assert torch.equal(norms[0](x), 2 * standard)        # gain 1 + 1
with torch.no_grad():
    norms[0].weight.zero_()
assert torch.equal(norms[0](x), standard)
```

## The MLP squares a ReLU: no neuron is ever negative, and the inactive ones are exactly zero

`mlp` is `down_proj(relu(up_proj(x)) ** 2)` (`hidden_act` "relu2", `ReLUSquaredActivation`) with no gate: 16384 neurons per block on Nemotron-3-8B, 9216 on Nemotron-4-Mini-Hindi-4B-Instruct. `mlp_activation`, the same tensor as `mlp_neurons`, is therefore at least 0 everywhere and exactly 0.0 wherever `up_proj`'s output is not positive (about half the entries on the tiny model), with none of the small negative tail GELU or SiLU leave. A value below zero written into `mlp_neurons` is one the model never produces, and a mean over positions or an SAE on these neurons meets a point mass at zero. The activation's gradient, `2 · relu(u)`, is zero as well at an inactive neuron, so a gradient-times-activation attribution (attribution patching) gives those neurons exactly nothing, and so does a patch of the gradient through them.

```python
facts = released("thhaus/nemotron3-8b")
assert facts["hidden_act"] == "relu2" and facts["intermediate_size"] == 16384
assert released("nvidia/Nemotron-4-Mini-Hindi-4B-Instruct")["intermediate_size"] == 9216
mlp = model.layers[0].mlp
with model.trace(prompt):
    pre = mlp.up_proj.output.save()
    neurons = mlp.mlp_neurons.save()

torch.testing.assert_close(neurons, torch.relu(pre) ** 2)
assert bool((neurons >= 0).all()) and torch.equal(neurons == 0, pre <= 0)
assert 0.2 < float((neurons == 0).float().mean()) < 0.8
u = pre.detach().clone().requires_grad_()
mlp.act_fn(u).sum().backward()
assert bool((u.grad[pre <= 0] == 0).all()) and bool((u.grad[pre > 0] > 0).all())
```

## Without biases the MLP is homogeneous of degree two: twice the input, four times the write

Nemotron-3-8B's config.json sets `mlp_bias` false, and Nemotron-4-Mini-Hindi-4B-Instruct's leaves it to `NemotronConfig`, whose default is false too. With no bias anywhere in `up_proj` or `down_proj`, `mlp(c · h) = c² · mlp(h)` for every c > 0: the MLP's write grows with the square of its normed input's size. A steering vector added to `mlp_norm_output` at scale c does not reach the stream linearly, a norm gain that doubles a direction quadruples what the MLP writes for it, and halving an input quarters the output. (Llama's SwiGLU is not homogeneous: SiLU is not.) A negative c is another matter, since the ReLU then picks the other neurons. Scaling by 2 or 0.5 is exact in floating point, so the identity holds bit for bit:

```python
from transformers import NemotronConfig

assert released("thhaus/nemotron3-8b")["mlp_bias"] is False
assert "mlp_bias" not in released("nvidia/Nemotron-4-Mini-Hindi-4B-Instruct")
assert NemotronConfig(**released("nvidia/Nemotron-4-Mini-Hindi-4B-Instruct")).mlp_bias is False
mlp = model.layers[0].mlp
with model.trace(prompt):
    h = model.layers[0].mlp_norm_output.save()
    out = mlp.mlp_output.save()

assert model.config.mlp_bias is False
assert torch.equal(mlp(2 * h), 4 * out) and torch.equal(mlp(0.5 * h), 0.25 * out)
torch.testing.assert_close(mlp(3 * h), 9 * out)
assert not torch.allclose(mlp(-h), out, atol=1e-3) and not torch.allclose(mlp(-h), -out, atol=1e-3)
```

## The norms subtract the mean: the all-ones direction of the stream reaches nothing

LayerNorm1P is a LayerNorm, not Llama's RMSNorm: every read of the residual stream (the two norms of each block and the final norm) subtracts the row's mean before its gain and bias. A vector `c · 1`, the same number in every dimension, added to the stream at any block therefore reaches no attention, no MLP and no logit: the blocks downstream carry it along and the final norm removes it. A steering vector or a probe direction carried over from a Llama-style model loses its mean component here, and an SAE feature's component along the all-ones direction is spent on nothing the model reads. The only trace is rounding, about float32's eps × c / σ for a shift c on entries of size σ.

```python
with model.trace(prompt):
    x = model.layers[0].layer_output.save()
    normed = model.layers[1].attention_norm_output.save()
    logits = model.logits.save()

sigma = x.std().item()
c = 100 * sigma
with model.trace(prompt):
    model.layers[0].layer_output[:] = model.layers[0].layer_output + c
    normed_shifted = model.layers[1].attention_norm_output.save()
    logits_shifted = model.logits.save()
with model.trace(prompt):
    model.layers[0].layer_output[:] = model.layers[0].layer_output + c * torch.randn(model.hidden_size).sign()
    logits_other = model.logits.save()

gain = (1 + model.layers[1].input_layernorm.weight).abs().max().item()
rounding = 16 * torch.finfo(torch.float32).eps * c / sigma            # on the unit-scale standardized values
torch.testing.assert_close(normed_shifted, normed, atol=rounding * gain, rtol=0)
w = model.lm_head.weight.abs().sum(-1).max().item() * (1 + model.norm.weight).abs().max().item()
torch.testing.assert_close(logits_shifted, logits, atol=rounding * w * 8, rtol=0)
assert (logits_other - logits).abs().max() > 100 * rounding * w       # another direction of the same size moves them
```

## Half of every head ignores position: a score is a rotated part plus a part that is the same at any distance

`apply_rotary_pos_emb` turns the first `head_dim * partial_rotary_factor` dimensions of each query and key head and passes the rest unchanged: 64 of 128 on Nemotron-3-8B (`partial_rotary_factor` 0.5, `head_dim` 128). A score therefore splits in two, `q·k / √128 = q_rot·k_rot / √128 + q_pass·k_pass / √128`, and the second part is made from `q_proj`'s and `k_proj`'s outputs alone: it scores a key by its content, identically whether it is one position back or three thousand. A head can attend by content through its last 64 dimensions and by position through its first 64, and the two parts can be read apart from the projections in one trace. `partial_rotary_factor` sits at the top level of both config.json files; `NemotronConfig` moves it into `rope_parameters`, and fills in 0.5 where a file does not give it.

```python
from transformers import NemotronConfig

facts = released("thhaus/nemotron3-8b")
assert (facts["partial_rotary_factor"], facts["head_dim"]) == (0.5, 128)
assert NemotronConfig(**facts).rope_parameters["partial_rotary_factor"] == 0.5
assert NemotronConfig().rope_parameters["partial_rotary_factor"] == 0.5   # filled in when a file omits it

model.instrument()   # the trace reads the projections and values inside the same forward
attention = model.layers[0].self_attn
with model.trace(prompt):
    q_raw = attention.q_proj.output.save()
    k_raw = attention.k_proj.output.save()
    q = attention.attention_queries.save()
    k = attention.attention_keys.save()
    scores = attention.attention_scores.save()

d = model.head_dim
rot = int(d * model.config.rope_parameters["partial_rotary_factor"])
q_pre = q_raw.view(*q_raw.shape[:2], -1, d).transpose(1, 2)
k_pre = k_raw.view(*k_raw.shape[:2], -1, d).transpose(1, 2)
group = model.num_heads // model.num_kv_heads
positional = q[..., :rot] @ k[..., :rot].repeat_interleave(group, 1).transpose(-1, -2)
content = q_pre[..., rot:] @ k_pre[..., rot:].repeat_interleave(group, 1).transpose(-1, -2)   # no position in it
n = scores.shape[-1]
causal = torch.ones(n, n, dtype=torch.bool).tril()
torch.testing.assert_close(((positional + content) * d ** -0.5)[..., causal], scores[..., causal])
assert not torch.allclose((content * d ** -0.5)[..., causal], scores[..., causal], atol=1e-4)
```

## Nemotron-4-Mini-Hindi-4B-Instruct's `kv_channels` is read by nothing: its heads are `hidden_size` / heads wide

Nemotron-4-Mini-Hindi-4B-Instruct's config.json has no `head_dim`; it carries `"kv_channels": 128`, Megatron's name for the head width. `NemotronConfig` declares no such key: it keeps it as an extra attribute that no module reads, and sets `head_dim` to `hidden_size // num_attention_heads`, 3072 // 24 = 128, which equals it here. Its 24 query heads share 8 key and value heads, 3 queries to each, where Nemotron-3-8B gives every one of its 32 query heads its own. Editing `kv_channels` to change the head width changes nothing; the width follows `head_dim` or, without it, the division:

```python
from transformers import NemotronConfig
from nnterp import tiny

facts = released("nvidia/Nemotron-4-Mini-Hindi-4B-Instruct")
assert "head_dim" not in facts and facts["kv_channels"] == 128
assert (facts["hidden_size"], facts["num_attention_heads"], facts["num_key_value_heads"]) == (3072, 24, 8)
config = NemotronConfig(**facts)
assert config.head_dim == 3072 // 24 == 128 and config.kv_channels == 128
assert NemotronConfig(**{**facts, "kv_channels": 64}).head_dim == 128
assert released("thhaus/nemotron3-8b")["num_key_value_heads"] == released("thhaus/nemotron3-8b")["num_attention_heads"] == 32

with model.trace(prompt):
    logits = model.logits.save()
other = tiny.load("nemotron", attn_implementation="eager", kv_channels=4)
assert other.config.kv_channels == 4 and other.head_dim == model.head_dim
with other.trace(prompt):
    logits_other = other.logits.save()
assert torch.equal(logits_other, logits)
```
'''
