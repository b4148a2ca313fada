"""Notes of Gemma (the first generation) written by hand, added to the derived ones. Read against transformers'
configuration_gemma.py (GemmaConfig.__post_init__ rewrites hidden_act "gelu") and modeling_gemma.py (GemmaMLP reads
hidden_act; GemmaTextScaledWordEmbedding scales inside its forward; GemmaRMSNorm; GemmaAttention's is_causal). The
derived embedding-scale note is replaced by the first two below; the snippets run on the tiny Gemma."""

LOAD = "eager"

DROP = ("embedding_scale_note",)

MORE = r'''
## The released config says `hidden_act: "gelu"`; the model runs the tanh approximation

Gemma-2B's config.json, as released, sets `hidden_act` to `"gelu"`, the exact erf GELU by its name in `ACT2FN`. transformers treats it as a legacy value meant for the tanh approximation: `GemmaConfig.__post_init__` rewrites `"gelu"` to `"gelu_pytorch_tanh"` with a warning, so the loaded config and `act_fn` say tanh. `GemmaMLP` reads `hidden_act`; the `hidden_activation` key that later copies of the config carry is not read by transformers 5's Gemma at all. A reimplementation that takes the config.json at its word (JAX ports, a TransformerLens config built from the raw file, a custom kernel) runs exact GELU and computes another model, 4.7e-4 per neuron at most away.

```python
from transformers import GemmaConfig

assert released("google/gemma-2b")["hidden_act"] == "gelu"
assert GemmaConfig(hidden_act="gelu").hidden_act == "gelu_pytorch_tanh"
import inspect
from transformers.models.gemma import configuration_gemma, modeling_gemma
assert not any("hidden_activation" in inspect.getsource(m) for m in (configuration_gemma, modeling_gemma))
probe = torch.linspace(-4, 4, 801)
gap = (torch.nn.functional.gelu(probe, approximate="tanh") - torch.nn.functional.gelu(probe)).abs().max()
assert 4.5e-4 < gap < 4.9e-4

mlp = model.layers[0].mlp
with model.trace(prompt):
    x = model.layers[0].mlp_input.save()
    act = mlp.mlp_activation.save()
gate = mlp.gate_proj(x)
torch.testing.assert_close(act, torch.nn.functional.gelu(gate, approximate="tanh"))
assert not torch.allclose(mlp.act_fn(gate * 40), torch.nn.functional.gelu(gate * 40), atol=1e-5, rtol=0)
```

## The embeddings are scaled by √2048 in bfloat16, and the tied head reads them unscaled

`embed_tokens` is a `GemmaTextScaledWordEmbedding`: its forward multiplies the looked-up rows by `embed_scale`, `hidden_size ** 0.5`, cast to the weights' dtype first. On Gemma-2B, stored in bfloat16, √2048 = 45.2548 becomes 45.25. `token_embeddings` and `layers[0].input` are the scaled rows. `lm_head` is the same matrix (tied), used without the scale: the row a token enters the stream as is 45.25 times the row its logit is scored against, so a direction taken from `embed_tokens.weight` is about 45 times smaller than that token's contribution to `layers[0].input`.

```python
import math
from nnterp import tiny

assert released("google/gemma-2b")["dtype"] == "bfloat16" and released("google/gemma-2b")["hidden_size"] == 2048
assert torch.tensor(math.sqrt(2048)).to(torch.bfloat16).item() == 45.25

half = tiny.load("gemma", attn_implementation="eager", dtype=torch.bfloat16, hidden_size=72)   # √72 = 8.485
with half.trace(prompt):
    ids = half.input_ids.save()
    emb = half.token_embeddings.save()
rows = half.embed_tokens.weight[ids]
assert torch.equal(emb, rows * torch.tensor(8.5, dtype=torch.bfloat16))
assert not torch.equal(emb, (rows.float() * math.sqrt(72)).to(torch.bfloat16))
assert half.lm_head.weight is half.embed_tokens.weight
```

## `inputs_embeds` skip the scale: pass them already multiplied by √hidden_size

The scale lives in `embed_tokens`'s forward, and `GemmaModel` calls `embed_tokens` only when it is given `input_ids`. A call with `inputs_embeds` (a soft prompt, an embedding-space intervention, a vector built from `embed_tokens.weight`) enters the blocks as given: rows taken from the weight must be multiplied by `embed_tokens.embed_scale` first, or the stream starts 45 times too small on Gemma-2B and the model computes something else.

```python
embed = model._module.model.embed_tokens
with model.trace(prompt):
    ids = model.input_ids.save()
    logits = model.logits.save()
rows = model.embed_tokens.weight[ids]
with model.trace(inputs_embeds=rows):
    logits_unscaled = model.logits.save()
with model.trace(inputs_embeds=rows * embed.embed_scale):
    logits_scaled = model.logits.save()

assert embed.embed_scale.item() == model.hidden_size ** 0.5
assert (logits_unscaled - logits).abs().max() > 1e-2
torch.testing.assert_close(logits_scaled, logits)
```

## The norms compute in float32 and scale by `1 + weight` before casting back

`GemmaRMSNorm` upcasts its input to float32, normalizes, multiplies by `1 + weight` (the weight upcast too) and only then casts to the input's dtype; Llama's norm casts back first and multiplies by the weight in the model's dtype. Under a bfloat16 load, Gemma-2B's dtype, the two orders round differently: a norm reimplemented the Llama way, or `1 + weight` folded into the next matrix in bfloat16, does not reproduce `attention_norm_output` bit for bit. The weight is initialised at 0, not 1: a weight of zero is the identity scale, and `norm.weight` alone is not the scale the stream is multiplied by.

```python
from nnterp import tiny

half = tiny.load("gemma", attn_implementation="eager", dtype=torch.bfloat16)
norm = half.layers[0].input_layernorm
with half.trace(prompt):
    x = half.layers[0].layer_input.save()
    h = half.layers[0].attention_norm_output.save()

xf = x.float()
normed = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + half.config.rms_norm_eps)
assert torch.equal(h, (normed * (1.0 + norm.weight.float())).to(torch.bfloat16))     # Gemma's order
assert not torch.equal(h, normed.to(torch.bfloat16) * (1.0 + norm.weight))          # Llama's order

from transformers.models.gemma.modeling_gemma import GemmaRMSNorm
fresh = GemmaRMSNorm(8)
assert torch.equal(fresh.weight, torch.zeros(8))
v = torch.randn(2, 8)
torch.testing.assert_close(fresh(v), v * torch.rsqrt(v.pow(2).mean(-1, keepdim=True) + fresh.eps))
```

## Gemma-2B has one key and value head: an edit of it is an edit of all eight query heads

`num_key_value_heads` is 1 on Gemma-2B against 8 query heads of 256: `attention_keys` and `attention_values` are `[batch, 1, seq, 256]`, and the kernel repeats that one head for every query head. There is no per-head key or value to patch: a change to the value head reaches every head's output, and a per-head value attribution has to be made on `attention_head_outputs`, after the mix. On the tiny model loaded with one key and value head:

```python
from nnterp import tiny

assert released("google/gemma-2b")["num_key_value_heads"] == 1 and released("google/gemma-2b")["num_attention_heads"] == 8
single = tiny.load("gemma", attn_implementation="eager", num_key_value_heads=1)
attention = single.layers[0].self_attn
with single.trace(prompt):
    v = attention.attention_values.save()
    heads = attention.attention_head_outputs.save()
with single.trace(prompt):
    attention.attention_values[:, :, :, :4] = 0
    heads_edited = attention.attention_head_outputs.save()

assert v.shape[1] == 1
changed = (heads_edited - heads).abs().amax(dim=(0, 1, 3))          # per query head
assert bool((changed > 1e-6).all()) and changed.numel() == single.num_heads
```

## `use_bidirectional_attention` makes sdpa attend both ways and leaves eager causal

`GemmaConfig` has a `use_bidirectional_attention` option, unset (so causal) in the config class and in Gemma-2B's released config. In transformers 5's `GemmaAttention` it only sets `self.is_causal = False`; `GemmaModel` still builds a causal mask. Under sdpa the mask is left to the kernel, which then attends both ways: a token appended to the prompt changes the earlier positions' outputs. Under eager the causal mask is added and the model stays causal. With the option set, the eager load that serves `attention_scores` and `attention_probabilities` computes another model than the default sdpa load:

```python
from nnterp import tiny

assert "use_bidirectional_attention" not in released("google/gemma-2b")
runs = {}
for load in ("eager", "sdpa"):
    both_ways = tiny.load("gemma", attn_implementation=load, use_bidirectional_attention=True)
    with both_ways.trace(prompt):
        short = both_ways.logits.save()
    with both_ways.trace(prompt + " Paris"):
        longer = both_ways.logits.save()
    n = short.shape[1]
    runs[load] = (short, (longer[:, :n] - short).abs().max())

assert runs["eager"][1] < 1e-5          # eager: the earlier positions do not see the new token
assert runs["sdpa"][1] > 1e-3           # sdpa: they do
assert (runs["eager"][0] - runs["sdpa"][0]).abs().max() > 1e-3
```
'''
