"""Notes of GPT-Neo written by hand, added to the derived ones. Read against transformers' modeling_gpt_neo.py:
GPTNeoSelfAttention._attn casts the queries and keys to float32, multiplies them without any scale, writes the
float32 minimum where its own `bias` buffer (causal, and on a local block also windowed) is false, then adds the
model's causal mask; GPT_NEO_ATTENTION_CLASSES holds eager and flash_attention_2 only; GPTNeoBlock builds
4 * hidden_size neurons when intermediate_size is None; GPTNeoModel counts positions with arange when no
position_ids come (nnsight supplies them for a left-padded batch). The derived
positions note is replaced: the one on positions here contains it."""

DROP = ("rotary_note",)

MORE = r'''
## The attention has no scale at all: the scores are q · kᵀ

GPT-Neo was trained without `1 / √head_dim`, and `GPTNeoSelfAttention._attn` multiplies the queries by the keys and applies nothing after: no `self.scaling`, and the queries are not pre-scaled either (`attention_queries` are `q_proj`'s output, split into heads). With GPT-Neo 125M's 64-wide heads (768 / 12) the scores are 8 times those of the same weights under Llama's convention, and the pattern is that much sharper than `softmax(q · kᵀ / 8)`. Recomputing the pattern from `attention_queries` and `attention_keys` with the usual division gives another model's attention.

```python
attention = model.layers[0].self_attn
with model.trace(prompt):
    q_raw = attention.q_proj.output.save()
with model.trace(prompt):
    q = attention.attention_queries.save()
    k = attention.attention_keys.save()
    scores = attention.attention_scores.save()
    probs = attention.attention_probabilities.save()

b, n, _ = q_raw.shape
assert torch.equal(q_raw.view(b, n, model.num_heads, model.head_dim).transpose(1, 2), q)   # not pre-scaled
causal = torch.ones(n, n, dtype=torch.bool).tril()
assert torch.equal((q @ k.transpose(-1, -2))[..., causal], scores[..., causal])             # nothing after
torch.testing.assert_close(scores.softmax(-1), probs)
facts = released("EleutherAI/gpt-neo-125m")
assert facts["hidden_size"] // facts["num_heads"] == 64
```

## Blocks alternate global and local attention; a local block sees the last 256 keys

`attention_types` is run-length: `[[["global", "local"], 6]]` on GPT-Neo 125M expands (`config.attention_layers`) to global, local, global, ... over its 12 blocks, so the even blocks attend to every earlier position and the odd ones only to a window. Each attention module says which it is in `attn.attention.attention_type`. A local block's `bias` buffer is the causal mask with `tril(bias, -window_size)` XORed out: query i sees keys i − 255 to i, 256 keys itself included, with `window_size` 256. There is no `layer_types` or `sliding_window` key: tools that look for those see a model with full attention everywhere. The snippet loads a tiny GPT-Neo with a window of 4 to see the cut.

```python
from nnterp import tiny

facts = released("EleutherAI/gpt-neo-125m")
assert facts["attention_types"] == [[["global", "local"], 6]] and facts["window_size"] == 256
assert not hasattr(model.config, "layer_types") and not hasattr(model.config, "sliding_window")
windowed = tiny.load("gpt_neo", window_size=4)          # blocks: global, local
assert [windowed.layers[i]._module.attn.attention.attention_type for i in range(2)] == ["global", "local"]
with windowed.trace(prompt):
    full = windowed.layers[0].self_attn.attention_scores.save()
    local = windowed.layers[1].self_attn.attention_scores.save()

n = local.shape[-1]
back = torch.arange(n)[:, None] - torch.arange(n)[None, :]     # how far back each key is
masked = -1e38                                                 # below any real score
assert (full[..., back >= 0] > masked).all()                   # global: every earlier key
assert (local[..., (back >= 0) & (back < 4)] > masked).all()
assert (local[..., back >= 4] < masked).all()                  # local: the window only
```

## A masked score is −inf or −3.4e38, depending on why it is masked

`_attn` first writes `torch.finfo(float32).min` (−3.4028e38) wherever its own `bias` buffer is false, then adds the model's causal mask, which carries the same minimum above the diagonal. A future key gets both and overflows to `-inf`; a key outside a local block's window gets the buffer's only and stays at −3.4028e38, since the model's mask knows nothing of the window. Both have probability exactly 0 after the softmax, but a test of masked entries with `scores == -inf` or `torch.isinf` misses the window: test `scores < -1e38`, or rebuild the mask.

```python
from nnterp import tiny

windowed = tiny.load("gpt_neo", window_size=4)
with windowed.trace(prompt):
    local = windowed.layers[1].self_attn.attention_scores.save()
    probs = windowed.layers[1].self_attn.attention_probabilities.save()

n = local.shape[-1]
back = torch.arange(n)[:, None] - torch.arange(n)[None, :]
assert (local[..., back < 0] == float("-inf")).all()                       # future: masked twice
assert (local[..., back >= 4] == torch.finfo(torch.float32).min).all()     # outside the window: once
assert (probs[..., back >= 4] == 0).all()
```

## The scores are float32 whatever the load's dtype

`_attn` casts the queries and keys to float32 before the product and the softmax runs there; only the probabilities are cast back, to the values' dtype, before they meet the values. Under a bfloat16 or float16 load, `attention_scores` are float32 while `attention_queries`, `attention_keys`, `attention_probabilities` and everything else are in the load's dtype: the scores are the product of the upcast queries and keys, exactly, and carry no half-precision rounding of their own.

```python
from nnterp import tiny

half = tiny.load("gpt_neo", dtype=torch.bfloat16)
attention = half.layers[0].self_attn
with half.trace(prompt):
    q = attention.attention_queries.save()
    k = attention.attention_keys.save()
    scores = attention.attention_scores.save()
    probs = attention.attention_probabilities.save()

assert q.dtype == k.dtype == probs.dtype == torch.bfloat16 and scores.dtype == torch.float32
n = scores.shape[-1]
causal = torch.ones(n, n, dtype=torch.bool).tril()
assert torch.equal((q.float() @ k.float().transpose(-1, -2))[..., causal], scores[..., causal])
```

## There is no sdpa path: the interior is always served

GPT-Neo's attention classes are `GPTNeoSelfAttention` (eager) and `GPTNeoFlashAttention2` only, and `attn_implementation="sdpa"` is refused by transformers at load time. A default load runs the eager `_attn`, which materialises the scores and the pattern, so `attention_scores` and `attention_probabilities` need no particular load here. The attention's arithmetic sits one module deeper than usual: the block's `attn` is a `GPTNeoAttention` wrapper whose child `attn.attention` holds `q_proj`, `k_proj` and `v_proj` (without bias) and `out_proj` (with one); the native path of a query projection is `transformer.h[i].attn.attention.q_proj`.

```python
from transformers.models.gpt_neo.modeling_gpt_neo import GPT_NEO_ATTENTION_CLASSES
from nnterp import tiny

assert set(GPT_NEO_ATTENTION_CLASSES) == {"eager", "flash_attention_2"}
try:
    tiny.load("gpt_neo", attn_implementation="sdpa")
except ValueError as error:
    assert "scaled_dot_product_attention" in str(error)
else:
    raise AssertionError("an sdpa load was accepted")
default = tiny.load("gpt_neo")                                   # no attn_implementation given
assert default.config._attn_implementation == "eager"
assert default.serves("attention_scores", 0) is None and default.serves("attention_probabilities", 0) is None
inner = default.layers[0]._module.attn.attention
assert inner.q_proj.bias is None and inner.k_proj.bias is None and inner.v_proj.bias is None
assert inner.out_proj.bias is not None
```

## Learned positions: `arange` in the native model, the mask's count in a traced batch

`wpe` holds `max_position_embeddings` = 2048 learned rows, added to `wte`'s output before the first block: `token_embeddings` is `wte`'s output alone and `layers[0].input` is it plus rows 0 to n − 1 (`embed_dropout` is inert in eval). When no `position_ids` are passed, `GPTNeoModel` numbers positions with `arange`, not from the attention mask (OPT and BLOOM count from the mask): the native model called on a left-padded row and its mask puts the row's first real token at the position after the pads, a position it never had alone. A batch of prompts traced through nnterp is not affected: nnsight supplies `position_ids` counted from the mask, so a left-padded row's tokens keep their own positions. Code that calls the native model itself on padded batches must pass `position_ids`.

```python
wpe = model._module.transformer.wpe
assert wpe.weight.shape[0] == model.config.max_position_embeddings
assert released("EleutherAI/gpt-neo-125m")["max_position_embeddings"] == 2048
with model.trace(prompt):
    tokens = model.token_embeddings.save()
    x = model.layers[0].input.save()
n = x.shape[1]
assert torch.equal(tokens + wpe.weight[:n], x)

short = "The Eiffel"                                      # padded on the left in a batch with the prompt
with model.trace([short, prompt]):
    tokens = model.token_embeddings.save()
    x = model.layers[0].input.save()
batch = model.tokenizer([short, prompt], padding=True, return_tensors="pt")
pads = int((batch.attention_mask[0] == 0).sum())
assert torch.equal(tokens[0, pads:] + wpe.weight[:n - pads], x[0, pads:])     # traced: the row's own positions

native = model._module.transformer(**batch, output_hidden_states=True).hidden_states[0]
assert torch.equal(tokens[0, pads:] + wpe.weight[pads:n], native[0, pads:])   # native, no position_ids: shifted
```

## The MLP is 4 × hidden wide because `intermediate_size` is null

GPT-Neo 125M's config.json sets `intermediate_size` to null, and `GPTNeoBlock` then builds `4 * hidden_size` neurons: 3072. `c_fc` and `c_proj` are biased Linears (not GPT-2's Conv1D: their weights are [out, in]), and the activation is `gelu_new`, the tanh approximation of GELU: `mlp_activation` is `gelu(c_fc(x), approximate="tanh")`, not the exact erf GELU.

```python
from nnterp import tiny

facts = released("EleutherAI/gpt-neo-125m")
assert facts["intermediate_size"] is None and facts["activation_function"] == "gelu_new"
unset = tiny.load("gpt_neo", intermediate_size=None)
c_fc = unset._module.transformer.h[0].mlp.c_fc
assert isinstance(c_fc, torch.nn.Linear) and c_fc.weight.shape == (4 * unset.config.hidden_size, unset.config.hidden_size)

mlp = model.layers[0].mlp
with model.trace(prompt):
    h = model.layers[0].mlp_norm_output.save()
    act = mlp.mlp_activation.save()

tanh_gelu = torch.nn.functional.gelu(mlp.up_proj(h), approximate="tanh")
torch.testing.assert_close(tanh_gelu, act)
assert not torch.allclose(torch.nn.functional.gelu(mlp.up_proj(h)), act, rtol=0, atol=1e-7)
```
'''
