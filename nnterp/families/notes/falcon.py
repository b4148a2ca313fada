"""Notes of Falcon written by hand, added to the derived ones. Read against transformers' modeling_falcon.py
(FalconAttention._split_heads and its eager and sdpa branches, FalconDecoderLayer.forward, build_alibi_tensor,
FalconModel.forward, which folds alibi / sqrt(head_dim) into the causal mask); the snippets run on the family's
tiny model under the three checkpoints' switches, and the checkpoints' numbers are their recorded config facts."""

MORE = r'''
## Falcon-RW under eager adds ALiBi twice, so eager and sdpa compute two models

With `alibi=True` (Falcon-RW-1B), `FalconModel` builds the ALiBi tensor and folds `alibi / sqrt(head_dim)` into the causal mask it hands every block. The attention's sdpa branch passes that mask to `scaled_dot_product_attention`, which scales `q @ kᵀ` by `1 / sqrt(head_dim)` itself: ALiBi is added once. The eager branch computes `(q @ kᵀ + alibi) · inv_norm_factor` and then adds the same mask: `attention_scores` hold `(q @ kᵀ + alibi) / sqrt(head_dim) + alibi / sqrt(head_dim)`, ALiBi twice. The eager load that `attention_scores` and `attention_probabilities` need therefore runs another model than the default sdpa load: on the tiny model with Falcon-RW's switches the logits differ by about 0.04. Compare readings across the two loads only with this in mind; the values nnterp serves without an eager load (queries, keys, values, head outputs) are the sdpa model's.

```python
from transformers.models.falcon.modeling_falcon import build_alibi_tensor
from nnterp import tiny

rw = dict(alibi=True, parallel_attn=False, multi_query=False, num_kv_heads=4)   # Falcon-RW's layout
eager = tiny.load("falcon", attn_implementation="eager", **rw)
sdpa = tiny.load("falcon", attn_implementation="sdpa", **rw)
attention = eager.layers[0].self_attn
with eager.trace(prompt):
    q = attention.attention_queries.save()
    k = attention.attention_keys.save()
    scores = attention.attention_scores.save()
    logits_eager = eager.logits.save()
with sdpa.trace(prompt):
    logits_sdpa = sdpa.logits.save()

n, d = scores.shape[-1], eager.head_dim
alibi = build_alibi_tensor(torch.ones(1, n), eager.num_heads, torch.float32).view(1, eager.num_heads, 1, n)
causal = torch.ones(n, n, dtype=torch.bool).tril()
twice = (q @ k.transpose(-1, -2) + alibi) / d ** 0.5 + alibi / d ** 0.5
torch.testing.assert_close(twice[..., causal], scores[..., causal])
assert 0.02 < (logits_eager - logits_sdpa).abs().max() < 0.06      # two models, about 0.04 apart
```

## The fused `query_key_value` has three row layouts, one per checkpoint line

`_split_heads` reads the rows of `query_key_value`'s output in one of three orders, chosen by the config, and a hand-made split of `self_attn.query_key_value.weight` must use the checkpoint's:

- `multi_query` without `new_decoder_architecture` (Falcon-7B): blocks. All `num_heads` query heads, then the one key head, then the one value head: `num_heads + 2` rows of `head_dim`.
- neither flag (Falcon-RW-1B): interleaved per head. Rows `view(num_heads, 3, head_dim)`: head h's query, key and value are adjacent, and the first `hidden_size` rows are not the queries.
- `new_decoder_architecture` (Falcon-40B): grouped. Rows `view(num_kv_heads, num_heads / num_kv_heads + 2, head_dim)`: each group's queries, then that group's key, then its value.

`query_key_value` and `dense` (and the MLP's two Linears) have a bias exactly where `bias` is true: on Falcon-RW-1B, not on Falcon-7B or Falcon-40B. The snippet rebuilds the queries, keys and values of each layout from `query_key_value`'s output at position 0, where the rotary is the identity, and checks that the blocks reading is wrong on the other two:

```python
from nnterp import tiny

assert (released("tiiuae/falcon-7b")["multi_query"], released("tiiuae/falcon-7b")["new_decoder_architecture"]) == (True, False)
assert (released("tiiuae/falcon-rw-1b")["multi_query"], released("tiiuae/falcon-rw-1b")["new_decoder_architecture"]) == (False, False)
assert released("tiiuae/falcon-40b")["new_decoder_architecture"] is True
assert [released(f"tiiuae/falcon-{name}")["bias"] for name in ("7b", "40b", "rw-1b")] == [False, False, True]

def at_position_0(small):
    attention = small.layers[0].self_attn
    with small.trace(prompt):
        fused = attention.source.self_query_key_value_0.output.save()
        q, k, v = (getattr(attention, name).save() for name in ("attention_queries", "attention_keys", "attention_values"))
    return fused[0, 0], q[0, :, 0], k[0, :, 0], v[0, :, 0]

layouts = {"7B": dict(), "RW": dict(multi_query=False, num_kv_heads=4, alibi=True, parallel_attn=False),
           "40B": dict(new_decoder_architecture=True)}
for name, switches in layouts.items():
    small = tiny.load("falcon", **switches)
    fused, q, k, v = at_position_0(small)
    h, g, d = small.num_heads, small.num_kv_heads, small.head_dim
    if name == "7B":
        rows = fused.view(h + 2, d)
        expected = rows[:h], rows[h:h + 1], rows[h + 1:]
    elif name == "RW":
        rows = fused.view(h, 3, d)
        expected = rows[:, 0], rows[:, 1], rows[:, 2]
    else:
        rows = fused.view(g, h // g + 2, d)
        expected = rows[:, :-2].flatten(0, 1), rows[:, -2], rows[:, -1]
    assert all(torch.equal(got, want) for got, want in zip((q, k, v), expected)), name
    assert name == "7B" or not torch.equal(q, fused[:h * d].view(h, d)), name   # blocks would be wrong here

biased = tiny.load("falcon", multi_query=False, num_kv_heads=4, alibi=True, parallel_attn=False, bias=True)
attention = biased.layers[0].self_attn
assert attention.query_key_value.bias is not None and attention.dense.bias is not None
assert model.layers[0].self_attn.query_key_value.bias is None        # bias false: Falcon-7B's switches
```

## Falcon-7B's config says 71 key/value heads; the model builds one

On Falcon-7B (71 heads, `multi_query` true, `new_decoder_architecture` false) `config.num_kv_heads` reads 71: `FalconConfig` sets it to `num_attention_heads` when it is not given. `FalconAttention` reads `num_kv_heads` only under `new_decoder_architecture` or without `multi_query`: here `self.num_kv_heads` is 1, and `query_key_value` is 4544 + 2 × 64 = 4672 wide, 71 query heads of 64 and one key and one value head. `model.num_kv_heads` is 1, and `attention_keys` and `attention_values` have one head, which every query head reads. Reading `config.num_kv_heads` gives the wrong number on this checkpoint; read `model.num_kv_heads`.

```python
from transformers import AutoModelForCausalLM, FalconConfig

facts = released("tiiuae/falcon-7b")
assert (facts["num_attention_heads"], facts["multi_query"], facts["new_decoder_architecture"]) == (71, True, False)
config = FalconConfig(**facts)
assert "num_kv_heads" not in facts and config.num_kv_heads == 71
with torch.device("meta"):
    real = AutoModelForCausalLM.from_config(config)
attention = real.transformer.h[0].self_attention
assert attention.num_kv_heads == 1 and attention.head_dim == 64
assert attention.query_key_value.out_features == 4544 + 2 * 64 == 4672

with model.trace(prompt):                       # the tiny model has Falcon-7B's switches and num_kv_heads 2
    k = model.layers[0].self_attn.attention_keys.save()
assert model.config.num_kv_heads == 2 and model.num_kv_heads == k.shape[1] == 1
```

## On the parallel layouts, the MLP's own output tensor ends up holding mlp + attention

The parallel block (Falcon-7B, Falcon-40B) adds the attention into the MLP's returned tensor in place, `mlp_output += attention_output`, and then adds the residual. A hook that saves the MLP module's native output, `model.layers[i].mlp.output`, without a copy holds `mlp + attn` once the block has run, not the MLP's contribution. nnterp's `mlp_output` is a copy taken when the MLP returns, so it is the MLP's contribution alone, and an edit of it is carried back before the add. The sequential Falcon-RW block has no in-place add.

```python
from nnterp import tiny

with model.trace(prompt):                       # Falcon-7B's parallel layout
    native = model.layers[0].mlp.output.save()
    mlp = model.layers[0].mlp.mlp_output.save()
    attn = model.layers[0].self_attn.attention_output.save()
assert torch.equal(native, mlp + attn) and not torch.equal(native, mlp)

rw = tiny.load("falcon", attn_implementation="eager", multi_query=False, num_kv_heads=4, alibi=True, parallel_attn=False)
with rw.trace(prompt):
    native = rw.layers[0].mlp.output.save()
    mlp = rw.layers[0].mlp.mlp_output.save()
assert torch.equal(native, mlp)
```

## On Falcon-40B, `post_attention_layernorm` is `ln_mlp`, and it reads the block's input

Under `new_decoder_architecture` (and `num_ln_in_parallel_attn` unset, which the block sets to 2) the block has two LayerNorms, `ln_attn` and `ln_mlp`, both applied to the block's input before either sublayer runs. nnterp names them `input_layernorm` and `post_attention_layernorm`, but nothing is "post attention": `mlp_norm_output` is `ln_mlp(layers[i].input)`, the MLP never sees its block's attention, and there is no `layer_mid`. Falcon-7B has one `input_layernorm` feeding both sublayers; only Falcon-RW's `post_attention_layernorm` reads the stream after the attention add.

```python
from nnterp import tiny

assert released("tiiuae/falcon-40b")["new_decoder_architecture"] and "num_ln_in_parallel_attn" not in released("tiiuae/falcon-40b")
wide = tiny.load("falcon", new_decoder_architecture=True)
block = wide.layers[0]._module
assert {"ln_attn", "ln_mlp"} <= {name for name, _ in block.named_children()}
with wide.trace(prompt):
    x = wide.layers[0].layer_input.save()
    attn_in = wide.layers[0].attention_norm_output.save()
    mlp_in = wide.layers[0].mlp_norm_output.save()

torch.testing.assert_close(attn_in, block.ln_attn(x))
torch.testing.assert_close(mlp_in, block.ln_mlp(x))
assert wide.serves("layer_mid", 0) is not None
```

## ALiBi's biases are computed in bfloat16, whatever the load's dtype

`build_alibi_tensor` multiplies the slopes, cast to bfloat16, by the key positions: the bias is bfloat16-rounded even in a float32 load, and bfloat16 keeps 8 significant bits. With 32 heads, head 0's slope is 2^(-1/4) = 0.8409, stored as 0.8398; over keys 1024 to 2047 its bias takes 113 distinct values (the nine keys 1500 to 1508 share 1264), and it is off the exact product by up to 9.2, before the division by √head_dim (8 at a head_dim of 64). Distant keys' positions are coarse in the model as trained; a reimplementation with exact float32 ALiBi is another model.

```python
from transformers.models.falcon.modeling_falcon import build_alibi_tensor

assert released("tiiuae/falcon-rw-1b")["alibi"]
heads, n = 32, 2048
alibi = build_alibi_tensor(torch.ones(1, n, dtype=torch.long), heads, torch.float32).view(heads, n)
slopes = torch.tensor([2 ** (-8 * (h + 1) / heads) for h in range(heads)])
assert alibi.dtype == torch.float32
assert torch.equal(alibi, (slopes.bfloat16()[:, None] * torch.arange(n)).float())
assert abs(slopes[0] - 0.8409) < 1e-4 and abs(slopes.bfloat16()[0].item() - 0.8398) < 1e-4
assert alibi[0, 1024:].unique().numel() == 113 and alibi[0, 1500:1509].unique().tolist() == [1264.0]
assert alibi[0, 1499] != 1264 and alibi[0, 1509] != 1264
exact = slopes.double()[:, None] * torch.arange(n, dtype=torch.float64)
assert 9 < (alibi.double() - exact).abs().max() < 9.2
```

## Under a bfloat16 load, ALiBi's scores are float32 and rotary's are not

The two eager branches differ in precision. With ALiBi (Falcon-RW) the product `q @ kᵀ` is cast to float32 under a float16 or bfloat16 load before ALiBi and the scale are added, so `attention_scores` are float32; the softmax returns the load's dtype. With rotary (Falcon-7B, Falcon-40B) the scores stay in the load's dtype. Compare scores across the two lines, or against a float32 run, with that in mind.

```python
from nnterp import tiny

rotary = tiny.load("falcon", attn_implementation="eager", dtype=torch.bfloat16)
alibi = tiny.load("falcon", attn_implementation="eager", dtype=torch.bfloat16,
                  multi_query=False, num_kv_heads=4, alibi=True, parallel_attn=False)
found = {}
for name, small in (("rotary", rotary), ("alibi", alibi)):
    with small.trace(prompt):
        scores = small.layers[0].self_attn.attention_scores.save()
        probs = small.layers[0].self_attn.attention_probabilities.save()
    found[name] = scores.dtype, probs.dtype

assert found == {"rotary": (torch.bfloat16, torch.bfloat16), "alibi": (torch.float32, torch.bfloat16)}
```

## The attention is Falcon's own code: choose eager at load, it cannot be switched after

`FalconAttention` does not call a kernel through `attention_interface`: its forward branches on `config._attn_implementation` between its own `q @ kᵀ` code and a direct call of `torch.nn.functional.scaled_dot_product_attention`. `model.set_attn_implementation("eager")` on an sdpa load only logs that Falcon does not support the switch and leaves sdpa in place, so the scores and the pattern stay unavailable; load with `attn_implementation="eager"` instead. The queries, keys and values are read inside Falcon's forward, where `_split_heads` and the rotary produce them, under either load. The block returns a tuple, `(hidden_states, attn_weights)`: `layer_output` is its first element.

```python
from nnterp import tiny

hf, tok = tiny.build("falcon", attn_implementation="sdpa")
hf.set_attn_implementation("eager")
assert hf.config._attn_implementation == "sdpa"
small = StandardizedTransformer(hf, tokenizer=tok)
assert "attn_implementation=\"eager\"" in small.serves("attention_scores", 0)
with small.trace(prompt):
    native = small.layers[0].output.save()
    out = small.layers[0].layer_output.save()
    k = small.layers[0].self_attn.attention_keys.save()
assert isinstance(native, tuple) and torch.equal(native[0], out) and k.shape[1] == small.num_kv_heads
```
'''
