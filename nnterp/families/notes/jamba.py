"""Notes of Jamba written by hand, added to the derived ones. Read against transformers' configuration_jamba.py
(JambaConfig.layers_block_type and layers_num_experts from the attn_/expert_layer_period and _offset keys,
mamba_dt_rank "auto") and modeling_jamba.py (JambaAttention, which has no rotary; JambaModel, which computes
position_ids and passes them to blocks that ignore them; JambaMambaMixer with its dt, B and C RMSNorms, the
dt_proj weight applied by hand and its bias added in the scan, apply_mask_to_padding_states; JambaTopKRouter's
top-k of a softmax, not renormalized; JambaExperts). The snippets run on the tiny Jamba (block 0 a Mamba block with
a dense MLP, block 1 an attention block with a mixture of experts), on the torch reference path of the scan and the
conv. The derived mixer note is replaced: the mixer notes here contain its facts."""

LOAD = "eager"

DROP = ("ssm_note",)

MORE = r'''
## One block in eight mixes with attention, the other seven with a Mamba mixer, and no attention block has experts

`JambaConfig.layers_block_type` makes block i an attention block where `i % attn_layer_period == attn_layer_offset` and a Mamba block otherwise; `layers_num_experts` puts a mixture of experts in block i's MLP slot where `i % expert_layer_period == expert_layer_offset`. Jamba-v0.1's config.json sets the periods 8 and 2 and the offsets 4 and 1: of its 32 blocks, 4, 12, 20 and 28 use attention and the other 28 a Mamba mixer, and the 16 odd blocks carry the 16-expert MoE. Because every attention block is even, none of them has experts: an attention block is always followed by the dense gated MLP, and the first four blocks a prompt meets (0 to 3) are Mamba blocks. The two block classes are `JambaAttentionDecoderLayer` (its mixer `self_attn`) and `JambaMambaDecoderLayer` (its mixer `mamba`, which nnterp serves as `self_attn`), both with the MLP slot `feed_forward` (served as `mlp`).

```python
from transformers import JambaConfig

facts = released("ai21labs/Jamba-v0.1")
assert (facts["attn_layer_period"], facts["attn_layer_offset"]) == (8, 4)
assert (facts["expert_layer_period"], facts["expert_layer_offset"]) == (2, 1) and facts["num_experts"] == 16
config = JambaConfig(**facts)
kinds, experts = config.layers_block_type, config.layers_num_experts
assert [i for i, kind in enumerate(kinds) if kind == "attention"] == [4, 12, 20, 28]
assert [i for i, n in enumerate(experts) if n > 1] == list(range(1, 32, 2))
assert all(experts[i] == 1 for i, kind in enumerate(kinds) if kind == "attention")

for i, kind in enumerate(model.config.layers_block_type):   # the tiny model: mamba, then attention
    block = model.layers[i]._module
    assert type(block).__name__ == {"attention": "JambaAttentionDecoderLayer", "mamba": "JambaMambaDecoderLayer"}[kind]
    assert (model.serves("attention_scores", i) is None) == (kind == "attention")
```

## The attention layers have no positional encoding at all

`JambaAttention` projects the normed stream to queries, keys and values and hands them to the attention kernel as they are: there is no rotary, no `rotary_emb` in the model, no position bias and no position embedding added to the tokens. A query's score against a key depends on the two vectors alone, not on how far apart they are, so each attention block treats the tokens before a query as a set. The snippet feeds block 1's attention its own normed input with the earlier positions shuffled: the last query's scores come out shuffled the same way, and its output is unchanged up to the rounding of a sum taken in another order. `attention_queries` and `attention_queries_unrotated` are the same tensor. Everything the attention knows of order comes from the Mamba blocks before it (the conv and the scan are causal and order-dependent), and on Jamba-v0.1 four Mamba blocks precede the first attention block.

```python
attention_block = next(i for i in range(model.num_layers) if model.serves("attention_scores", i) is None)
layer = model.layers[attention_block]
assert not any("rotary" in name for name, _ in model._module.named_modules())
with model.trace(prompt):
    h = layer.attention_norm_output.save()
    q = layer.self_attn.attention_queries.save()
    q_unrotated = layer.self_attn.attention_queries_unrotated.save()
    scores = layer.self_attn.attention_scores.save()
    out = layer.self_attn.attention_output.save()
assert torch.equal(q, q_unrotated)

n = h.shape[1]
order = torch.cat([torch.arange(n - 2, -1, -1), torch.tensor([n - 1])])   # earlier positions reversed, last kept
with model.trace(prompt):
    layer.attention_norm_output[:] = h[:, order]
    shuffled_scores = layer.self_attn.attention_scores.save()
    shuffled_out = layer.self_attn.attention_output.save()

torch.testing.assert_close(shuffled_scores[..., -1, :], scores[..., -1, order])   # the same dot products, reordered
torch.testing.assert_close(shuffled_out[:, -1], out[:, -1])
```

## `position_ids` are computed and passed to every block, and no block reads them

`JambaModel.forward` builds `position_ids` (an arange past the cached length) and passes them down, and `JambaAttentionDecoderLayer` forwards them to the attention, which ignores them; the Mamba blocks do not take them. Any `position_ids` therefore give the same logits, bit for bit: there is no position to shift, extend or interpolate, and Jamba-v0.1's `max_position_embeddings` of 262144 is read by no layer of the forward. A tool that edits positions (rotary scaling, position interpolation, reindexing a cache) does nothing on this family.

```python
assert released("ai21labs/Jamba-v0.1")["max_position_embeddings"] == 262144
ids = model.tokenizer(prompt, return_tensors="pt").input_ids
with model.trace(ids):
    logits = model.logits.save()
with model.trace(ids, position_ids=torch.arange(ids.shape[1])[None] + 100000):
    shifted = model.logits.save()
assert torch.equal(logits, shifted)
```

## What each kind of block serves

The standard values follow the block's kind. On a Mamba block, `self_attn` is the Mamba mixer: `attention_norm_output` is `input_layernorm`'s output, what the mixer reads, and `attention_output` is `out_proj`'s output, what it adds; the attention's interior (`attention_queries`, `attention_scores`, `attention_probabilities`, `attention_head_outputs`) is not served there, since a scan has no queries, keys, heads or pattern. On an attention block the interior is served; the scores and the pattern need `attn_implementation="eager"`. On a mixture-of-experts block, `router_logits`, `router_weights` and `router_choices` are served and the neurons are not (each position's are those of its two experts, inside `JambaExperts`); a dense block serves the neurons and no router values. Both kinds have `pre_ff_layernorm` between the two sublayers, so `layer_mid` and `mlp_norm_output` exist on every block, and the block is `x + mixer(norm(x))`, then `+ mlp(norm(·))`.

```python
for i, kind in enumerate(model.config.layers_block_type):
    moe = model.config.layers_num_experts[i] > 1
    for name in ("attention_queries", "attention_scores", "attention_probabilities", "attention_head_outputs"):
        assert (model.serves(name, i) is None) == (kind == "attention")
    for name in ("router_logits", "router_weights", "router_choices"):
        assert (model.serves(name, i) is None) == moe
    assert (model.serves("mlp_neurons", i) is None) == (not moe)

    layer = model.layers[i]
    with model.trace(prompt):
        x = layer.layer_input.save()
        mix = layer.self_attn.attention_output.save()
        mid = layer.layer_mid.save()
        mlp = layer.mlp.mlp_output.save()
        out = layer.layer_output.save()
    assert torch.equal(x + mix, mid) and torch.equal(mid + mlp, out)
```

## The Mamba mixer normalizes dt, B and C with three RMSNorms the stream never sees

`JambaMambaMixer` is Mamba's mixer with one addition: after `x_proj` splits the conv branch into the low-rank step `dt` and the state's input and output maps `B` and `C`, each goes through an RMSNorm of its own (`dt_layernorm`, `b_layernorm`, `c_layernorm`, each with a learned weight and `rms_norm_eps`, 1e-06 on Jamba-v0.1). Then `dt_proj`'s weight lifts `dt` to one step per channel, its bias is added inside the scan, and softplus makes the step positive:

```formula
x, z   = in_proj(h)                                   conv branch, gate
x      = silu(causal_conv1d(x))
dt,B,C = x_proj(x);  dt, B, C = rms(dt), rms(B), rms(C)
dt     = softplus(dt_proj.weight · dt + dt_proj.bias)
h[t]   = exp(dt[t] · A) · h[t-1] + dt[t] · B[t] · x[t]        A = -exp(A_log)
y[t]   = C[t] · h[t] + D · x[t];  out = out_proj(y · silu(z))
```

On Jamba-v0.1, `mamba_expand` 2 makes 8192 channels, `mamba_d_state` is 16, `mamba_d_conv` 4, and the step's rank is 256 (`hidden_size / 16`), so `x_proj` maps 8192 channels to 256 + 2 · 16 = 288 numbers per position and `dt_layernorm` is 256 wide. None of these norms is a standard value, and a lens or a patch on the stream never meets them; because `B` and `C` are unit-RMS before their weights, their size is set by the weights of `b_layernorm` and `c_layernorm`, not by the input. The snippet recomputes the mixer from its weights and gets `attention_output` exactly; without the three norms it does not.

```python
import torch.nn.functional as F
from transformers import JambaConfig

facts = released("ai21labs/Jamba-v0.1")
config = JambaConfig(**facts)
assert (facts["mamba_expand"] * facts["hidden_size"], facts["mamba_d_state"], facts["mamba_d_conv"]) == (8192, 16, 4)
assert config.mamba_dt_rank == 256 and facts["rms_norm_eps"] == 1e-06

layer = model.layers[0]
with model.trace(prompt):
    h = layer.attention_norm_output.save()
    out = layer.self_attn.attention_output.save()

m = layer.self_attn._module
def mixer(h, normed):
    n = h.shape[1]
    x, z = m.in_proj(h).transpose(1, 2).chunk(2, dim=1)
    x = F.silu(F.conv1d(x, m.conv1d.weight, m.conv1d.bias, padding=m.conv_kernel_size - 1, groups=x.shape[1])[..., :n])
    dt, B, C = m.x_proj(x.transpose(1, 2)).split([m.time_step_rank, m.ssm_state_size, m.ssm_state_size], dim=-1)
    if normed:
        dt, B, C = m.dt_layernorm(dt), m.b_layernorm(B), m.c_layernorm(C)
    dt = F.softplus(dt @ m.dt_proj.weight.T + m.dt_proj.bias)
    A = -torch.exp(m.A_log)
    state, ys = torch.zeros(x.shape[0], x.shape[1], A.shape[1]), []
    for t in range(n):
        state = torch.exp(dt[:, t, :, None] * A) * state + dt[:, t, :, None] * B[:, t, None, :] * x[:, :, t, None]
        ys.append((state @ C[:, t, :, None])[..., 0] + m.D * x[:, :, t])
    return m.out_proj(torch.stack(ys, 1) * F.silu(z.transpose(1, 2)))

torch.testing.assert_close(mixer(h, normed=True), out)
assert not torch.allclose(mixer(h, normed=False), out, atol=1e-4)
```

## `conv1d` and `dt_proj` are never called: hooks on them never fire

The mixer uses `conv1d` and `dt_proj` only for their weights: the conv runs as `causal_conv1d_fn(x, conv1d.weight, conv1d.bias, activation)` (a CUDA kernel where `causal_conv1d` is installed, `F.conv1d` otherwise), and `dt_proj.weight @ dt` is a plain product whose bias is added inside the scan. The forward's `force_accelerate_hooks(["conv1d", "dt_proj"])` fires only accelerate's device hooks. `mamba.conv1d.output` and `mamba.dt_proj.output` are therefore never produced, and nnsight reports a read of them as a value the model "already ran past"; a hook-based tool that patches either changes nothing. The conv branch after its silu is `x_proj`'s input, and `in_proj`, `x_proj` and `out_proj` are called as modules.

```python
import torch.nn.functional as F

mixer = model.layers[0].self_attn
with model.trace(prompt):
    xz = mixer.in_proj.output.save()
    conv_out = mixer.x_proj.input.save()

m, n = mixer._module, xz.shape[1]
x = xz.transpose(1, 2).chunk(2, dim=1)[0]
causal = F.conv1d(x, m.conv1d.weight, m.conv1d.bias, padding=m.conv_kernel_size - 1, groups=x.shape[1])[..., :n]
assert torch.equal(F.silu(causal).transpose(1, 2), conv_out)

for never in (mixer.conv1d, mixer.dt_proj):
    try:
        with model.trace(prompt):
            never.output.save()
    except Exception as error:
        assert "ran past" in str(error)
    else:
        raise AssertionError("the module ran")
```

## The router's two weights are softmax probabilities over all experts, never renormalized

`JambaTopKRouter` takes a float32 softmax of `router_logits` over all `num_experts` experts (16 on Jamba-v0.1) and keeps the top `num_experts_per_tok` (2) probabilities as they are: `router_weights` sums to less than 1 at every position, and the MoE block's output is Σ w_e · expert_e(x) with those weights. Mixtral-style code that renormalizes the top-2 weights to sum to 1 computes another output: larger by 1 / (w₁ + w₂) at every position. Each expert is `down_proj[e] · (silu(gate) · up)` from the fused `gate_up_proj[e]`.

```python
import torch.nn.functional as F

facts = released("ai21labs/Jamba-v0.1")
assert (facts["num_experts"], facts["num_experts_per_tok"]) == (16, 2)
block = next(i for i, n in enumerate(model.config.layers_num_experts) if n > 1)
moe = model.layers[block].mlp
with model.trace(prompt):
    h = model.layers[block].mlp_norm_output.save()
    logits = moe.router_logits.save()
    weights = moe.router_weights.save()
    choices = moe.router_choices.save()
    out = moe.mlp_output.save()

top = logits.float().softmax(-1).topk(model.config.num_experts_per_tok, dim=-1)
assert torch.equal(top.values, weights) and torch.equal(top.indices, choices)
assert (weights.sum(-1) < 1).all()

experts = moe._module.experts
def expert(e, x):
    gate, up = F.linear(x, experts.gate_up_proj[e]).chunk(2, dim=-1)
    return F.linear(F.silu(gate) * up, experts.down_proj[e])
mixed = sum(weights[0, :, k, None] * torch.stack([expert(int(e), h[0, t]) for t, e in enumerate(choices[0, :, k])])
            for k in range(choices.shape[-1]))
torch.testing.assert_close(mixed, out[0])
```

## Left padding is exact: padded positions feed zeros to the mixers and no layer reads a position

A batch is left-padded, so a short row's tokens sit at later positions than they would alone. On a rotary model that moves the row's positions; here nothing reads positions (above), and `JambaMambaMixer` multiplies its input by the attention mask before `in_proj` and the conv branch by it again after the conv, so a pad adds nothing to the conv window or the scan's state, and the attention blocks mask the pads out. A left-padded row therefore gives, at its real tokens, the logits the prompt gives alone, up to float32 rounding. Without the mask the pads run as tokens, and their state changes what follows.

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
with model.trace(padded[:1]):                         # no attention mask: the pads count as tokens
    unmasked = model.logits.save()
assert not torch.allclose(unmasked[0, -n:], alone[0], atol=1e-4)
```
'''
