"""Notes of Gemma 2 written by hand, added to the derived ones. Read against transformers' modeling_gemma2.py
(Gemma2Attention.__init__ sets scaling = query_pre_attn_scalar ** -0.5; eager_attention_forward soft-caps the scaled
scores before the mask; Gemma2RMSNorm scales by 1 + weight in float32; Gemma2TextScaledWordEmbedding casts its scale
to the weights' dtype; Gemma2ForCausalLM caps the logits). The derived scale, embedding-scale and past-head notes
are replaced by these, which quote all three checkpoints' configs; the snippets run on the tiny Gemma 2."""

LOAD = "eager"

DROP = ("scale_note", "embedding_scale_note", "past_head_note")

MORE = r'''
## The scale is `query_pre_attn_scalar ** -0.5`: 1/12 on the 27B, whose heads are 128 wide

`Gemma2Attention` never reads `head_dim` for its scale: `self.scaling = config.query_pre_attn_scalar ** -0.5`. On Gemma-2-2B and Gemma-2-9B `query_pre_attn_scalar` is 256, equal to `head_dim`, and the scale is the usual 1/16. On Gemma-2-27B it is 144, which is `hidden_size / num_attention_heads` = 4608 / 32, while `head_dim` is 128: the scale is 1/12 = 0.0833, not `128 ** -0.5` = 0.0884. A reimplementation that recomputes the scale from `head_dim`, or an analysis that rescales `q · k` by 1/√128, is off by a factor of 1.061 on every score of the 27B.

```python
from transformers import Gemma2Config
from transformers.models.gemma2.modeling_gemma2 import Gemma2Attention

big = released("google/gemma-2-27b-it")
assert big["query_pre_attn_scalar"] == 144 == big["hidden_size"] // big["num_attention_heads"]
assert big["head_dim"] == 128
for repo in ("google/gemma-2-2b", "google/gemma-2-9b"):
    assert released(repo)["query_pre_attn_scalar"] == released(repo)["head_dim"] == 256
with torch.device("meta"):
    attention = Gemma2Attention(Gemma2Config(**big), layer_idx=0)
assert abs(attention.scaling - 1 / 12) < 1e-15 and abs(attention.scaling - 128 ** -0.5) > 4e-3
assert round(128 ** -0.5 / attention.scaling, 3) == 1.061
```

The tiny model has `head_dim` 16 and keeps `query_pre_attn_scalar` at 256, so its scale, 1/16, is not 16 ** -0.5; its scores are the queries times the repeated keys at that scale, soft-capped:

```python
attention = model.layers[0].self_attn
with model.trace(prompt):
    q = attention.attention_queries.save()
    k = attention.attention_keys.save()
    scores = attention.attention_scores.save()

k = k.repeat_interleave(model.num_heads // model.num_kv_heads, dim=1)
cap = model.config.attn_logit_softcapping
raw = q @ k.transpose(-1, -2) * model.config.query_pre_attn_scalar ** -0.5
live = scores > torch.finfo(scores.dtype).min / 2
assert model.head_dim == 16 and model.config.query_pre_attn_scalar == 256
torch.testing.assert_close((cap * torch.tanh(raw / cap))[live], scores[live])
```

## `attention_scores` are soft-capped at 50, and the uncapped scores exist nowhere

The kernel computes `s = q · kᵀ · scaling`, then `attn_logit_softcapping · tanh(s / attn_logit_softcapping)` (50 on all three checkpoints), then adds the mask: `attention_scores`, read at the softmax's input, are capped, and every live entry lies strictly inside ±50. The uncapped `s` is never a tensor of the forward; compute it from `attention_queries` and `attention_keys` as below. transformers refuses `attn_implementation="sdpa"` for Gemma 2 (`_supports_sdpa = False`), because `scaled_dot_product_attention` cannot cap. On the tiny model loaded with a cap of 0.01, below its largest scaled score, the cap bites:

```python
from nnterp import tiny

for repo in ("google/gemma-2-2b", "google/gemma-2-9b", "google/gemma-2-27b-it"):
    assert released(repo)["attn_logit_softcapping"] == 50.0
capped = tiny.load("gemma2", attn_implementation="eager", attn_logit_softcapping=0.01)
attention = capped.layers[0].self_attn
with capped.trace(prompt):
    q = attention.attention_queries.save()
    k = attention.attention_keys.save()
    scores = attention.attention_scores.save()

k = k.repeat_interleave(capped.num_heads // capped.num_kv_heads, dim=1)
raw = q @ k.transpose(-1, -2) * attention.scaling
live = scores > torch.finfo(scores.dtype).min / 2
assert raw[live].abs().max() > 0.01 and scores[live].abs().max() < 0.01
torch.testing.assert_close((0.01 * torch.tanh(raw / 0.01))[live], scores[live])
try:
    tiny.build("gemma2", attn_implementation="sdpa")
    refused = False
except ValueError:
    refused = True
assert refused
```

## The logits are capped at 30: a probability from `lm_head_output` is not the model's

`Gemma2ForCausalLM` returns `final_logit_softcapping · tanh(lm_head.output / final_logit_softcapping)`, with 30 on all three checkpoints: `logits` lie inside ±30, and `lm_head_output` is the head's output before the cap. The cap is monotonic, so the top token is the same either way, but the softmax of `lm_head_output` is sharper than the model's distribution: a logit lens, a KL or an entropy computed from `lm_head_output`, or from `lm_head` applied by hand, is not the model's. `project_on_vocab` applies the final norm, `lm_head` and the cap, and on the last block's `layer_output` gives `logits`; `next_token_probs` is the softmax of the capped logits. On the tiny model loaded with a cap of 0.2, below its largest head output:

```python
from nnterp import tiny

for repo in ("google/gemma-2-2b", "google/gemma-2-9b", "google/gemma-2-27b-it"):
    assert released(repo)["final_logit_softcapping"] == 30.0
capped = tiny.load("gemma2", attn_implementation="eager", final_logit_softcapping=0.2)
with capped.trace(prompt):
    last = capped.layers[-1].layer_output.save()
    head = capped.lm_head_output.save()
    logits = capped.logits.save()
    probs = capped.next_token_probs.save()

assert head.abs().max() > 0.2 and logits.abs().max() < 0.2
torch.testing.assert_close(logits, 0.2 * torch.tanh(head / 0.2))
torch.testing.assert_close(capped.project_on_vocab(last), logits)
torch.testing.assert_close(probs, logits[:, -1].softmax(-1))
assert torch.equal(head[:, -1].argmax(-1), probs.argmax(-1))                      # the same top token
assert (head[:, -1].softmax(-1) - probs).abs().max() > 1e-3                        # not the same distribution
```

## The embeddings are scaled by √hidden_size rounded to the weights' dtype: 59.75 on the 9B in bfloat16

`embed_tokens` is a `Gemma2TextScaledWordEmbedding`: its forward multiplies the looked-up rows by `embed_scale`, a buffer holding `hidden_size ** 0.5`, cast to the weights' dtype first. The product is `token_embeddings` and `layers[0].input`. In bfloat16, the dtype of the 9B's and the 27B's files, √2304 = 48 (2B) is exact, but √3584 = 59.867 (9B) becomes 59.75 and √4608 = 67.882 (27B) becomes 68.0; in float16 they are 59.875 and 67.875. An embedding recomputed as `weight[ids] * hidden_size ** 0.5`, to patch in a vector or to feed `inputs_embeds`, is 0.2 % off on the 9B's bfloat16 weights, in every entry. The tiny model loaded in bfloat16 with a hidden size of 72 (√72 = 8.485, 8.5 in bfloat16) shows it:

```python
import math
from nnterp import tiny

for repo, in_bfloat16 in (("google/gemma-2-2b", 48.0), ("google/gemma-2-9b", 59.75), ("google/gemma-2-27b-it", 68.0)):
    assert torch.tensor(math.sqrt(released(repo)["hidden_size"])).to(torch.bfloat16).item() == in_bfloat16
for repo, in_float16 in (("google/gemma-2-9b", 59.875), ("google/gemma-2-27b-it", 67.875)):
    assert torch.tensor(math.sqrt(released(repo)["hidden_size"])).to(torch.float16).item() == in_float16
assert released("google/gemma-2-9b")["dtype"] == released("google/gemma-2-27b-it")["dtype"] == "bfloat16"
assert round(math.sqrt(3584) / 59.75 - 1, 3) == 0.002

half = tiny.load("gemma2", attn_implementation="eager", dtype=torch.bfloat16, hidden_size=72)
with half.trace(prompt):
    ids = half.input_ids.save()
    emb = half.token_embeddings.save()
rows = half.embed_tokens.weight[ids]
assert torch.equal(emb, rows * torch.tensor(8.5, dtype=torch.bfloat16))
assert not torch.equal(emb, (rows.float() * math.sqrt(72)).to(torch.bfloat16))
```

## The norms compute in float32 and scale by `1 + weight` before casting back

`Gemma2RMSNorm` upcasts its input to float32, normalizes, multiplies by `1 + weight` (the weight upcast too) and only then casts to the input's dtype. Llama's `LlamaRMSNorm` casts the normalized tensor back first and multiplies by the weight in the model's dtype. Under a bfloat16 load the two orders round differently, so a norm reimplemented the Llama way (or a TransformerLens-style fold of `1 + weight` into the next matrix, done in bfloat16) does not reproduce `attention_norm_output` bit for bit. The weight is initialised at 0, not 1: a weight of zero is the identity scale, and a weight read as Llama's (multiplied without the 1) scales the wrong way.

```python
from nnterp import tiny

half = tiny.load("gemma2", attn_implementation="eager", dtype=torch.bfloat16)
norm = half.layers[0].input_layernorm
with half.trace(prompt):
    x = half.layers[0].layer_input.save()
    h = half.layers[0].attention_norm_output.save()

xf = x.float()
normed = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + half.config.rms_norm_eps)
assert torch.equal(h, (normed * (1.0 + norm.weight.float())).to(torch.bfloat16))     # Gemma's order
assert not torch.equal(h, normed.to(torch.bfloat16) * (1.0 + norm.weight))          # Llama's order

from transformers.models.gemma2.modeling_gemma2 import Gemma2RMSNorm
fresh = Gemma2RMSNorm(8)
assert torch.equal(fresh.weight, torch.zeros(8))
v = torch.randn(2, 8)
torch.testing.assert_close(fresh(v), v * torch.rsqrt(v.pow(2).mean(-1, keepdim=True) + fresh.eps))
```

## The attention is not `hidden_size` wide

No Gemma 2 checkpoint has `num_attention_heads · head_dim` equal to `hidden_size`: 8 × 256 = 2048 against 2304 on the 2B, 16 × 256 = 4096 against 3584 on the 9B, 32 × 128 = 4096 against 4608 on the 27B. `q_proj` maps `hidden_size` to `num_heads · head_dim`, `o_proj` maps it back, and `attention_premix` and `attention_head_outputs` hold `num_heads · head_dim` entries per position: code that infers `head_dim` as `hidden_size // num_heads` (224 on the 9B, 144 on the 27B) cuts the heads wrongly, and a per-head direction in the stream is `o_proj.weight[:, h·head_dim:(h+1)·head_dim]`, `hidden_size` rows by `head_dim` columns.

```python
from transformers import Gemma2Config
from transformers.models.gemma2.modeling_gemma2 import Gemma2Attention

for repo, width in (("google/gemma-2-2b", 2048), ("google/gemma-2-9b", 4096), ("google/gemma-2-27b-it", 4096)):
    facts = released(repo)
    assert facts["num_attention_heads"] * facts["head_dim"] == width != facts["hidden_size"]
for repo, inferred in (("google/gemma-2-9b", 224), ("google/gemma-2-27b-it", 144)):
    assert released(repo)["hidden_size"] // released(repo)["num_attention_heads"] == inferred != released(repo)["head_dim"]
with torch.device("meta"):
    attention = Gemma2Attention(Gemma2Config(**released("google/gemma-2-27b-it")), layer_idx=0)
assert tuple(attention.q_proj.weight.shape) == (4096, 4608) and tuple(attention.o_proj.weight.shape) == (4608, 4096)
```
'''
