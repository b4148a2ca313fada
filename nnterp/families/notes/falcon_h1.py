"""Notes of Falcon-H1 written by hand, added to the derived ones. Read against transformers'
configuration_falcon_h1.py (every block "hybrid", mamba_d_ssm's default and its precedence over mamba_expand, the
multipliers' defaults) and modeling_falcon_h1.py (FalconH1DecoderLayer's parallel mixers and their multipliers,
FalconH1Attention's key_multiplier, FalconH1Mixer's ssm_in_multiplier and mup_vector, compute_mup_vector,
the optional FalconH1RMSNormGated, FalconH1MLP's gate and down multipliers, FalconH1Model's embedding_multiplier,
FalconH1ForCausalLM's lm_head_multiplier). No released config of a Falcon-H1 checkpoint is recorded here, so the notes
quote no checkpoint's numbers: the snippets run on the tiny Falcon-H1, whose multipliers are set away from 1 (the
class's defaults are all 1) so that each one is visible, and on variants of it."""

LOAD = "eager"

MORE = r'''
## Every block runs the attention and a Mamba-2 mixer side by side, and adds both, each with its own multiplier

Falcon-H1 has one kind of block (`layers_block_type` is "hybrid" for all of them). `input_layernorm`'s output h feeds two token mixers at once: the Mamba-2 mixer (`mamba`) reads h, the attention (`self_attn`) reads h · `attention_in_multiplier`, and the block adds `mamba(h) · ssm_out_multiplier + self_attn(...) · attention_out_multiplier` to the stream, then runs `pre_ff_layernorm` and the MLP as a second sublayer. Neither mixer sees the other's output within a block. nnterp's `attention_output` is that scaled sum, what the two mixers add together; the attention's own output is `self_attn.output[0]` and the Mamba mixer's is `mamba.output`, both before their multipliers. A patch of `attention_output` therefore replaces both mixers' contributions, and ablating the attention of a block means zeroing `self_attn.output[0]`, not `attention_output`.

```python
config = model.config
assert set(config.layers_block_type) == {"hybrid"}
layer = model.layers[0]
with model.trace(prompt):
    x = layer.layer_input.save()
    ssm = layer.mamba.output.save()
    mix = layer.self_attn.attention_output.save()            # read where the attention returns
    attention = layer.self_attn.output[0].save()
    mid = layer.layer_mid.save()

assert config.ssm_out_multiplier != 1 and config.attention_out_multiplier != 1   # the tiny model's, visible
assert torch.equal(mix, ssm * config.ssm_out_multiplier + attention * config.attention_out_multiplier)
assert torch.equal(x + mix, mid)
```

## The stream starts at `embedding_multiplier` times the table, and the logits are `lm_head` times `lm_head_multiplier`

`FalconH1Model` multiplies the embedding rows by `embedding_multiplier` before the first block, and `FalconH1ForCausalLM` multiplies `lm_head`'s output by `lm_head_multiplier`. nnterp's `token_embeddings` is the embedding module's output, the unscaled row; `layers[0].input` is the scaled one, what the blocks add to. `lm_head_output` is before the logits' multiplier and `logits` after it; `project_on_vocab` applies the final norm, `lm_head` and the multiplier, so a logit lens reads each block on the model's own scale. Two consequences: comparing a block's contribution with the token embedding means multiplying `token_embeddings` first, and an unembedding built from `lm_head.weight` alone is off by `lm_head_multiplier`. Both are 1 in the class's defaults and set by each checkpoint's config.

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
assert torch.equal(logits, head * config.lm_head_multiplier) and config.lm_head_multiplier != 1
torch.testing.assert_close(model.project_on_vocab(last), logits)
```

## The keys are multiplied by `key_multiplier` before the rotary, so the softmax's temperature is not 1/√head_dim

`FalconH1Attention` scales `k_proj`'s output by `key_multiplier` before the rotary, and the scores use the usual `head_dim ** -0.5` on those keys: the effective temperature is `key_multiplier / √head_dim`. `attention_keys` and `attention_keys_unrotated` are read after the multiplier, so scores recomputed from them need no correction; keys recomputed from `k_proj`'s weight do, and so does any weight-level QK analysis. The attention's input is also scaled, by `attention_in_multiplier`: q, k and v are projections of h · `attention_in_multiplier`.

```python
config = model.config
layer = model.layers[0]
with model.trace(prompt):
    h = layer.attention_norm_output.save()
    keys = layer.self_attn.attention_keys_unrotated.save()

attention = layer.self_attn._module
b, n, _ = h.shape
ours = attention.k_proj(h * config.attention_in_multiplier).view(b, n, -1, attention.head_dim).transpose(1, 2)
assert config.key_multiplier != 1 and config.attention_in_multiplier != 1
assert torch.equal(ours * config.key_multiplier, keys)
assert attention.scaling == attention.head_dim ** -0.5
```

## `in_proj`'s five parts are scaled by `ssm_multipliers` through a buffer built once, at load

The Mamba-2 mixer multiplies its input by `ssm_in_multiplier` and `in_proj`'s output by `mup_vector`, one factor per channel: `ssm_multipliers[0]` on the gate z, `[1]` on x, `[2]` on B, `[3]` on C and `[4]` on the per-head dt (`compute_mup_vector`). `mup_vector` is a non-persistent buffer: it is not in the state dict, so a checkpoint carries no copy, and it is computed from the config when the model is built. Changing `model.config.ssm_multipliers` after the load changes nothing; a model must be built with the values. `in_proj.output` is read before the vector is applied.

```python
from nnterp import tiny

multipliers = [0.5, 2.0, 3.0, 4.0, 0.25]
scaled = tiny.load("falcon_h1", ssm_multipliers=multipliers, ssm_in_multiplier=1.25)
mixer = scaled.layers[0].mamba
m = mixer._module
inner, state, heads = m.intermediate_size, m.n_groups * m.ssm_state_size, m.num_heads
sections = [inner, inner, state, state, heads]
assert m.mup_vector.shape[-1] == sum(sections)
for part, factor in zip(m.mup_vector[0, 0].split(sections), multipliers):
    assert (part == factor).all()
assert not any("mup_vector" in key for key in scaled._module.state_dict())

with scaled.trace(prompt):
    h = scaled.layers[0].attention_norm_output.save()
    mixer_in = mixer.in_proj.input.save()
    logits = scaled.logits.save()
assert torch.equal(mixer_in, h * 1.25)
scaled.config.ssm_multipliers = [1.0] * 5
with scaled.trace(prompt):
    unchanged = scaled.logits.save()
assert torch.equal(logits, unchanged)
```

## `mamba_d_ssm` sets the mixer's width and overrides `mamba_expand`, and the class's default is 1024

`FalconH1Mixer` is `mamba_d_ssm` channels wide when the config gives one and `mamba_expand · hidden_size` only when `mamba_d_ssm` is null; the config class's default `mamba_d_ssm` is 1024, not null. A config that sets `mamba_expand` and omits `mamba_d_ssm` builds a 1024-channel mixer whatever its hidden size, and `mamba_d_head` "auto" is derived from the same 1024: the tiny model here, built from a 64-wide stream with `mamba_expand` 2, has a mixer 1024 wide. Read the width from `mamba.out_proj.in_features`, not from the expansion.

```python
from transformers import FalconH1Config

assert FalconH1Config().mamba_d_ssm == 1024
config = model.config
m = model.layers[0].mamba._module
assert config.hidden_size * config.mamba_expand != 1024
assert m.intermediate_size == m.out_proj.in_features == config.mamba_d_ssm == 1024
assert config.mamba_d_head == 1024 // config.mamba_n_heads

wider = FalconH1Config(hidden_size=64, mamba_expand=4, mamba_n_heads=4, num_attention_heads=4)
assert wider.mamba_d_head == 1024 // 4                       # expand ignored
assert FalconH1Config(hidden_size=64, mamba_expand=4, mamba_n_heads=4, num_attention_heads=4,
                      mamba_d_ssm=None).mamba_d_head == 64 * 4 // 4
```

## Without `mamba_rms_norm` the mixer has no gated norm: the gate multiplies the scan output straight into `out_proj`

`mamba_rms_norm` is false in the class's defaults, and then `FalconH1Mixer.norm` is an `nn.Identity` the forward never calls: the scan output times silu(z) goes straight to `out_proj`, with no RMS normalization, so a head's scan output keeps its size all the way to the stream (unlike Mamba-2 and Bamba, whose gated norm normalizes it away). With `mamba_rms_norm` true, `FalconH1RMSNormGated` normalizes over `mamba_n_groups` groups, before the gate or after it as `mamba_norm_before_gate` says. A read of `mamba.norm.output` without the norm is a value the model "already ran past".

```python
from nnterp import tiny

assert model.config.mamba_rms_norm is False
mixer = model.layers[0].mamba
assert type(mixer.norm._module).__name__ == "Identity"
try:
    with model.trace(prompt):
        mixer.norm.output.save()
except Exception as error:
    assert "ran past" in str(error)
else:
    raise AssertionError("the norm ran")

normed = tiny.load("falcon_h1", mamba_rms_norm=True)
norm = normed.layers[0].mamba.norm
assert type(norm._module).__name__ == "FalconH1RMSNormGated"
with normed.trace(prompt):
    out = norm.output.save()
assert out.shape[-1] == normed.layers[0].mamba._module.intermediate_size
```

## The MLP multiplies its gate input and its output: `up · act(gate · m₀)`, then `down · m₁`

`FalconH1MLP` is a gated MLP with `mlp_multipliers` = [m₀, m₁]: the activation reads `gate_proj(x) · m₀` and `down_proj`'s output is multiplied by m₁. `up_proj` is called before the gate. An MLP neuron's activation read from `gate_proj`'s output alone misses m₀, and `down_proj`'s output is not `mlp_output` unless m₁ is 1.

```python
import torch.nn.functional as F

config = model.config
layer = model.layers[0]
with model.trace(prompt):
    x = layer.mlp_norm_output.save()
    out = layer.mlp.mlp_output.save()

mlp = layer.mlp._module
m0, m1 = config.mlp_multipliers
assert m0 != 1
torch.testing.assert_close(mlp.down_proj(mlp.up_proj(x) * F.silu(mlp.gate_proj(x) * m0)) * m1, out)
assert not torch.allclose(mlp.down_proj(mlp.up_proj(x) * F.silu(mlp.gate_proj(x))) * m1, out)
```
'''
