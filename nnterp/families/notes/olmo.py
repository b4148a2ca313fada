"""Notes of OLMo (the first generation) written by hand, added to the derived ones. Read against transformers'
modeling_olmo.py (OlmoLayerNorm, OlmoAttention.forward's clip_qkv clamp, OlmoDecoderLayer) and configuration_olmo.py
(no eps key at all); the checkpoint numbers are the released config.json files of OLMo-1B, OLMo-7B, OLMo-7B-0724 and
OLMo-7B-0724-Instruct, as nnterp/families/checkpoints/olmo.json records them. The snippets run on the tiny OLMo."""

LOAD = "eager"

MORE = r'''
## Every norm is a bare LayerNorm: no weight, no bias, nothing to fold into a lens

`input_layernorm`, `post_attention_layernorm` and the final `norm` are `OlmoLayerNorm`s, modules with no parameters at all: each computes `F.layer_norm(x, (hidden_size,), None, None, eps=1e-5)` in float32 and casts back. A normed row has mean 0 and variance 1 (up to eps), whatever the stream held: `attention_norm_output`, `mlp_norm_output` and `final_norm_output` are each the stream standardized per position, and nothing learned rescales a dimension after. The lens of any stream vector is `lm_head` of its standardization, so there is no gain to fold into `lm_head` before projecting, as one would for Llama's RMSNorm weight or GPT-2's `ln_f`: the readout is the same fixed function at every block, and the three norms of a block are interchangeable.

```python
import torch.nn.functional as F

for norm in (model.layers[0].input_layernorm, model.layers[0].post_attention_layernorm, model.norm):
    assert list(norm.parameters()) == [] and list(norm.buffers()) == []
with model.trace(prompt):
    x = model.layers[1].layer_input.save()
    normed = model.layers[1].attention_norm_output.save()
    last = model.layers[-1].layer_output.save()
    final = model.final_norm_output.save()
    logits = model.logits.save()

d = model.hidden_size
assert torch.equal(normed, F.layer_norm(x, (d,), eps=1e-5))
assert torch.equal(model.layers[0].input_layernorm(x), model.norm(x))   # one function under three names
torch.testing.assert_close(normed.mean(-1), torch.zeros_like(normed.mean(-1)), atol=1e-6, rtol=0)
torch.testing.assert_close(model.project_on_vocab(last), logits)
torch.testing.assert_close(final @ model.lm_head.weight.T, logits)
```

## Direct logit attribution is exact: each write is centred and divided by one number per position

Because the final norm has no weight, the logits are a sum over everything written to the stream: with `s` the standard deviation of the last block's `layer_output` at a position (`sqrt(var + 1e-5)`), `logits = Σ lm_head(c − mean(c)) / s` over the embeddings and every block's `attention_output` and `mlp_output`. Each term depends only on its own write and the one scalar `s` per position, shared by all writes; a Llama-style attribution would also multiply each dimension by the norm's weight, and a GPT-2-style one add `ln_f`'s bias once. Here there is neither: the terms sum to the logits exactly, with no leftover constant.

```python
parts = []
with model.trace(prompt):
    parts.append(model.token_embeddings.save())
    for i in range(model.num_layers):
        parts.append(model.layers[i].self_attn.attention_output.save())
        parts.append(model.layers[i].mlp.mlp_output.save())
    last = model.layers[-1].layer_output.save()
    logits = model.logits.save()

s = (last.var(-1, unbiased=False, keepdim=True) + 1e-5).sqrt()
terms = [((c - c.mean(-1, keepdim=True)) / s) @ model.lm_head.weight.T for c in parts]
torch.testing.assert_close(sum(terms), logits)
torch.testing.assert_close(sum(parts), last)              # the stream is exactly these writes
```

## The all-ones direction of the stream is invisible to the whole model

Every read of the residual stream goes through one of these norms, and each subtracts the row's mean first, with no bias to add back. A vector `c · 1` (the same number in every dimension) added to the stream at any block therefore reaches no attention, no MLP and no logit: the blocks downstream carry it along unchanged and the final norm removes it. Steering along the all-ones direction does nothing, and a probe or an SAE feature whose direction has a component along it spends that component on nothing the model reads. The only trace is rounding: adding c to entries of size σ costs about float32's eps × c / σ in the normed values.

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

rounding = 16 * torch.finfo(torch.float32).eps * c / sigma            # about 2e-4 on unit-scale normed values
torch.testing.assert_close(normed_shifted, normed, atol=rounding, rtol=0)
w = model.lm_head.weight.abs().sum(-1).max().item()                  # a logit sums hidden_size weighted entries
torch.testing.assert_close(logits_shifted, logits, atol=rounding * w * 8, rtol=0)
assert (logits_other - logits).abs().max() > 100 * rounding * w       # another direction of the same size moves them
```

## The eps is 1e-5 whatever the config says: OLMo-7B-0724-Instruct's `rms_norm_eps` is read by nothing

`OlmoConfig` has no eps key, and `OlmoLayerNorm` passes `eps=1e-5` to `F.layer_norm` as a literal. OLMo-7B-0724-Instruct's released config.json nonetheless carries `"rms_norm_eps": 1e-05`: the key is kept on the config as an extra attribute and no module reads it, and the norms are LayerNorms (mean subtracted), not RMSNorms, despite its name. Code that builds a norm from the config (a reimplementation, a converter, a lens that refolds the norm) must not look for an eps or an RMSNorm there; changing the key changes nothing:

```python
from nnterp import tiny

facts = released("allenai/OLMo-7B-0724-Instruct-hf")
assert facts["rms_norm_eps"] == 1e-05 and "rms_norm_eps" not in released("allenai/OLMo-7B-0724-hf")
with model.trace(prompt):
    logits = model.logits.save()
other = tiny.load("olmo", attn_implementation="eager", rms_norm_eps=0.5, layer_norm_eps=0.5)
assert other.config.rms_norm_eps == 0.5
with other.trace(prompt):
    logits_other = other.logits.save()
assert torch.equal(logits_other, logits)
```

## OLMo-7B-0724 clamps queries, keys and values at ±8, before the rotary

`clip_qkv` is 8.0 in OLMo-7B-0724's config.json and null in OLMo-1B's, OLMo-7B's and OLMo-7B-0724-Instruct's. Where it is set, `OlmoAttention` clamps every entry of the `q_proj`, `k_proj` and `v_proj` outputs to [−8, 8], then splits heads and applies the rotary. So on OLMo-7B-0724 `attention_values` never exceed 8 in magnitude, but `attention_queries` and `attention_keys`, read after the rotary, can reach 8√2 = 11.3: the rotation mixes two clamped entries of a pair. A query or key read past ±8 is not a sign the clamp is off. The clamp is not differentiable where it bites (the gradient there is zero), and an edit that raises a projection's output past the bound is cut back before the kernel. The snippet sets a bound of 0.1 on the tiny model, whose projections reach about 0.5:

```python
from nnterp import tiny

assert released("allenai/OLMo-7B-0724-hf")["clip_qkv"] == 8.0
assert all(released(repo)["clip_qkv"] is None
           for repo in ("allenai/OLMo-1B-hf", "allenai/OLMo-7B-hf", "allenai/OLMo-7B-0724-Instruct-hf"))
bound = 0.1
clipped = tiny.load("olmo", attn_implementation="eager", clip_qkv=bound)
attention = clipped.layers[1].self_attn
with clipped.trace(prompt):
    normed = clipped.layers[1].attention_norm_output.save()
    q = attention.attention_queries.save()
    v = attention.attention_values.save()

assert attention.v_proj(normed).abs().max() > 2 * bound                # the raw projection exceeds the bound
assert v.abs().max() <= bound
assert bound < q.abs().max() <= bound * 2 ** 0.5 + 1e-6               # the rotary mixes two clamped entries
```

## A saved `q_proj.output` is the clamped tensor, not the projection's

The clamp is in place (`query_states.clamp_(...)` on the very tensor `q_proj` returned), after the module's forward has ended. A proxy saved from `self_attn.q_proj.output` (or `k_proj`, `v_proj`) holds that tensor, so what the trace returns is clamped: on OLMo-7B-0724 it never exceeds ±8, though `q_proj` produced more. To read the raw projection, clone it at the read, before the attention clamps it, or recompute it from `attention_norm_output`:

```python
from nnterp import tiny

clipped = tiny.load("olmo", attn_implementation="eager", clip_qkv=0.1)
attention = clipped.layers[1].self_attn
with clipped.trace(prompt):
    normed = clipped.layers[1].attention_norm_output.save()
    saved = attention.q_proj.output.save()
    cloned = attention.q_proj.output.clone().save()

raw = attention.q_proj(normed)
assert saved.abs().max() <= 0.1 and raw.abs().max() > 0.2           # the saved output was clamped afterwards
torch.testing.assert_close(cloned, raw)
```

## OLMo-1B reads out with its embedding matrix; the 7B checkpoints do not

OLMo-1B's config.json sets `tie_word_embeddings` true: `lm_head.weight` is `embed_tokens.weight`, one 50304 × 2048 matrix. OLMo-7B, OLMo-7B-0724 and OLMo-7B-0724-Instruct set it false and have two 50304 × 4096 matrices. On the tied 1B, a lens at `token_embeddings` scores each token by its embedding's dot product with the standardized input embedding, which favours the input token itself: an early-block lens there that predicts the current token is the tie, not a prediction. On the tiny model tied the same way, the lens at the embeddings returns the input token at every position:

```python
from nnterp import tiny

facts = released("allenai/OLMo-1B-hf")
assert facts["tie_word_embeddings"] is True and (facts["vocab_size"], facts["hidden_size"]) == (50304, 2048)
assert released("allenai/OLMo-7B-hf")["hidden_size"] == 4096
assert all(released(repo)["tie_word_embeddings"] is False
           for repo in ("allenai/OLMo-7B-hf", "allenai/OLMo-7B-0724-hf", "allenai/OLMo-7B-0724-Instruct-hf"))
tied = tiny.load("olmo", attn_implementation="eager", tie_word_embeddings=True)
assert tied.lm_head.weight is tied.embed_tokens.weight
assert model.lm_head.weight is not model.embed_tokens.weight
with tied.trace(prompt):
    ids = tied.input_ids.save()
    embedded = tied.token_embeddings.save()
assert torch.equal(tied.project_on_vocab(embedded).argmax(-1), ids)
```
'''
