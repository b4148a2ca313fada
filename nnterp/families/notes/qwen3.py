"""Notes of Qwen3 written by hand, added to the derived ones. Read against transformers' modeling_qwen3.py
(Qwen3Attention: q_norm and k_norm, RMSNorms over head_dim, applied to each head of q_proj's and k_proj's output
before apply_rotary_pos_emb; no bias unless attention_bias) and configuration_qwen3.py (head_dim a field of its own,
128 by default; the sliding layers are those from max_window_layers up, and only with use_sliding_window); the
snippets run on the family's tiny model."""

#: the derived note on q_norm and k_norm, which the first two notes below replace (recomputed, and the pattern's
#: blindness to the stream's scale shown against Llama's)
DROP = ("qk_norm_note",)

MORE = r'''
## The queries and keys are normed per head, then rotated

`q_norm` and `k_norm` are RMSNorms over `head_dim`, each with one weight of `head_dim` entries shared by all heads. The attention splits `q_proj`'s output into heads, normalizes each head's vector to unit root mean square and multiplies it by `q_norm.weight`, and only then applies the rotary; keys likewise with `k_norm`. `attention_queries` and `attention_keys` are read after both, at the kernel. For the queries before the norm, read `q_proj`'s output; the norm does not commute with the rotary's pairing of dimensions i and i + head_dim / 2 unless the weight is equal on both halves, so the order matters when you recompute them:

```python
from transformers.models.qwen3.modeling_qwen3 import apply_rotary_pos_emb

attention = model.layers[0].self_attn
with model.trace(prompt):
    x = model.layers[0].attention_norm_output.save()
    q = attention.attention_queries.save()
    k = attention.attention_keys.save()

n, d = x.shape[1], model.head_dim
assert attention.q_norm.weight.shape == (d,) and attention.k_norm.weight.shape == (d,)
cos, sin = model._module.model.rotary_emb(x, torch.arange(n)[None])
q_heads = attention.q_norm(attention.q_proj(x).view(1, n, -1, d)).transpose(1, 2)   # norm per head first
k_heads = attention.k_norm(attention.k_proj(x).view(1, n, -1, d)).transpose(1, 2)
q_again, k_again = apply_rotary_pos_emb(q_heads, k_heads, cos, sin)                  # then the rotary
torch.testing.assert_close(q_again, q)
torch.testing.assert_close(k_again, k)
q_raw = attention.q_proj(x).view(1, n, -1, d).transpose(1, 2)
turned_first, _ = apply_rotary_pos_emb(q_raw, q_raw, cos, sin)
assert not torch.allclose(attention.q_norm(turned_first), q, atol=1e-4)   # the other order is another tensor
```

## The pattern does not see the scale of the stream; the values do

Because each query and key head is normalized, multiplying the attention's input by a constant leaves the queries, the keys and hence the scores and the pattern unchanged (up to the norm's eps), while the values, and the attention's output, scale with it. Every query head has a norm of at most √head_dim · max|`q_norm.weight`|, whatever the stream holds, so a steering vector added before the attention changes where the heads look only through its direction, and changes what they move in proportion to its size. On Llama the same edit multiplies every score by 100 and sharpens the pattern. On the tiny models, multiplying block 0's attention input by 10:

```python
attention = model.layers[0].self_attn
with model.trace(prompt):
    q = attention.attention_queries.save()
    v = attention.attention_values.save()
    p = attention.attention_probabilities.save()
with model.trace(prompt):
    model.layers[0].attention_norm_output[:] *= 10
    q10 = attention.attention_queries.save()
    v10 = attention.attention_values.save()
    p10 = attention.attention_probabilities.save()

torch.testing.assert_close(q10, q, atol=1e-4, rtol=1e-4)     # the eps of the norm is all that moves
torch.testing.assert_close(p10, p, atol=1e-4, rtol=1e-4)
torch.testing.assert_close(v10, 10 * v)
bound = model.head_dim ** 0.5 * attention.q_norm.weight.abs().max()
assert (q.norm(dim=-1) <= bound * (1 + 1e-5)).all()

from nnterp import tiny
llama = tiny.load("llama", attn_implementation="eager")
with llama.trace(prompt):
    s_llama = llama.layers[0].self_attn.attention_scores.save()
with llama.trace(prompt):
    llama.layers[0].attention_norm_output[:] *= 10
    s_llama10 = llama.layers[0].self_attn.attention_scores.save()
live = s_llama > torch.finfo(s_llama.dtype).min / 2
torch.testing.assert_close(s_llama10[live], 100 * s_llama[live])             # Llama: scores scale by 100
```

## `head_dim` is its own field, 128, not hidden_size / num_attention_heads

`Qwen3Config` has `head_dim` as a field, 128 by default whatever the width, and the attention takes it from the config. On Qwen3-0.6B, `hidden_size` 1024 over 16 heads would give 64, but `head_dim` is 128: `q_proj` maps 1024 to 16 · 128 = 2048 features, twice the stream's width, `k_proj` and `v_proj` to 8 · 128 = 1024, and `o_proj` maps 2048 back to 1024. On Qwen3-8B the two agree (4096 / 32 = 128). Reshape a head output or a query by `model.head_dim`, never by the width over the heads. No projection has a bias (`attention_bias` false on both), unlike Qwen2's biased q, k and v:

```python
from transformers import AutoModelForCausalLM, Qwen3Config

small = released("Qwen/Qwen3-0.6B")
assert (small["hidden_size"], small["num_attention_heads"], small["head_dim"]) == (1024, 16, 128)
assert small["hidden_size"] // small["num_attention_heads"] == 64 != small["head_dim"]
assert Qwen3Config(hidden_size=1024, num_attention_heads=16).head_dim == 128
with torch.device("meta"):
    meta = AutoModelForCausalLM.from_config(Qwen3Config(**small))
attention = meta.model.layers[0].self_attn
assert (attention.q_proj.out_features, attention.k_proj.out_features, attention.v_proj.out_features) == (2048, 1024, 1024)
assert (attention.o_proj.in_features, attention.o_proj.out_features) == (2048, 1024)
big = released("Qwen/Qwen3-8B")
assert big["hidden_size"] // big["num_attention_heads"] == big["head_dim"] == 128     # on 8B the two agree
assert small["attention_bias"] is False is released("Qwen/Qwen3-8B")["attention_bias"]
assert all(getattr(attention, name).bias is None for name in ("q_proj", "k_proj", "v_proj", "o_proj"))
```

## The rotary base is 1,000,000 on the released checkpoints, not the class's 10,000

Qwen3-0.6B and Qwen3-8B set `rope_theta` 1000000 and no rope scaling; `Qwen3Config`'s default is 10000. A config built without it turns frequency i of a 128-dimensional head 100^(2i/128) times faster than the checkpoint was trained with, up to 100^(126/128) ≈ 93 times for the slowest. The context is 40960 positions (`max_position_embeddings`) on both.

```python
from transformers import Qwen3Config

for repo in ("Qwen/Qwen3-0.6B", "Qwen/Qwen3-8B"):
    facts = released(repo)
    assert facts["rope_theta"] == 1000000 and facts["rope_scaling"] is None
    assert facts["max_position_embeddings"] == 40960
    assert Qwen3Config(**facts).rope_parameters == {"rope_theta": 1000000, "rope_type": "default"}
assert Qwen3Config().rope_parameters["rope_theta"] == 10000.0
assert round(100 ** (126 / 128)) == 93
```

## No sliding window on the released checkpoints

The class keeps Qwen2's window options: with `use_sliding_window` set, the layers from `max_window_layers` up attend within `sliding_window`. Both released configs leave `sliding_window` null and set `max_window_layers` to the depth (28 on Qwen3-0.6B, 36 on Qwen3-8B, which also sets `use_sliding_window` false): every layer attends over the whole context. On the tiny model with the window switched on from layer 1:

```python
from transformers import Qwen3Config
from nnterp import tiny

for repo, depth in (("Qwen/Qwen3-0.6B", 28), ("Qwen/Qwen3-8B", 36)):
    facts = released(repo)
    assert facts["sliding_window"] is None and facts["max_window_layers"] == facts["num_hidden_layers"] == depth
    assert set(Qwen3Config(**facts).layer_types) == {"full_attention"}
assert released("Qwen/Qwen3-8B")["use_sliding_window"] is False

top = tiny.load("qwen3", attn_implementation="eager", use_sliding_window=True, sliding_window=2, max_window_layers=1)
assert top.config.layer_types == ["full_attention", "sliding_attention"]
with top.trace(prompt):
    slid = top.layers[1].self_attn.attention_probabilities.save()
n = slid.shape[-1]
i, j = torch.meshgrid(torch.arange(n), torch.arange(n), indexing="ij")
assert (slid[..., i - j >= 2] == 0).all()
```

## Qwen3-0.6B ties its embeddings, Qwen3-8B does not

Counted on the meta device: Qwen3-0.6B holds 596,049,920 parameters, and its one embedding matrix (151936 × 1024 = 155,582,464) is 26 % of them, read by both `embed_tokens` and `lm_head`. Qwen3-8B holds 8,190,735,360, with `lm_head` a matrix of its own (`tie_word_embeddings` false): a lens through its `lm_head` does not read the input embeddings, and its embedding matrix is 7.6 % of the weights.

```python
from transformers import AutoModelForCausalLM, Qwen3Config

for repo, total, tied in (("Qwen/Qwen3-0.6B", 596049920, True), ("Qwen/Qwen3-8B", 8190735360, False)):
    facts = released(repo)
    assert facts["tie_word_embeddings"] is tied and facts["vocab_size"] == 151936
    with torch.device("meta"):
        meta = AutoModelForCausalLM.from_config(Qwen3Config(**facts))
    assert sum(p.numel() for p in meta.parameters()) == total
    assert (meta.lm_head.weight is meta.model.embed_tokens.weight) is tied
assert (released("Qwen/Qwen3-0.6B")["hidden_size"], released("Qwen/Qwen3-8B")["hidden_size"]) == (1024, 4096)
assert round(151936 * 1024 / 596049920, 2) == 0.26 and round(151936 * 4096 / 8190735360, 3) == 0.076
```
'''
