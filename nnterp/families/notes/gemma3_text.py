"""Notes of Gemma 3 (text) written by hand, added to the derived ones. Read against transformers'
configuration_gemma3.py (Gemma3TextConfig.__post_init__ and convert_rope_params_to_dict: the legacy
sliding_window_pattern, rope_local_base_freq and rope_scaling keys; use_bidirectional_attention halving the window)
and modeling_gemma3.py (Gemma3RotaryEmbedding's one inverse frequency per layer type, Gemma3TextModel's masks and
embeddings, Gemma3RMSNorm). The derived rotary note, which named bases the recorded 1B-PT facts do not hold, is
replaced by the first note, whose bases are Gemma-3-1B-IT's released config's; the snippets run on the tiny Gemma 3
(one sliding and one full layer)."""

LOAD = "eager"

DROP = ("rotary_note",)

MORE = r'''
## Two rotaries, chosen by layer type: base 10000 on sliding layers, 1000000 on full ones, and scaling only on full

`Gemma3RotaryEmbedding` holds one inverse-frequency table per layer type (`sliding_attention_inv_freq`, `full_attention_inv_freq`), and each block gets the cos and sin of its own type. Gemma-3-1B-IT's config.json gives them in the legacy keys: `rope_local_base_freq` 10000 for the sliding layers and `rope_theta` 1000000 for the full ones; `Gemma3TextConfig` turns them into `rope_parameters["sliding_attention"]` and `rope_parameters["full_attention"]`. A `rope_scaling` in a config (the 1B's is null) is applied to `full_attention` alone: the sliding layers keep their unscaled base-10000 rotation. Reading `config.rope_theta`, or building one rotary for every layer, gives the wrong rotation on most layers. Each head turns all `head_dim` (256) dimensions, with `rotate_half`, after `q_norm` and `k_norm`.

```python
from transformers import Gemma3TextConfig

facts = released("google/gemma-3-1b-it")
assert facts["rope_local_base_freq"] == 10000 and facts["rope_theta"] == 1000000 and facts["rope_scaling"] is None
assert Gemma3TextConfig(**facts).rope_parameters == {
    "sliding_attention": {"rope_type": "default", "rope_theta": 10000},
    "full_attention": {"rope_type": "default", "rope_theta": 1000000}}

from nnterp import tiny

scaled = tiny.load("gemma3_text", attn_implementation="eager", rope_scaling={"rope_type": "linear", "factor": 8.0})
scaled.instrument()   # q_norm (a module) is read before attention_queries (inside the forward)
rotary, d = scaled._module.model.rotary_emb, scaled.head_dim
def inv_freq(base):
    return 1.0 / (base ** (torch.arange(0, d, 2).float() / d))
def rotate(x, freq):
    angles = torch.arange(x.shape[-2]).float()[:, None] * freq[None]
    cos, sin = torch.cat((angles, angles), -1).cos(), torch.cat((angles, angles), -1).sin()
    return x * cos + torch.cat((-x[..., d // 2:], x[..., :d // 2]), -1) * sin

bases = {kind: p["rope_theta"] for kind, p in scaled.config.rope_parameters.items()}
torch.testing.assert_close(rotary.sliding_attention_inv_freq, inv_freq(bases["sliding_attention"]))
torch.testing.assert_close(rotary.full_attention_inv_freq, inv_freq(bases["full_attention"]) / 8)
for i, kind in enumerate(scaled.config.layer_types):
    attention = scaled.layers[i].self_attn
    with scaled.trace(prompt):
        normed = attention.q_norm.output.save()
        q = attention.attention_queries.save()
    torch.testing.assert_close(q, rotate(normed, getattr(rotary, f"{kind}_inv_freq")))
```

## One layer in six is full, and the stack ends on two sliding layers

Gemma-3-1B-IT's config sets `sliding_window` 512 and the legacy `sliding_window_pattern` 6, no `layer_types`; `Gemma3TextConfig` makes layer i full where `(i + 1) % 6 == 0`. Of the 1B's 26 layers, 5, 11, 17 and 23 are full and the other 22 see only the 511 keys before each query and itself. The pattern does not end on a full layer: layers 24 and 25, the last two, slide, so the last blocks a logit lens reads past layer 23 attend 512 tokens at most. On a prompt longer than 512 tokens, the sliding layers' `attention_probabilities` are zero on every key further back than that.

```python
from transformers import Gemma3TextConfig

facts = released("google/gemma-3-1b-it")
assert facts["sliding_window"] == 512 and facts["sliding_window_pattern"] == 6 and "layer_types" not in facts
types = Gemma3TextConfig(**facts).layer_types
assert [i for i, kind in enumerate(types) if kind == "full_attention"] == [5, 11, 17, 23]
assert types[-2:] == ["sliding_attention", "sliding_attention"] and types.count("sliding_attention") == 22
```

## `use_bidirectional_attention` halves the window the config reads back

`Gemma3TextConfig` has a `use_bidirectional_attention` option (false in the class and unset in Gemma-3-1B-IT's config). Set, it makes every mask two-way, the full layers' over the whole sequence and the sliding layers' within the window in both directions, and `__post_init__` rewrites `sliding_window` to `sliding_window // 2 + 1`: a config loaded with 512 reads back 257, and a query sees the 256 keys on each side of it. (`to_dict` writes 512 again.) Code that reads `config.sliding_window` to build its own mask, or to decide which keys a head can reach, uses the halved value on such a config:

```python
from transformers import Gemma3TextConfig
from nnterp import tiny

facts = released("google/gemma-3-1b-it")
assert "use_bidirectional_attention" not in facts
both_ways = Gemma3TextConfig(**facts, use_bidirectional_attention=True)
assert both_ways.sliding_window == 257 and both_ways.to_dict()["sliding_window"] == 512

two_way = tiny.load("gemma3_text", attn_implementation="eager", use_bidirectional_attention=True, sliding_window=6)
window = two_way.config.sliding_window                      # 6 // 2 + 1 = 4
with two_way.trace(prompt):
    sliding = two_way.layers[0].self_attn.attention_probabilities.save()
    full = two_way.layers[1].self_attn.attention_probabilities.save()

n = sliding.shape[-1]
distance = (torch.arange(n)[:, None] - torch.arange(n)[None]).abs()
assert window == 4 and two_way.config.layer_types == ["sliding_attention", "full_attention"]
assert bool((sliding[..., distance < window] > 0).all()) and bool((sliding[..., distance >= window] == 0).all())
assert bool((full > 0).all())                               # the full layer sees every key, both ways
```

## No softcap anywhere: the logits are `lm_head`'s output, and sdpa computes the same model

Gemma 3 keeps Gemma 2's sandwich but drops both caps: Gemma-3-1B-IT's config sets `attn_logit_softcapping` and `final_logit_softcapping` to null. The kernel is called with `softcap=None`, so `attention_scores` are the plain scaled product, and `Gemma3ForCausalLM` returns `lm_head`'s output unchanged: `logits` equals `lm_head_output`. Unlike Gemma 2, nothing forbids sdpa: the default sdpa load and the eager load that serves the scores compute the same model, up to rounding. Code carried over from Gemma 2 that applies `30 · tanh(x / 30)` to the logits, or caps the scores at 50, computes another model.

```python
from nnterp import tiny

facts = released("google/gemma-3-1b-it")
assert facts["attn_logit_softcapping"] is None and facts["final_logit_softcapping"] is None
with model.trace(prompt):
    head = model.lm_head_output.save()
    logits = model.logits.save()
assert torch.equal(logits, head)

sdpa = tiny.load("gemma3_text", attn_implementation="sdpa")
with sdpa.trace(prompt):
    logits_sdpa = sdpa.logits.save()
torch.testing.assert_close(logits_sdpa, logits)
```

## `inputs_embeds` skip the √hidden_size scale

The scale (√1152 = 33.94 on the 1B, 34 in bfloat16, its files' dtype) lives in `embed_tokens`'s forward, and `Gemma3TextModel` calls `embed_tokens` only when given `input_ids`. A call with `inputs_embeds` enters the blocks as given: rows taken from `embed_tokens.weight` (tied to `lm_head`, so also the unembedding) must be multiplied by `embed_tokens.embed_scale` first, or the stream starts 34 times too small.

```python
import math

facts = released("google/gemma-3-1b-it")
assert torch.tensor(math.sqrt(facts["hidden_size"])).to(torch.bfloat16).item() == 34.0 and facts["dtype"] == "bfloat16"
embed = model._module.model.embed_tokens
with model.trace(prompt):
    ids = model.input_ids.save()
    logits = model.logits.save()
rows = model.embed_tokens.weight[ids]
with model.trace(inputs_embeds=rows):
    logits_unscaled = model.logits.save()
with model.trace(inputs_embeds=rows * embed.embed_scale):
    logits_scaled = model.logits.save()

assert (logits_unscaled - logits).abs().max() > 1e-2
torch.testing.assert_close(logits_scaled, logits)
```

## Every norm, `q_norm` and `k_norm` included, computes in float32 and scales by `1 + weight` before casting back

`Gemma3RMSNorm` upcasts to float32, normalizes, multiplies by `1 + weight` and then casts to the input's dtype (transformers' own comment: "Llama does x.to(float16) * w whilst Gemma3 is (x * w).to(float16)"). That holds for the four norms of the block and for `q_norm` and `k_norm`, which normalize each query and key head over its `head_dim` entries before the rotary. Under a bfloat16 load, Gemma-3-1B's dtype, a norm reimplemented the Llama way differs from the model's in the last bit, and the difference is then multiplied by the rotary and the scores:

```python
from nnterp import tiny

half = tiny.load("gemma3_text", attn_implementation="eager", dtype=torch.bfloat16)
attention = half.layers[0].self_attn
with half.trace(prompt):
    raw = attention.q_proj.output.save()
    normed = attention.q_norm.output.save()

b, s, _ = raw.shape
heads = raw.view(b, s, half.num_heads, half.head_dim).transpose(1, 2).float()
unit = heads * torch.rsqrt(heads.pow(2).mean(-1, keepdim=True) + half.config.rms_norm_eps)
w = attention.q_norm.weight
assert torch.equal(normed, (unit * (1.0 + w.float())).to(torch.bfloat16))        # Gemma's order
assert not torch.equal(normed, unit.to(torch.bfloat16) * (1.0 + w))               # Llama's order
```
'''
