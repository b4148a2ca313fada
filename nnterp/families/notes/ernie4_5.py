"""Notes of ERNIE 4.5, the dense models (Ernie4_5ForCausalLM), written by hand, added to the derived ones. Read
against transformers' configuration_ernie4_5.py (Ernie4_5Config: head_dim 128 and use_bias as class fields) and
modeling_ernie4_5.py (Ernie4_5RotaryEmbedding returns float32 cos and sin; apply_rotary_pos_emb halves and
repeat-interleaves them and rotates in float32; rotate_half on even and odd dimensions; every Linear takes
bias=config.use_bias). The checkpoint numbers are ERNIE-4.5-0.3B-PT's config.json's as
nnterp/families/checkpoints/ernie4_5.json records them. The derived rotary note is replaced by the first note, which
says what it said and proves the pairing."""

LOAD = "eager"

DROP = ("rotary_note",)

MORE = r'''
## Rotary turns adjacent pairs: dimensions 2i and 2i + 1 share frequency i, not Llama's i and i + 64

ERNIE-4.5-0.3B's heads are 128 wide and all 128 dimensions turn, at base `rope_theta` 500000 (its config.json), with no rope scaling. The pairing is not Llama's. `apply_rotary_pos_emb` keeps the first half of the rotary's cos and sin (one entry per frequency) and repeats each entry twice, and `rotate_half` takes even and odd dimensions: dimensions 2i and 2i + 1 turn together, at frequency `base ** (-2i / 128)`, so the fastest pair is (0, 1) and the slowest (126, 127). Code written for Llama's layout, which pairs i with i + 64 and puts the slow frequencies in each half's tail, reads mixed frequencies here; so does a Llama-layout weight conversion without the permutation. `attention_queries` and `attention_keys` are read after the rotary. The snippet rebuilds the tiny model's rotation both ways:

```python
facts = released("baidu/ERNIE-4.5-0.3B-PT")
assert (facts["rope_theta"], facts["head_dim"]) == (500000.0, 128) and "rope_scaling" not in facts

model.instrument()
attention = model.layers[0].self_attn
with model.trace(prompt):
    q_raw = attention.q_proj.output.save()
    q = attention.attention_queries.save()

hd = model.head_dim
pre = q_raw.view(*q_raw.shape[:2], -1, hd).transpose(1, 2)
angles = torch.arange(pre.shape[2]).float()[:, None] * model._module.model.rotary_emb.inv_freq
cos, sin = angles.cos(), angles.sin()
even, odd = pre[..., 0::2], pre[..., 1::2]                                  # pair (2i, 2i + 1) at frequency i
adjacent = torch.stack([even * cos - odd * sin, odd * cos + even * sin], dim=-1).flatten(-2)
torch.testing.assert_close(q, adjacent)
first, second = pre[..., : hd // 2], pre[..., hd // 2 :]                    # Llama's (i, i + hd / 2)
halves = torch.cat([first * cos - second * sin, second * cos + first * sin], dim=-1)
assert not torch.allclose(q, halves, atol=1e-3)
```

## The rotation runs in float32 and is rounded once: a bfloat16 load's queries are not Llama's arithmetic

`Ernie4_5RotaryEmbedding` returns cos and sin in float32 (Llama's casts them to the stream's dtype), and `apply_rotary_pos_emb` casts the queries and keys to float32, rotates them, and casts the result back. In a bfloat16 load (`torch_dtype` of ERNIE-4.5-0.3B's config.json) `attention_queries` and `attention_keys` are therefore the float32 rotation of the bfloat16 projections, rounded once, and a re-implementation that rotates in bfloat16 as Llama does differs from them by one bfloat16 rounding at some entries. Recompute the rotary in float32 when a patch must match the model bit for bit. The snippet loads the tiny model in bfloat16:

```python
from nnterp import tiny

assert released("baidu/ERNIE-4.5-0.3B-PT")["dtype"] == "bfloat16"
half = tiny.load("ernie4_5", attn_implementation="eager", dtype=torch.bfloat16)
half.instrument()
attention = half.layers[0].self_attn
with half.trace(prompt):
    q_raw = attention.q_proj.output.save()
    q = attention.attention_queries.save()

hd = half.head_dim
pre = q_raw.view(*q_raw.shape[:2], -1, hd).transpose(1, 2)
cos, sin = half._module.model.rotary_emb(pre, torch.arange(pre.shape[2])[None])   # float32, as the model's
cos, sin = (t[..., : hd // 2].repeat_interleave(2, -1).unsqueeze(1) for t in (cos, sin))

def rotate(x):
    return torch.stack((-x[..., 1::2], x[..., 0::2]), dim=-1).flatten(-2)

in_float32 = (pre.float() * cos + rotate(pre).float() * sin).to(torch.bfloat16)
in_bfloat16 = pre * cos.to(torch.bfloat16) + rotate(pre) * sin.to(torch.bfloat16)
assert cos.dtype == torch.float32 and q.dtype == torch.bfloat16 and torch.equal(q, in_float32)
assert not torch.equal(q, in_bfloat16)
```

## 16 heads of 128 read 2048 dimensions from a 1024-wide stream

ERNIE-4.5-0.3B's hidden size is 1024 and its config.json sets 16 query heads of `head_dim` 128: `q_proj` widens the stream to 2048 and `o_proj` maps 2048 back to 1024, so `attention_premix` (`o_proj`'s input) is twice as wide as the stream. The 2 key and value heads are 256 wide. `head_dim` is a field of `Ernie4_5Config` with class default 128; only a config that sets it to null gets `hidden_size // num_attention_heads`, 64 here, and a model the released weights do not fit.

```python
from transformers import AutoModelForCausalLM, Ernie4_5Config

facts = released("baidu/ERNIE-4.5-0.3B-PT")
assert (facts["hidden_size"], facts["num_attention_heads"], facts["head_dim"], facts["num_key_value_heads"]) == (1024, 16, 128, 2)
with torch.device("meta"):
    real = AutoModelForCausalLM.from_config(Ernie4_5Config(**facts))
    attention = real.model.layers[0].self_attn
    assert (attention.q_proj.out_features, attention.o_proj.in_features, attention.o_proj.out_features) == (2048, 2048, 1024)
    assert attention.k_proj.out_features == attention.v_proj.out_features == 256
    guessed = Ernie4_5Config(**{**facts, "head_dim": None})
    assert guessed.head_dim == 64
assert Ernie4_5Config().head_dim == 128

with model.trace(prompt):
    premix = model.layers[0].self_attn.attention_premix.save()
assert premix.shape[-2:] == (model.num_heads, model.head_dim)
```

## `use_bias` is one switch for all seven projections, and it is off

`Ernie4_5Config.use_bias` gives a bias to `q_proj`, `k_proj`, `v_proj`, `o_proj`, `gate_proj`, `up_proj` and `down_proj` at once; there is no separate attention or MLP bias key (Qwen2, say, biases q, k and v only). ERNIE-4.5-0.3B's config.json sets it false, so no projection of the model has a bias and, with RMSNorm and a head without bias, the zero stream maps to zero logits: a logit lens here adds no constant vector.

```python
from nnterp import tiny

assert released("baidu/ERNIE-4.5-0.3B-PT")["use_bias"] is False
names = ("q_proj", "k_proj", "v_proj", "o_proj")
assert all(getattr(model.layers[0].self_attn, n).bias is None for n in names)
assert all(getattr(model.layers[0].mlp, n).bias is None for n in ("gate_proj", "up_proj", "down_proj"))
zero = torch.zeros(1, 1, model.hidden_size)
assert torch.equal(model.project_on_vocab(zero), torch.zeros(1, 1, model.vocab_size))

biased = tiny.load("ernie4_5", attn_implementation="eager", use_bias=True)
assert all(getattr(biased.layers[0].self_attn, n).bias is not None for n in names)
assert all(getattr(biased.layers[0].mlp, n).bias is not None for n in ("gate_proj", "up_proj", "down_proj"))
```

## The head is the embedding: a lens at block 0 reads the input token back

`tie_word_embeddings` is true in ERNIE-4.5-0.3B's config.json: `lm_head.weight` is `embed_tokens.weight`, one [103424, 1024] tensor, so an edit of one is an edit of the other. A logit lens applied to `layers[0].input`, the raw embedding of token t, scores every token s by `(norm(e_t) · e_s)`, and the term s = t is, up to the norm's weight, the embedding's squared norm over its RMS, a sum of 1024 positive terms where the others are sums of mixed signs: the lens at the start of the stack tends to name the token the position already holds, not the next one. Read early blocks' lens readouts against that baseline. On the tiny model every position's top token at block 0's input is its own:

```python
facts = released("baidu/ERNIE-4.5-0.3B-PT")
assert facts["tie_word_embeddings"] is True and (facts["vocab_size"], facts["hidden_size"]) == (103424, 1024)
assert model.lm_head.weight is model.embed_tokens.weight
with model.trace(prompt):
    ids = model.input_ids.save()
    embedded = model.layers[0].input.save()

assert torch.equal(model.project_on_vocab(embedded).argmax(-1), ids)
```

## The released config.json names Baidu's own class; transformers builds its own by `model_type`

ERNIE-4.5-0.3B-PT's config.json gives `architectures` `Ernie4_5_ForCausalLM`, with an underscore before `For`: the class of Baidu's own modeling file shipped beside the weights (for `trust_remote_code`). transformers has no class of that name; it reads `model_type` `ernie4_5` and builds `Ernie4_5ForCausalLM`, whose module names (`model.layers[i].self_attn.q_proj`, …) are the ones nnterp and this page use. Loading with `trust_remote_code=True` runs Baidu's file instead, a different implementation whose modules this page does not describe; load without it.

```python
import transformers
from transformers import AutoModelForCausalLM, Ernie4_5Config

facts = released("baidu/ERNIE-4.5-0.3B-PT")
assert facts["architectures"] == ["Ernie4_5_ForCausalLM"]
assert not hasattr(transformers, "Ernie4_5_ForCausalLM") and hasattr(transformers, "Ernie4_5ForCausalLM")
with torch.device("meta"):
    real = AutoModelForCausalLM.from_config(Ernie4_5Config(**facts))
assert type(real).__name__ == "Ernie4_5ForCausalLM" and type(model._module).__name__ == "Ernie4_5ForCausalLM"
```
'''
