"""Notes of Kimi Linear written by hand, added to the derived ones. Read against transformers' configuration_kimi_linear.py
(KimiLinearConfig.__post_init__: head_dim set to qk_rope_head_dim, layer_types from linear_attn_config's 1-indexed
full_attn_layers and kda_layers or else "full_attention" where i and i % 4 == 0, mlp_layer_types from
first_k_dense_replace) and modeling_kimi_linear.py (KimiLinearModel, which has no rotary and passes position_ids that
no block reads; KimiLinearAttention, MLA whose shared "rope" key part is never rotated, scaled by qk_head_dim^-0.5;
KimiLinearDeltaAttention with KimiLinearForgetGate's per-channel decay, the sigmoid beta, the low-rank sigmoid output
gate and conv1d used for its weight only; KimiLinearTopkRouter and KimiLinearMoE with its shared expert). No copy of
Kimi-Linear-48B-A3B-Instruct's config.json was found, so the numbers here are the config class's defaults, said as the
class's. The snippets run on the tiny Kimi Linear (a KDA block with a dense MLP, then an MLA block with experts)."""

LOAD = "eager"

MORE = r'''
## Without a list, MLA sits at blocks 4, 8, … 24; a checkpoint's list counts blocks from 1

`KimiLinearConfig` takes the block kinds from `linear_attn_config` when a config carries one: `full_attn_layers` and `kda_layers` number the blocks from 1, so `full_attn_layers` [4, 8] makes blocks 3 and 7 (0-indexed, as `model.layers` counts) the MLA blocks. A config with neither `layer_types` nor those lists gets the class's default, "full_attention" where i > 0 and i % 4 == 0: with the class's default 27 blocks, blocks 4, 8, 12, 16, 20 and 24 use MLA and the other 21 Kimi delta attention (KDA). The two conventions differ by one block: the same numbers mean different blocks in a listed config and in the default. The MLP slot follows `first_k_dense_replace` (1 by default): block 0 has the dense MLP, every later block the routed experts. Read `model.config.layer_types` and `model.config.mlp_layer_types`.

```python
from transformers import KimiLinearConfig

default = KimiLinearConfig()
assert default.num_hidden_layers == 27
assert [i for i, kind in enumerate(default.layer_types) if kind == "full_attention"] == [4, 8, 12, 16, 20, 24]
assert default.mlp_layer_types[0] == "dense" and set(default.mlp_layer_types[1:]) == {"sparse"}
listed = KimiLinearConfig(num_hidden_layers=8,
                          linear_attn_config={"full_attn_layers": [4, 8], "kda_layers": [1, 2, 3, 5, 6, 7]})
assert [i for i, kind in enumerate(listed.layer_types) if kind == "full_attention"] == [3, 7]   # 1-indexed in the list

for i, kind in enumerate(model.config.layer_types):   # the tiny model: KDA + dense, then MLA + experts
    mixer = type(model.layers[i]._module.self_attn).__name__
    assert mixer == {"linear_attention": "KimiLinearDeltaAttention", "full_attention": "KimiLinearAttention"}[kind]
```

## The MLA blocks have no positional encoding: the "rope" key part is never rotated, and `position_ids` reach no layer

`KimiLinearAttention` is DeepSeek's multi-head latent attention with the rotary taken out, and the model has no `rotary_emb`. Each key still has the two parts MLA gives it, `qk_nope_head_dim` numbers per head from `kv_b_proj` and `qk_rope_head_dim` numbers (64 by the class's default) that `kv_a_proj_with_mqa` produces once per position and every head shares, but that shared part is copied in as it is, never turned by a position. A query's score against a key therefore depends on the two vectors alone: the snippet shuffles the earlier positions of an MLA block's input, and the last query's scores come out shuffled the same way. `KimiLinearModel` computes `position_ids` and passes them to the MLA blocks, which ignore them: any `position_ids` give the same logits bit for bit, and the class's `max_position_embeddings` of 1048576 is read by no layer of the forward. The order of tokens reaches the stream only through the KDA blocks' causal convolution (`linear_conv_kernel_dim` taps, 4 by default) and their decaying state; with the class's default stack, blocks 0 to 3 are KDA blocks.

```python
from transformers import KimiLinearConfig

default = KimiLinearConfig()
assert (default.max_position_embeddings, default.qk_rope_head_dim, default.linear_conv_kernel_dim) == (1048576, 64, 4)
assert not any("rotary" in name for name, _ in model._module.named_modules())
i = model.config.layer_types.index("full_attention")
attention = model.layers[i].self_attn
with model.trace(prompt):
    h = attention.input.save()
    k = attention.attention_keys.save()
    scores = attention.attention_scores.save()
rope = k[..., -model.config.qk_rope_head_dim:]
assert torch.equal(rope, rope[:, :1].expand_as(rope))   # one shared part for every head
assert torch.equal(rope[0, 0], attention._module.kv_a_proj_with_mqa(h)[0, :, -model.config.qk_rope_head_dim:])   # unrotated
n = h.shape[1]
order = torch.cat([torch.arange(n - 2, -1, -1), torch.tensor([n - 1])])
with model.trace(prompt):
    attention.input[:] = h[:, order]
    shuffled = attention.attention_scores.save()
torch.testing.assert_close(shuffled[..., -1, :], scores[..., -1, order])

ids = model.tokenizer(prompt, return_tensors="pt").input_ids
with model.trace(ids):
    logits = model.logits.save()
with model.trace(ids, position_ids=torch.arange(ids.shape[1])[None] + 100000):
    shifted = model.logits.save()
assert torch.equal(logits, shifted)
```

## `config.head_dim` is the shared key part's width, which no head has; the scores scale by `qk_head_dim`^-0.5

`KimiLinearConfig` sets `head_dim` to `qk_rope_head_dim`, 64 with the class's defaults, though no query, key or value head is 64 wide: queries and keys are `qk_nope_head_dim` + `qk_rope_head_dim` = 128 + 64 = 192 per head (`qk_head_dim`), values `v_head_dim` = 128, and `o_proj` reads 32 · 128 numbers. Code that sizes heads from `config.head_dim` gets them wrong; nnterp's `model.head_dim` is `v_head_dim` and `model.qk_head_dim` is 192. The scores are q · k · `qk_head_dim`^-0.5 (1/√192 by default); a recomputation with `model.head_dim` ** -0.5 is too sharp. The KDA blocks have their own sizes, `linear_num_heads` heads of `linear_head_dim` (32 of 128 by default), read from `linear_attn_config`'s `num_heads` and `head_dim` when a config carries it.

```python
from transformers import KimiLinearConfig

default = KimiLinearConfig()
assert default.head_dim == default.qk_rope_head_dim == 64
assert (default.qk_head_dim, default.v_head_dim, default.num_attention_heads) == (192, 128, 32)
assert (default.linear_num_heads, default.linear_head_dim) == (32, 128)
assert model.head_dim == model.config.v_head_dim and model.qk_head_dim == model.config.qk_head_dim

i = model.config.layer_types.index("full_attention")
attention = model.layers[i].self_attn
with model.trace(prompt):
    q = attention.attention_queries.save()
    k = attention.attention_keys.save()
    scores = attention.attention_scores.save()
assert q.shape[-1] == model.qk_head_dim
causal = torch.ones(q.shape[2], q.shape[2]).tril().bool()
torch.testing.assert_close((q @ k.transpose(-1, -2) * model.qk_head_dim ** -0.5)[..., causal], scores[..., causal])
assert not torch.allclose((q @ k.transpose(-1, -2) * model.head_dim ** -0.5)[..., causal], scores[..., causal])
```

## Kimi delta attention decays its state per key channel, not per head

The KDA mixer is a gated delta rule like Gated DeltaNet's, with a finer forget gate: the decay is a vector over each head's key channels, computed from the token through a low-rank projection (`forget_gate.f_a_proj` to `linear_head_dim`, then `f_b_proj` back to all heads' channels), so each row of a head's state fades at its own rate. q, k and v go through a depthwise causal convolution (`conv1d`'s weight, the module itself never called) and silu; queries and keys are L2-normed per head, with the eps 1e-6 added inside the root:

```formula
g_t    = -exp(A_log[head]) · softplus(f_b_proj(f_a_proj(h_t)) + dt_bias)      one number per key channel
beta_t = sigmoid(b_proj(h_t))                                                  one per head, in (0, 1)
S_t    = diag(exp(g_t)) · S_{t-1} + k_t ⊗ beta_t · (v_t - (diag(exp(g_t)) · S_{t-1})ᵀ · k_t)
o_t    = S_tᵀ · q_t / √linear_head_dim
out    = o_proj(RMSNorm(o_t) · sigmoid(g_b_proj(g_a_proj(h_t))))                per head, o_norm's weight
```

Unlike OLMo Hybrid's DeltaNet, beta is not doubled and the output gate is a sigmoid, itself low-rank. No standard value sits inside the recurrence; the snippet recomputes the mixer from its weights step by step and gets `attention_output`, and with one decay per head (the channels' mean) it does not.

```python
import torch.nn.functional as F

block = model.config.layer_types.index("linear_attention")
mixer = model.layers[block].self_attn
with model.trace(prompt):
    h = model.layers[block].attention_norm_output.save()
    out = mixer.attention_output.save()

m = mixer._module
def kda(h, per_channel):
    b, n, _ = h.shape
    qkv = torch.cat([m.q_proj(h), m.k_proj(h), m.v_proj(h)], dim=-1).transpose(1, 2)
    qkv = F.silu(F.conv1d(qkv, m.conv1d.weight, None, padding=m.conv_kernel_size - 1, groups=qkv.shape[1])[..., :n])
    q, k, v = (x.reshape(b, n, -1, m.head_dim) for x in qkv.transpose(1, 2).split(m.qkv_dim, dim=-1))
    l2 = lambda x: x / torch.sqrt(x.pow(2).sum(-1, keepdim=True) + 1e-6)
    q, k = l2(q) * m.head_dim ** -0.5, l2(k)
    gate = m.forget_gate
    g = -gate.A_log.exp() * F.softplus((gate.f_b_proj(gate.f_a_proj(h)) + gate.dt_bias).view(b, n, -1, m.head_dim))
    if not per_channel:
        g = g.mean(-1, keepdim=True).expand_as(g)
    beta = m.b_proj(h).sigmoid()
    state, outs = torch.zeros(b, m.num_heads, m.head_dim, m.head_dim), []
    for t in range(n):
        state = state * g[:, t, :, :, None].exp()
        recalled = (state * k[:, t, :, :, None]).sum(-2)
        state = state + k[:, t, :, :, None] * (beta[:, t, :, None] * (v[:, t] - recalled))[:, :, None, :]
        outs.append((state * q[:, t, :, :, None]).sum(-2))
    o = m.o_norm(torch.stack(outs, 1), m.g_b_proj(m.g_a_proj(h)).view(b, n, -1, m.head_dim))
    return m.o_proj(o.reshape(b, n, -1))

assert m.forget_gate.f_a_proj.out_features == model.config.linear_head_dim
torch.testing.assert_close(kda(h, per_channel=True), out)
assert not torch.allclose(kda(h, per_channel=False), out, atol=1e-4)

try:
    with model.trace(prompt):
        mixer.conv1d.output.save()
except Exception as error:
    assert "ran past" in str(error)
else:
    raise AssertionError("the conv1d module ran")
```

## The routed weights sum to `routed_scaling_factor`, 2.446 by default, and a shared expert runs on every token

On the routed blocks the router (`gate`) scores every expert with a sigmoid of float32 logits; the choice is the top `num_experts_per_tok` of sigmoid + `e_score_correction_bias` (a buffer, not a parameter) within the best `topk_group` of `n_group` groups (one group by the class's default, so no restriction), and the weights are the chosen experts' sigmoid scores, divided by their sum and multiplied by `routed_scaling_factor`: with the class's default of 2.446, each position's `router_weights` sum to 2.446, not 1. The block then adds `shared_experts`, a gated MLP of `moe_intermediate_size` · `n_shared_experts` neurons that every token goes through with weight 1, so `mlp_output` is the shared expert's output plus the weighted routed ones; the class's default routes 8 of 256 experts per token.

```python
from transformers import KimiLinearConfig

default = KimiLinearConfig()
assert (default.routed_scaling_factor, default.num_local_experts, default.num_experts_per_tok) == (2.446, 256, 8)
assert (default.n_group, default.topk_group, default.n_shared_experts) == (1, 1, 1)

routed = model.config.mlp_layer_types.index("sparse")
mlp = model.layers[routed].mlp
native = mlp._module
assert "e_score_correction_bias" in dict(native.gate.named_buffers())
with model.trace(prompt):
    x = mlp.input.save()
    logits = mlp.router_logits.save()
    choices = mlp.router_choices.save()
    weights = mlp.router_weights.save()
    out = mlp.mlp_output.save()
scores = logits.sigmoid()
picked = scores.gather(-1, choices)
torch.testing.assert_close(weights, picked / picked.sum(-1, keepdim=True) * model.config.routed_scaling_factor)
torch.testing.assert_close(weights.sum(-1), torch.full(weights.shape[:-1], model.config.routed_scaling_factor))

flat = x.reshape(-1, x.shape[-1])
routed_part = native.experts(flat, choices.reshape(-1, choices.shape[-1]), weights.reshape(-1, weights.shape[-1]))
torch.testing.assert_close(routed_part.view_as(x) + native.shared_experts(x), out)
```

## What each kind of block serves

On a KDA block `self_attn` is the delta-attention mixer: `attention_norm_output` is `input_layernorm`'s output and `attention_output` is `o_proj`'s. The attention's interior (`attention_queries`, `attention_keys`, `attention_values`, `attention_scores`, `attention_probabilities`, `attention_head_outputs`, `attention_premix`) is not served there: a recurrent state has no scores or pattern, and the gated norm acts on each head before `o_proj`. On an MLA block the interior is served (scores and pattern under eager); `attention_queries_unrotated` is not, since no rotary exists to locate: the queries are `attention_queries` as they are. The MLP slot is independent of the mixer: the dense block serves the neurons and no router values, a routed block the router values and not the neurons. Both kinds are pre-norm with `post_attention_layernorm` before the MLP, so the block is x + mixer(norm(x)), then + mlp(norm(·)).

```python
for i, kind in enumerate(model.config.layer_types):
    routed = model.config.mlp_layer_types[i] == "sparse"
    for name in ("attention_queries", "attention_keys", "attention_values", "attention_scores",
                 "attention_probabilities", "attention_head_outputs", "attention_premix"):
        assert (model.serves(name, i) is None) == (kind == "full_attention")
    assert model.serves("attention_queries_unrotated", i) is not None
    for name in ("router_logits", "router_choices", "router_weights"):
        assert (model.serves(name, i) is None) == routed
    assert (model.serves("mlp_neurons", i) is None) == (not routed)

    layer = model.layers[i]
    with model.trace(prompt):
        x = layer.layer_input.save()
        mix = layer.self_attn.attention_output.save()
        mid = layer.layer_mid.save()
        mlp = layer.mlp.mlp_output.save()
        out = layer.layer_output.save()
    assert torch.equal(x + mix, mid) and torch.equal(mid + mlp, out)
```

## Left padding is exact: the KDA blocks zero the pads, and MLA reads no position

A left-padded row's tokens sit at later positions than they would alone. `KimiLinearDeltaAttention` multiplies its input by the padding mask before any projection, and none of its projections has a bias, so at a pad q, k and v are zero: the convolution's taps see the zeros it pads with anyway, and a zero key writes nothing into the state, which is still zero when the first real token arrives. The MLA blocks' mask hides the pads, and their scores depend on no position. The mixture of experts acts on each position alone. A left-padded row therefore gives, at its real tokens, the logits the prompt gives alone, up to float32 rounding; run without the mask, it does not.

```python
short = "The Eiffel"
assert model.tokenizer.padding_side == "left"
with model.trace([short, prompt]):
    batched = model.logits.save()
with model.trace(short):
    alone = model.logits.save()
n = alone.shape[1]
torch.testing.assert_close(batched[0, -n:], alone[0])

padded = model.tokenizer([short, prompt], padding=True, return_tensors="pt").input_ids
with model.trace(padded[:1]):
    unmasked = model.logits.save()
assert not torch.allclose(unmasked[0, -n:], alone[0], atol=1e-4)
```
'''
