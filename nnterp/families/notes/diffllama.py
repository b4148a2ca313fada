"""Notes of DiffLlama written by hand, added to the derived ones. Read against transformers' modeling_diffllama.py
(DiffLlamaAttention.forward: the values chunked along the key/value heads and tiled, the two kernel calls, the join,
the halves of the heads taken one from the other with lambda_full, groupnorm times 1 - lambda_init; lambda_init_fn;
the ValueErrors of __init__) and configuration_diffllama.py. The checkpoint numbers are the released config.json files
of DiffLlama-0.3B-handcut and DiffLlama-1B as nnterp/families/checkpoints/diffllama.json records them. The snippets run
on the tiny DiffLlama (4 query heads over 2 key/value heads of 16)."""

LOAD = "eager"

MORE = r'''
## A softmax map is not what a head mixes: differential head j mixes with `P_j − λ · P_(j + H/2)`

`attention_probabilities` holds one ordinary softmax map per query head, rows summing to 1. None of them is the pattern the values are mixed with. The attention splits the values along the key/value heads into two halves, `V1` and `V2`, runs the kernel once on each with the same maps, joins the two outputs along the head width, and takes the second half of the heads from the first: differential head j (of `num_heads / 2`) is `(P_j − λ · P_(j + H/2)) · [V1, V2]`, 2 · `head_dim` wide, H = `num_heads`. Its effective pattern has rows summing to 1 − λ and entries that go negative wherever map j + H/2 outweighs map j by more than 1/λ: the head subtracts what its partner attends to. On DiffLlama-0.3B-handcut and DiffLlama-1B that is 32 maps making 16 differential heads of 128 dimensions. Reading `attention_probabilities[:, h]` as "where head h looks" reads one term of a difference. The snippet rebuilds the block's o_proj input from the maps and the values; the tiny model's maps are nearly uniform, so it first sharpens block 1's queries fifty-fold:

```python
from nnterp import tiny

facts = released("kajuma/DiffLlama-0.3B-handcut")
assert (facts["num_attention_heads"], facts["num_key_value_heads"], facts["head_dim"]) == (32, 8, 64)
assert released("kajuma/DiffLlama-1B")["num_attention_heads"] == 32
sharp = tiny.load("diffllama", attn_implementation="eager")
with torch.no_grad():
    sharp.layers[1].self_attn.q_proj.weight.mul_(50)
attention = sharp.layers[1].self_attn
with sharp.trace(prompt):
    x = sharp.layers[1].attention_norm_output.save()
    probs = attention.attention_probabilities.save()
    premix = attention.attention_premix.save()

H, d, kv = sharp.num_heads, sharp.head_dim, sharp.num_kv_heads
b, s = x.shape[:2]
v = attention.v_proj(x).view(b, s, kv, d).transpose(1, 2)
v1, v2 = (half.repeat(1, 2, 1, 1).repeat_interleave(H // kv, 1) for half in v.chunk(2, dim=1))
lam = (torch.exp((attention.lambda_q1 * attention.lambda_k1).sum()) - torch.exp((attention.lambda_q2 * attention.lambda_k2).sum())
       + attention.lambda_init)
effective = probs[:, :H // 2] - lam * probs[:, H // 2:]                  # one pattern per differential head
heads = torch.cat([effective @ v1[:, :H // 2], effective @ v2[:, :H // 2]], -1)   # [b, H/2, s, 2d]
normed = heads * torch.rsqrt(heads.pow(2).mean(-1, keepdim=True) + sharp.config.rms_norm_eps)
rebuilt = ((1 - attention.lambda_init) * normed).transpose(1, 2).reshape(b, s, H * d)
torch.testing.assert_close(rebuilt, premix.reshape(b, s, H * d))
torch.testing.assert_close(effective.sum(-1), (1 - lam).expand_as(effective.sum(-1)))
assert bool((effective < 0).any()) and bool((probs >= 0).all())
```

## Every differential head writes a vector of the same size: `groupnorm` has no weight

After the subtraction, each differential head goes through `groupnorm`, an `nn.RMSNorm` over its 2 · `head_dim` dimensions with no weight, then is multiplied by 1 − λ_init. Whatever the maps and the values held, every differential head hands `o_proj` a vector of RMS 1 − λ_init (up to the eps): a head's output size says nothing about how much it attended or how large its values were, and scaling a head's values, or the whole `v_proj` output, by a positive factor changes nothing downstream. Only a head's direction carries information, and its contribution to the stream is set by `o_proj`'s columns. The snippet loads the tiny model with eps 1e-12, so that the eps does not blur the sizes:

```python
from nnterp import tiny

small = tiny.load("diffllama", attn_implementation="eager", rms_norm_eps=1e-12)
attention = small.layers[1].self_attn
H, d = small.num_heads, small.head_dim
with small.trace(prompt):
    premix = attention.attention_premix.save()
    out = attention.attention_output.save()
heads = premix.reshape(*premix.shape[:2], H // 2, 2 * d)
rms = heads.pow(2).mean(-1).sqrt()
torch.testing.assert_close(rms, torch.full_like(rms, 1 - attention.lambda_init))
with small.trace(prompt):
    attention.v_proj.output[:] = attention.v_proj.output * 10
    out_scaled = attention.attention_output.save()
torch.testing.assert_close(out_scaled, out)
assert attention.groupnorm.weight is None
```

## λ_init is set by the block's index, not learned: the attention is scaled by 0.8 at block 0 and by 0.21 at block 15

Each block's λ is `exp(λ_q1 · λ_k1) − exp(λ_q2 · λ_k2) + λ_init`: four learned vectors of `head_dim` per block, shared by all its heads, plus λ_init = 0.8 − 0.6 · exp(−0.3 · i) for block i. λ_init is a Python number computed from the block's index when the model is built, not a parameter: it is in no state dict, and a block moved to another index (a truncated or re-stacked model) gets another λ_init and another scale. Besides entering λ, it multiplies every differential head by 1 − λ_init after the norm: 0.8 at block 0, 0.33 at block 5, and 0.207 at block 15, the last of DiffLlama-0.3B-handcut's and DiffLlama-1B's 16 blocks. The last block writes its attention at about a quarter of the first block's scale unless `o_proj` has learned to make up for it:

```python
import math

assert released("kajuma/DiffLlama-0.3B-handcut")["num_hidden_layers"] == released("kajuma/DiffLlama-1B")["num_hidden_layers"] == 16
def lambda_init(i):
    return 0.8 - 0.6 * math.exp(-0.3 * i)
assert abs(lambda_init(0) - 0.2) < 1e-12 and abs(1 - lambda_init(15) - 0.207) < 1e-3 and abs(1 - lambda_init(5) - 0.334) < 1e-3
for i in range(model.num_layers):
    assert model.layers[i].self_attn.lambda_init == lambda_init(i)
state = model._module.state_dict()
assert not any("lambda_init" in name for name in state)
assert sum(name.endswith(("lambda_q1", "lambda_k1", "lambda_q2", "lambda_k2")) for name in state) == 4 * model.num_layers
assert state["model.layers.0.self_attn.lambda_q1"].shape == (model.head_dim,)
```

## Half the query heads have no output of their own: `o_proj` reads `num_heads / 2` heads of width 2 · `head_dim`

Query heads j + H/2 only supply the map that differential head j subtracts; the values they would mix never reach `o_proj` on their own. `attention_premix`, `o_proj`'s input, is served in `num_heads` chunks of `head_dim` to keep Llama's layout, but the model's heads are differential head j = chunks 2j and 2j + 1, and its write into the stream is `o_proj.weight[:, 2 · head_dim · j : 2 · head_dim · (j + 1)]` applied to those 128 dimensions (on both checkpoints). A per-head attribution that cuts `o_proj` into `num_heads` slices splits each real head in two, and `attention_head_outputs`, the first kernel call's per-map outputs, are not the differential heads either. The differential heads' writes sum to `attention_output`:

```python
facts = released("kajuma/DiffLlama-0.3B-handcut")
assert 2 * facts["head_dim"] == 128 and facts["num_attention_heads"] // 2 == 16
attention = model.layers[0].self_attn
with model.trace(prompt):
    premix = attention.attention_premix.save()
    out = attention.attention_output.save()
H, d = model.num_heads, model.head_dim
heads = premix.reshape(*premix.shape[:2], H // 2, 2 * d)
W = attention.o_proj.weight
writes = [heads[:, :, j] @ W[:, 2 * d * j:2 * d * (j + 1)].T for j in range(H // 2)]
torch.testing.assert_close(sum(writes), out)
assert W.shape[1] == H * d and len(writes) == H // 2
```

## An odd number of key/value heads, or any attention dropout, refuses to load

The two kernel calls split the values along the key/value heads, so `DiffLlamaAttention` raises a `ValueError` when `num_key_value_heads` is odd (8 on both released checkpoints), and another when `attention_dropout` is above 0, since the paper defines no dropout for the difference. Both fire when the model is built, not when it runs: a pruned or resized config with 7 key/value heads, or a fine-tuning config that sets dropout, fails at `from_pretrained` or `from_config`. With GQA the halves follow the key/value heads: on the released checkpoints key/value heads 0 to 3 make the first 64 dimensions of every differential head and 4 to 7 the last 64.

```python
from nnterp import tiny

assert released("kajuma/DiffLlama-0.3B-handcut")["num_key_value_heads"] == released("kajuma/DiffLlama-1B")["num_key_value_heads"] == 8
for bad in ({"num_key_value_heads": 1, "num_attention_heads": 4}, {"attention_dropout": 0.1}):
    try:
        tiny.load("diffllama", attn_implementation="eager", **bad)
        raise AssertionError(f"a DiffLlama with {bad} was built")
    except ValueError as error:
        assert "DiffLlama" in str(error), error
```

## The two released checkpoints are two different models underneath

DiffLlama-0.3B-handcut and DiffLlama-1B share the block (16 blocks, width 2048, 32 heads of 64 over 8, 8192 MLP neurons) and little else. The 0.3B-handcut has Llama 3's vocabulary size (128256 tokens), ties `lm_head` to `embed_tokens`, and rotates at base 500000 with Llama 3's scaling (factor 32 over 8192) for 131072 positions; its files are float32. The 1B has a vocabulary of 102400, an untied head, and the plain rotary at base 10000 over 8192 positions, in bfloat16 files. A lens, a tokenizer or a long-context probe carried from one to the other is wrong on each count; on the tied 0.3B-handcut, a lens at `token_embeddings` scores each token by its embedding's dot product with the normed input embedding, which favours the input token itself. On the tiny model tied the same way:

```python
from nnterp import tiny

small, big = released("kajuma/DiffLlama-0.3B-handcut"), released("kajuma/DiffLlama-1B")
assert (small["vocab_size"], small["tie_word_embeddings"], small["rope_theta"]) == (128256, True, 500000.0)
assert (small["rope_scaling"]["rope_type"], small["rope_scaling"]["factor"], small["max_position_embeddings"]) == ("llama3", 32.0, 131072)
assert (big["vocab_size"], big["tie_word_embeddings"], big["rope_theta"], big["rope_scaling"]) == (102400, False, 10000.0, None)
assert big["max_position_embeddings"] == 8192 and (small["dtype"], big["dtype"]) == ("float32", "bfloat16")
assert all(small[k] == big[k] for k in ("num_hidden_layers", "hidden_size", "num_attention_heads", "intermediate_size"))

tied = tiny.load("diffllama", attn_implementation="eager", tie_word_embeddings=True)
assert tied.lm_head.weight is tied.embed_tokens.weight
with tied.trace(prompt):
    ids = tied.input_ids.save()
    embedded = tied.token_embeddings.save()
assert torch.equal(tied.project_on_vocab(embedded).argmax(-1), ids)
```
'''
