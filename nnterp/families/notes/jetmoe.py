"""Notes of JetMoE written by hand, added to the derived ones. Read against transformers' modeling_jetmoe.py
(JetMoeMoA.map and reduce: per-expert query and output projections, routed by their own JetMoeTopKGating;
JetMoeAttention.forward: one kv_proj, keys and values tiled with repeat once per routed expert; JetMoeMoE and JetMoeMoA
each adding a bias; JetMoeDecoderLayer's norms built without the config's eps; JetMoeModel's final norm built with it)
and configuration_jetmoe.py (JetMoeConfig.__post_init__ filling num_attention_heads, which the forward never reads). No copy of a JetMoE
config.json with its source was found, so these notes state no checkpoint's number: what they say of the defaults is
JetMoeConfig's. The snippets run on the tiny JetMoE (4 experts, 2 per token, 2 key/value heads of 16)."""

LOAD = "eager"

MORE = r'''
## A kernel head is not an expert's head: which query expert fills a head changes from position to position

The attention is a mixture of attention heads. `self_attn.experts.router` picks `num_experts_per_tok` query experts per position, and each chosen expert projects the position's normed stream to `num_key_value_heads` query heads (`experts.input_linear`); the kernel receives them slot by slot, so heads 0 to `num_key_value_heads − 1` at position p are the queries of the expert ranked first at p, the next `num_key_value_heads` those of the expert ranked second. Head h of `attention_queries`, `attention_probabilities` or `attention_head_outputs` is therefore a different expert's head at different positions: "head 3 attends to the previous token" averages over whichever experts ranked first, and an ablation of kernel head 3 removes a different expert's head at each position. To study one expert's head, select the positions where the router put it in that slot. The snippet rebuilds the rotated queries from the experts' own projections and the router's ranking:

```python
from transformers.models.jetmoe.modeling_jetmoe import apply_rotary_pos_emb

with model.trace(prompt):
    normed = model.layers[0].attention_norm_output.save()
    queries = model.layers[0].self_attn.attention_queries.save()

moa = model._module.model.layers[0].self_attention.experts
kv, width, k = model.config.num_key_value_heads, model.config.kv_channels, model.config.num_experts_per_tok
rows = normed.view(-1, model.hidden_size)
ranked = moa.router.layer(rows).float().topk(k, dim=-1).indices               # [positions, slots]
assert len(set(ranked[:, 0].tolist())) > 1                                   # slot 0 is not one expert
built = torch.stack([torch.stack([moa.input_linear.weight[e] @ rows[p] for e in ranked[p].tolist()])
                     for p in range(rows.shape[0])])                          # [positions, slots, kv · width]
built = built.view(1, rows.shape[0], k * kv, width).transpose(1, 2)
cos, sin = model._module.model.rotary_emb(normed, torch.arange(rows.shape[0])[None])
built, _ = apply_rotary_pos_emb(built, built, cos, sin)
torch.testing.assert_close(built, queries)
```

## One set of keys and values, tiled by `repeat`: kernel head h reads key head h mod `num_key_value_heads`

`kv_proj` computes `num_key_value_heads` key and value heads once per position, shared by every query expert, and the attention tiles them with `repeat` once per routed expert before the kernel (which is told there is no grouping, `num_key_value_groups` 1). So `attention_keys` and `attention_values` have as many heads as the queries, the tiled copies identical, and kernel head h reads key head `h % num_key_value_heads`, not `h // group` as in grouped-query attention: code that undoes the tiling with a Llama-style `repeat_interleave` pairs the wrong heads. `model.num_kv_heads` counts the tiled heads.

```python
with model.trace(prompt):
    keys = model.layers[0].self_attn.attention_keys.save()
    values = model.layers[0].self_attn.attention_values.save()

kv = model.config.num_key_value_heads
assert keys.shape[1] == model.num_kv_heads == model.num_heads == kv * model.config.num_experts_per_tok
assert torch.equal(keys[:, kv:], keys[:, :kv]) and torch.equal(values[:, kv:], values[:, :kv])   # repeat
assert not torch.equal(keys, keys[:, :kv].repeat_interleave(model.config.num_experts_per_tok, dim=1))
assert model._module.model.layers[0].self_attention.num_key_value_groups == 1
```

## `num_attention_heads` is filled in, never read: the kernel always gets kv heads × experts per token, and they are wider than the stream

`JetMoeConfig` fills `num_attention_heads` with `num_key_value_heads × num_experts_per_tok` when the config does not give it (16 × 2 = 32 by `JetMoeConfig`'s defaults), but keeps a value that is given, and the forward never reads it: the kernel's heads are the routed experts' query heads, `num_key_value_heads` per chosen expert, whatever `config.num_attention_heads` says. A config.json carrying another value makes that attribute, and anything computed from it, wrong without changing the model. The heads are `kv_channels` wide (128 by default) and the scale is `kv_channels ** -0.5`. With `hidden_size` 2048, the kernel's heads side by side are 32 × 128 = 4096 wide, twice the stream: each expert's 16 heads are 2048, and each expert's own `output_linear`, not one `o_proj`, maps them back, so a head-output tensor cannot be reshaped into the stream's width and no single output projection exists to multiply it by.

```python
from transformers import JetMoeConfig
from nnterp import tiny

assert JetMoeConfig().num_attention_heads == 32 == 16 * 2
assert JetMoeConfig(num_attention_heads=99).num_attention_heads == 99                     # kept as given
assert JetMoeConfig().kv_channels * 32 == 4096 == 2 * JetMoeConfig().hidden_size
claimed = tiny.load("jetmoe", attn_implementation="eager", num_attention_heads=99)
with claimed.trace(prompt):
    queries = claimed.layers[0].self_attn.attention_queries.save()
assert queries.shape[1] == claimed.config.num_key_value_heads * claimed.config.num_experts_per_tok != 99
attention = model._module.model.layers[0].self_attention
assert attention.scaling == model.config.kv_channels ** -0.5
assert attention.experts.output_linear.weight.shape == (model.config.num_local_experts, model.hidden_size,
                                                       model.config.num_key_value_heads * model.config.kv_channels)
```

## Two routers per block, on two different norms: `router_*` are the MLP's

Each block routes twice. The attention's router (`self_attn.experts.router`) reads `input_layernorm(x)` and picks the query experts; the MLP's (`mlp.router`) reads `post_attention_layernorm(layer_mid)` and picks the feed-forward experts. They are separate matrices over separate inputs, so a token's attention experts and MLP experts are unrelated choices. `router_logits`, `router_choices` and `router_weights` are the MLP's routing; the attention's is not a standard value and is recomputed from its router, as here:

```python
with model.trace(prompt):
    attention_in = model.layers[0].attention_norm_output.save()
    mlp_in = model.layers[0].mlp_norm_output.save()
    logits = model.layers[0].mlp.router_logits.save()

block = model._module.model.layers[0]
assert block.self_attention.experts.router.layer is not block.mlp.router.layer
torch.testing.assert_close(logits.view(-1, logits.shape[-1]).float(),
                           block.mlp.router.layer(mlp_in.view(-1, model.hidden_size)).float())
attention_logits = block.self_attention.experts.router.layer(attention_in.view(-1, model.hidden_size))
assert (attention_logits - logits.view_as(attention_logits)).abs().max() > 1e-3
```

## Both sublayers add a learned bias at every position

`JetMoeMoA.reduce` adds `self_attn.experts.bias` after summing the gated expert outputs, and `JetMoeMoE` adds `mlp.bias` after its experts: every block writes two constant vectors into the stream at every position, whatever the routing, on top of what its experts compute. `attention_output` and `mlp_output` include them; a mean-ablation or a zero-ablation of the experts leaves the bias, and a direct-logit attribution of a block has an input-independent part. The MLP's write is its two chosen experts (`input_linear[e]`, gate rows first, then `output_linear[e]`), weighted by a softmax over their two logits, plus the bias:

```python
with model.trace(prompt):
    x = model.layers[0].mlp.input.save()
    weights = model.layers[0].mlp.router_weights.save()
    choices = model.layers[0].mlp.router_choices.save()
    out = model.layers[0].mlp.mlp_output.save()

mlp = model._module.model.layers[0].mlp
size = model.config.intermediate_size
rows, k = x.view(-1, model.hidden_size), choices.shape[-1]
total = torch.zeros_like(rows)
for p in range(rows.shape[0]):
    for slot in range(k):
        e = int(choices.view(-1, k)[p, slot])
        gate, up = (mlp.input_linear.weight[e] @ rows[p]).chunk(2)
        total[p] += weights.view(-1, k)[p, slot] * (mlp.output_linear.weight[e] @ (torch.nn.functional.silu(gate) * up))
torch.testing.assert_close(total + mlp.bias, out.view(-1, model.hidden_size))
assert mlp.bias.abs().max() > 0 and model._module.model.layers[0].self_attention.experts.bias.shape == (model.hidden_size,)
```

## `rms_norm_eps` reaches only the final norm: the blocks' norms use 1e-6

`JetMoeDecoderLayer` builds `input_layernorm` and `post_attention_layernorm` as `JetMoeRMSNorm(hidden_size)`, without the config's eps, so they always use the class's 1e-6; only the final `norm` is built with `rms_norm_eps`. A config that sets another eps (the key is `JetMoeConfig`'s, 1e-6 by default) changes the last norm and nothing else. The two coincide at the default; with any other value, recomputing a block's norm with `config.rms_norm_eps` gives another tensor than the model's:

```python
from nnterp import tiny

other = tiny.load("jetmoe", attn_implementation="eager", rms_norm_eps=1e-2)
block = other._module.model.layers[0]
assert block.input_layernorm.variance_epsilon == block.post_attention_layernorm.variance_epsilon == 1e-6
assert other._module.model.norm.variance_epsilon == 1e-2
with other.trace(prompt):
    x = other.layers[0].layer_input.save()
    normed = other.layers[0].attention_norm_output.save()

def rms(t, eps):
    return t * torch.rsqrt(t.pow(2).mean(-1, keepdim=True) + eps) * block.input_layernorm.weight

torch.testing.assert_close(rms(x, 1e-6), normed)
assert (rms(x, 1e-2) - normed).abs().max() > 1e-3
```
'''
