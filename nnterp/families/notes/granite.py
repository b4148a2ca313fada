"""Notes of Granite written by hand, added to the derived ones. Read against transformers' modeling_granite.py
(GraniteAttention, GraniteDecoderLayer, GraniteModel.forward, GraniteForCausalLM.forward) and
configuration_granite.py; the checkpoint numbers are Granite-3.0-8B-Instruct's recorded config facts. The tiny
model's four multipliers (0.5, 3.0, 4.0, 0.25) are its own; the notes that need a multiplier unlike the common
scale build their own. The derived scale, rotary and logits notes are replaced by the notes below (the recorded
facts give no rope_theta, so no base is stated)."""

DROP = ("scale_note", "rotary_note", "past_head_note")

MORE = r'''
## `attention_multiplier` replaces the scale: 1/128, not 1/√128

`GraniteAttention` sets `self.scaling = config.attention_multiplier` and hands it to the kernel in place of `head_dim ** -0.5`. Granite-3.0-8B-Instruct's is 0.0078125 = 1/128 with heads of 4096 / 32 = 128: the query-key products are divided by the head's width, not its square root (the μP convention), so the scores are √128 ≈ 11.3 times smaller than a Llama-style recomputation gives, and the pattern is that much flatter than `softmax(q·k / √d)` would be. Recompute scores with `attention.scaling`, never with `head_dim ** -0.5`. The snippet gives a tiny model 1/16 with heads of 16:

```python
from nnterp import tiny

facts = released("ibm-granite/granite-3.0-8b-instruct")
d = facts["hidden_size"] // facts["num_attention_heads"]
assert facts["attention_multiplier"] == 0.0078125 == 1 / d and d == 128
small = tiny.load("granite", attn_implementation="eager", attention_multiplier=1 / 16)
attention = small.layers[0].self_attn
with small.trace(prompt):
    q = attention.attention_queries.save()
    k = attention.attention_keys.save()
    scores = attention.attention_scores.save()

k = k.repeat_interleave(small.num_heads // small.num_kv_heads, dim=1)
live = scores > torch.finfo(scores.dtype).min / 2
assert small.head_dim == 16 and attention.scaling == 1 / 16
torch.testing.assert_close((q @ k.transpose(-1, -2) / 16)[live], scores[live])
assert not torch.allclose((q @ k.transpose(-1, -2) / 4)[live], scores[live])      # 16 ** -0.5 is another model
```

## The embeddings enter the stream times 12; the tied head reads them unscaled

`GraniteModel` multiplies `embed_tokens`' output by `embedding_multiplier`, 12.0 on Granite-3.0-8B-Instruct, before block 0. `token_embeddings` is that product, what `layers[0].input` receives; the native `embed_tokens.output` is 12 times smaller. The head is tied: `lm_head.weight` is the unscaled embedding matrix, so a token's input direction in the stream is 12 times its unembedding row. A vector taken from `embed_tokens.weight` and added to the stream is 1/12 of a token's own size there.

```python
facts = released("ibm-granite/granite-3.0-8b-instruct")
assert facts["embedding_multiplier"] == 12.0 and facts["tie_word_embeddings"] is True
with model.trace(prompt):
    native = model.embed_tokens.output.save()
    embedded = model.token_embeddings.save()
    x = model.layers[0].layer_input.save()

m = model.config.embedding_multiplier                       # 3.0 on the tiny model
assert m == 3.0 and torch.equal(embedded, native * m) and torch.equal(x, embedded)

from transformers import AutoModelForCausalLM, GraniteConfig

with torch.device("meta"):                                  # the tiny model is untied; the checkpoint is not
    real = AutoModelForCausalLM.from_config(GraniteConfig(**{**facts, "num_hidden_layers": 1}))
assert real.lm_head.weight is real.model.embed_tokens.weight
```

## Each block adds 0.22 times what its sublayers return

`GraniteDecoderLayer` adds `residual_multiplier` times each sublayer's output: `h = x + 0.22 · self_attn(...)`, `out = h + 0.22 · mlp(...)` on Granite-3.0-8B-Instruct. `attention_output` and `mlp_output` are the products, what the stream receives, so `x + attention_output == layer_mid` holds; the native `self_attn.output[0]` (`o_proj`'s output) and `mlp.output` are 1/0.22 ≈ 4.5 times larger. An edit of `attention_output` is carried back divided by the multiplier, so the stream receives exactly the value written. A per-head or per-neuron attribution computed from `o_proj` or `down_proj` must be multiplied by 0.22 to be in the stream's units.

```python
assert released("ibm-granite/granite-3.0-8b-instruct")["residual_multiplier"] == 0.22
m = model.config.residual_multiplier                        # 0.5 on the tiny model
with model.trace(prompt):
    x = model.layers[0].layer_input.save()
    native = model.layers[0].self_attn.output[0].save()
    attn = model.layers[0].self_attn.attention_output.save()
    mid = model.layers[0].layer_mid.save()
    mlp_native = model.layers[0].mlp.output.save()
    mlp = model.layers[0].mlp.mlp_output.save()
    out = model.layers[0].layer_output.save()
assert m == 0.5 and torch.equal(attn, native * m) and torch.equal(mlp, mlp_native * m)
assert torch.equal(x + attn, mid) and torch.equal(mid + mlp, out)

written = torch.ones_like(attn)
with model.trace(prompt):
    x = model.layers[0].layer_input.save()
    model.layers[0].self_attn.attention_output[:] = written
    mid_edited = model.layers[0].layer_mid.save()
torch.testing.assert_close(mid_edited, x + written)
```

## The logits are `lm_head`'s output divided by 16

`GraniteForCausalLM` divides `lm_head`'s output by `logits_scaling`, 16.0 on Granite-3.0-8B-Instruct: `logits` is `lm_head_output / 16`, and the softmax sees the divided values, a distribution far flatter than `lm_head_output`'s. A logit lens that stops at `lm_head` is off by that factor in every log-probability; `project_on_vocab` divides, and at the last block gives `logits` exactly. With the embeddings' 12 and the blocks' 0.22, four numbers outside the weights set the scale of everything a Llama-trained intuition reads.

```python
assert released("ibm-granite/granite-3.0-8b-instruct")["logits_scaling"] == 16.0
with model.trace(prompt):
    last = model.layers[-1].layer_output.save()
    head = model.lm_head.output.save()
    logits = model.logits.save()

assert model.config.logits_scaling == 4.0
torch.testing.assert_close(logits, head / 4.0)
assert torch.equal(model.project_on_vocab(last), logits)
```

## Without the keys, a Granite config scales the attention by 1, not 1/√d

`GraniteConfig`'s defaults for the four multipliers are all 1.0. For the embeddings, the residual and the logits, 1.0 is Llama's behaviour; for the attention it is not: a config without `attention_multiplier` (a Llama checkpoint converted by hand, say) builds `self.scaling = 1.0`, scores `q·k` unscaled, √head_dim times Llama's. Check `model.layers[i].self_attn.scaling` after building any Granite config by hand.

```python
from transformers import AutoModelForCausalLM, GraniteConfig

defaults = GraniteConfig()
assert (defaults.embedding_multiplier, defaults.residual_multiplier, defaults.logits_scaling,
        defaults.attention_multiplier) == (1.0, 1.0, 1.0, 1.0)
facts = {key: value for key, value in released("ibm-granite/granite-3.0-8b-instruct").items()
         if key != "attention_multiplier"}
with torch.device("meta"):
    converted = AutoModelForCausalLM.from_config(GraniteConfig(**{**facts, "num_hidden_layers": 1}))
    released_build = AutoModelForCausalLM.from_config(
        GraniteConfig(**{**released("ibm-granite/granite-3.0-8b-instruct"), "num_hidden_layers": 1}))
assert converted.model.layers[0].self_attn.scaling == 1.0
assert released_build.model.layers[0].self_attn.scaling == 1 / 128
```

## The eager load computes the same model as sdpa

The scale is handed to whichever kernel runs (`scaling=self.scaling`), and nothing else in the attention depends on the implementation: an eager load, which `attention_scores` and `attention_probabilities` need, gives the default sdpa load's logits up to rounding, with any multiplier. Readings of the interior under eager describe the model the default load runs.

```python
from nnterp import tiny

eager = tiny.load("granite", attn_implementation="eager", attention_multiplier=1 / 16)
sdpa = tiny.load("granite", attn_implementation="sdpa", attention_multiplier=1 / 16)
with eager.trace(prompt):
    logits_eager = eager.logits.save()
with sdpa.trace(prompt):
    logits_sdpa = sdpa.logits.save()
torch.testing.assert_close(logits_eager, logits_sdpa)
assert sdpa.layers[0].self_attn.scaling == eager.layers[0].self_attn.scaling == 1 / 16
```
'''
