"""Notes of Hunyuan V1 dense (HunYuanDenseV1ForCausalLM) written by hand, added to the derived ones. Read against
transformers' configuration_hunyuan_v1_dense.py (HunYuanDenseV1Config: head_dim None by default) and
modular_hunyuan_v1_dense.py / modeling_hunyuan_v1_dense.py (HunYuanDenseV1Attention: query_layernorm and
key_layernorm after apply_rotary_pos_emb, head_dim read with getattr; HunYuanDenseV1MLP with bias=False;
HunYuanDenseV1RotaryEmbedding's ntk_alpha type and compute_ntk_alpha_rope_parameters). No config.json of a Hunyuan
dense checkpoint is recorded with its source, so every number here is the class's default or the tiny model's."""

LOAD = "eager"

MORE = r'''
## A config without `head_dim` builds no model

`HunYuanDenseV1Config.head_dim` defaults to None, and `HunYuanDenseV1Attention` reads it with `getattr(config, "head_dim", hidden_size // num_attention_heads)`: the attribute exists, so the fallback is never taken, and the constructor fails on `None ** -0.5` with `TypeError: unsupported operand type(s) for ** or pow(): 'NoneType' and 'float'`. A config built from the class's defaults, or a config.json written before the integration that names the width `attention_head_dim` (as the config in Tencent's Hunyuan-A13B repository does), cannot be built. Give `head_dim` explicitly.

```python
from transformers import AutoModelForCausalLM, HunYuanDenseV1Config

assert HunYuanDenseV1Config().head_dim is None
try:
    with torch.device("meta"):
        AutoModelForCausalLM.from_config(HunYuanDenseV1Config(num_hidden_layers=1))
    raise AssertionError("a config without head_dim built a model")
except TypeError as error:
    assert "NoneType" in str(error), error
try:
    with torch.device("meta"):
        AutoModelForCausalLM.from_config(HunYuanDenseV1Config(num_hidden_layers=1, attention_head_dim=128))
    raise AssertionError("attention_head_dim was read")
except TypeError:
    pass
with torch.device("meta"):
    built = AutoModelForCausalLM.from_config(HunYuanDenseV1Config(num_hidden_layers=1, head_dim=128))
assert built.model.layers[0].self_attn.head_dim == 128
```

## The query and key norms come after the rotary, with a weight: the order cannot be swapped

`HunYuanDenseV1Attention` rotates `q_proj`'s and `k_proj`'s heads first and then applies `query_layernorm` and `key_layernorm`, RMSNorms over one head with one learned weight vector shared by all heads (Qwen3, OLMo 2 and GLM-4.5 norm before the rotary). `attention_queries` and `attention_keys` are read after both. The RMS of a head is unchanged by a rotation, but the weight is not: it scales the two dimensions of a rotated pair by different amounts, so `norm(rotate(q))` is not `rotate(norm(q))`, and recomputing the queries from `q_proj` in the usual order gives other values. At position 0, where the rotary is the identity, the two orders agree:

```python
model.instrument()
attention = model.layers[0].self_attn
with model.trace(prompt):
    q_raw = attention.q_proj.output.save()
    q = attention.attention_queries.save()

hd, eps = model.head_dim, model.config.rms_norm_eps
weight = attention._module.query_layernorm.weight
assert weight.shape == (hd,) and not torch.allclose(weight, weight[0].expand_as(weight))

def norm(x):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * weight

def rotate(x):
    cos, sin = model._module.model.rotary_emb(x, torch.arange(x.shape[2])[None])
    half = torch.cat((-x[..., hd // 2:], x[..., : hd // 2]), dim=-1)
    return x * cos[:, None] + half * sin[:, None]

pre = q_raw.view(*q_raw.shape[:2], -1, hd).transpose(1, 2)
torch.testing.assert_close(q, norm(rotate(pre)))
assert not torch.allclose(q[:, :, 1:], rotate(norm(pre))[:, :, 1:], atol=1e-4)
torch.testing.assert_close(q[:, :, 0], norm(pre)[:, :, 0])
```

## Because the weight comes after the rotation, scores are not a function of relative position alone

With the norm's weight applied after the rotary, the score of a query at position m with a key at n depends on m and n, not only on m − n: the same pair of projected vectors scores differently at positions (1, 0) and (2, 1). Rotary's usual guarantee, that moving a whole sequence leaves its attention pattern unchanged, holds here only where the weights are equal within each rotated pair; a learned weight is not. An analysis that reads a head as a function of distance (a previous-token head, say) has to allow for the absolute position. The snippet uses the tiny model's own rotary and norm on one query and one key:

```python
attention = model.layers[0].self_attn._module
hd = model.head_dim
torch.manual_seed(0)
q, k = torch.randn(1, 1, 1, hd), torch.randn(1, 1, 1, hd)

def at(x, position):
    cos, sin = model._module.model.rotary_emb(x, torch.tensor([[position]]))
    half = torch.cat((-x[..., hd // 2:], x[..., : hd // 2]), dim=-1)
    return x * cos[:, None] + half * sin[:, None]

def score(m, n, q_norm, k_norm):
    return float((q_norm(at(q, m)) * k_norm(at(k, n))).sum().detach())

learned = attention.query_layernorm, attention.key_layernorm
assert abs(score(1, 0, *learned) - score(2, 1, *learned)) > 1e-4
plain = torch.nn.RMSNorm(hd, eps=model.config.rms_norm_eps)          # weight all ones: relative again
assert abs(score(1, 0, plain, plain) - score(2, 1, plain, plain)) < 1e-4
```

## `rope_scaling` "dynamic" with an `alpha` is a fixed, larger base, and the warning that calls `alpha` unrecognized is wrong

Hunyuan configs give their rotary as `{"type": "dynamic", "alpha": …}` (the config in Tencent's Hunyuan-A13B repository has alpha 1000.0 over `rope_theta` 10000.0). `HunYuanDenseV1RotaryEmbedding` turns "dynamic" with an alpha into its own type, `ntk_alpha`: the base becomes `rope_theta · alpha ** (d / (d − 2))` for a head of d dimensions, once, and the frequencies do not change with the sequence's length, unlike transformers' "dynamic" scaling. Loading such a config logs "Unrecognized keys in `rope_parameters` for 'rope_type'='dynamic': {'alpha'}", yet alpha is read. For d = 128, alpha 1000 over 10000 is a base of about 1.12e7. The snippet gives the tiny model (d = 16) alpha 1000:

```python
import io
import logging
from nnterp import tiny
from transformers.utils import logging as transformers_logging

assert round(10000.0 * 1000.0 ** (128 / 126) / 1e7, 2) == 1.12
log = io.StringIO()
handler = logging.StreamHandler(log)
verbosity = transformers_logging.get_verbosity()
transformers_logging.set_verbosity_warning()                            # the default level, where the warning shows
transformers_logging.disable_default_handler()                          # caught here, not printed
transformers_logging.get_logger("transformers").addHandler(handler)
try:
    stretched = tiny.load("hunyuan_v1_dense", attn_implementation="eager",
                          rope_scaling={"type": "dynamic", "alpha": 1000.0, "factor": 1.0}, rope_theta=10000.0)
finally:
    transformers_logging.get_logger("transformers").removeHandler(handler)
    transformers_logging.enable_default_handler()
    transformers_logging.set_verbosity(verbosity)
assert "Unrecognized keys" in log.getvalue() and "alpha" in log.getvalue()

rotary = stretched._module.model.rotary_emb
d = stretched.head_dim
base = 10000.0 * 1000.0 ** (d / (d - 2))
assert rotary.rope_type == "ntk_alpha"
torch.testing.assert_close(rotary.inv_freq, 1.0 / base ** (torch.arange(0, d, 2).float() / d))
before = rotary.inv_freq.clone()
with stretched.trace(" ".join([prompt] * 40)):
    stretched.logits.save()
assert torch.equal(rotary.inv_freq, before)                             # no length-dependent update
```

## `mlp_bias` is accepted and ignored: the MLP never has a bias

`HunYuanDenseV1MLP` builds `gate_proj`, `up_proj` and `down_proj` with `bias=False` written in, where Llama's MLP reads `config.mlp_bias`. The config accepts an `mlp_bias` key (the config in Tencent's Hunyuan-A13B repository carries one) without complaint, and a true value changes nothing. `attention_bias`, on the other hand, is read: it gives `q_proj`, `k_proj`, `v_proj` and `o_proj` a bias together (false by the class default).

```python
from nnterp import tiny
from transformers import HunYuanDenseV1Config

assert HunYuanDenseV1Config().attention_bias is False
biased = tiny.load("hunyuan_v1_dense", attn_implementation="eager", mlp_bias=True, attention_bias=True)
assert biased.config.mlp_bias is True
mlp, attention = biased.layers[0].mlp, biased.layers[0].self_attn
assert all(getattr(mlp, n).bias is None for n in ("gate_proj", "up_proj", "down_proj"))
assert all(getattr(attention, n).bias is not None for n in ("q_proj", "k_proj", "v_proj", "o_proj"))
```

## By the class default every query head has its own key and value head

`HunYuanDenseV1Config.num_key_value_heads` defaults to None, which `__post_init__` replaces with `num_attention_heads` (32): a config that leaves the key out builds full multi-head attention, with `attention_keys` and `attention_values` as many heads as the queries, not a grouped model. Such a model has no place for a grouped checkpoint's `k_proj` and `v_proj` weights, so a hand-written config must give the key. The tiny model sets 2 key and value heads for 4 query heads.

```python
from transformers import AutoModelForCausalLM, HunYuanDenseV1Config

defaults = HunYuanDenseV1Config(head_dim=128)
assert defaults.num_key_value_heads == defaults.num_attention_heads == 32
with torch.device("meta"):
    full = AutoModelForCausalLM.from_config(HunYuanDenseV1Config(num_hidden_layers=1, head_dim=128))
    grouped = AutoModelForCausalLM.from_config(HunYuanDenseV1Config(num_hidden_layers=1, head_dim=128,
                                                                   num_key_value_heads=8))
assert full.model.layers[0].self_attn.k_proj.out_features == 32 * 128
assert grouped.model.layers[0].self_attn.k_proj.out_features == 8 * 128
with model.trace(prompt):
    keys = model.layers[0].self_attn.attention_keys.save()
assert keys.shape[1] == model.num_kv_heads == 2 and model.num_heads == 4
```
'''
