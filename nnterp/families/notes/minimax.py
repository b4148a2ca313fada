"""Notes of MiniMax-Text-01 written by hand, added to the derived ones. Read against transformers' modeling_minimax.py
(MiniMaxDecoderLayer: the residual is input_layernorm's output times the alpha factor, the attention chosen by
config.layer_types; MiniMaxLightningAttention: silu'd qkv_proj, the block-wise linear attention with per-head
exponential decay from get_slope_rate and decay_factors, the RMSNorm over all heads, the sigmoid output_gate, out_proj,
and its second output, the running key-value state; MiniMaxAttention, the only one that applies the rotary) and
configuration_minimax.py (MiniMaxConfig.__post_init__'s alternating layer_types). No copy of a MiniMax-Text-01
config.json with its source was found, so these notes state no checkpoint's number: what they say of the defaults is
MiniMaxConfig's. The snippets run on the tiny MiniMax (two blocks, softmax then lightning, 4 heads of 16), or a
four-block one where a note needs a lightning block that is not the last."""

LOAD = "eager"

MORE = r'''
## Which blocks are lightning: `layer_types`, alternating by default, and MiniMax's own `attn_type_list` is not read

`MiniMaxDecoderLayer` builds a `MiniMaxLightningAttention` where `config.layer_types[i]` is `"linear_attention"` and a softmax `MiniMaxAttention` where it is `"full_attention"`. When the config gives no `layer_types`, `MiniMaxConfig` alternates them, softmax at even indices and lightning at odd ones, one in two. Configs written for MiniMax's own code can describe the stack with another key, `attn_type_list` (one entry per block, 0 for lightning, 1 for softmax); `MiniMaxConfig` keeps it as an attribute and never reads it, so a config.json that carries only that key loads as the alternation, whatever its list says. Check `config.layer_types` before reading a block. On a lightning block the attention's interior has no scores and no pattern: `attention_queries`, `attention_keys`, `attention_values`, `attention_scores` and `attention_probabilities` are unavailable there, while `attention_output`, `layer_mid` and the MLP's values are served on every block.

```python
from transformers import MiniMaxConfig

seven_to_one = MiniMaxConfig(num_hidden_layers=8, attn_type_list=[0] * 7 + [1])
assert seven_to_one.layer_types == ["full_attention", "linear_attention"] * 4       # the list is ignored
assert model.config.layer_types == ["full_attention", "linear_attention"]
kinds = [type(block.self_attn).__name__ for block in model._module.model.layers]
assert kinds == ["MiniMaxAttention", "MiniMaxLightningAttention"]
assert model.serves("attention_probabilities", 0) is None and model.serves("attention_probabilities", 1) is not None
assert model.serves("attention_output", 1) is None and model.serves("layer_mid", 1) is None
```

## A lightning block computes a decayed, unnormalized sum over earlier positions, then norms and gates it

`MiniMaxLightningAttention` projects the normed stream with one `qkv_proj`, applies silu to all three, and splits each head's slice into q, k and v (`head_dim` each). Position i of head h then receives `o_i = Σ_{j ≤ i} exp(−r_h·(i − j)) (q_i · k_j) v_j`: no softmax, no 1/√d scale and no division by the weights' sum, so a position's output grows with the number of positions before it. The block-wise loop (`block_size` 256) computes exactly this, within a block by a decayed product and across blocks by a carried state. The heads side by side then go through one RMSNorm over all of them (`self_attn.norm`, eps 1e-6 whatever `rms_norm_eps` says), are multiplied by `sigmoid(output_gate(x))`, a gate computed from the block's normed input, and leave through `out_proj`. The snippet rebuilds the output of a lightning block from these pieces:

```python
from nnterp import tiny

deep = tiny.load("minimax", attn_implementation="eager", num_hidden_layers=4)
lightning = deep._module.model.layers[1].self_attn
deep.instrument()
with deep.trace(prompt):
    normed = deep.layers[1].attention_norm_output.save()
    native = deep.layers[1].self_attn.output[0].save()

heads, d = deep.config.num_attention_heads, deep.config.head_dim
b, n, _ = normed.shape
qkv = torch.nn.functional.silu(lightning.qkv_proj(normed)).view(b, n, heads, 3 * d)
q, k, v = (t.transpose(1, 2) for t in qkv.split(d, dim=-1))            # [b, heads, n, d]
distance = torch.arange(n)[:, None] - torch.arange(n)[None, :]
decay = torch.where(distance >= 0, torch.exp(-lightning.slope_rate * distance.clamp(min=0)), torch.zeros(()))
o = ((q @ k.transpose(-1, -2)) * decay) @ v                             # no softmax, no scale
o = lightning.norm(o.transpose(1, 2).reshape(b, n, heads * d))
rebuilt = lightning.out_proj(torch.sigmoid(lightning.output_gate(normed)) * o)
torch.testing.assert_close(rebuilt, native, rtol=1e-4, atol=1e-5)
assert lightning.norm.variance_epsilon == 1e-6
```

## In a lightning block position comes only from the decay, and the deepest blocks barely decay

The rotary is applied in the softmax blocks only: the lightning attention receives the position embeddings and does not use them. Order reaches a lightning block solely through the decay `exp(−r_h·(i − j))`. Its rates are ALiBi's slopes scaled by depth: `r_h = (2^(−8/H))^(h+1) · (1 − l / (L − 1))` for head h of H in block l of L, so the first heads forget fastest, and the factor falls from 1 at the first block to about 1e-5 at block L − 1. By `MiniMaxConfig`'s defaults (32 blocks, alternating) block 31 is a lightning block with no decay to speak of: its output at a position is the same for any order of the positions before it, a bag of earlier tokens. The snippet permutes the earlier positions of the input of the tiny model's last block (a lightning block, block L − 1) and of a lightning block placed earlier:

```python
from nnterp import tiny

last = model._module.model.layers[-1].self_attn
heads = model.config.num_attention_heads
expected = (2 ** (-8 / heads)) ** torch.arange(1, heads + 1) * (1 - 1 / (1 + 1e-5) + 1e-5)
torch.testing.assert_close(last.slope_rate.flatten(), expected.float())
assert last.slope_rate.max() < 1e-5

x = torch.randn(1, 12, model.hidden_size)
shuffled = torch.cat([x[:, :-1].flip(1), x[:, -1:]], dim=1)               # earlier positions reversed
same = last(x, position_embeddings=None, attention_mask=None)[0][:, -1]
torch.testing.assert_close(last(shuffled, position_embeddings=None, attention_mask=None)[0][:, -1], same,
                           rtol=1e-3, atol=1e-4)                            # order-blind

early = tiny.load("minimax", attn_implementation="eager", num_hidden_layers=4)._module.model.layers[1].self_attn
assert early.slope_rate.max() > 0.1
moved = (early(shuffled, position_embeddings=None, attention_mask=None)[0][:, -1]
         - early(x, position_embeddings=None, attention_mask=None)[0][:, -1])
assert moved.abs().max() > 1e-3                                             # an earlier block still sees order
```

## A lightning block's second output is its key-value state, not attention weights

Where a softmax attention returns its pattern as its second output, `MiniMaxLightningAttention` returns `attn_weights_inter`, the running state `S = Σ_j exp(−r_h·(n − j)) k_j v_jᵀ` after the call's last position, [batch, heads, head_dim, head_dim]: what the next position would be read against, and what the cache carries. Code that collects "attentions" from every block gets a [heads, d, d] matrix from each lightning block, with no position axis. Where the decay vanishes (the tiny model's last block) the state is the plain sum of the outer products:

```python
model.instrument()
with model.trace(prompt):
    normed = model.layers[1].attention_norm_output.save()
    second = model.layers[1].self_attn.output[1].save()

heads, d = model.config.num_attention_heads, model.config.head_dim
assert second.shape == (1, heads, d, d)
lightning = model._module.model.layers[1].self_attn
b, n, _ = normed.shape
qkv = torch.nn.functional.silu(lightning.qkv_proj(normed)).view(b, n, heads, 3 * d)
_, k, v = (t.transpose(1, 2) for t in qkv.split(d, dim=-1))
torch.testing.assert_close(second, k.transpose(-1, -2) @ v, rtol=1e-3, atol=1e-4)
```

## A block forgets the size of its input: the stream it carries is the normed input

`MiniMaxDecoderLayer` normalizes its input first and carries that, not the input: `h = input_layernorm(x)·α_attn + attn·β_attn`, then `out = post_attention_layernorm(h)·α_mlp + mlp·β_mlp` (every α and β is 1 by `MiniMaxConfig`'s defaults; the family module's variant checks other values). Nothing of x survives but its direction, so `layer_output` does not change when `layer_input` is scaled, and a vector added to the stream before a block is renormalized with it rather than added to what the block writes. There is no running sum of the blocks' writes across the depth as in a pre-norm model: `layer_output` of block i is a normed stream plus block i's MLP write, and a lens or an attribution that sums contributions over blocks does not apply.

```python
with model.trace(prompt):
    out = model.layers[1].layer_output.save()
with model.trace(prompt):
    model.layers[1].layer_input[:] = model.layers[1].layer_input * 10
    out_10 = model.layers[1].layer_output.save()

torch.testing.assert_close(out_10, out, rtol=1e-4, atol=1e-5)
with model.trace(prompt):
    x = model.layers[0].layer_input.save()
    attn = model.layers[0].self_attn.attention_output.save()
    mid = model.layers[0].layer_mid.save()
block = model._module.model.layers[0]
torch.testing.assert_close(block.input_layernorm(x) * block.attn_alpha_factor + attn, mid)
assert (x + attn - mid).abs().max() > 1e-3                                  # not x plus the attention
```

## The router is a softmax over every expert, renormalized over the chosen

`MiniMaxSparseMoeBlock`'s router (`mlp.gate`) takes the softmax of all `num_local_experts` logits, keeps the `num_experts_per_tok` largest probabilities and divides them by their sum (8 experts, 2 per token by `MiniMaxConfig`'s defaults), so the chosen weights equal a softmax over the chosen logits alone and the unchosen experts' scores do not enter them. Every block, lightning or softmax, has the same MoE; the block adds it times `mlp_beta_factor`, and `mlp_output` is that product. The write is rebuilt from the experts' slices (`gate_up_proj[e]`, gate rows first, and `down_proj[e]`):

```python
with model.trace(prompt):
    x = model.layers[1].mlp.input.save()
    logits = model.layers[1].mlp.router_logits.save()
    weights = model.layers[1].mlp.router_weights.save()
    choices = model.layers[1].mlp.router_choices.save()
    out = model.layers[1].mlp.mlp_output.save()

k = choices.shape[-1]
torch.testing.assert_close(weights.view(-1, k), logits.view(-1, logits.shape[-1]).gather(-1, choices.view(-1, k)).softmax(-1))
experts = model._module.model.layers[1].mlp.experts
size = model.config.intermediate_size
rows = x.view(-1, model.hidden_size)
total = torch.zeros_like(rows)
for p in range(rows.shape[0]):
    for slot in range(k):
        e = int(choices.view(-1, k)[p, slot])
        gate, up = experts.gate_up_proj[e][:size] @ rows[p], experts.gate_up_proj[e][size:] @ rows[p]
        total[p] += weights.view(-1, k)[p, slot] * (experts.down_proj[e] @ (torch.nn.functional.silu(gate) * up))
torch.testing.assert_close(model.config.mlp_beta_factor * total, out.view(-1, model.hidden_size))
```
'''
