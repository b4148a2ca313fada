"""Notes of OLMo Hybrid written by hand, added to the derived ones. Read against transformers' configuration_olmo_hybrid.py
(OlmoHybridConfig.__post_init__: the default layer_types, full attention where i % 4 == 3, the linear head sizes filled
from hidden_size; validate_architecture, which wants both kinds of block) and modeling_olmo_hybrid.py
(OlmoHybridModel, which builds rotary_emb only when rope_parameters carries a rope_theta and comments that the released
checkpoints use none; OlmoHybridAttention, which skips the rotary when it gets no position embeddings and normalizes
queries and keys over all heads at once; OlmoHybridGatedDeltaNet, with its separate q/k/v/a/b/g projections, the silu
short convolution run on conv1d's weight, the L2-normed queries and keys, beta doubled under linear_allow_neg_eigval,
the decay -exp(A_log)·softplus(a + dt_bias) and the gated RMSNorm o_norm; the two decoder layer classes, pre-norm and
post-norm). No copy of Olmo-Hybrid-7B's config.json was found, so the numbers here are the config class's defaults,
said as the class's. The snippets run on the tiny OLMo Hybrid (a DeltaNet block, then an attention block). The derived
rotary note is replaced by the note on when the attention rotates."""

LOAD = "eager"

DROP = ("rotary_note",)

