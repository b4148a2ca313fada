"""Notes of Granite 4.0 hybrid written by hand, added to the derived ones. Read against transformers'
configuration_granitemoehybrid.py (layer_types and its all-Mamba default, position_embedding_type) and
modeling_granitemoehybrid.py (GraniteMoeHybridModel's rotary built only for "rope" and its embedding_multiplier,
GraniteMoeHybridAttention's attention_multiplier scale, GraniteMoeHybridDecoderLayer's residual_multiplier on both
sublayers and its block_sparse_moe plus shared_mlp, GraniteMoeHybridTopKRouter's softmax over the top-k logits,
GraniteMoeHybridForCausalLM's logits_scaling). No released config of a Granite 4.0-H checkpoint is recorded here
whole, so the notes quote no checkpoint's number: the snippets run on the tiny model (a Mamba-2 block, then an
attention block, each with four experts and a shared MLP; Granite's multipliers set away from 1) and on variants."""

LOAD = "eager"

MORE = r'''
## `layer_types` says which blocks attend, and a config without it builds no attention at all

Each block holds either a Mamba-2 mixer (`mamba`) or an attention (`self_attn`), as `layer_types` says (`linear_attention` and `full_attention`, or the older spelling "mamba" and "attention", which the class maps to them), and every block, of either kind, then runs the same MLP slot: `post_attention_layernorm`, the mixture of experts and the shared MLP. The config class's default `layer_types` is every block Mamba: a config written without the list (a reduced copy, a conversion's) builds a model with no attention block, which loads the checkpoint's attention weights nowhere. On the attention blocks nnterp serves the attention's interior; on the Mamba-2 blocks `self_attn` is the mixer, its interior refused with the reason, and `attention_output` is what it adds.

```python
from transformers import GraniteMoeHybridConfig

assert set(GraniteMoeHybridConfig(num_hidden_layers=6).layer_types) == {"linear_attention"}
assert GraniteMoeHybridConfig(layer_types=["mamba", "attention"], num_hidden_layers=2).layer_types == \
    ["linear_attention", "full_attention"]

for i, kind in enumerate(model.config.layer_types):
    block = model.layers[i]._module
    attends = kind == "full_attention"
    assert (block.self_attn is not None) == attends and (block.mamba is not None) == (not attends)
    assert (model.serves("attention_scores", i) is None) == attends
    assert model.serves("attention_output", i) is None and model.serves("router_weights", i) is None
```

## The attention has no positional encoding unless `position_embedding_type` is "rope"

`GraniteMoeHybridModel` builds its rotary only when `position_embedding_type` is the string "rope"; for anything else (the class's default null, or "nope") `rotary_emb` is None, every attention block is called without position embeddings and rotates nothing. The attention then treats the tokens before a query as a set, and order reaches it only through the Mamba-2 blocks before it. The snippet shuffles the earlier positions of the attention's input: the last query's scores come out shuffled the same way. With "rope" the same blocks rotate. Because whether a block rotates depends on what its forward is called with, nnterp does not serve `attention_queries_unrotated` here; on a position-free load `attention_queries` are the projections themselves.

```python
from nnterp import tiny

assert model.config.position_embedding_type is None and model._module.model.rotary_emb is None
assert tiny.load("granitemoehybrid", position_embedding_type="nope")._module.model.rotary_emb is None
assert tiny.load("granitemoehybrid", position_embedding_type="rope")._module.model.rotary_emb is not None

block = model.config.layer_types.index("full_attention")
attention = model.layers[block].self_attn
with model.trace(prompt):
    h = model.layers[block].attention_norm_output.save()
    q = attention.attention_queries.save()
    scores = attention.attention_scores.save()
b, n, _ = h.shape
native = attention._module
assert torch.equal(native.q_proj(h).view(b, n, -1, native.head_dim).transpose(1, 2), q)
order = torch.cat([torch.arange(n - 2, -1, -1), torch.tensor([n - 1])])
with model.trace(prompt):
    model.layers[block].attention_norm_output[:] = h[:, order]
    shuffled = attention.attention_scores.save()
torch.testing.assert_close(shuffled[..., -1, :], scores[..., -1, order])   # the same dot products, reordered
```

## The scores are scaled by `attention_multiplier`, not by 1/√head_dim

`GraniteMoeHybridAttention.scaling` is `config.attention_multiplier` ("only diff with llama"): the scores are q · k · `attention_multiplier`, whatever the head width. On the tiny model it is 1/64 against heads of 16, whose 1/√16 would be 16 times larger. A pattern recomputed from `attention_queries` and `attention_keys` with the usual scale is far too sharp; `attention_scores` and `attention_probabilities` are the model's own.

```python
config = model.config
block = config.layer_types.index("full_attention")
attention = model.layers[block].self_attn
with model.trace(prompt):
    q = attention.attention_queries.save()
    k = attention.attention_keys.save()
    scores = attention.attention_scores.save()
k = k.repeat_interleave(q.shape[1] // k.shape[1], dim=1)
causal = torch.ones(q.shape[2], q.shape[2]).tril().bool()
assert attention._module.scaling == config.attention_multiplier != model.head_dim ** -0.5
torch.testing.assert_close((q @ k.transpose(-1, -2) * config.attention_multiplier)[..., causal], scores[..., causal])
```

## `residual_multiplier` scales both sublayers before their add, and the standard values are the scaled ones

The block adds `residual_multiplier` times the mixer's output, then `residual_multiplier` times the MLP slot's output: `out = mid + m · mlp(norm(mid))`, `mid = x + m · mixer(norm(x))`. nnterp's `attention_output` and `mlp_output` are the scaled contributions, what the stream receives, so `layer_input + attention_output == layer_mid` exactly; the attention's own output, before the multiplier, is `self_attn.output[0]` on the attention blocks. An activation patch or a direct-logit attribution computed from the attention's or the experts' own outputs is off by the multiplier, 0.22 on the tiny model.

```python
config = model.config
block = config.layer_types.index("full_attention")
layer = model.layers[block]
with model.trace(prompt):
    x = layer.layer_input.save()
    mix = layer.self_attn.attention_output.save()
    own = layer.self_attn.output[0].save()
    mid = layer.layer_mid.save()
    mlp = layer.mlp.mlp_output.save()
    out = layer.layer_output.save()

assert config.residual_multiplier != 1
assert torch.equal(mix, own * config.residual_multiplier) and torch.equal(x + mix, mid)
torch.testing.assert_close(mid + mlp, out)
```

## The MLP slot is the routed experts plus a shared MLP on every token, and the router softmaxes only its top-k

Every block's MLP slot adds `block_sparse_moe(h) + shared_mlp(h)`: the experts chosen by the router and a gated MLP of `shared_intermediate_size` that every token runs. `GraniteMoeHybridTopKRouter` takes the top `num_experts_per_tok` of `router_logits` (in float32) and softmaxes those logits among themselves, so `router_weights` sum to 1 at every position (a softmax over all experts taken first would give smaller weights). `mlp_output` is the sum, times `residual_multiplier`; the shared MLP's part is `shared_mlp.output`.

```python
config = model.config
block = 0
layer = model.layers[block]
with model.trace(prompt):
    h = layer.mlp_norm_output.save()
    logits = layer.mlp.router_logits.save()
    weights = layer.mlp.router_weights.save()
    choices = layer.mlp.router_choices.save()
    out = layer.mlp.mlp_output.save()

assert logits.dtype == torch.float32
top = logits.topk(config.num_experts_per_tok, dim=-1)
torch.testing.assert_close(top.values.softmax(-1), weights)
assert torch.equal(top.indices, choices)
torch.testing.assert_close(weights.sum(-1), torch.ones(weights.shape[:-1]))
native = layer._module
torch.testing.assert_close(config.residual_multiplier * (native.block_sparse_moe(h) + native.shared_mlp(h)), out)
```

## The stream starts at `embedding_multiplier` times the table, and the logits are divided by `logits_scaling`

`GraniteMoeHybridModel` multiplies the embedding rows by `embedding_multiplier` before the first block (12 on the tiny model), and `GraniteMoeHybridForCausalLM` divides `lm_head`'s output by `logits_scaling` (6 here). `token_embeddings` is the embedding module's output, the unscaled row, and `layers[0].input` the scaled one; `lm_head_output` is before the division and `logits` after it. `project_on_vocab` includes the division, so a logit lens reads each block on the model's own scale, while logits computed as `lm_head(norm(x))` alone are `logits_scaling` times too large: too confident a softmax.

```python
config = model.config
ids = model.tokenizer(prompt, return_tensors="pt").input_ids
with model.trace(prompt):
    tokens = model.token_embeddings.save()
    first = model.layers[0].layer_input.save()
    last = model.layers[-1].layer_output.save()
    head = model.lm_head_output.save()
    logits = model.logits.save()

assert torch.equal(tokens, model.embed_tokens(ids))
assert torch.equal(first, tokens * config.embedding_multiplier) and config.embedding_multiplier != 1
torch.testing.assert_close(logits, head / config.logits_scaling)
torch.testing.assert_close(model.project_on_vocab(last), logits)
```
'''
