"""Notes of gpt-oss written by hand, added to the derived ones. Read against transformers' modeling_gpt_oss.py:
eager_attention_forward appends module.sinks as a last key column, softmaxes and drops it; GptOssPreTrainedModel
sets _supports_sdpa = False; GptOssAttention passes sliding_window on the layers layer_types marks sliding;
GptOssRotaryEmbedding multiplies cos and sin by the YaRN attention_scaling; GptOssTopKRouter takes the top_k logits,
then softmaxes them; GptOssExperts._apply_gate is the clamped SwiGLU on interleaved gate/up columns. Numbers quoted as
a checkpoint's are asserted against its recorded config.json facts. The derived rotary and sliding-window notes are
replaced by the YaRN and layer-pattern notes here, which state the released checkpoints' values."""

DROP = ("rotary_note", "sliding_note")

MORE = r'''
## Each head has a sink: the pattern's rows sum to less than one

`GptOssAttention` holds `sinks`, one learned logit per query head. The eager kernel appends it to every row of the masked scores as one more key column, subtracts the row's maximum, softmaxes over keys and sink together and drops the sink's column: `attention_probabilities = softmax([scores, sink_h])[..., :-1]`. The mass the sink took is gone, so each row of the pattern sums to 1 − exp(sink_h) / (Σ_j exp(s_j) + exp(sink_h)), less than one, and the head's output is that much smaller: a head can attend to nothing. `attention_scores` are the scores before the column is appended, and `softmax(attention_scores)` is not the pattern. transformers refuses sdpa for this model (`_supports_sdpa = False`; the sdpa kernel has no sinks), so a load without `attn_implementation` is eager and the interior is served.

```python
from transformers.models.gpt_oss.modeling_gpt_oss import GptOssPreTrainedModel

attention = model.layers[0].self_attn
with model.trace(prompt):
    scores = attention.attention_scores.save()
    probs = attention.attention_probabilities.save()

sink = attention.sinks.view(1, -1, 1, 1).expand(*scores.shape[:-1], 1)
torch.testing.assert_close(torch.cat([scores, sink], -1).softmax(-1)[..., :-1], probs)
assert (probs.sum(-1) < 1).all()
assert not torch.allclose(scores.softmax(-1), probs)
from nnterp import tiny
assert GptOssPreTrainedModel._supports_sdpa is False
assert tiny.load("gpt_oss").config._attn_implementation == "eager"             # no attn_implementation given
```

## Sliding layers (128 keys) alternate with full ones, sliding first

Both released checkpoints' `layer_types` run sliding, full, sliding, ...: the even blocks (0, 2, 4, ...) are `sliding_attention`, with `sliding_window` 128, and the odd ones attend to the whole context; gpt-oss-20b has 24 blocks, gpt-oss-120b 36. On a sliding block query i sees keys i − 127 to i, 128 keys itself included; the mask carries the rest, so `attention_scores` there hold about the dtype's minimum. A probe or an attention-pattern statistic averaged over blocks mixes two kinds of heads. The snippet loads a tiny gpt-oss with a window of 4.

```python
from nnterp import tiny

for repo, depth in (("openai/gpt-oss-20b", 24), ("openai/gpt-oss-120b", 36)):
    facts = released(repo)
    assert facts["sliding_window"] == 128 and facts["num_hidden_layers"] == depth
    assert facts["layer_types"] == ["sliding_attention", "full_attention"] * (depth // 2)

windowed = tiny.load("gpt_oss", attn_implementation="eager", sliding_window=4)
assert windowed.config.layer_types == ["sliding_attention", "full_attention"]
with windowed.trace(prompt):
    sliding = windowed.layers[0].self_attn.attention_scores.save()
    full = windowed.layers[1].self_attn.attention_scores.save()

n = sliding.shape[-1]
back = torch.arange(n)[:, None] - torch.arange(n)[None, :]
masked = -1e30
assert (sliding[..., (back >= 0) & (back < 4)] > masked).all() and (sliding[..., back >= 4] < masked).all()
assert (full[..., back >= 0] > masked).all()
```

## YaRN makes the rotary grow every query and key by 1.3466

gpt-oss-120b's config.json scales the rope by YaRN: `rope_theta` 150000, `factor` 32 over `original_max_position_embeddings` 4096 (so `max_position_embeddings` 131072 = 32 × 4096), `beta_fast` 32, `beta_slow` 1, `truncate` false. YaRN leaves the fastest frequencies as they are and divides the slowest by 32, and it also returns an `attention_scaling` of 0.1 · ln(32) + 1 = 1.3466 that `GptOssRotaryEmbedding` multiplies into both cos and sin. The rotation is then no longer norm-preserving: every rotated query and key head is 1.3466 times the projection's, and the scores, still scaled by `head_dim ** -0.5` (64 ** -0.5 = 1/8), are 1.3466² = 1.813 times what the same rotation without the factor gives. `attention_queries` and `attention_keys` are read after the rotary, with that factor in. The rotation pairs dimension i with i + head_dim/2 (the two halves), not neighbours.

```python
import math
from transformers import GptOssConfig
from transformers.models.gpt_oss.modeling_gpt_oss import GptOssRotaryEmbedding

facts = released("openai/gpt-oss-120b")
yarn = {"beta_fast": 32.0, "beta_slow": 1.0, "factor": 32.0, "original_max_position_embeddings": 4096,
        "rope_type": "yarn", "truncate": False}
assert {key: facts["rope_scaling"][key] for key in yarn} == yarn
assert facts["rope_theta"] == 150000 and facts["max_position_embeddings"] == 32 * 4096 and facts["head_dim"] == 64
rotary = GptOssRotaryEmbedding(GptOssConfig(**{**facts, "rope_scaling": dict(yarn)}))
assert abs(rotary.attention_scaling - (0.1 * math.log(32) + 1)) < 1e-12 and round(rotary.attention_scaling, 4) == 1.3466
plain = 150000 ** (-torch.arange(0, 64, 2) / 64)
assert rotary.inv_freq[0] == plain[0] and torch.allclose(rotary.inv_freq[-1], plain[-1] / 32)

attention = model.layers[0].self_attn
with model.trace(prompt):
    q_raw = attention.q_proj.output.save()
with model.trace(prompt):
    q = attention.attention_queries.save()

b, n, _ = q_raw.shape
q_pre = q_raw.view(b, n, -1, model.head_dim).transpose(1, 2)
growth = model._module.model.rotary_emb.attention_scaling          # the tiny model has the same YaRN
torch.testing.assert_close(q.norm(dim=-1), growth * q_pre.norm(dim=-1))
cos, sin = model._module.model.rotary_emb(q_pre, torch.arange(n)[None])   # [1, n, head_dim / 2], scaled
first, second = q_pre.chunk(2, dim=-1)                                  # i pairs with i + head_dim / 2
turned = torch.cat((first * cos - second * sin, second * cos + first * sin), dim=-1)
torch.testing.assert_close(turned, q)
```

## The router takes the top k logits first, then softmaxes only those

`GptOssTopKRouter` is a biased linear map, `router_logits = F.linear(x, weight, bias)`, over `num_local_experts` experts (32 on gpt-oss-20b, 128 on gpt-oss-120b), keeps the `num_experts_per_tok` = 4 largest and softmaxes those four among themselves. `router_weights` therefore sum to 1 for every token, and they are not the probabilities a softmax over all experts gives (those sum to less than 1 over the chosen four): a router analysis that softmaxes `router_logits` over every expert and reads the chosen ones off gets other numbers. The router's bias shifts which experts are chosen as well as their weights.

```python
mlp = model.layers[0].mlp
with model.trace(prompt):
    x = model.layers[0].mlp_input.save()
    logits = mlp.router_logits.save()
    choices = mlp.router_choices.save()
    weights = mlp.router_weights.save()

router = mlp.router
torch.testing.assert_close(torch.nn.functional.linear(x, router.weight, router.bias), logits)
top = logits.topk(model.config.num_experts_per_tok, dim=-1)
assert torch.equal(top.indices, choices)
torch.testing.assert_close(top.values.softmax(-1), weights)                       # softmax after the choice
torch.testing.assert_close(weights.sum(-1), torch.ones(weights.shape[:-1]))
assert (logits.softmax(-1).gather(-1, choices).sum(-1) < 1).all()                  # the full softmax's share
for repo, experts in (("openai/gpt-oss-20b", 32), ("openai/gpt-oss-120b", 128)):
    assert released(repo)["num_local_experts"] == experts and released(repo)["num_experts_per_tok"] == 4
```

## The experts are a clamped SwiGLU on interleaved columns, with weights stored [in, out]

`experts.gate_up_proj` is one tensor `[num_experts, hidden_size, 2 · intermediate_size]` (2880 → 2 × 2880 on both checkpoints) used as `x @ gate_up_proj[e] + gate_up_proj_bias[e]`: stored [in, out], the transpose of an `nn.Linear` weight. Its output columns interleave gate and up: column 2i is gate i and column 2i + 1 is up i, not a first half and a second half. `_apply_gate` clamps the gate from above at `swiglu_limit` (7.0 in the released configs) and the up part to [−7, 7], and returns `(up + 1) · gate · sigmoid(α · gate)` with α = `swiglu_alpha`, 1.702 (the config class's value: the configs recorded here set none): the +1 on up, and a sigmoid GELU-like gate rather than silu. `down_proj` `[num_experts, intermediate_size, hidden_size]` has a bias too. The MLP's output is the router-weighted sum over the 4 chosen experts, and the native `mlp` returns `(output, router_scores)`, so `mlp_output` is element 0.

```python
mlp = model.layers[0].mlp
with model.trace(prompt):
    x = model.layers[0].mlp_input.save()
    choices = mlp.router_choices.save()
    weights = mlp.router_weights.save()
    out = mlp.mlp_output.save()

experts = mlp.experts
limit, alpha = experts.limit, experts.alpha
again = torch.zeros_like(out)
for slot in range(choices.shape[-1]):
    e = choices[..., slot]
    gate_up = torch.einsum("bsi,bsio->bso", x, experts.gate_up_proj[e]) + experts.gate_up_proj_bias[e]
    gate, up = gate_up[..., 0::2].clamp(max=limit), gate_up[..., 1::2].clamp(-limit, limit)
    h = (up + 1) * gate * torch.sigmoid(alpha * gate)
    again += weights[..., slot, None] * (torch.einsum("bsi,bsio->bso", h, experts.down_proj[e]) + experts.down_proj_bias[e])
torch.testing.assert_close(again, out)

# the clamp: a gate of 10 counts as 7, an up part of -10 as -7
g = experts._apply_gate(torch.tensor([[10.0, -10.0]]))
torch.testing.assert_close(g, torch.tensor([[(-7.0 + 1) * 7.0 * torch.sigmoid(torch.tensor(1.702 * 7.0))]]))
assert alpha == 1.702 and released("openai/gpt-oss-120b")["swiglu_limit"] == 7.0 == released("openai/gpt-oss-20b")["swiglu_limit"]
for repo in ("openai/gpt-oss-20b", "openai/gpt-oss-120b"):
    assert released(repo)["intermediate_size"] == released(repo)["hidden_size"] == 2880
```
## The heads are 64 wide, not hidden_size / num_heads: the attention is wider than the stream

gpt-oss sets `head_dim` to 64 explicitly, with `hidden_size` 2880 and 64 query heads over 8 key and value heads on both checkpoints. 2880 / 64 is 45, not 64: `q_proj` maps the 2880-wide stream to 64 × 64 = 4096, `k_proj` and `v_proj` to 8 × 64 = 512, and `o_proj` maps 4096 back to 2880, each with a bias (`attention_bias`). Code that derives the head size as `hidden_size // num_attention_heads`, or that reshapes `attention_premix` to `[..., hidden_size]`, gets the wrong shape; read `model.head_dim`. The softmax scale is `head_dim ** -0.5` = 1/8.

```python
from transformers import GptOssConfig
from transformers.models.gpt_oss.modeling_gpt_oss import GptOssAttention

for repo in ("openai/gpt-oss-20b", "openai/gpt-oss-120b"):
    facts = released(repo)
    assert (facts["hidden_size"], facts["head_dim"], facts["num_attention_heads"], facts["num_key_value_heads"]) == (2880, 64, 64, 8)
    assert facts["attention_bias"] is True
with torch.device("meta"):
    real = GptOssAttention(GptOssConfig(**released("openai/gpt-oss-20b")), layer_idx=0)
assert (real.q_proj.in_features, real.q_proj.out_features, real.k_proj.out_features) == (2880, 4096, 512)
assert (real.o_proj.in_features, real.o_proj.out_features) == (4096, 2880) and real.scaling == 64 ** -0.5
assert all(p.bias is not None for p in (real.q_proj, real.k_proj, real.v_proj, real.o_proj))
```

## The RMSNorm multiplies by its weight in float32, then casts once

`GptOssRMSNorm` normalizes in float32 and returns `(weight * normed).to(input_dtype)`: the weight is applied before the cast, in float32. Llama's RMSNorm casts the normed stream to the load's dtype first and multiplies by the weight there. Under a bfloat16 load the two orders round differently, so a norm reimplemented Llama's way (to fold it into a lens, or to patch a normed stream) differs from `attention_norm_output` by at most one bfloat16 step, on many of the entries; in float32 the two agree. The snippet loads a tiny gpt-oss in bfloat16.

```python
from nnterp import tiny

half = tiny.load("gpt_oss", attn_implementation="eager", dtype=torch.bfloat16)
norm = half.layers[0].input_layernorm
with half.trace(prompt):
    x = half.layers[0].layer_input.save()
    h = half.layers[0].attention_norm_output.save()

wide = x.float()
normed = wide * torch.rsqrt(wide.pow(2).mean(-1, keepdim=True) + norm.variance_epsilon)
assert torch.equal((norm.weight.float() * normed).to(torch.bfloat16), h)         # weight first, one cast
llama = norm.weight * normed.to(torch.bfloat16)                                  # Llama's order rounds otherwise
gap = (llama.float() - h.float()).abs()
assert (gap > 0).float().mean() > 0.1
assert (gap <= torch.finfo(torch.bfloat16).eps * h.float().abs()).all()           # one step at most

with model.trace(prompt):                                                        # in float32 the orders agree
    x = model.layers[0].layer_input.save()
    h = model.layers[0].attention_norm_output.save()
norm = model.layers[0].input_layernorm
normed = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + norm.variance_epsilon)
assert torch.equal(norm.weight * normed, h)
assert released("openai/gpt-oss-20b")["rms_norm_eps"] == 1e-05
```
'''
