"""Notes of Mistral written by hand, added to the derived ones. Read against transformers' modeling_mistral.py
(MistralModel.forward picks create_sliding_window_causal_mask whenever config.sliding_window is set, for every
layer; MistralAttention passes sliding_window to the kernel) and configuration_mistral.py (sliding_window defaults to
4096; layer_types is only warned about); the snippets run on the family's tiny model."""

MORE = r'''
## A config built without `sliding_window` slides: the class default is 4096

`MistralConfig`'s `sliding_window` defaults to 4096, Mistral-7B-v0.1's window, and `MistralModel.forward` builds its mask with `create_sliding_window_causal_mask` whenever the value is set. A config written by hand, or one whose `sliding_window` key is missing, therefore gets a window of 4096 tokens; only an explicit `sliding_window=None` turns it off, as Mistral-Nemo-Base-2407's config.json does (`"sliding_window": null`). On a prompt shorter than the window nothing shows: with a window as long as the prompt the tiny model's logits are bit-identical to no window at all, and one token shorter they differ. A long-context experiment on a Mistral config of uncertain provenance should read `model.config.sliding_window` first.

```python
from transformers import MistralConfig
from nnterp import tiny

assert MistralConfig().sliding_window == 4096 == released("mistralai/Mistral-7B-v0.1")["sliding_window"]
assert released("mistralai/Mistral-Nemo-Base-2407")["sliding_window"] is None
n = len(model.tokenizer(prompt).input_ids)
logits = {}
for window in (None, n, n - 1):
    windowed = tiny.load("mistral", attn_implementation="eager", sliding_window=window)
    with windowed.trace(prompt):
        logits[window] = windowed.logits.save()
assert torch.equal(logits[None], logits[n])            # a window as long as the prompt changes nothing
assert not torch.equal(logits[None], logits[n - 1])    # one shorter, the first key drops out of the last query
```

## Stacked windows reach (W − 1) positions further per block

The window is per block: a query sees the W keys up to itself, and the block's output at that position carries what they carried. Through L blocks, the last position's output depends on the tokens at most L · (W − 1) positions back, and on nothing before. Mistral-7B-v0.1's 32 blocks and window of 4096 give a reach of 32 · 4095 = 131,040 positions, more than its context of 32,768, so a token can influence any later one, but only through intermediate positions: an attention pattern of one block never shows a weight on a key more than 4095 positions back. On the tiny model (2 blocks) with a window of 3, changing the token 2 · 2 = 4 positions before the last changes the last logits, and changing the one 5 positions before leaves them bit-identical:

```python
from nnterp import tiny

windowed = tiny.load("mistral", attn_implementation="eager", sliding_window=3)
ids = windowed.tokenizer(prompt, return_tensors="pt").input_ids
n, reach = ids.shape[1], windowed.num_layers * (3 - 1)
assert n > reach + 1

def last_logits(token_ids):
    with windowed.trace(token_ids):
        out = windowed.logits[0, -1].save()
    return out

base = last_logits(ids)
inside, outside = ids.clone(), ids.clone()
inside[0, n - 1 - reach] = (ids[0, n - 1 - reach] + 1) % windowed.config.vocab_size
outside[0, n - 2 - reach] = (ids[0, n - 2 - reach] + 1) % windowed.config.vocab_size
assert not torch.equal(base, last_logits(inside))
assert torch.equal(base, last_logits(outside))
```

## `layer_types` is ignored: every block slides

Mistral has one window for every block. `MistralConfig` accepts `layer_types` only to warn that Ministral is the class for alternating layers; `MistralModel` builds a single mask and hands it to all blocks. A config that lists `full_attention` for some layers, as a Ministral or Mistral-3 config might, still slides on every block when it is loaded as `mistral`: the pattern of block 0 below is windowed although its layer type says full.

```python
from nnterp import tiny

listed = tiny.load("mistral", attn_implementation="eager", sliding_window=3,
                   layer_types=["full_attention"] * 2)
with listed.trace(prompt):
    probs = listed.layers[0].self_attn.attention_probabilities.save()
n = probs.shape[-1]
i, j = torch.meshgrid(torch.arange(n), torch.arange(n), indexing="ij")
assert listed.config.layer_types[0] == "full_attention"
assert (probs[..., i - j >= 3] == 0).all()      # keys 3 or more positions back get nothing: the window holds
```

## The window is in the mask and the kernel: eager and sdpa agree

The window reaches the attention twice: as the additive mask that `create_sliding_window_causal_mask` builds (0 inside, the dtype's minimum outside) and as the `sliding_window` argument every kernel receives. The eager load that serves `attention_scores` and `attention_probabilities` therefore computes the same model as the default sdpa load, window included; the values served under both (queries, keys, values, head outputs) are the same tensors up to rounding. Outside the window `attention_scores` hold the score plus that minimum, not the score: take a mean or a norm of `attention_scores` only where the pattern is nonzero.

```python
from nnterp import tiny

eager = tiny.load("mistral", attn_implementation="eager", sliding_window=3)
sdpa = tiny.load("mistral", attn_implementation="sdpa", sliding_window=3)
with eager.trace(prompt):
    scores = eager.layers[0].self_attn.attention_scores.save()
    heads_eager = eager.layers[0].self_attn.attention_head_outputs.save()
    logits_eager = eager.logits.save()
with sdpa.trace(prompt):
    heads_sdpa = sdpa.layers[0].self_attn.attention_head_outputs.save()
    logits_sdpa = sdpa.logits.save()

torch.testing.assert_close(logits_eager, logits_sdpa)
torch.testing.assert_close(heads_eager, heads_sdpa)
n = scores.shape[-1]
i, j = torch.meshgrid(torch.arange(n), torch.arange(n), indexing="ij")
assert (scores[..., i - j >= 3] < torch.finfo(scores.dtype).min / 2).all()   # masked, not raw scores
```

## Mistral-7B-v0.1: 32 blocks of 32 query heads over 8 key and value heads, head_dim 128

Mistral-7B-v0.1's config sets `hidden_size` 4096, 32 attention heads and 8 key and value heads and no `head_dim`, so `head_dim` is 4096 / 32 = 128 and each key and value head serves 4 query heads; `intermediate_size` is 14336, 3.5 times the width, and `vocab_size` 32000. Its context (`max_position_embeddings`) is 32768 against a window of 4096: beyond 4096 tokens only stacked blocks carry information (see above). Query head h reads key and value head h // 4, the consecutive grouping of `repeat_kv`, not h mod 8; the tiny model, 4 query heads over 2, shows it on the scores:

```python
from transformers import MistralConfig

facts = released("mistralai/Mistral-7B-v0.1")
assert (facts["num_hidden_layers"], facts["hidden_size"], facts["num_attention_heads"]) == (32, 4096, 32)
assert "head_dim" not in facts and MistralConfig(**facts).head_dim == 4096 // 32 == 128
assert facts["num_attention_heads"] // facts["num_key_value_heads"] == 4
assert facts["intermediate_size"] == 14336 == 3.5 * facts["hidden_size"]
assert (facts["max_position_embeddings"], facts["sliding_window"], facts["vocab_size"]) == (32768, 4096, 32000)

attention = model.layers[0].self_attn
with model.trace(prompt):
    q = attention.attention_queries.save()
    k = attention.attention_keys.save()
    scores = attention.attention_scores.save()

group = model.num_heads // model.num_kv_heads
assert group > 1
n = q.shape[2]
causal = torch.ones(n, n).tril().bool()
for h in range(model.num_heads):
    own = (q[:, h] @ k[:, h // group].transpose(-1, -2)) * model.head_dim ** -0.5
    torch.testing.assert_close(own[:, causal], scores[:, h][:, causal])                  # key head h // group
    if h // group != h % model.num_kv_heads:
        other = (q[:, h] @ k[:, h % model.num_kv_heads].transpose(-1, -2)) * model.head_dim ** -0.5
        assert not torch.allclose(other[:, causal], scores[:, h][:, causal])             # not h mod kv heads
```

## Mistral NeMo: heads of 128 on a width of 5120, so the queries are narrower than the stream

Mistral-Nemo-Base-2407 is a `MistralForCausalLM` too: 40 blocks, `hidden_size` 5120, 32 query heads over 8 key and value heads, and `head_dim` 128 set in its config, not 5120 / 32 = 160. `q_proj` maps 5120 to 32 · 128 = 4096 features and `o_proj` 4096 back to 5120, so `attention_head_outputs` concatenate to 4096 entries, not the stream's width. `MistralConfig` derives `head_dim` from the width only when it is missing: a config written from NeMo's sizes without it builds 160-wide heads, another model with 12.77B parameters instead of the checkpoint's 12.25B. Its context is 128000 positions at `rope_theta` 1000000, with no window, and its vocabulary 131072 rows.

```python
from transformers import AutoModelForCausalLM, MistralConfig

nemo = released("mistralai/Mistral-Nemo-Base-2407")
assert (nemo["hidden_size"], nemo["num_attention_heads"], nemo["head_dim"]) == (5120, 32, 128)
assert (nemo["num_hidden_layers"], nemo["num_key_value_heads"], nemo["sliding_window"]) == (40, 8, None)
assert nemo["hidden_size"] // nemo["num_attention_heads"] == 160
assert (nemo["max_position_embeddings"], nemo["rope_theta"], nemo["vocab_size"]) == (128000, 1000000.0, 131072)
built = {}
for name, given in (("released", nemo), ("without head_dim", {k: v for k, v in nemo.items() if k != "head_dim"})):
    with torch.device("meta"):
        meta = AutoModelForCausalLM.from_config(MistralConfig(**given))
    attention = meta.model.layers[0].self_attn
    built[name] = (attention.q_proj.out_features, attention.o_proj.in_features, sum(p.numel() for p in meta.parameters()))
assert built == {"released": (4096, 4096, 12247782400), "without head_dim": (5120, 5120, 12772070400)}

with model.trace(prompt):
    heads = model.layers[0].self_attn.attention_head_outputs.save()
assert heads.shape[-2:] == (model.num_heads, model.head_dim)      # per head, as the config sets it
```

## Generation keeps only the window's keys

With a window set, the cache transformers builds (`DynamicCache(config=...)`) holds sliding layers that keep the last `sliding_window` − 1 keys and values and drop the rest. When you read `attention_keys` or `attention_values` on a call that continues from a cache, they hold those cached keys and the call's own; position p of that tensor is not prompt position p once the prompt is longer than the window. On the tiny model with a window of 3, a 1-token call after the prompt sees 3 keys:

```python
from nnterp import tiny

windowed = tiny.load("mistral", attn_implementation="eager", sliding_window=3)
ids = windowed.tokenizer(prompt, return_tensors="pt").input_ids
first = windowed._module(ids, use_cache=True)
cache = first.past_key_values
assert cache.get_seq_length() == ids.shape[1]           # positions counted ...
with windowed.trace(ids[:, -1:], cache=cache, use_cache=True):
    keys = windowed.layers[0].self_attn.attention_keys.save()
assert keys.shape[2] == 3                                # ... but only the window's keys kept
```
'''
