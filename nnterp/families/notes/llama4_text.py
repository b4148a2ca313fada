"""Notes of the Llama 4 language model (Llama4ForCausalLM) written by hand, added to the derived ones. Read against
transformers' configuration_llama4.py (Llama4TextConfig: no_rope_layers from no_rope_layer_interval, layer_types from
attention_chunk_size, moe_layers from interleave_moe_layer_step, a strict bool attn_temperature_tuning) and
modeling_llama4.py (Llama4TextAttention: apply_rotary_emb on complex pairs, Llama4TextL2Norm after it on rotary
layers only, the temperature tuning of the NoPE layers; Llama4Router; Llama4TextMoe, which scales each expert's input;
Llama4TextExperts' batched matmuls; Llama4TextDecoderLayer's intermediate_size_mlp). No released config.json of a
Llama 4 checkpoint is recorded with its source, so every number here is Llama4TextConfig's default, said as such."""

LOAD = "eager"

MORE = r'''
## The rotary layers attend only inside chunks of 8192 positions; the first position of a chunk sees only itself

`Llama4TextConfig` derives `layer_types` from `no_rope_layers` and `attention_chunk_size` (8192, the class default): every layer that rotates is `chunked_attention`, every NoPE layer `full_attention`. A chunked layer is not a sliding window. The sequence is cut at fixed multiples of the chunk size, and a query at position p attends to the keys from `p // 8192 * 8192` to p: position 8192 sees only itself, position 8191 all of the 8192 before it. With the class's `no_rope_layer_interval` 4, three layers in four are chunked, so information crosses a chunk boundary only through the NoPE layers. The snippet cuts the tiny model's chunks to 4 positions:

```python
from nnterp import tiny
from transformers import Llama4TextConfig

defaults = Llama4TextConfig()
assert defaults.attention_chunk_size == 8192 and defaults.no_rope_layer_interval == 4
assert defaults.layer_types[:4] == ["chunked_attention"] * 3 + ["full_attention"]
small = tiny.load("llama4_text", attn_implementation="eager", attention_chunk_size=4)
assert small.config.layer_types == ["chunked_attention", "full_attention"]
with small.trace(prompt):
    chunked = small.layers[0].self_attn.attention_probabilities.save()
    full = small.layers[1].self_attn.attention_probabilities.save()

n = chunked.shape[-1]
position = torch.arange(n)
same_chunk = (position[:, None] // 4 == position[None, :] // 4) & (position[None, :] <= position[:, None])
assert torch.equal(chunked[0] > 0, same_chunk.expand_as(chunked[0]))
assert torch.equal(full[0] > 0, (position[None, :] <= position[:, None]).expand_as(full[0]))
```

## Temperature tuning changes nothing before position 8191

On the NoPE layers `Llama4TextAttention` multiplies the queries by `1 + attn_scale · ln(1 + floor((p + 1) / floor_scale))` before the kernel, so `attention_queries` there are the tuned queries. With the class defaults (`attn_scale` 0.1, `floor_scale` 8192) the floor is 0 up to position 8190: the factor is exactly 1 for every position of a prompt shorter than 8191 tokens, and the first change, at position 8191, is 1 + 0.1 ln 2 = 1.069. Over a short prompt a NoPE layer's queries are `q_proj`'s output as it is; the tuning sharpens attention only at long context. The snippet sets `floor_scale` to 2 to make it act:

```python
import math
from nnterp import tiny
from transformers import Llama4TextConfig

defaults = Llama4TextConfig()
assert (defaults.attn_scale, defaults.floor_scale, defaults.attn_temperature_tuning) == (0.1, 8192, True)
assert math.floor((8190 + 1) / 8192) == 0 and math.floor((8191 + 1) / 8192) == 1

def queries(m):
    m.instrument()
    attention = m.layers[1].self_attn                                   # the tiny model's NoPE layer
    with m.trace(prompt):
        raw = attention.q_proj.output.save()
        q = attention.attention_queries.save()
    return raw.view(*raw.shape[:2], -1, m.head_dim).transpose(1, 2), q

raw, q = queries(model)
assert torch.equal(q, raw)                                              # floor_scale 8192: a factor of exactly 1
raw, q = queries(tiny.load("llama4_text", attn_implementation="eager", floor_scale=2))
p = torch.arange(raw.shape[2]).float()
factor = 1 + 0.1 * torch.log1p(torch.floor((p + 1) / 2))
torch.testing.assert_close(q, raw * factor[:, None])
assert factor[0] == 1 and factor[1] > 1
```

## The query/key norm has no weight, comes after the rotary, and is missing on the NoPE layers

`Llama4TextL2Norm` divides each query and key head by its root mean square and multiplies by nothing: it has no parameter. It runs after the rotary and only on the layers that rotate. A rotary layer's attention score, `q · k / √d` with both heads at RMS 1, is therefore at most `d / √d = √d` in magnitude, 11.3 for the class's 128-dimensional heads: no query there can attend more sharply than a score gap of 22.6 allows, whatever the stream holds. A NoPE layer's queries and keys are the projections unnormalized, and their scores grow with the stream. Patching `q_proj`'s output on a rotary layer changes only the direction of a query head; its size is restored by the norm.

```python
from transformers import Llama4TextConfig

assert Llama4TextConfig().head_dim == 128 and round(128 ** 0.5, 1) == 11.3
rope, nope = model.layers[0].self_attn, model.layers[1].self_attn
assert hasattr(rope._module, "qk_norm") and not hasattr(nope._module, "qk_norm")
assert not any(True for _ in rope._module.qk_norm.parameters())         # no weight to fold or to read
model.instrument()
with model.trace(prompt):
    scores = rope.attention_scores.save()
    k_raw = nope.k_proj.output.save()
    k_nope = nope.attention_keys.save()

causal = torch.ones(scores.shape[-1], scores.shape[-1], dtype=torch.bool).tril()
assert scores[..., causal].abs().max() <= model.head_dim ** 0.5 * (1 + 1e-4)
torch.testing.assert_close(k_nope, k_raw.view(*k_raw.shape[:2], -1, model.head_dim).transpose(1, 2))
```

## Rotary turns adjacent pairs as complex numbers: dimensions 2i and 2i + 1, not Llama's i and i + 64

`apply_rotary_emb` views each query and key head as `head_dim / 2` complex numbers, dimensions (2i, 2i + 1), and multiplies them by `freqs_cis`, in float32; Llama 3 in transformers rotates dimension i with i + 64. An analysis that splits a head into halves to separate its frequencies, or code that reuses Llama's `rotate_half` on these queries, reads mixed frequencies here. Frequency i turns pair i, at `rope_theta ** (-2i / 128)` (base 500000 by the class default). The snippet rebuilds the tiny model's rotary layer both ways (its L2 norm comes after, so both sides are normed):

```python
model.instrument()
attention = model.layers[0].self_attn
with model.trace(prompt):
    q_raw = attention.q_proj.output.save()
    q = attention.attention_queries.save()

hd = model.head_dim
pre = q_raw.view(*q_raw.shape[:2], -1, hd).transpose(1, 2)
inv_freq = 1.0 / model.config.rope_parameters["rope_theta"] ** (torch.arange(0, hd, 2).float() / hd)
angles = torch.arange(pre.shape[2]).float()[:, None] * inv_freq
cos, sin = angles.cos(), angles.sin()

def l2(x):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + model.config.rms_norm_eps)

even, odd = pre[..., 0::2], pre[..., 1::2]
pairs = torch.stack([even * cos - odd * sin, odd * cos + even * sin], dim=-1).flatten(-2)
torch.testing.assert_close(q, l2(pairs))
first, second = pre[..., : hd // 2], pre[..., hd // 2 :]
halves = torch.cat([first * cos - second * sin, second * cos + first * sin], dim=-1)
assert not torch.allclose(q, l2(halves), atol=1e-3)
```

## The router scales each expert's input, and every expert runs on every token

`Llama4Router` keeps the top `num_experts_per_tok` logits (1 by the class default), and `Llama4TextMoe` multiplies the token by `sigmoid(logit)` before the expert, not the expert's output after it: the routed part of `mlp_output` is `expert_e(sigmoid(l_e) · x)`. The expert is a SiLU-gated MLP, not a linear map, so halving the weight does not halve the contribution, and attributing an expert's output as `router_weights × expert(x)`, as on Mixtral, is wrong here. `Llama4TextExperts` then runs all `num_local_experts` experts on all tokens as batched matmuls, the unchosen ones on zero input (which gives zero: no biases), so the compute is that of every expert. The shared expert is added unweighted.

```python
from transformers import Llama4TextConfig

assert (Llama4TextConfig().num_experts_per_tok, Llama4TextConfig().num_local_experts) == (1, 16)
with model.trace(prompt):
    x = model.layers[0].mlp.input.save()
    weights = model.layers[0].mlp.router_weights.save()
    choices = model.layers[0].mlp.router_choices.save()
    out = model.layers[0].mlp.mlp_output.save()

moe = model.layers[0].mlp._module
rows, w, e = x.reshape(-1, model.hidden_size), weights.reshape(-1), choices.reshape(-1)

def expert(index, h):
    gate, up = (h @ moe.experts.gate_up_proj[index]).chunk(2, dim=-1)
    return (up * torch.nn.functional.silu(gate)) @ moe.experts.down_proj[index]

shared = moe.shared_expert(rows)
scaled_input = torch.stack([expert(int(e[t]), w[t] * rows[t]) for t in range(len(rows))])
scaled_output = torch.stack([w[t] * expert(int(e[t]), rows[t]) for t in range(len(rows))])
torch.testing.assert_close(out.reshape(-1, model.hidden_size), shared + scaled_input)
assert not torch.allclose(out.reshape(-1, model.hidden_size), shared + scaled_output, atol=1e-4)
```

## `intermediate_size` is the experts' width; `intermediate_size_mlp` is only the dense layers'

Two widths are in the config: `intermediate_size` (8192 by the class default) sizes every routed expert and the shared expert, and `intermediate_size_mlp` (16384) sizes the dense `Llama4TextMLP` of a layer not in `moe_layers`. `moe_layers` defaults to every `interleave_moe_layer_step`-th layer; with the class's step 1 every layer is an MoE layer, and no layer is 16384 wide. nnterp's `model.intermediate_size` reports `intermediate_size_mlp`, the dense width: on an all-MoE config it is the width of no module, and a neuron index from it does not index an expert.

```python
from nnterp import tiny
from transformers import AutoModelForCausalLM, Llama4TextConfig

defaults = Llama4TextConfig()
assert (defaults.intermediate_size, defaults.intermediate_size_mlp, defaults.interleave_moe_layer_step) == (8192, 16384, 1)
assert defaults.moe_layers == list(range(48))
with torch.device("meta"):
    real = AutoModelForCausalLM.from_config(Llama4TextConfig(num_hidden_layers=4))
    assert all(type(layer.feed_forward).__name__ == "Llama4TextMoe" for layer in real.model.layers)
    dense = AutoModelForCausalLM.from_config(Llama4TextConfig(num_hidden_layers=4, interleave_moe_layer_step=2))
    assert [type(layer.feed_forward).__name__ for layer in dense.model.layers] == ["Llama4TextMLP", "Llama4TextMoe"] * 2
    assert dense.model.layers[0].feed_forward.down_proj.in_features == 16384

small = tiny.load("llama4_text", attn_implementation="eager", intermediate_size=32)   # the tiny model's two widths differ
assert small.intermediate_size == small.config.intermediate_size_mlp == 128 and small.config.intermediate_size == 32
assert small.layers[0].mlp._module.shared_expert.down_proj.in_features == 32
assert small.layers[0].mlp._module.experts.down_proj.shape[1] == 32
```

## `attn_temperature_tuning` must be a bool: a config.json that gives a number is refused

`Llama4TextConfig` is a strict dataclass, and `attn_temperature_tuning` is typed `bool`. A config.json written with a number there (`4`, say: the attention only tests the value for truth, and earlier readers took any non-zero number as on) is refused with `StrictDataclassFieldValidationError` as soon as the config is read by `AutoConfig.from_pretrained`, which a model or tokenizer load calls first, before any weight is read. Edit the file's value to `true` (or pass `attn_temperature_tuning=True`); the tuning itself does not read the number.

```python
import json
import tempfile
from pathlib import Path
from transformers import AutoConfig, Llama4TextConfig

folder = Path(tempfile.mkdtemp())
(folder / "config.json").write_text(json.dumps({"model_type": "llama4_text", "attn_temperature_tuning": 4}))
try:
    AutoConfig.from_pretrained(folder)
    raise AssertionError("a numeric attn_temperature_tuning was accepted")
except Exception as error:
    assert type(error).__name__ == "StrictDataclassFieldValidationError", error
    assert "attn_temperature_tuning" in str(error)
(folder / "config.json").write_text(json.dumps({"model_type": "llama4_text", "attn_temperature_tuning": True}))
assert AutoConfig.from_pretrained(folder).attn_temperature_tuning is True
assert Llama4TextConfig(attn_temperature_tuning=True).attn_temperature_tuning is True
```
'''
