"""Notes of DBRX written by hand, added to the derived ones. Read against transformers' configuration_dbrx.py
(DbrxAttentionConfig declares attn_pdrop, clip_qkv and kv_n_heads only; DbrxConfig.__post_init__ builds rope_parameters
from top-level keys) and modeling_dbrx.py (DbrxRotaryEmbedding reads config.rope_parameters; DbrxAttention keeps
attn_config.rope_theta as an attribute it never uses; the clamp of Wqkv's output; DbrxFFN.route_tokens_to_experts;
DbrxExpertGLU's fused w1, v1, w2; DbrxNormAttentionNorm). The checkpoint numbers are DBRX Instruct's config.json's as
nnterp/families/checkpoints/dbrx.json records them. The derived rotary note, which gave the class default as if it
were the checkpoint's base, is replaced by the first note."""

LOAD = "eager"

DROP = ("rotary_note",)

MORE = r'''
## DBRX Instruct's rotary base, 500000, is dropped by `DbrxConfig`: it loads rotating at 10000

DBRX Instruct's config.json gives the rotary base inside `attn_config`, as `"rope_theta": 500000`, and nowhere else. In transformers 5.24, `DbrxAttentionConfig` declares only `attn_pdrop`, `clip_qkv` and `kv_n_heads`; the extra key is kept on the sub-config, and `DbrxAttention` copies it to an attribute (`self.rope_theta`) that nothing reads. The rotary (`DbrxRotaryEmbedding`) reads the top-level `config.rope_parameters`, which `DbrxConfig` builds from top-level keys only: finding none, it takes the default base, 10000. A load of DBRX Instruct from its config.json therefore turns the slowest of each head's 64 pairs 47 times faster than the model was trained with (50 ** (126 / 128)), silently. Pass the base yourself:

```python
model = StandardizedTransformer(
    "databricks/dbrx-instruct", rope_parameters={"rope_type": "default", "rope_theta": 500000.0}
)
```

The rotation itself is `rotate_half` on all 128 dimensions of each head (6144 / 48), applied after the clamp below.

```python
from transformers import DbrxConfig
from nnterp import tiny

facts = released("databricks/dbrx-instruct")
assert facts["attn_config"]["rope_theta"] == 500000 and "rope_theta" not in facts and "rope_parameters" not in facts
assert facts["d_model"] / facts["n_heads"] == 128 and round(50 ** (126 / 128)) == 47
config = DbrxConfig(**facts)
assert config.attn_config.rope_theta == 500000 and config.rope_parameters["rope_theta"] == 10000

def inv_freq(base, d):
    return 1.0 / base ** (torch.arange(0, d, 2).float() / d)

as_released = tiny.load("dbrx", attn_implementation="eager",
                        attn_config={"kv_n_heads": 2, "clip_qkv": 8.0, "rope_theta": 500000.0})
assert as_released._module.transformer.blocks[0].norm_attn_norm.attn.rope_theta == 500000   # kept, never read
torch.testing.assert_close(as_released._module.transformer.rotary_emb.inv_freq, inv_freq(10000.0, as_released.head_dim))
fixed = tiny.load("dbrx", attn_implementation="eager", rope_parameters={"rope_type": "default", "rope_theta": 500000.0})
torch.testing.assert_close(fixed._module.transformer.rotary_emb.inv_freq, inv_freq(500000.0, fixed.head_dim))
```

## Queries, keys and values are clamped at ±8 in one fused projection, and `Wqkv.output` is the unclamped one

`attn_config.clip_qkv` is 8 in DBRX Instruct's config. `DbrxAttention` clamps `Wqkv`'s whole output (6144 query columns, then 8 × 128 key and 8 × 128 value columns) to [−8, 8] before splitting it and before the rotary. The clamp returns a new tensor: `self_attn.Wqkv.output` is the projection before the clamp, and `attention_values` the clamped values, at most 8 in magnitude. `attention_queries` and `attention_keys` are read after the rotary, which mixes two clamped entries of a pair: they can reach 8√2 = 11.3. The tiny model keeps `clip_qkv` 8 but its projections stay near 1, so the snippet tightens it to 0.1:

```python
from nnterp import tiny

facts = released("databricks/dbrx-instruct")
assert facts["attn_config"]["clip_qkv"] == 8 and facts["attn_config"]["kv_n_heads"] == 8 and facts["d_model"] == 6144
bound = 0.1
clipped = tiny.load("dbrx", attn_implementation="eager",
                    attn_config={"kv_n_heads": 2, "clip_qkv": bound, "rope_theta": 10000.0})
attention = clipped.layers[0].self_attn
with clipped.trace(prompt):
    fused = attention.Wqkv.output.save()
    q = attention.attention_queries.save()
    v = attention.attention_values.save()

assert fused.abs().max() > 2 * bound                                     # read before the clamp
assert v.abs().max() <= bound
assert bound < q.abs().max() <= bound * 2 ** 0.5 + 1e-6
torch.testing.assert_close(v.transpose(1, 2).flatten(2), fused[..., -v.shape[1] * v.shape[-1]:].clamp(-bound, bound))
```

## Four of 16 experts: 1820 possible sets per token, weighted by a softmax over the four chosen alone

DBRX Instruct's `ffn_config` sets `moe_num_experts` 16 and `moe_top_k` 4, each expert a gated MLP of `ffn_hidden_size` 10752: Databricks' "fine-grained" experts, against Mixtral's 8 choose 2. A token's MLP is one of C(16, 4) = 1820 expert sets (Mixtral has 28), and 4 × 10752 = 43008 of the layer's 172032 expert neurons run on it. `route_tokens_to_experts` takes the softmax of `router.layer`'s 16 logits, keeps the 4 largest, and divides them by their p-norm with p = `moe_normalize_expert_weights`, 1: they sum to one, and that equals a softmax over the 4 chosen logits alone, so an expert's weight does not depend on the 12 experts not chosen. `router_weights` are these; `router_logits` are the 16 raw scores.

```python
import math

ffn = released("databricks/dbrx-instruct")["ffn_config"]
assert (ffn["moe_num_experts"], ffn["moe_top_k"], ffn["ffn_hidden_size"], ffn["moe_normalize_expert_weights"]) == (16, 4, 10752, 1.0)
assert math.comb(16, 4) == 1820 and math.comb(8, 2) == 28 and 4 * 10752 == 43008 and 16 * 10752 == 172032

with model.trace(prompt):
    logits = model.layers[0].mlp.router_logits.save()
    weights = model.layers[0].mlp.router_weights.save()
    choices = model.layers[0].mlp.router_choices.save()

chosen = logits.view(-1, logits.shape[-1]).gather(-1, choices.view(-1, choices.shape[-1]))
torch.testing.assert_close(weights.view_as(chosen), chosen.softmax(-1))
torch.testing.assert_close(weights.sum(-1), torch.ones(weights.shape[:-1]))
```

## An expert's weights are slices of three fused matrices, and `w2` is not stored as a Linear

`experts.mlp` holds `w1` (gate), `v1` (up) and `w2` (down), each one parameter of shape [16 · 10752, 6144] on DBRX Instruct: expert e's rows are `e * 10752` to `(e + 1) * 10752` of each. `w1` and `v1` are used as a Linear's weight (`x @ w1_e.T`), but `w2` is multiplied as it is stored (`h @ w2_e`): row n of `w2_e` is neuron n's write into the stream, where a `down_proj.weight` would hold it in column n. Code that reads `w2` as a Linear transposes it, and on DBRX the shapes do not warn: a [10752, 6144] slice transposed is a valid [6144, 10752] matrix. `mlp_output` is the sum over the chosen experts of their router weight times `(silu(x @ w1_eᵀ) * (x @ v1_eᵀ)) @ w2_e`, with x the MLP's input, `mlp_norm_output`:

```python
assert released("databricks/dbrx-instruct")["d_model"] == 6144
with model.trace(prompt):
    x = model.layers[0].mlp.input.save()
    weights = model.layers[0].mlp.router_weights.save()
    choices = model.layers[0].mlp.router_choices.save()
    out = model.layers[0].mlp.mlp_output.save()

glu = model._module.transformer.blocks[0].ffn.experts.mlp
size = model.intermediate_size
assert glu.w2.shape == glu.w1.shape == (model.num_experts * size, model.hidden_size)
rows = x.view(-1, model.hidden_size)
total = torch.zeros_like(rows)
for slot in range(choices.shape[-1]):
    for p, e in enumerate(choices.view(-1, choices.shape[-1])[:, slot].tolist()):
        part = slice(e * size, (e + 1) * size)
        h = torch.nn.functional.silu(rows[p] @ glu.w1[part].T) * (rows[p] @ glu.v1[part].T)
        total[p] += weights.view(-1, choices.shape[-1])[p, slot] * (h @ glu.w2[part])
torch.testing.assert_close(total, out.view(-1, model.hidden_size))
```

## `norm_attn_norm` adds the residual itself: its output is the stream, not the attention's write

`DbrxNormAttentionNorm` runs `norm_1`, the attention, the residual add and `norm_2`, and returns two tensors: the stream after the add and `norm_2` of it. A hook placed on `norm_attn_norm`, the module that looks like "the attention" in `print(model)`, reads the residual stream (`layer_mid`) and the MLP's normed input, not what the attention wrote; the write is `norm_attn_norm.attn`'s output (`self_attn.output[0]`, `attention_output`). The block then adds the MLP's output to the first tensor. nnterp's `self_attn` is `norm_attn_norm.attn`, and `input_layernorm` and `post_attention_layernorm` are `norm_1` and `norm_2`:

```python
block = model._module.transformer.blocks[1]
assert model.layers[1].self_attn._module is block.norm_attn_norm.attn
with model.trace(prompt):
    x = model.layers[1].layer_input.save()
    attn = model.layers[1].self_attn.attention_output.save()
    mid = model.layers[1].layer_mid.save()
    normed = model.layers[1].mlp_norm_output.save()
    wrapped = model.layers[1].norm_attn_norm.output.save()

stream, mlp_in = wrapped
assert torch.equal(stream, mid) and torch.equal(mlp_in, normed)
torch.testing.assert_close(x + attn, stream)
assert (stream - attn).abs().max() > 1e-3            # the wrapper's output is not the attention's write
```

## The norms have a weight and no bias, so a lens has no constant term

`norm_1`, `norm_2` and `norm_f` are `nn.LayerNorm(d_model, bias=False)` (eps 1e-5, the class's): the mean is removed, the weight multiplies each dimension, and nothing is added. With `lm_head` also without bias, `project_on_vocab` maps the zero vector to zero logits and a stream shifted by a constant in every dimension to the same logits: unlike Phi's or GPT-2's readout, a logit lens here adds no input-independent vector, and the weight of `norm_f` can be folded into `lm_head` (`lm_head.weight * norm_f.weight`) with nothing left over. `DbrxConfig` refuses `tie_word_embeddings=True`, so the head is always its own matrix.

```python
from transformers import DbrxConfig

for norm in (model.layers[0].input_layernorm, model.layers[0].post_attention_layernorm, model.norm):
    assert norm.bias is None and norm.weight is not None and norm.eps == 1e-5
assert model.lm_head.bias is None
with model.trace(prompt):
    last = model.layers[-1].layer_output.save()
    logits = model.logits.save()

zero = torch.zeros(1, 1, model.hidden_size)
assert torch.equal(model.project_on_vocab(zero), torch.zeros(1, 1, model.vocab_size))
torch.testing.assert_close(model.project_on_vocab(last + 3 * last.std()), logits)
normed = torch.nn.functional.layer_norm(last, (model.hidden_size,), eps=1e-5)
torch.testing.assert_close(normed @ (model.lm_head.weight * model.norm.weight).T, logits)
try:
    DbrxConfig(tie_word_embeddings=True)
    raise AssertionError("a tied DBRX config was accepted")
except Exception as error:
    assert "tie_word_embeddings is not supported" in str(error), error
```
'''
