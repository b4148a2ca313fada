"""Notes of GPT-2 written by hand, added to the derived ones. Read against transformers' modeling_gpt2.py
(GPT2Attention, GPT2MLP, GPT2Model.forward) and pytorch_utils.Conv1D; the snippets run on the tiny GPT-2 under an
eager load, and the numbers quoted as a checkpoint's are asserted against its recorded config facts."""

LOAD = "eager"

MORE = r'''
## Every projection is a Conv1D, whose weight is [in, out]: `x @ W.T` on the square `c_proj` runs and is wrong

`c_attn`, `attn.c_proj`, `mlp.c_fc` and `mlp.c_proj` are `transformers.pytorch_utils.Conv1D`, not `nn.Linear`. A Conv1D computes `x @ weight + bias` with `weight` stored `[in_features, out_features]`, the transpose of a Linear's `[out, in]`. On GPT-2 (124M) `c_attn.weight` is `[768, 2304]` and `mlp.c_fc.weight` is `[768, 3072]`: code written for Linears (`F.linear(x, W)`, `W @ x`) fails on them with a shape error. The attention's `c_proj` is `[768, 768]`, square, so the same mistake runs and returns a tensor of the right shape that is not the model's. Read a head's slice of the output projection as rows: head h writes through `attn.c_proj.weight[h * head_dim:(h + 1) * head_dim, :]`. Both output projections are named `c_proj`; nnterp binds `self_attn.o_proj` to `attn.c_proj` and `mlp.down_proj` to `mlp.c_proj`, Conv1Ds both.

```python
from transformers import AutoModelForCausalLM, GPT2Config
from transformers.pytorch_utils import Conv1D

facts = released("openai-community/gpt2")
with torch.device("meta"):
    real = AutoModelForCausalLM.from_config(GPT2Config(**facts))
block = real.transformer.h[0]
assert isinstance(block.attn.c_proj, Conv1D) and not isinstance(block.attn.c_proj, torch.nn.Linear)
assert tuple(block.attn.c_attn.weight.shape) == (768, 2304) and tuple(block.mlp.c_fc.weight.shape) == (768, 3072)
assert tuple(block.attn.c_proj.weight.shape) == (768, 768)

proj = model.layers[1].self_attn.c_proj
with model.trace(prompt):
    premix = model.layers[1].self_attn.attention_premix.save()
    out = model.layers[1].self_attn.attention_output.save()

flat = premix.flatten(-2)                                                 # [batch seq num_heads·head_dim]
torch.testing.assert_close(flat @ proj.weight + proj.bias, out)             # [in, out]
as_linear = torch.nn.functional.linear(flat, proj.weight, proj.bias)      # x @ W.T: runs on the square weight
assert as_linear.shape == out.shape and not torch.allclose(as_linear, out, atol=1e-3)
head, d = 1, model.head_dim
one_head = premix[:, :, head] @ proj.weight[head * d:(head + 1) * d, :]  # head h's rows
with model.trace(prompt):
    keep = torch.zeros(model.num_heads, 1)
    keep[head] = 1
    model.layers[1].self_attn.attention_premix[:] = model.layers[1].self_attn.attention_premix * keep
    alone = model.layers[1].self_attn.attention_output.save()
torch.testing.assert_close(one_head + proj.bias, alone)
assert model.layers[1].self_attn.o_proj._module is model._module.transformer.h[1].attn.c_proj
assert model.layers[1].mlp.down_proj._module is model._module.transformer.h[1].mlp.c_proj
assert isinstance(model.layers[1].mlp.down_proj._module, Conv1D)
```

## `c_attn` is one projection: queries, keys and values in three blocks of `n_embd` columns

The attention has no `q_proj`, `k_proj` or `v_proj`. `c_attn` maps the normed stream to `3 · n_embd` columns (2304 on GPT-2 (124M)), and the forward splits them with `.split(n_embd, dim=2)`: the first `n_embd` are every query head side by side, the next `n_embd` the keys, the last the values, each then cut into `num_heads` heads of `head_dim` (12 × 64). Head h's query weights are `c_attn.weight[:, h·64:(h+1)·64]` and its key weights `c_attn.weight[:, 768 + h·64:768 + (h+1)·64]`, bias likewise; nothing is interleaved per head. Keys and values have all `n_head` heads. `attention_queries`, `attention_keys` and `attention_values` are those slices, as the kernel receives them (GPT-2 has no rotary: the queries are the projection's output unchanged).

```python
attention = model.layers[0].self_attn
with model.trace(prompt):
    h = model.layers[0].attention_norm_output.save()
    q = attention.attention_queries.save()
    k = attention.attention_keys.save()
    v = attention.attention_values.save()

E, d = model.hidden_size, model.head_dim
W, b = attention.c_attn.weight, attention.c_attn.bias
assert tuple(W.shape) == (E, 3 * E)
for block, served in enumerate((q, k, v)):
    for head in range(model.num_heads):
        cols = slice(block * E + head * d, block * E + (head + 1) * d)
        torch.testing.assert_close(h @ W[:, cols] + b[cols], served[:, head])
assert released("openai-community/gpt2")["n_embd"] == 768 and released("openai-community/gpt2")["n_head"] == 12
```

## A left-padded batch called on the native model shifts every learned position; a trace of prompts does not

GPT-2's positions are the rows of `wpe`, added to `wte`'s rows before the first block, and `GPT2Model.forward`, given no `position_ids`, numbers them `0, 1, 2, …` along the padded sequence whatever the `attention_mask` says. The tokenizer pads on the left, so in a batch called on the native model (`model._module(**tokenizer([...], padding=True))`, or `generate` in other code) the shorter prompt's first real token gets `wpe[number of pads]`, not `wpe[0]`, and its stream differs from the same prompt run alone from the first block on. A trace of a list of prompts passes `position_ids` counted on the mask, so each row's real tokens are numbered from 0 and a padded row reads as it does alone. Compare nnterp's readings with another tool's on padded batches with this in mind.

```python
with model.trace([prompt, "Hello"]):
    ids = model.input_ids.save()
    mask = model.attention_mask.save()
    x = model.layers[0].layer_input.save()
    last = model.layers[-1].layer_output.save()
with model.trace("Hello"):
    last_alone = model.layers[-1].layer_output.save()

wte, wpe = model.embed_tokens.weight, model._module.transformer.wpe.weight
pads = int((mask[1] == 0).sum())
assert model.tokenizer.padding_side == "left" and pads > 0
torch.testing.assert_close(x[1, pads], wte[ids[1, pads]] + wpe[0])        # the trace: numbered from 0
torch.testing.assert_close(last[1, pads:], last_alone[0])

native = model._module(input_ids=ids, attention_mask=mask, output_hidden_states=True).hidden_states
torch.testing.assert_close(native[0][1, pads], wte[ids[1, pads]] + wpe[pads])   # the native call: from the pads
assert not torch.allclose(native[0][1, pads], wte[ids[1, pads]] + wpe[0])
```

## The activation is `gelu_new`, the tanh approximation, on `4 · n_embd` neurons

`activation_function` is `gelu_new` on the GPT-2 checkpoints: `NewGELUActivation`, `0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))`, not the exact erf GELU that `torch.nn.functional.gelu` computes by default. The two differ by up to 4.7e-4 per neuron, at x ≈ ±2.7, enough to break a reimplementation's bit-for-bit agreement. The configs set no width: `n_inner` is absent, and the block uses `4 · n_embd` (3072 on GPT-2 (124M), 4096 on GPT-2 Medium). `mlp_activation` and `mlp_neurons` are the same values (the MLP is not gated).

```python
assert released("openai-community/gpt2")["activation_function"] == "gelu_new"
assert released("openai-community/gpt2-medium")["activation_function"] == "gelu_new"
assert "n_inner" not in released("openai-community/gpt2") and "n_inner" not in released("openai-community/gpt2-medium")

mlp = model.layers[0].mlp
with model.trace(prompt):
    x = model.layers[0].mlp_input.save()
    act = mlp.mlp_activation.save()
pre = x @ mlp.c_fc.weight + mlp.c_fc.bias
tanh_gelu = 0.5 * pre * (1 + torch.tanh((2 / torch.pi) ** 0.5 * (pre + 0.044715 * pre ** 3)))
torch.testing.assert_close(act, tanh_gelu)
probe = torch.linspace(-4, 4, 801)
gaps = (mlp.act(probe) - torch.nn.functional.gelu(probe)).abs()
assert 4.5e-4 < gaps.max() < 4.9e-4 and abs(abs(probe[gaps.argmax()]) - 2.7) < 0.05
```

## Two config switches change the attention's arithmetic, and one works only under eager

`scale_attn_weights` (absent from the OpenAI checkpoints' configs, true by the class's default) gives the scale `head_dim ** -0.5`. `scale_attn_by_inverse_layer_idx`, absent from them too (false by default), further divides block i's scale by `i + 1`: block 0 keeps 1/8, block 11 of GPT-2 (124M) would get 1/96. Set in a config, it changes `self_attn.scaling`, which the scores use:

```python
from nnterp import tiny

for repo in ("openai-community/gpt2", "openai-community/gpt2-medium"):
    assert "scale_attn_weights" not in released(repo) and "scale_attn_by_inverse_layer_idx" not in released(repo)
from transformers import GPT2Config
assert GPT2Config().scale_attn_weights and not GPT2Config().scale_attn_by_inverse_layer_idx
assert released("openai-community/gpt2")["n_layer"] == 12 and 64 ** -0.5 / 12 == 1 / 96

deep = tiny.load("gpt2", attn_implementation="eager", scale_attn_by_inverse_layer_idx=True)
attention = deep.layers[1].self_attn
with deep.trace(prompt):
    q = attention.attention_queries.save()
    k = attention.attention_keys.save()
    scores = attention.attention_scores.save()

assert attention.scaling == deep.head_dim ** -0.5 / 2 and deep.layers[0].self_attn.scaling == deep.head_dim ** -0.5
live = scores > torch.finfo(scores.dtype).min / 2
torch.testing.assert_close((q @ k.transpose(-1, -2) / 2 * deep.head_dim ** -0.5)[live], scores[live])
```

`reorder_and_upcast_attn` makes the eager load run the block's own `_upcast_and_reordered_attn`, whose scores are computed by a float32 `baddbmm` with the scale folded in, whatever the model's dtype; the sdpa load ignores the flag. With it set, an eager load in bfloat16 serves float32 `attention_scores` (read inside `_upcast_and_reordered_attn`), and the eager and sdpa loads round differently:

```python
from nnterp import tiny

upcast = tiny.load("gpt2", attn_implementation="eager", reorder_and_upcast_attn=True, dtype=torch.bfloat16)
plain = tiny.load("gpt2", attn_implementation="eager", dtype=torch.bfloat16)
with upcast.trace(prompt):
    upcast_scores = upcast.layers[0].self_attn.attention_scores.save()
    upcast_q = upcast.layers[0].self_attn.attention_queries.save()
with plain.trace(prompt):
    plain_scores = plain.layers[0].self_attn.attention_scores.save()

assert upcast_q.dtype == torch.bfloat16 and upcast_scores.dtype == torch.float32
assert plain_scores.dtype == torch.bfloat16

fused = tiny.load("gpt2", attn_implementation="sdpa", reorder_and_upcast_attn=True, dtype=torch.bfloat16)
with upcast.trace(prompt):
    eager_out = upcast.layers[0].self_attn.attention_output.save()
with fused.trace(prompt):
    sdpa_out = fused.layers[0].self_attn.attention_output.save()
assert not torch.equal(eager_out, sdpa_out)                                  # the two loads round differently
```

## The key bias moves the scores and never the pattern

Every Conv1D has a bias, `c_attn`'s included, so each key head carries a bias `b_k` (the columns `n_embd + h·head_dim` onward of `c_attn.bias`). It adds `q · b_k · scale` to every score of a query's row, the same for every key, and the softmax removes any constant added along a row: the key bias changes `attention_scores` and leaves `attention_probabilities`, and so the head's output, as they were. A score-level attribution (or a logit of attention compared across heads) counts a term the model never uses; the query and value biases do act. Removing the key bias from the keys inside a trace shows it:

```python
attention = model.layers[0].self_attn
E, d = model.hidden_size, model.head_dim
b_k = attention.c_attn.bias[E:2 * E].view(model.num_heads, 1, d)
with model.trace(prompt):
    h = model.layers[0].attention_norm_output.save()
    k = attention.attention_keys.save()
    scores = attention.attention_scores.save()
    probs = attention.attention_probabilities.save()
b, s = h.shape[:2]
unbiased = (h @ attention.c_attn.weight[:, E:2 * E]).view(b, s, model.num_heads, d).transpose(1, 2)
torch.testing.assert_close(k - b_k, unbiased)                # b_k is what c_attn adds to the keys
with model.trace(prompt):
    attention.attention_keys[:] = attention.attention_keys - b_k
    scores_nb = attention.attention_scores.save()
    probs_nb = attention.attention_probabilities.save()

live = scores > torch.finfo(scores.dtype).min / 2
assert (scores - scores_nb)[live].abs().max() > 1e-3        # the scores move
torch.testing.assert_close(probs_nb, probs)                  # the pattern does not
```
'''
