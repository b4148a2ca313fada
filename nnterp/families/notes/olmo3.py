"""Notes of OLMo 3 written by hand, added to the derived ones. Read against transformers' configuration_olmo3.py
(Olmo3Config's defaults, layer_types and convert_rope_params_to_dict, which puts a legacy rope_scaling on the full
layers only) and modeling_olmo3.py (Olmo3RotaryEmbedding's one table and attention scaling per layer type,
Olmo3Attention's sliding_window per layer, the post-norm block), with cache_utils.DynamicSlidingWindowLayer. The
checkpoint numbers are Olmo-3-7B-Instruct's config.json's as nnterp/families/checkpoints/olmo3.json records them; the
snippets run on the tiny OLMo 3 (one sliding and one full layer)."""

LOAD = "eager"

MORE = r'''
## YaRN stretches only the 8 full layers; the 24 sliding layers keep the base-500000 rotation

Olmo-3-7B-Instruct has 32 layers in the pattern sliding, sliding, sliding, full: layers 3, 7, …, 31 attend the whole prompt and the other 24 a window of 4096 tokens. `Olmo3RotaryEmbedding` keeps one frequency table per layer type. The sliding layers' is the plain one at base 500000; the full layers' is YaRN's, `factor` 8 over `original_max_position_embeddings` 8192, for a context of 65536 = 8 × 8192. Of a 128-dimensional head's 64 frequencies, YaRN divides the 29 slowest by 8 and blends 16 more; the 19 fastest are kept. Only the full layers ever see two tokens more than 4095 apart, and only they are stretched. The released config.json gives the scaling in the legacy `rope_scaling` key; `Olmo3Config` applies it to `full_attention` alone, so a config built from the raw keys gets the same split:

```python
from transformers import Olmo3Config
from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

facts = released("allenai/Olmo-3-7B-Instruct")
types = facts["layer_types"]
assert [i for i, kind in enumerate(types) if kind == "full_attention"] == list(range(3, 32, 4))
full, sliding = facts["rope_parameters"]["full_attention"], facts["rope_parameters"]["sliding_attention"]
assert sliding == {"rope_type": "default", "rope_theta": 500000.0}
assert (full["rope_type"], full["factor"], full["original_max_position_embeddings"]) == ("yarn", 8.0, 8192)
assert facts["max_position_embeddings"] == 65536 == 8 * 8192 and facts["sliding_window"] == 4096

config = Olmo3Config(**facts)
d = config.hidden_size // config.num_attention_heads
stretched, _ = ROPE_INIT_FUNCTIONS["yarn"](config, layer_type="full_attention")
ratio = stretched / (1.0 / 500000.0 ** (torch.arange(0, d, 2).float() / d))
assert d == 128 and int((ratio < 1 - 1e-6).sum()) == 45 and int((ratio <= 1 / 8 + 1e-6).sum()) == 29

legacy = Olmo3Config(rope_theta=500000.0, rope_scaling={k: v for k, v in full.items() if k != "rope_theta"})
assert legacy.rope_parameters["sliding_attention"] == sliding
assert legacy.rope_parameters["full_attention"]["rope_type"] == "yarn"
```

## YaRN multiplies every full-layer query and key by 1.208, so those scores are 1.46 times larger

YaRN does not only slow the frequencies: it multiplies the rotary's cos and sin by an `attention_factor`, 1.2079 on Olmo-3-7B-Instruct (YaRN's `0.1 · ln 8 + 1`). Both the queries and the keys are rotated by them, so on the 8 full layers each query and key comes out 1.2079 times longer than `q_norm` and `k_norm` made it, and every score `q · k / √128` is 1.2079² = 1.459 times what the same vectors would give unscaled: a lower softmax temperature on the full layers only. `attention_queries`, `attention_keys` and `attention_scores` are read after the factor. A reimplementation that rotates `q_norm`'s output with plain cos and sin, or compares query norms across layer types, misses it. On the tiny model given Olmo-3's YaRN on its full layer:

```python
import math
from nnterp import tiny

full = released("allenai/Olmo-3-7B-Instruct")["rope_parameters"]["full_attention"]
assert abs(full["attention_factor"] - (0.1 * math.log(full["factor"]) + 1)) < 1e-12
assert round(full["attention_factor"] ** 2, 3) == 1.459
yarn = {**full, "rope_theta": 10000.0, "original_max_position_embeddings": 4}
small = tiny.load("olmo3", attn_implementation="eager",
                  rope_parameters={"full_attention": yarn, "sliding_attention": {"rope_type": "default", "rope_theta": 10000.0}})
small.instrument()   # q_norm (a module) is read before attention_queries (inside the forward)
assert small.config.layer_types == ["sliding_attention", "full_attention"]
for i, factor in ((0, 1.0), (1, full["attention_factor"])):
    with small.trace(prompt):
        normed = small.layers[i].self_attn.q_norm.output.save()
        q = small.layers[i].self_attn.attention_queries.save()
    b, s, _ = normed.shape
    heads = normed.view(b, s, small.num_heads, -1).transpose(1, 2)
    torch.testing.assert_close(q.norm(dim=-1), factor * heads.norm(dim=-1))   # the rotation keeps lengths
```

## Past 4096 tokens back, only every fourth layer reaches

A sliding layer's query at position i sees keys i − 4095 to i. On a prompt longer than the window, what token j wrote reaches a position more than 4095 later only through the 8 full layers (3, 7, …, 31); the first three layers cannot carry it at all, and layer 3 is the first that can. Patching or ablating an early token changes nothing a sliding layer computes more than a window later: on the tiny model with a window of 3, editing token 0's embedding leaves the sliding layer's outputs at positions 3 onward bit-identical, and changes the full layer's at the last position:

```python
from nnterp import tiny

assert released("allenai/Olmo-3-7B-Instruct")["sliding_window"] == 4096
window = 3
small = tiny.load("olmo3", attn_implementation="eager", sliding_window=window)
with small.trace(prompt):
    slid = small.layers[0].layer_output.save()
    full = small.layers[1].layer_output.save()
with small.trace(prompt):
    small.token_embeddings[:, 0] = small.token_embeddings[:, 0] * 5
    slid_edited = small.layers[0].layer_output.save()
    full_edited = small.layers[1].layer_output.save()

assert torch.equal(slid[:, window:], slid_edited[:, window:])         # beyond the window: untouched
assert not torch.equal(slid[:, :window], slid_edited[:, :window])
assert (full[:, -1] - full_edited[:, -1]).abs().max() > 1e-4           # the full layer carries the edit
```

## A generation cache keeps only the last 4095 keys of a sliding layer

The cache transformers builds for OLMo 3 gives each sliding layer a `DynamicSlidingWindowLayer`, which keeps `sliding_window − 1` positions: 4095 on Olmo-3-7B-Instruct, the keys the next query can still see. The full layers' `DynamicLayer`s keep every position. Keys and values read from `cache.layers[i]` after a long prompt are the last 4095 positions' on 24 of the 32 layers and the whole prompt's on the other 8; code that indexes a cached key by its absolute position, or stacks the layers' caches into one tensor, breaks on the sliding layers.

```python
from nnterp import tiny

window = 3
small = tiny.load("olmo3", attn_implementation="eager", sliding_window=window)
ids = small.tokenizer(prompt, return_tensors="pt").input_ids
out = small._module(ids, use_cache=True)
cache = out.past_key_values
kinds = [type(layer).__name__ for layer in cache.layers]
assert kinds == ["DynamicSlidingWindowLayer", "DynamicLayer"]
assert cache.layers[0].keys.shape[-2] == window - 1 and cache.layers[1].keys.shape[-2] == ids.shape[1]
with small.trace(prompt):
    keys = small.layers[0].self_attn.attention_keys.save()
assert keys.shape[-2] == ids.shape[1]
torch.testing.assert_close(cache.layers[0].keys, keys[..., -(window - 1):, :])   # the last positions' keys
```

## `Olmo3Config()` is not OLMo 3: its defaults are OLMo 1's vocabulary and a 2048-token context

`Olmo3Config`'s class defaults are `vocab_size` 50304, `eos_token_id` 50279 and `pad_token_id` 1 (OLMo 1's GPT-NeoX-based tokenizer), `max_position_embeddings` 2048, `rms_norm_eps` 1e-5, and an unscaled rotary on every layer. Olmo-3-7B-Instruct's config.json sets `vocab_size` 100278, `eos_token_id` 100257, `pad_token_id` 100277, 65536 positions, `rms_norm_eps` 1e-6 and YaRN on the full layers. Only the window (4096), the base (500000) and the layer pattern match. A config built from the class with a few sizes changed (for a reduced model, a test, a converter) pairs OLMo 3's block with another model's tokens and eps:

```python
from transformers import Olmo3Config

facts = released("allenai/Olmo-3-7B-Instruct")
default = Olmo3Config()
assert (default.vocab_size, default.eos_token_id, default.pad_token_id) == (50304, 50279, 1)
assert (facts["vocab_size"], facts["eos_token_id"], facts["pad_token_id"]) == (100278, 100257, 100277)
assert (default.max_position_embeddings, default.rms_norm_eps) == (2048, 1e-5)
assert (facts["max_position_embeddings"], facts["rms_norm_eps"]) == (65536, 1e-06)
assert default.rope_parameters["full_attention"] == {"rope_type": "default", "rope_theta": 500000.0}
assert default.sliding_window == facts["sliding_window"] == 4096
assert default.layer_types[:4] == facts["layer_types"][:4]
```

## The post-norms undo any scaling inside a sublayer

`h = x + post_attention_layernorm(self_attn(x))` and `out = h + post_feedforward_layernorm(mlp(h))`: what a sublayer adds is an RMSNorm of its output, sized by the norm's weight. An edit that multiplies `o_proj`'s output, one head's `attention_head_outputs`, or `down_proj`'s output by a positive factor is normalized away, up to `rms_norm_eps` (1e-6 on Olmo-3-7B-Instruct) against the output's mean square; scaling `attention_output` or `mlp_output`, after the norm, is what changes the stream. The same holds on the sliding and the full layers. The snippet loads the tiny model with eps 1e-12, since its random outputs are small enough for the class's 1e-5 to matter:

```python
from nnterp import tiny

assert released("allenai/Olmo-3-7B-Instruct")["rms_norm_eps"] == 1e-06
small = tiny.load("olmo3", attn_implementation="eager", rms_norm_eps=1e-12)
for i in range(small.num_layers):
    with small.trace(prompt):
        out = small.layers[i].layer_output.save()
    with small.trace(prompt):
        small.layers[i].self_attn.o_proj.output[:] = small.layers[i].self_attn.o_proj.output * 3
        small.layers[i].mlp.down_proj.output[:] = small.layers[i].mlp.down_proj.output * 3
        out_inside = small.layers[i].layer_output.save()
    with small.trace(prompt):
        small.layers[i].self_attn.attention_output[:] = small.layers[i].self_attn.attention_output * 3
        out_after = small.layers[i].layer_output.save()
    # the rescaled write differs from the original by rounding, carried through the MLP's reduction
    rounding = small.intermediate_size * torch.finfo(torch.float32).eps * out.abs().max().item()
    torch.testing.assert_close(out_inside, out, atol=rounding, rtol=0)
    assert (out_after - out).abs().max() > 1000 * rounding
```
'''
