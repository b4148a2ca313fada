"""Notes of EXAONE 4 written by hand, added to the derived ones. Read against transformers' modeling_exaone4.py
(Exaone4Attention.forward: the rotary applied only `if self.sliding_window is None or self.is_sliding`; q_norm and
k_norm per head; Exaone4DecoderLayer's norms after each sublayer) and configuration_exaone4.py (__post_init__'s
layer_types from sliding_window_pattern, and its pattern of 0 when sliding_window is None); the checkpoint numbers are
EXAONE-4.0-32B's config.json's as nnterp/families/checkpoints/exaone4.json records them. The derived rotary note,
which said every layer turns, is replaced by the first note. The snippets run on the tiny EXAONE 4 (one sliding and one
full layer)."""

LOAD = "eager"

DROP = ("rotary_note",)

MORE = r'''
## The global layers do not rotate: 16 of EXAONE-4.0-32B's 64 layers have no positional encoding

`Exaone4Attention` applies the rotary only `if self.sliding_window is None or self.is_sliding`. EXAONE-4.0-32B's config sets `sliding_window` 4096 and `sliding_window_pattern` 4, so `Exaone4Config` makes layers 3, 7, 11, …, 63 `full_attention` and the other 48 `sliding_attention`: the 48 windowed layers turn all 128 dimensions of each head at base 1000000 (`rope_theta`), and the 16 global layers take `q_norm`'s and `k_norm`'s outputs into the kernel unturned (NoPE, "no positional encoding"). On a global layer `attention_queries` is the normed projection itself at every position, and the score of a query and a key is the same whatever their distance. The model still knows where it is there, from what the rotated sliding layers before wrote into the stream and from the causal mask alone; the last layer, 63, is global.

```python
from transformers import Exaone4Config

facts = released("LGAI-EXAONE/EXAONE-4.0-32B")
assert (facts["sliding_window"], facts["sliding_window_pattern"], facts["rope_theta"]) == (4096, 4, 1000000)
types = Exaone4Config(**facts).layer_types
assert [i for i, kind in enumerate(types) if kind == "full_attention"] == list(range(3, 64, 4))
assert types.count("sliding_attention") == 48 and types[-1] == "full_attention"

model.instrument()   # q_norm (a module) is read before attention_queries (inside the forward)
assert model.config.layer_types == ["sliding_attention", "full_attention"]
turned = {}
for i in range(2):
    with model.trace(prompt):
        normed = model.layers[i].self_attn.q_norm.output.save()
        q = model.layers[i].self_attn.attention_queries.save()
    turned[model.config.layer_types[i]] = not torch.equal(normed, q)
assert turned == {"sliding_attention": True, "full_attention": False}
```

## A global layer sees what a key is, never where it is

With no rotary, a global layer's score for query i and key j is `q_norm(q_i) · k_norm(k_j) / √128`, a function of the two tokens' stream vectors only; the position enters only through what earlier layers wrote into those vectors and through the causal mask. Where a global layer reads the embeddings directly, swapping two earlier tokens of the prompt swaps their attention weights from a later query exactly, and leaves every other weight as it was. A sliding layer in the same place does not: its rotary makes the same two tokens score differently at other positions. An attribution that reads a global layer's pattern as "attends to the token k positions back" reads a distance the layer never computes. The snippet builds the tiny model with its global layer first:

```python
from nnterp import tiny

ids = model.tokenizer(prompt, return_tensors="pt").input_ids
swapped = ids.clone()
swapped[0, [1, 2]] = ids[0, [2, 1]]
assert ids[0, 1] != ids[0, 2]

def last_row(m, tokens):
    with m.trace(tokens):
        probs = m.layers[0].self_attn.attention_probabilities.save()
    return probs[0, :, -1]

global_first = tiny.load("exaone4", attn_implementation="eager", layer_types=["full_attention", "sliding_attention"])
before, after = last_row(global_first, ids), last_row(global_first, swapped)
assert torch.equal(before[:, [1, 2]], after[:, [2, 1]]) and torch.equal(before[:, 3:], after[:, 3:])
before, after = last_row(model, ids), last_row(model, swapped)           # block 0 of the default tiny model slides
assert not torch.allclose(before[:, [1, 2]], after[:, [2, 1]])
```

## The long-context rope scaling reaches only layers that see 4096 tokens

EXAONE-4.0-32B's `rope_scaling` is llama3's, `factor` 16 over `original_max_position_embeddings` 8192, for a `max_position_embeddings` of 131072. It rescales the rotary's slow frequencies: of the 64 frequencies of a 128-dimensional head, the 30 with a wavelength over 8192 positions are divided by 16 and 7 more, between 2048 and 8192, are blended; the 27 fast ones are kept. But only the sliding layers rotate, and they never see a key more than 4095 positions back, half of the 8192 the scaling extends from. The reach to 131072 positions is the 16 global layers', which carry no rotary for the scaling to stretch: the scaling only re-tunes how the windowed layers turn within their window. A tiny model given a llama3 scaling changes its sliding layer's queries and leaves its global layer unturned:

```python
from transformers import Exaone4Config
from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS
from nnterp import tiny

facts = released("LGAI-EXAONE/EXAONE-4.0-32B")
scaling = facts["rope_scaling"]
assert (scaling["rope_type"], scaling["factor"], scaling["original_max_position_embeddings"]) == ("llama3", 16.0, 8192)
assert facts["max_position_embeddings"] == 131072 and facts["sliding_window"] < scaling["original_max_position_embeddings"]
config = Exaone4Config(**facts)
d = config.head_dim
scaled, _ = ROPE_INIT_FUNCTIONS["llama3"](config)
ratio = scaled / (1.0 / config.rope_parameters["rope_theta"] ** (torch.arange(0, d, 2).float() / d))
assert d == 128 and int((ratio < 1 - 1e-6).sum()) == 37 and int((ratio <= 1 / 16 + 1e-6).sum()) == 30

llama3 = {"rope_type": "llama3", "rope_theta": 10000.0, "factor": 16.0, "low_freq_factor": 1.0,
          "high_freq_factor": 4.0, "original_max_position_embeddings": 8}
stretched = tiny.load("exaone4", attn_implementation="eager", rope_parameters=llama3)
stretched.instrument()
model.instrument()
def queries(m, i):
    with m.trace(prompt):
        normed = m.layers[i].self_attn.q_norm.output.save()
        q = m.layers[i].self_attn.attention_queries.save()
    return normed, q
assert not torch.equal(queries(stretched, 0)[1], queries(model, 0)[1])   # the sliding layer turns otherwise
normed, q = queries(stretched, 1)
assert torch.equal(normed, q)                                            # the global layer still does not turn
```

## Taking the window off turns the rotary on at the global layers

The rotary's condition is `sliding_window is None or is_sliding`: a config without a window rotates every layer, the full ones included. Loading EXAONE-4.0-32B with `sliding_window=None` to let every layer attend the whole prompt therefore gives the 16 global layers a rotary they were never trained with: a different model, not the same one with a longer window. It does not even load cleanly: with no `layer_types` given, `Exaone4Config` sets `sliding_window_pattern` to 0 and divides by it (`ZeroDivisionError`), and with the sliding `layer_types` kept, the first forward fails building the sliding layers' cache. To see past the window on every layer, raise `sliding_window` above the prompt's length instead; the global layers then stay unturned:

```python
from transformers import Exaone4Config
from nnterp import tiny

facts = released("LGAI-EXAONE/EXAONE-4.0-32B")
try:
    Exaone4Config(**{**facts, "sliding_window": None})
    raise AssertionError("a config without a window and without layer_types loaded")
except ZeroDivisionError:
    pass

def global_turns(m):
    m.instrument()
    with m.trace(prompt):
        normed = m.layers[1].self_attn.q_norm.output.save()
        q = m.layers[1].self_attn.attention_queries.save()
    return not torch.equal(normed, q)

kept_types = tiny.load("exaone4", attn_implementation="eager", sliding_window=None)
try:
    with kept_types.trace(prompt):
        kept_types.logits.save()
    raise AssertionError("a forward with sliding layers and no window ran")
except TypeError:
    pass

no_window = tiny.load("exaone4", attn_implementation="eager", sliding_window=None,
                      layer_types=["full_attention", "full_attention"])
wide = tiny.load("exaone4", attn_implementation="eager", sliding_window=10 ** 6)
assert global_turns(no_window) and not global_turns(wide)
with wide.trace(prompt):
    probs = wide.layers[0].self_attn.attention_probabilities.save()
n = probs.shape[-1]
assert bool((probs[..., torch.ones(n, n, dtype=torch.bool).tril()] > 0).all())   # the sliding layer sees every key
```

## The attention scores are bounded by `q_norm`'s and `k_norm`'s weights, whatever the stream holds

`q_norm` and `k_norm` are RMSNorms over each 128-dimensional head, applied to the projections' outputs, and the rotary preserves a head's length. A query therefore has length at most `√128 · max|q_norm.weight|`, a key at most `√128 · max|k_norm.weight|`, and every score `q · k / √128` lies within `√128 · max|q_norm.weight| · max|k_norm.weight|` of zero, on both layer types. The stream's size does not reach the scores: multiplying a block's input by 1000 leaves its pattern as it was, up to the norms' eps (1e-5 on EXAONE-4.0-32B) against the projections' mean square, where a Llama block's scores would grow a millionfold. A head's sharpness is set by the two norms' weights, so a steering vector added to the stream cannot make a pattern sharper than they allow. (The tiny model's projections have a mean square near 3e-6, under that eps, so the snippet loads it with eps 1e-12.)

```python
from nnterp import tiny

assert released("LGAI-EXAONE/EXAONE-4.0-32B")["rms_norm_eps"] == 1e-05
small = tiny.load("exaone4", attn_implementation="eager", rms_norm_eps=1e-12)
for i in range(small.num_layers):
    attention = small.layers[i].self_attn
    with small.trace(prompt):
        scores = attention.attention_scores.save()
        probs = attention.attention_probabilities.save()
    with small.trace(prompt):
        small.layers[i].input[:] = small.layers[i].input * 1000
        probs_loud = attention.attention_probabilities.save()
    n = scores.shape[-1]
    causal = torch.ones(n, n, dtype=torch.bool).tril()
    bound = small.head_dim ** 0.5 * attention.q_norm.weight.abs().max() * attention.k_norm.weight.abs().max()
    assert scores[..., causal].abs().max() <= bound
    torch.testing.assert_close(probs_loud, probs)
```

## Only queries and keys are normed on the way in: the values and the MLP read the raw stream

EXAONE 4's "QK-Reorder-Norm" moves the block's norms after the sublayers and adds one on the queries and keys; nothing normalizes the stream before `v_proj` or before the MLP. `attention_norm_output` and `mlp_norm_output` are refused, `self_attn.input` is `layer_input` and `mlp.input` is `layer_mid`, both raw. The queries and keys are divided by their own RMS per head, but `attention_values`, and with them every head's output, scale with the stream: a vector added to the stream enters `v_proj` and the MLP at full size, and only `post_attention_layernorm` and `post_feedforward_layernorm` bring the sublayers' writes back to the size of their weights.

```python
attention = model.layers[1].self_attn
with model.trace(prompt):
    x = model.layers[1].layer_input.save()
    attn_in = attention.input.save()
    v = attention.attention_values.save()
    mid = model.layers[1].layer_mid.save()
    mlp_in = model.layers[1].mlp.input.save()

assert torch.equal(attn_in, x) and torch.equal(mlp_in, mid)
b, s, _ = x.shape
torch.testing.assert_close(v, attention.v_proj(x).view(b, s, model.num_kv_heads, model.head_dim).transpose(1, 2))
assert model.serves("attention_norm_output", 1) is not None and model.serves("mlp_norm_output", 1) is not None
```
'''