MORE = r'''
## Three blocks in four run a gated DeltaNet, the fourth attends, and a config must have both

`OlmoHybridConfig` builds `layer_types` when a config does not list it: "full_attention" where i % 4 == 3 and "linear_attention" elsewhere, so with the class's default 32 blocks, blocks 3, 7, 11, …, 31 attend (8 of 32) and every attention block follows three DeltaNet blocks; the first attention a prompt meets is at block 3. The two kinds are different classes: `OlmoHybridLinearAttentionDecoderLayer` (its mixer `linear_attn`, an `OlmoHybridGatedDeltaNet`, served as `self_attn`) and `OlmoHybridAttentionDecoderLayer` (its mixer `self_attn`, an `OlmoHybridAttention`). The config refuses a stack of one kind: all attention raises "at least one 'linear_attention' layer", all DeltaNet "at least one attention layer", and a stack too short to reach block 3 has its last block made an attention block.

```python
from transformers import OlmoHybridConfig

default = OlmoHybridConfig()
assert default.num_hidden_layers == 32
assert [i for i, kind in enumerate(default.layer_types) if kind == "full_attention"] == list(range(3, 32, 4))
assert OlmoHybridConfig(num_hidden_layers=2).layer_types == ["linear_attention", "full_attention"]
for kinds in (["full_attention"] * 2, ["linear_attention"] * 2):
    try:
        OlmoHybridConfig(num_hidden_layers=2, layer_types=kinds)
    except Exception as error:
        assert "at least one" in str(error)
    else:
        raise AssertionError("a one-kind stack was accepted")

for i, kind in enumerate(model.config.layer_types):   # the tiny model: DeltaNet, then attention
    block = model.layers[i]._module
    assert type(block).__name__ == {"linear_attention": "OlmoHybridLinearAttentionDecoderLayer",
                                    "full_attention": "OlmoHybridAttentionDecoderLayer"}[kind]
```

## The two kinds of block put their norms in opposite places, under the same name

A DeltaNet block is pre-norm, Llama's order: `input_layernorm` feeds the mixer, and `post_attention_layernorm` is the norm *before* the MLP. An attention block is OLMo 2's post-norm block: the attention and the MLP read the stream itself, unnormed, and `post_attention_layernorm` and `post_feedforward_layernorm` normalize their *outputs* before the adds:

```formula
DeltaNet block:   mid = x + linear_attn(input_layernorm(x));      out = mid + mlp(post_attention_layernorm(mid))
attention block:  mid = x + post_attention_layernorm(self_attn(x)); out = mid + post_feedforward_layernorm(mlp(mid))
```

So `post_attention_layernorm` names a pre-MLP norm on one class and a post-attention norm on the other: a lens or a fold that treats it by name as one thing is wrong on one kind. On attention blocks `attention_output` and `mlp_output` are the norms' outputs (what the stream receives), the mixer's and the MLP's raw outputs are `self_attn.output[0]` and `mlp.output`, and there is no `attention_norm_output` or `mlp_norm_output`; every contribution an attention block adds is an RMSNorm's output, its size set by that norm's weight and not by the stream's. The snippet checks both orders.

```python
for i, kind in enumerate(model.config.layer_types):
    layer, block = model.layers[i], model.layers[i]._module
    with model.trace(prompt):
        x = layer.layer_input.save()
        mixer_in = layer.self_attn.input.save()
        mixer_out = layer.self_attn.output[0].save() if kind == "full_attention" else layer.self_attn.output.save()
        mid = layer.layer_mid.save()
        mlp_in = layer.mlp.input.save()
        mlp_out = layer.mlp.output.save()
        out = layer.layer_output.save()
    if kind == "linear_attention":
        assert torch.equal(mixer_in, block.input_layernorm(x)) and torch.equal(mid, x + mixer_out)
        assert torch.equal(mlp_in, block.post_attention_layernorm(mid)) and torch.equal(out, mid + mlp_out)
    else:
        assert torch.equal(mixer_in, x) and torch.equal(mid, x + block.post_attention_layernorm(mixer_out))
        assert torch.equal(mlp_in, mid) and torch.equal(out, mid + block.post_feedforward_layernorm(mlp_out))
```

## The attention rotates only when `rope_parameters` carries a `rope_theta`, and a null there becomes base 10000

`OlmoHybridModel` builds its `rotary_emb` only when `config.rope_parameters` holds a `rope_theta` that is not null, and its code says the released checkpoints "don't use any ROPE"; without it, `OlmoHybridAttention` gets no position embeddings and hands its normed projections to the kernel unrotated (NoPE), and order reaches the stream only through the DeltaNet blocks' causal convolution and recurrence. The config class decides which model is built, and not as the comment reads: a config whose `rope_parameters` is null (or absent) gets the class's default filled in, `rope_theta` 10000 with the default rotary, so the attention rotates every dimension of its heads; `{"rope_type": null}` gets the same theta and fails at build with `KeyError: None`; only `{"rope_type": "default", "rope_theta": null}` builds a model without rotary. After loading a checkpoint, the native model's `rotary_emb` (`model._module.model.rotary_emb`, None or not) says which model runs. The tiny model is built from the class's defaults, so it rotates.

```python
from transformers import OlmoHybridConfig, OlmoHybridForCausalLM

small = dict(hidden_size=64, num_attention_heads=4, intermediate_size=128, vocab_size=300, pad_token_id=0,
             eos_token_id=2, num_hidden_layers=2)
assert OlmoHybridConfig.from_dict({**small, "rope_parameters": None}).rope_parameters["rope_theta"] == 10000.0
assert OlmoHybridConfig.from_dict(small).rope_parameters["rope_theta"] == 10000.0   # absent: the same
assert OlmoHybridForCausalLM(OlmoHybridConfig.from_dict({**small, "rope_parameters": None})).model.rotary_emb is not None
try:
    OlmoHybridForCausalLM(OlmoHybridConfig.from_dict({**small, "rope_parameters": {"rope_type": None}}))
except KeyError:
    pass
else:
    raise AssertionError("rope_type None built a model")
nope = OlmoHybridForCausalLM(OlmoHybridConfig.from_dict(
    {**small, "rope_parameters": {"rope_type": "default", "rope_theta": None}}))
assert nope.model.rotary_emb is None

attention_block = model.config.layer_types.index("full_attention")
attention = model.layers[attention_block].self_attn
assert model._module.model.rotary_emb.inv_freq.numel() * 2 == model.head_dim   # every dimension of a head turns
with model.trace(prompt):
    normed = attention.q_norm.output.save()
    q = attention.attention_queries.save()
q_unrotated = normed.view(*normed.shape[:2], -1, model.head_dim).transpose(1, 2)
assert torch.equal(q[..., 0, :], q_unrotated[..., 0, :]) and not torch.equal(q, q_unrotated)   # position 0: no turn
```

## The query and key norms span all heads at once

`q_norm` and `k_norm` are RMSNorms over the whole projection, `num_attention_heads · head_dim` numbers (3840 with the class's defaults: 30 heads of 128), applied before the projection is split into heads, OLMo 2's choice rather than the per-head norm of Qwen 3 or Gemma 3. One head's query is therefore scaled by the RMS of all heads together: a head whose projection is small next to the others stays small after the norm, and its entries' RMS is not 1. The normed, unrotated queries are `self_attn.q_norm.output` (`attention_queries_unrotated` is not served: whether the rotary applies depends on what the forward is called with); a per-head renormalization of them is not what the model computes.

```python
from transformers import OlmoHybridConfig

default = OlmoHybridConfig()
assert (default.hidden_size, default.num_attention_heads, default.hidden_size // default.num_attention_heads) == (3840, 30, 128)
attention_block = model.config.layer_types.index("full_attention")
attention = model.layers[attention_block].self_attn
native = attention._module
assert native.q_norm.weight.numel() == model.num_heads * model.head_dim
with model.trace(prompt):
    x = attention.input.save()
    normed = attention.q_norm.output.save()
b, n, _ = x.shape
q = normed.view(b, n, -1, model.head_dim).transpose(1, 2)   # the queries before the rotary
assert torch.equal(native.q_norm(native.q_proj(x)), normed)
heads = native.q_proj(x).view(b, n, -1, model.head_dim)
per_head = (heads * torch.rsqrt(heads.pow(2).mean(-1, keepdim=True) + native.q_norm.variance_epsilon)).transpose(1, 2)
assert not torch.allclose(per_head * native.q_norm.weight.view(-1, model.head_dim)[None, :, None], q)
```

## The gated DeltaNet: a decaying, error-correcting state whose write strength goes up to 2

The mixer projects the normed stream six ways (`q_proj`, `k_proj`, `v_proj` to the heads, `a_proj` and `b_proj` to one number per value head, `g_proj` to the output gate), runs q, k and v through a depthwise causal convolution of `linear_conv_kernel_dim` taps (4 by the class's default) followed by silu, and L2-normalizes each query and key head, with its eps 1e-6 added inside the square root. Each head then keeps a state S (key_dim × value_dim) that decays and is corrected toward the value the key should recall:

```formula
beta_t = 2 · sigmoid(b_proj(h_t))                       linear_allow_neg_eigval: in (0, 2)
g_t    = -exp(A_log) · softplus(a_proj(h_t) + dt_bias)      decay exp(g_t) in (0, 1)
S_t    = exp(g_t) · S_{t-1} + k_t ⊗ beta_t · (v_t - S_{t-1}ᵀ·k_t · exp(g_t))
o_t    = S_tᵀ · q_t / √key_dim
out    = o_proj(RMSNorm(o_t) · silu(g_proj(h_t)))           per value head, o_norm's weight, eps 1e-5
```

`o_norm`'s eps is fixed at 1e-5 (the mixer stores `rms_norm_eps` as `eps` and never reads it). With beta above 1 the write overshoots, so the state's transition I − beta · k kᵀ has a negative eigenvalue along k (that is what `linear_allow_neg_eigval`, true by the class's default, allows); with beta = sigmoid(b) alone the recomputation below does not match. The class fills the head sizes from the width: 30 key and 30 value heads, keys of int(0.75 · 3840 / 30) = 96 and values of 192 with its defaults. `conv1d` is used for its weight only (its output is never produced), and no standard value sits inside the recurrence; the snippet recomputes the mixer from the weights step by step and gets `attention_output`.

```python
import torch.nn.functional as F
from transformers import OlmoHybridConfig

default = OlmoHybridConfig()
assert (default.linear_num_key_heads, default.linear_key_head_dim, default.linear_value_head_dim) == (30, 96, 192)
assert default.linear_conv_kernel_dim == 4 and default.linear_allow_neg_eigval is True

block = model.config.layer_types.index("linear_attention")
mixer = model.layers[block].self_attn
with model.trace(prompt):
    h = model.layers[block].attention_norm_output.save()
    out = mixer.attention_output.save()

m = mixer._module
assert m.o_norm.variance_epsilon == 1e-5   # fixed, whatever rms_norm_eps says
def delta_net(h, write_scale):
    b, n, _ = h.shape
    qkv = torch.cat([m.q_proj(h), m.k_proj(h), m.v_proj(h)], dim=-1).transpose(1, 2)
    qkv = F.silu(F.conv1d(qkv, m.conv1d.weight, None, padding=m.conv_kernel_size - 1, groups=qkv.shape[1])[..., :n])
    q, k, v = qkv.transpose(1, 2).split([m.key_dim, m.key_dim, m.value_dim], dim=-1)
    l2 = lambda x: x * torch.rsqrt(x.pow(2).sum(-1, keepdim=True) + 1e-6)   # eps inside the root, as the kernel
    q = l2(q.view(b, n, -1, m.head_k_dim)) * m.head_k_dim ** -0.5
    k = l2(k.view(b, n, -1, m.head_k_dim))
    v = v.view(b, n, -1, m.head_v_dim)
    beta = write_scale * m.b_proj(h).sigmoid()
    g = -m.A_log.exp() * F.softplus(m.a_proj(h) + m.dt_bias)
    state, outs = torch.zeros(b, m.num_v_heads, m.head_k_dim, m.head_v_dim), []
    for t in range(n):
        state = state * g[:, t, :, None, None].exp()
        recalled = (state * k[:, t, :, :, None]).sum(-2)
        state = state + k[:, t, :, :, None] * (beta[:, t, :, None] * (v[:, t] - recalled))[:, :, None, :]
        outs.append((state * q[:, t, :, :, None]).sum(-2))
    o = torch.stack(outs, 1)
    return m.o_proj(m.o_norm(o.reshape(-1, m.head_v_dim), m.g_proj(h).reshape(-1, m.head_v_dim)).view(b, n, -1))

torch.testing.assert_close(delta_net(h, 2.0), out)
assert not torch.allclose(delta_net(h, 1.0), out, atol=1e-4)

try:
    with model.trace(prompt):
        mixer.conv1d.output.save()
except Exception as error:
    assert "ran past" in str(error)
else:
    raise AssertionError("the conv1d module ran")
```

## What each kind of block serves

On a DeltaNet block `self_attn` is the gated DeltaNet: `attention_norm_output` is `input_layernorm`'s output and `attention_output` is `o_proj`'s, what the block adds; `mlp_norm_output` is `post_attention_layernorm`'s output. The attention's interior (`attention_queries`, `attention_scores`, `attention_probabilities`, `attention_head_outputs`, `attention_premix`) is not served there: a recurrence has no pattern to read, and its gated norm acts on each head's output before `o_proj`, so the heads' outputs are not what `o_proj` reads. On an attention block the interior is served (scores and pattern under eager), `attention_output` and `mlp_output` are the post-norms' outputs, `layer_mid` is the MLP's input, and `attention_norm_output` and `mlp_norm_output` are refused with the reason (the block has no norm before either sublayer).

```python
linear_block = model.config.layer_types.index("linear_attention")
attention_block = model.config.layer_types.index("full_attention")
for name in ("attention_queries", "attention_scores", "attention_probabilities", "attention_head_outputs",
             "attention_premix"):
    assert model.serves(name, linear_block) is not None and model.serves(name, attention_block) is None
for name in ("attention_norm_output", "mlp_norm_output"):
    assert model.serves(name, linear_block) is None and model.serves(name, attention_block) is not None

layer = model.layers[attention_block]
with model.trace(prompt):
    raw = layer.self_attn.output[0].save()
    added = layer.self_attn.attention_output.save()
    mid = layer.layer_mid.save()
    mlp_in = layer.mlp.input.save()
assert torch.equal(layer._module.post_attention_layernorm(raw), added) and torch.equal(mid, mlp_in)
```

## Left padding is exact: the DeltaNet blocks zero the pads, and the rotary is relative

A left-padded row's tokens sit at later positions than they would alone. `OlmoHybridGatedDeltaNet` multiplies its input by the padding mask before any projection, and none of its projections has a bias, so at a pad q, k and v are zero: the convolution's taps see the zeros it pads with anyway, and a zero key writes nothing into the state, which is still zero when the first real token arrives (the decay of a zero state is zero). The attention's mask hides the pads, and a rotary score depends only on the distance between query and key (without a rotary, on no position at all). A left-padded row therefore gives, at its real tokens, the logits the prompt gives alone, up to float32 rounding; run without the mask, it does not.

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
