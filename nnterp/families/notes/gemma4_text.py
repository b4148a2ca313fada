"""Notes of Gemma 4 (text) written by hand, added to the derived ones. Read against transformers'
configuration_gemma4.py (Gemma4TextConfig.__post_init__: the per-layer head_dim and key heads of full layers,
the forced full last layer; kv_sharing_modes) and modeling_gemma4.py (Gemma4TextAttention's shared keys and
values, v_norm and attention_k_eq_v; Gemma4TextMLP's double width; Gemma4TextModel's per-layer inputs and
_maybe_slice_kv_shared_inputs), with modeling_rope_utils' proportional rotary. The derived rotary note, which
counted the full layers' frequencies as turned dimensions, is replaced by the third note. Numbers are Gemma 4
E2B's and 31B's released text configs; the snippets run on the tiny Gemma 4 (one sliding and one full layer),
reloaded with more layers where a note needs shared ones."""

LOAD = "eager"

DROP = ("rotary_note",)

MORE = r'''
## From layer 15 on, Gemma 4 E2B computes no keys or values: its last 20 layers reuse layers 13's and 14's

Gemma 4 E2B's config sets `num_kv_shared_layers` 20 of its 35 layers. The layers from 35 − 20 = 15 on are built without `k_proj`, `v_proj`, `k_norm` or `v_norm` (weights for them in a checkpoint are ignored on load): each takes the keys and values of the last earlier layer of its own type, which the config marks `"store"`. Layer 13 is the last sliding layer before 15 and layer 14 the last full one, so every sliding layer from 15 to 33 attends over layer 13's keys and values, and every full layer (19, 24, 29, 34) over layer 14's. `attention_keys` and `attention_values` of a shared layer are those tensors, bit for bit; only its queries are its own. An edit to layer 13's keys reaches 16 later layers, and an attribution to "layer 20's keys" is one to layer 13's.

```python
from transformers import Gemma4TextConfig
from nnterp import tiny

facts = released("google/gemma-4-e2b-it")
assert facts["num_hidden_layers"] == 35 and facts["num_kv_shared_layers"] == 20
modes = Gemma4TextConfig(**facts).kv_sharing_modes
assert modes.index("reuse") == 15 and all(mode == "reuse" for mode in modes[15:])
assert [i for i, mode in enumerate(modes) if mode == "store"] == [13, 14]
assert facts["layer_types"][13] == "sliding_attention" and facts["layer_types"][14] == "full_attention"

shared = tiny.load("gemma4_text", attn_implementation="eager", num_hidden_layers=4,
                   layer_types=["sliding_attention", "full_attention"] * 2, num_kv_shared_layers=2)
assert not hasattr(shared.layers[2].self_attn._module, "k_proj")        # no projection of its own
keys, values = [], []
with shared.trace(prompt):
    for i in range(4):
        keys.append(shared.layers[i].self_attn.attention_keys.save())
        values.append(shared.layers[i].self_attn.attention_values.save())
assert torch.equal(keys[2], keys[0]) and torch.equal(values[2], values[0])    # sliding reuses sliding
assert torch.equal(keys[3], keys[1]) and torch.equal(values[3], values[1])    # full reuses full
assert not torch.equal(keys[1][..., :16], keys[0])
```

## Under `generate`, the KV-shared layers see only the last position of the prompt

Because a KV-shared layer writes no keys or values, the prompt's earlier positions matter to it only through the stream of the last. `Gemma4TextModel` uses that: when called with an integer `logits_to_keep`, as `generate` calls it (1), it cuts the stream, the per-layer inputs, the rotary and the masks to the last positions at the first shared layer, unless hidden states or attentions are requested (and not under flash or flex kernels). A plain forward keeps every position (`logits_to_keep` 0). On Gemma 4 E2B, in the prefill step of `model.generate`, layers 0 to 14 hold the whole prompt and layers 15 to 34 one position: `layer_output` saved there has sequence length 1, and a steering edit at an earlier position of those layers has nothing to edit.

```python
from nnterp import tiny

shared = tiny.load("gemma4_text", attn_implementation="eager", num_hidden_layers=4,
                   layer_types=["sliding_attention", "full_attention"] * 2, num_kv_shared_layers=2)
with shared.trace(prompt):
    ids = shared.input_ids.save()
    traced = shared.layers[2].layer_output.save()
with shared.generate(prompt, max_new_tokens=1):
    before = shared.layers[1].layer_output.save()        # the first step: the prefill
    after = shared.layers[2].layer_output.save()

n = ids.shape[1]
assert before.shape[1] == n and traced.shape[1] == n
assert after.shape[1] == 1                                 # the shared layers ran on the last position only
torch.testing.assert_close(after[:, 0], traced[:, -1])     # the same value there
```

## Full layers are 512 wide and turn 128 of those dimensions; the other 384 carry no position

`Gemma4TextConfig` gives every full-attention layer `head_dim` = `global_head_dim` (512 on Gemma 4 E2B and 31B), twice the sliding layers' 256, and `model.head_dim` is the sliding layers' width. The sliding layers rotate all 256 dimensions at base 10000 (`rope_parameters["sliding_attention"]`). The full layers use `rope_type` `"proportional"` with `partial_rotary_factor` 0.25 at base 1000000: `int(0.25 · 512 // 2)` = 64 frequencies, base^(−2k/512) for k < 64 (the fastest quarter of a whole 512-dimension rotary, not a compressed one), and 192 zeros. With `rotate_half`, frequency k turns dimensions k and k + 256: dimensions 0–63 and 256–319 of every full-layer query and key rotate, and 64–255 and 320–511 enter the scores exactly as `q_norm` and `k_norm` leave them. A rotary reimplemented on the first 128 dimensions, or with frequencies over 128, turns the wrong ones.

```python
facts = released("google/gemma-4-e2b-it")
full = facts["rope_parameters"]["full_attention"]
assert facts["global_head_dim"] == 512 and facts["head_dim"] == 256
assert full == {"partial_rotary_factor": 0.25, "rope_theta": 1000000.0, "rope_type": "proportional"}

model.instrument()   # q_norm (a module) is read before attention_queries (inside the forward)
block = model.config.layer_types.index("full_attention")
attention = model.layers[block].self_attn
d = attention._module.head_dim                             # the full layer's own width (32 on the tiny model)
angles = int(full["partial_rotary_factor"] * d // 2)       # 4 of 16 frequencies
inv_freq = model._module.model.rotary_emb.full_attention_inv_freq
expected = 1.0 / full["rope_theta"] ** (torch.arange(0, 2 * angles, 2).float() / d)
torch.testing.assert_close(inv_freq[:angles], expected)
assert bool((inv_freq[angles:] == 0).all())

with model.trace(prompt):
    normed = attention.q_norm.output.save()
    q = attention.attention_queries.save()
q_pre = normed.transpose(1, 2)
turned = torch.zeros(d, dtype=torch.bool)
turned[:angles] = turned[d // 2:d // 2 + angles] = True
assert torch.equal(q_pre[..., ~turned], q[..., ~turned])                 # never rotated
assert not torch.equal(q_pre[:, :, 1:, turned], q[:, :, 1:, turned])     # rotated past position 0
```

## Values are RMS-normalized per head without a gain, so every value vector has length √head_dim

`v_norm` is a `Gemma4RMSNorm` built `with_scale=False`: it has no weight. Each value head, `v_proj`'s output split into heads, is divided by its root mean square and enters the kernel with length √256 = 16 on Gemma 4 E2B's sliding layers and √512 ≈ 22.6 on its full ones, whatever the stream's size. `attention_values` are read after the norm. A head's output is a convex mix of those vectors (the kernel's scale is 1 and nothing scales the values after), so no head's `attention_head_outputs` vector is longer than √head_dim; the size of what a head writes is set by `o_proj` and `post_attention_layernorm`, not by the values.

```python
model.instrument()
attention = model.layers[0].self_attn
d = attention._module.head_dim
with model.trace(prompt):
    raw = attention.v_proj.output.save()
    values = attention.attention_values.save()
    heads = attention.attention_head_outputs.save()

assert not hasattr(attention._module.v_norm, "weight")
split = raw.view(*raw.shape[:2], -1, d).transpose(1, 2)
eps = attention._module.v_norm.eps
assert torch.equal(values, split * torch.pow(split.pow(2).mean(-1, keepdim=True) + eps, -0.5))
lengths = values.norm(dim=-1)
torch.testing.assert_close(lengths, torch.full_like(lengths, d ** 0.5), rtol=1e-4, atol=0)   # eps: 1e-6 / mean square
assert bool((heads.norm(dim=-1) <= d ** 0.5 * (1 + 1e-5)).all())
```

## Gemma 4 31B's full layers have no `v_proj`: the values are the keys before `k_norm` and the rotary

Gemma 4 31B's config sets `attention_k_eq_v` true and `num_global_key_value_heads` 4. Its full-attention layers (every sixth: 5, 11, …, 59) are built with `v_proj` = None and 4 key heads of 512 for 32 query heads; the sliding layers keep their `v_proj` and 16 key heads of 256. On a full layer, `k_proj`'s output is both: `k_norm` (with its weight) and the rotary make the keys, `v_norm` (without one) the values. At position 0, where the rotary is the identity, the keys are the values times `k_norm.weight`. Gemma 4 E2B sets `attention_k_eq_v` false. The snippet loads the family's tiny model in the 31B's layout (one key head on the full layer, no per-layer inputs):

```python
from nnterp import tiny

facts = released("google/gemma-4-31B-it")
assert facts["attention_k_eq_v"] is True and facts["num_global_key_value_heads"] == 4
assert facts["num_key_value_heads"] == 16 and facts["global_head_dim"] == 512
assert [i for i, kind in enumerate(facts["layer_types"]) if kind == "full_attention"] == list(range(5, 60, 6))
assert released("google/gemma-4-e2b-it")["attention_k_eq_v"] is False

k_eq_v = tiny.load("gemma4_text", attn_implementation="eager", attention_k_eq_v=True,
                   num_global_key_value_heads=1, hidden_size_per_layer_input=0)
k_eq_v.instrument()
full = k_eq_v.layers[1].self_attn
assert k_eq_v.config.layer_types[1] == "full_attention" and full._module.v_proj is None
assert k_eq_v.layers[0].self_attn._module.v_proj is not None                 # the sliding layer keeps it
with k_eq_v.trace(prompt):
    raw = full.k_proj.output.save()
    keys = full.attention_keys.save()
    values = full.attention_values.save()

d = full._module.head_dim
split = raw.view(*raw.shape[:2], -1, d).transpose(1, 2)
assert values.shape[1] == 1
assert torch.equal(values, full._module.v_norm(split.transpose(1, 2)).transpose(1, 2))   # values from k_proj
assert torch.equal(keys[:, :, 0], values[:, :, 0] * full._module.k_norm.weight)          # position 0: no turn
```

## Each block adds an embedding of its own: 35 × 256 numbers per token on E2B, half the checkpoint's weights

On Gemma 4 E2B (`hidden_size_per_layer_input` 256), `embed_tokens_per_layer` holds 35 · 256 = 8960 numbers for each of its 262144 tokens, 2.35B weights of the checkpoint's 4.63B. Before the first block the model forms, for each block i, `(norm(per_layer_model_projection(x) / √1536)[i] + 16 · embed_tokens_per_layer(ids)[i]) / √2`, x being the scaled token embeddings, and passes slice i to block i, which gates it with its own stream after the MLP (the third branch `mlp_output` includes). The per-layer input is fixed before the first block: it depends on the position's token alone, never on context, so two positions with the same token get the same one at every block. Gemma 4 31B sets `hidden_size_per_layer_input` 0 and has none.

```python
facts = released("google/gemma-4-e2b-it")
per_token = facts["num_hidden_layers"] * facts["hidden_size_per_layer_input"]
assert per_token == 8960 and per_token * facts["vocab_size_per_layer_input"] == 2_348_810_240
from transformers import AutoModelForCausalLM, Gemma4TextConfig
with torch.device("meta"):
    real = AutoModelForCausalLM.from_config(Gemma4TextConfig(**facts))
total = sum(p.numel() for p in real.parameters())           # tied matrices once
assert total == 4_628_569_344 and real.model.embed_tokens_per_layer.weight.numel() / total > 0.5
assert released("google/gemma-4-31B-it")["hidden_size_per_layer_input"] == 0

inner = model._module.model
block_inputs, outputs = [], []
with model.trace("The cat saw the dog and the cat"):
    ids = model.input_ids.save()
    x = model.token_embeddings.save()
    for i in range(model.num_layers):
        block_inputs.append(model.layers[i].inputs.save())
        outputs.append(model.layers[i].layer_output.save())

h, per = model.config.hidden_size, model.config.hidden_size_per_layer_input
projected = inner.per_layer_projection_norm(
    (inner.per_layer_model_projection(x) * h ** -0.5).reshape(*x.shape[:2], model.num_layers, per))
own = inner.embed_tokens_per_layer.weight[ids].reshape(*ids.shape, model.num_layers, per) * per ** 0.5
expected = (projected + own) * 2 ** -0.5
twice = [j for j in range(ids.shape[1]) if ids[0, j] == ids[0, -1]]       # " cat" at two positions
assert len(twice) == 2 and not torch.equal(outputs[0][0, twice[0]], outputs[0][0, twice[1]])   # the stream differs
for i in range(model.num_layers):
    given = block_inputs[i][0][1]                           # the block's second argument, per_layer_input
    torch.testing.assert_close(given, expected[:, :, i])
    assert torch.equal(given[0, twice[0]], given[0, twice[1]])
```

## `inputs_embeds` must be exact embedding rows: the model matches them back to token ids

The per-layer embeddings are looked up by token id. A call with `inputs_embeds` and no `input_ids` recovers the ids by comparing every position's vector with every row of `embed_tokens.weight` times √hidden_size (√1536 on E2B), for equality. Rows passed exactly as `embed_tokens` makes them run as the ids would; a steered, noised or interpolated embedding matches no row and the call raises a `RuntimeError`. To edit the embeddings, edit `token_embeddings` inside a trace called with the ids, or pass `per_layer_inputs` yourself.

```python
with model.trace(prompt):
    ids = model.input_ids.save()
    x = model.token_embeddings.save()
    logits = model.logits.save()
with model.trace(inputs_embeds=x):
    logits_from_rows = model.logits.save()
torch.testing.assert_close(logits_from_rows, logits)

try:
    with model.trace(inputs_embeds=x + 1e-3):
        model.logits.save()
except RuntimeError as error:
    assert "exact" in str(error)
else:
    raise AssertionError("a steered inputs_embeds was accepted")
```
'''
