"""Notes of Phi-3 written by hand, added to the derived ones. Read against transformers' modeling_phi3.py
(Phi3RotaryEmbedding, apply_rotary_pos_emb's partial rotation, Phi3Model's sliding-window mask,
Phi3ForCausalLM.prepare_inputs_for_generation) and modeling_rope_utils.py (_compute_longrope_parameters and
longrope_frequency_update); the numbers quoted as Phi-3.5-mini-instruct's are its released config's, and the
snippets run on the tiny Phi-3."""

LOAD = "eager"

MORE = r'''
## The 128k checkpoints use LongRoPE: every frequency divided by its own factor, and queries and keys scaled by 1.19

Phi-3.5-mini-instruct's config sets `rope_scaling` `{"type": "longrope", "short_factor": [...], "long_factor": [...]}`, 48 factors each (one per frequency of a 96-dimensional head), with `original_max_position_embeddings` 4096 and `max_position_embeddings` 131072. `Phi3RotaryEmbedding` divides frequency i of base 10000 by `short_factor[i]` (1.0 for the fastest, 2.84 for the slowest) while the sequence is at most 4096 tokens long, and by `long_factor[i]` (1.08 to 64.84) past that. It also multiplies cos and sin by `attention_factor = √(1 + ln(131072 / 4096) / ln 4096)` = 1.1902 at every length: `attention_queries` and `attention_keys` come out 1.19 times longer than the projection's output, and every score carries a factor 1.19² = 1.417 beyond `self_attn.scaling` (`96 ** -0.5`). A rotation rebuilt from `rope_theta` alone is wrong on every frequency but the first, and a query-key product recomputed from the projection misses the 1.417.

```python
import math
from transformers import Phi3Config
from transformers.models.phi3.modeling_phi3 import Phi3RotaryEmbedding

facts = released("microsoft/Phi-3.5-mini-instruct")
scaling = facts["rope_scaling"]
assert scaling["type"] == "longrope" and len(scaling["short_factor"]) == len(scaling["long_factor"]) == 48
assert facts["original_max_position_embeddings"] == 4096 and facts["max_position_embeddings"] == 131072
assert facts["rope_theta"] == 10000.0 and facts["hidden_size"] // facts["num_attention_heads"] == 96
rotary = Phi3RotaryEmbedding(Phi3Config(**facts))
assert abs(rotary.attention_scaling - math.sqrt(1 + math.log(32) / math.log(4096))) < 1e-12
assert round(rotary.attention_scaling, 4) == 1.1902
plain = 1.0 / 10000.0 ** (torch.arange(0, 96, 2).float() / 96)
torch.testing.assert_close(rotary.inv_freq, plain / torch.tensor(scaling["short_factor"]))
assert min(scaling["short_factor"]) == 1.0 and round(max(scaling["short_factor"]), 2) == 2.84
```

On the tiny model loaded with a LongRoPE of its own (8 factors, an original context of 16 and a context of 128, so `attention_factor` = √(1 + ln 8 / ln 16) = 1.3229), each query head of the prompt is the projection's head, rotated, and 1.3229 times longer:

```python
import math
from nnterp import tiny

rope = {"type": "longrope", "short_factor": [1.0, 1.1, 1.2, 1.3, 1.5, 1.7, 2.0, 2.4],
        "long_factor": [1.0, 1.5, 2.0, 3.0, 4.0, 6.0, 8.0, 12.0]}
long_ctx = tiny.load("phi3", attn_implementation="eager", rope_scaling=rope,
                     max_position_embeddings=128, original_max_position_embeddings=16)
long_ctx.instrument()   # qkv_proj (a module) is read before attention_queries (inside the forward)
attention = long_ctx.layers[0].self_attn
with long_ctx.trace(prompt):
    qkv = attention.qkv_proj.output.save()
    q = attention.attention_queries.save()

b, s, _ = qkv.shape
assert s <= 16                                                    # short factors
raw = qkv[..., :long_ctx.num_heads * long_ctx.head_dim].view(b, s, long_ctx.num_heads, -1).transpose(1, 2)
factor = math.sqrt(1 + math.log(128 / 16) / math.log(16))
torch.testing.assert_close(q.norm(dim=-1), factor * raw.norm(dim=-1))
```

## Past 4096 tokens every position after the first turns by other angles, the first 4096 included

The factors are chosen per call from the whole sequence: `longrope_frequency_update` switches to `long_factor` when the largest position id reaches `original_max_position_embeddings`. A prompt of 4097 tokens therefore rotates its second token (and every later one) differently from the same token in a prompt of 4096; only position 0, whose angle is 0, is the same: activations of a prefix are not comparable across prompts on the two sides of the boundary, and a cache built on a short prompt is invalid after it. `Phi3ForCausalLM.prepare_inputs_for_generation` drops the cache and recomputes the whole sequence when generation crosses the boundary. On the tiny model with an original context of 16, the first block's queries at the first positions change as soon as the prompt passes 16 tokens:

```python
from nnterp import tiny

rope = {"type": "longrope", "short_factor": [1.0, 1.1, 1.2, 1.3, 1.5, 1.7, 2.0, 2.4],
        "long_factor": [1.0, 1.5, 2.0, 3.0, 4.0, 6.0, 8.0, 12.0]}
long_ctx = tiny.load("phi3", attn_implementation="eager", rope_scaling=rope,
                     max_position_embeddings=128, original_max_position_embeddings=16)
longer = prompt + " It is the tallest tower there."
with long_ctx.trace(prompt):
    q_short = long_ctx.layers[0].self_attn.attention_queries.save()
with long_ctx.trace(longer):
    ids = long_ctx.input_ids.save()
    q_long = long_ctx.layers[0].self_attn.attention_queries.save()

n = q_short.shape[2]
assert n <= 16 < ids.shape[1]
assert long_ctx.tokenizer(longer).input_ids[:n] == long_ctx.tokenizer(prompt).input_ids
torch.testing.assert_close(q_long[..., :1, :], q_short[..., :1, :])            # position 0 does not turn
assert (q_long[..., 1:n, :] - q_short[..., 1:, :]).abs().max() > 1e-3         # the others turn otherwise
```

## The 4k checkpoint's window is 2047 tokens; the 128k one's, 262144, never binds

`Phi3Model` builds a sliding-window mask whenever `sliding_window` is set, and the attention passes it to the kernel. Phi-3-mini-4k-instruct sets 2047: a query sees itself and the 2046 keys before it, on every layer, although its context is 4096, so on a prompt past 2047 tokens `attention_probabilities` are zero on the early keys for the later queries. Phi-3.5-mini-instruct sets 262144, twice its 131072 positions: the window exists in the config and the mask, and never removes a key.

```python
from nnterp import tiny

assert released("microsoft/Phi-3-mini-4k-instruct")["sliding_window"] == 2047
assert released("microsoft/Phi-3-mini-4k-instruct")["max_position_embeddings"] == 4096
long_facts = released("microsoft/Phi-3.5-mini-instruct")
assert long_facts["sliding_window"] == 262144 == 2 * long_facts["max_position_embeddings"]

windowed = tiny.load("phi3", attn_implementation="eager", sliding_window=4)
with windowed.trace(prompt):
    probs = windowed.layers[1].self_attn.attention_probabilities.save()
n = probs.shape[-1]
back = torch.arange(n)[:, None] - torch.arange(n)[None]          # query - key
assert bool((probs[..., (back >= 0) & (back < 4)] > 0).all()) and bool((probs[..., back >= 4] == 0).all())
```

## A partial rotary turns the first dimensions of each head and passes the rest

Phi-3's `apply_rotary_pos_emb` rotates only the first `rotary_dim` dimensions of each query and key head, `rotary_dim = head_dim · partial_rotary_factor`, and concatenates the rest unchanged. Phi-3-mini and Phi-3.5-mini turn the whole 96-dimensional head (no `partial_rotary_factor` in their configs); a config that sets one gets heads whose last dimensions carry no position at all. Inside the turned part the pairs are `rotate_half`'s, dimension i with i + `rotary_dim` / 2, not i with i + `head_dim` / 2. On the tiny model with a factor of 0.5:

```python
from nnterp import tiny

for repo in ("microsoft/Phi-3-mini-4k-instruct", "microsoft/Phi-3.5-mini-instruct"):
    assert "partial_rotary_factor" not in released(repo) and released(repo)["hidden_size"] // released(repo)["num_attention_heads"] == 96
half = tiny.load("phi3", attn_implementation="eager", partial_rotary_factor=0.5)
half.instrument()   # qkv_proj (a module) is read before attention_queries (inside the forward)
attention = half.layers[0].self_attn
with half.trace(prompt):
    qkv = attention.qkv_proj.output.save()
    q = attention.attention_queries.save()

b, s, _ = qkv.shape
d, rot = half.head_dim, int(half.head_dim * 0.5)
raw = qkv[..., :half.num_heads * d].view(b, s, half.num_heads, d).transpose(1, 2)
assert torch.equal(q[..., rot:], raw[..., rot:])                               # past rot: unchanged
assert (q[..., 1:, :rot] - raw[..., 1:, :rot]).abs().max() > 1e-3              # the first rot: turned
angle = torch.arange(s).float()[:, None] / 10000.0 ** (torch.arange(0, rot, 2).float() / rot)
cos, sin = torch.cat((angle, angle), -1).cos(), torch.cat((angle, angle), -1).sin()
x = raw[..., :rot]
torch.testing.assert_close(q[..., :rot], x * cos + torch.cat((-x[..., rot // 2:], x[..., :rot // 2]), -1) * sin)
```

## `qkv_proj`'s rows are all the queries, then the keys, then the values: a head is a row block of each

`qkv_proj` is one Linear of `num_heads · head_dim + 2 · num_kv_heads · head_dim` outputs (9216 = 3 × 3072 on Phi-3-mini and Phi-3.5-mini, whose 32 key and value heads match the 32 query heads). The forward slices it, `[:num_heads·head_dim]` for the queries and the next `num_kv_heads·head_dim` for the keys, the rest for the values, each then cut into heads of `head_dim` (96). Query head h's weights are rows `h·96` to `(h+1)·96` of `qkv_proj.weight`, key head h's start at row 3072, value head h's at 6144: a per-head weight analysis that splits `qkv_proj.weight` into three interleaved parts per head reads the wrong rows. `attention_values` are the slice as cut; the queries and keys are read after the rotary.

```python
for repo in ("microsoft/Phi-3-mini-4k-instruct", "microsoft/Phi-3.5-mini-instruct"):
    facts = released(repo)
    assert facts["num_attention_heads"] == facts["num_key_value_heads"] == 32 and facts["hidden_size"] == 3072

attention = model.layers[0].self_attn
with model.trace(prompt):
    h = model.layers[0].attention_norm_output.save()
    v = attention.attention_values.save()

d, H, KV = model.head_dim, model.num_heads, model.num_kv_heads
W = attention.qkv_proj.weight
assert W.shape[0] == (H + 2 * KV) * d
for head in range(KV):
    rows = slice((H + KV) * d + head * d, (H + KV) * d + (head + 1) * d)
    torch.testing.assert_close(h @ W[rows].T, v[:, head])
```

## Each contribution passes a dropout before the add, inert on the released configs even in training mode

`Phi3DecoderLayer` wraps the attention's output in `resid_attn_dropout` and the MLP's in `resid_mlp_dropout` before adding them; `attention_output` and `mlp_output` are read before those modules. In eval they are identities. In a training-mode forward (`model.train()`, as for fine-tuning or for gradients through dropout-bearing code) with a nonzero `resid_pdrop`, the stream receives a dropped-out, rescaled copy, so `layer_input + attention_output` is no longer `layer_mid`. Phi-3.5-mini-instruct's config sets `resid_pdrop`, `embd_pdrop` and `attention_dropout` to 0.0: on it, even a training-mode forward adds exactly what is read.

```python
from nnterp import tiny

facts = released("microsoft/Phi-3.5-mini-instruct")
assert facts["resid_pdrop"] == facts["embd_pdrop"] == facts["attention_dropout"] == 0.0
for p, exact in ((0.0, True), (0.5, False)):
    train = tiny.load("phi3", attn_implementation="eager", resid_pdrop=p)
    train._module.train()
    with train.trace(prompt):
        x = train.layers[0].layer_input.save()
        attn = train.layers[0].self_attn.attention_output.save()
        mid = train.layers[0].layer_mid.save()
    assert torch.equal(x + attn, mid) is exact
    assert isinstance(train.layers[0]._module.resid_attn_dropout, torch.nn.Dropout)
```
'''
