"""Notes of SmolLM3 written by hand, added to the derived ones. Read against transformers' modeling_smollm3.py
(SmolLM3Attention.use_rope = config.no_rope_layers[layer_idx], the rotary skipped where it is 0, sliding_window
passed only on sliding_attention layers) and configuration_smollm3.py (no_rope_layers built from
no_rope_layer_interval, layer_types making the NoPE layers the sliding ones when use_sliding_window is set, the class
defaults). Numbers quoted as SmolLM3-3B's are asserted against its recorded config.json facts. The derived rotary note
(which says every block turns every dimension, NoPE blocks unmentioned) and grouped note are replaced by the NoPE,
rotary and grouping notes here."""

DROP = ("rotary_note", "grouped_note")

MORE = r'''
## `no_rope_layers` lists 1 where the rotary is on: every fourth block has none

Despite its name, `no_rope_layers` holds one flag per block that is 1 where the block uses the rotary and 0 where it does not: `SmolLM3Attention.use_rope = config.no_rope_layers[layer_idx]`. SmolLM3-3B's config.json gives `[1, 1, 1, 0]` nine times over its 36 blocks (`no_rope_layer_interval` 4): blocks 3, 7, 11, …, 35, nine of them, are NoPE blocks and the other 27 are rotary ones. Reading the list as "1 = no rope" inverts every block. Each attention's `use_rope` says which it is.

```python
facts = released("HuggingFaceTB/SmolLM3-3B")
assert facts["no_rope_layers"] == [1, 1, 1, 0] * 9 and facts["no_rope_layer_interval"] == 4
nope = [i for i, flag in enumerate(facts["no_rope_layers"]) if flag == 0]
assert nope == list(range(3, 36, 4)) and len(nope) == 9

# the tiny model's list is [1, 0]: block 0 rotates, block 1 does not
assert model.config.no_rope_layers == [1, 0]
assert [model.layers[i].self_attn.use_rope for i in range(2)] == [1, 0]
```

## On a NoPE block the queries and keys are the projections: position reaches it only through the mask

A NoPE block skips `apply_rotary_pos_emb`: `attention_queries` and `attention_keys` there are `q_proj`'s and `k_proj`'s outputs split into heads, nothing else, and the scores are their scaled product. No position enters its arithmetic except through the causal mask and through the stream, which the rotary blocks below have written positions into. So on a NoPE block a key's score does not depend on how far back it is, and a head's preference for recent or for first tokens must come from the content of the stream. On a rotary block the same reading differs from the projection.

```python
def queries(index):
    attention = model.layers[index].self_attn
    with model.trace(prompt):
        raw = attention.q_proj.output.save()
    with model.trace(prompt):
        q = attention.attention_queries.save()
    b, n, _ = raw.shape
    return raw.view(b, n, -1, model.head_dim).transpose(1, 2), q

pre, q = queries(1)                       # NoPE
assert torch.equal(pre, q)
pre, q = queries(0)                       # rotary
assert torch.equal(pre[:, :, 0], q[:, :, 0]) and not torch.allclose(pre, q)   # position 0 turns by 0
```

## The rotary base is 5,000,000, with no scaling

SmolLM3-3B's `rope_parameters` are `rope_type` default with `rope_theta` 5,000,000, for a `max_position_embeddings` of 65536, and nothing rescales the frequencies (no YaRN, no linear factor): `attention_scaling` is 1. Its heads are 2048 / 16 = 128 wide, all turned on the rotary blocks: 64 frequencies from 1 down to 5e6 ** (−126 / 128) = 2.5e-7 radians per position, the slowest turning once in about 2.5e7 positions. A rotary recomputed at Llama's default base of 10000 is not SmolLM3's.

```python
from transformers import SmolLM3Config
from transformers.models.smollm3.modeling_smollm3 import SmolLM3RotaryEmbedding

facts = released("HuggingFaceTB/SmolLM3-3B")
assert facts["rope_parameters"] == {"rope_type": "default", "rope_theta": 5000000.0}
assert facts["max_position_embeddings"] == 65536 and facts["hidden_size"] // facts["num_attention_heads"] == 128
rotary = SmolLM3RotaryEmbedding(SmolLM3Config(**{**facts, "rope_parameters": dict(facts["rope_parameters"])}))
assert rotary.attention_scaling == 1.0 and rotary.inv_freq.shape == (64,)
torch.testing.assert_close(rotary.inv_freq, 5e6 ** (-torch.arange(0, 128, 2) / 128))
import math
slowest = float(rotary.inv_freq[-1])
assert rotary.inv_freq[0] == 1.0 and round(slowest, 8) == 2.5e-7 and 2.4e7 < 2 * math.pi / slowest < 2.6e7
from transformers import LlamaConfig
assert LlamaConfig().rope_parameters["rope_theta"] == 10000.0           # Llama's class default, another rotary
```

## No sliding window as released; with one switched on, the NoPE blocks are the ones that slide

SmolLM3-3B sets `use_sliding_window` false and `sliding_window` null, and all 36 `layer_types` are `full_attention`: every block attends to the whole context. The attention passes `sliding_window` to the kernel only on a `sliding_attention` layer, and `SmolLM3Config` derives `layer_types` so that, when a window is switched on, the sliding layers are exactly the NoPE ones: the blocks without position information would then also be the blocks with a local view. The snippet builds a tiny SmolLM3 with a window of 4 and checks where it applies.

```python
from nnterp import tiny

facts = released("HuggingFaceTB/SmolLM3-3B")
assert facts["use_sliding_window"] is False and facts["sliding_window"] is None
assert facts["layer_types"] == ["full_attention"] * 36

windowed = tiny.load("smollm3", attn_implementation="eager", use_sliding_window=True, sliding_window=4,
                     no_rope_layers=[1, 0], layer_types=None)
assert windowed.config.layer_types == ["full_attention", "sliding_attention"]     # the NoPE block slides
with windowed.trace(prompt):
    rotary = windowed.layers[0].self_attn.attention_scores.save()
    nope = windowed.layers[1].self_attn.attention_scores.save()

n = nope.shape[-1]
back = torch.arange(n)[:, None] - torch.arange(n)[None, :]
masked = -1e30
assert (rotary[..., back >= 0] > masked).all()
assert (nope[..., (back >= 0) & (back < 4)] > masked).all() and (nope[..., back >= 4] < masked).all()
```

## The head is tied because the config says nothing

SmolLM3-3B's config.json has no `tie_word_embeddings` key, and `SmolLM3Config`'s default is true, so `lm_head.weight` is `embed_tokens.weight`, one 128256 × 2048 matrix: an edit of the unembedding is an edit of the embedding, and a logit lens reads the stream against the input embeddings themselves. The same config's `eos_token_id` is 128012, not the class default 128001, with `bos_token_id` 128000 and `pad_token_id` 128004: code that builds a config from the class defaults stops generation on the wrong token.

```python
from transformers import SmolLM3Config

facts = released("HuggingFaceTB/SmolLM3-3B")
assert "tie_word_embeddings" not in facts and SmolLM3Config().tie_word_embeddings is True
assert model.lm_head.weight is model.embed_tokens.weight
assert (facts["vocab_size"], facts["hidden_size"]) == (128256, 2048)
assert facts["eos_token_id"] == 128012 != SmolLM3Config().eos_token_id == 128001
assert (facts["bos_token_id"], facts["pad_token_id"]) == (128000, 128004)
```

## 16 query heads over 4 key and value heads, and no biases anywhere

SmolLM3-3B has 16 query heads of 128 over `num_key_value_heads` 4: each key and value head serves 4 query heads, and query head h reads key and value head h // 4. `attention_bias` and `mlp_bias` are false: `q_proj`, `k_proj`, `v_proj`, `o_proj` and the gated MLP's `gate_proj`, `up_proj` and `down_proj` (2048 → 11008 → 2048, silu) have no bias.

```python
facts = released("HuggingFaceTB/SmolLM3-3B")
assert (facts["num_attention_heads"], facts["num_key_value_heads"], facts["intermediate_size"]) == (16, 4, 11008)
assert facts["attention_bias"] is False and facts["mlp_bias"] is False and facts["hidden_act"] == "silu"

layer = model.layers[0]
assert all(getattr(layer.self_attn, n).bias is None for n in ("q_proj", "k_proj", "v_proj", "o_proj"))
assert all(getattr(layer.mlp, n).bias is None for n in ("gate_proj", "up_proj", "down_proj"))
with model.trace(prompt):
    k = layer.self_attn.attention_keys.save()
    v = layer.self_attn.attention_values.save()
    p = layer.self_attn.attention_probabilities.save()
    heads = layer.self_attn.attention_head_outputs.save()
group = model.num_heads // model.num_kv_heads
assert k.shape[1] == model.num_kv_heads
torch.testing.assert_close((p @ v.repeat_interleave(group, dim=1)).transpose(1, 2), heads)
```
'''
