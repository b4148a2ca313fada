"""Notes of Bamba written by hand, added to the derived ones. Read against transformers' configuration_bamba.py
(layers_block_type from attn_layer_indices, mamba_d_head "auto", the partial_rotary_factor it hard-codes, the
mamba_d_state default) and modeling_bamba.py (BambaDecoderLayer, which holds either mamba or self_attn and always
the gated MLP; BambaModel.forward's position_ids, an arange from 0 with no cache offset; BambaAttention's partial
rotary; BambaMixer's Mamba-2 scan and BambaRMSNormGated over n_groups groups; apply_mask_to_padding_states). The
snippets run on the tiny Bamba (block 0 a Mamba-2 block, block 1 an attention block), on the torch reference path
of the scan and the conv."""

LOAD = "eager"

MORE = r'''
## Three blocks of 32 attend, the other 29 run a Mamba-2 mixer, and every block ends in the gated MLP

`BambaConfig.layers_block_type` marks block i `full_attention` when i is in `attn_layer_indices` and `linear_attention` (a Mamba-2 mixer) otherwise. Bamba-9B's config.json lists 9, 18 and 27: three attention blocks, evenly spaced, with nine Mamba-2 blocks before the first. Unlike Jamba, there are no experts: every block, of either kind, is `x + mixer(input_layernorm(x))` followed by `+ feed_forward(pre_ff_layernorm(·))`, the same gated MLP. `BambaDecoderLayer` holds its mixer as `mamba` or as `self_attn` (nnterp serves both as `self_attn`); the attention's interior is served on the three attention blocks and refused with its reason on the others.

```python
from transformers import BambaConfig

facts = released("ibm-ai-platform/Bamba-9B")
assert facts["attn_layer_indices"] == [9, 18, 27] and facts["num_hidden_layers"] == 32
kinds = BambaConfig(**facts).layers_block_type
assert [i for i, kind in enumerate(kinds) if kind == "full_attention"] == [9, 18, 27]
assert kinds.count("linear_attention") == 29

for i, kind in enumerate(model.config.layers_block_type):   # the tiny model: Mamba-2, then attention
    attends = kind == "full_attention"
    assert hasattr(model.layers[i]._module, "self_attn" if attends else "mamba")
    assert (model.serves("attention_scores", i) is None) == attends
    assert model.serves("mlp_neurons", i) is None            # the gated MLP on every block
    layer = model.layers[i]
    with model.trace(prompt):
        x = layer.layer_input.save()
        mix = layer.self_attn.attention_output.save()
        mid = layer.layer_mid.save()
        mlp = layer.mlp.mlp_output.save()
        out = layer.layer_output.save()
    assert torch.equal(x + mix, mid) and torch.equal(mid + mlp, out)
```

## The attention rotates half of each head, and the config class forces that half

`BambaConfig.__post_init__` sets `partial_rotary_factor` to 0.5 whatever a top-level `partial_rotary_factor` key says ("hardcode for BC"), and the rotary turns the first half of each head: 64 of the 128 dimensions on Bamba-9B (4096 / 32 heads). The other half of every query and key carries no position. Only a `rope_parameters` dict that names its own factor escapes the override. Since the three attention blocks are the only ones to read positions, the first 64 dimensions of their queries and keys are the only place where the model reads a token's position; the Mamba-2 blocks know order only through the conv and the scan.

```python
from transformers import BambaConfig

facts = released("ibm-ai-platform/Bamba-9B")
assert facts["hidden_size"] // facts["num_attention_heads"] == 128
assert BambaConfig(**facts).rope_parameters["partial_rotary_factor"] == 0.5
assert BambaConfig(**facts, partial_rotary_factor=1.0).rope_parameters["partial_rotary_factor"] == 0.5

attends = model.config.layers_block_type.index("full_attention")
attention = model.layers[attends].self_attn
with model.trace(prompt):
    q = attention.attention_queries.save()
    q_unrotated = attention.attention_queries_unrotated.save()
half = model.head_dim // 2
assert torch.equal(q[..., half:], q_unrotated[..., half:])
assert not torch.equal(q[..., 1:, :half], q_unrotated[..., 1:, :half])   # position 0 is not turned
```

## A forward with a cache and no `position_ids` restarts the rotary at 0

`BambaModel.forward` fills missing `position_ids` with `arange(seq_len)`, without adding the length already cached (Llama's adds it). `generate` passes positions computed from the attention mask, so generation is right; a hand-written decoding loop that calls the model on one new token with the cache and no `position_ids` gives that token position 0, and the three attention blocks then place it before every cached key. The Mamba-2 blocks are unaffected (they read no position), so the logits are wrong only slightly, which makes the mistake easy to miss. Pass `position_ids` (the cached length) for each step.

```python
hf = model._module
ids = model.tokenizer(prompt, return_tensors="pt").input_ids
n = ids.shape[1]
with torch.no_grad():
    whole = hf(ids).logits[0, -1]
    cached = hf(ids[:, :-1], use_cache=True).cache
    unplaced = hf(ids[:, -1:], cache=cached, use_cache=True).logits[0, -1]
    cached = hf(ids[:, :-1], use_cache=True).cache
    placed = hf(ids[:, -1:], cache=cached, use_cache=True, position_ids=torch.tensor([[n - 1]])).logits[0, -1]
torch.testing.assert_close(placed, whole)
assert not torch.allclose(unplaced, whole, atol=1e-5)
```

## The Mamba-2 mixer has one group: its gated norm couples all 128 heads

On Bamba-9B the mixer's 8192 channels are 128 scan heads of 64 (`mamba_d_head` "auto" is `mamba_expand · hidden_size / mamba_n_heads`), with a state of 128, and `mamba_n_groups` is 1: every head shares one `B` and one `C`, and `BambaRMSNormGated`, which multiplies the scan output by silu(gate) and RMS-normalizes it before `out_proj`, normalizes over all 8192 channels at once. Each head's contribution to `attention_output` therefore depends on every other head's output size: doubling head 0's scan output changes the normalized output of head 1. A per-head ablation or patch on this mixer is not local to the head. The config class's own `mamba_d_state` is 256, twice Bamba-9B's: a config written without the key builds another model.

```python
from transformers import BambaConfig

facts = released("ibm-ai-platform/Bamba-9B")
assert (facts["mamba_n_heads"], facts["mamba_n_groups"], facts["mamba_d_state"]) == (128, 1, 128)
config = BambaConfig(**facts)
assert config.mamba_d_head == facts["mamba_expand"] * facts["hidden_size"] // facts["mamba_n_heads"] == 64
assert BambaConfig().mamba_d_state == 256

mamba_block = model.config.layers_block_type.index("linear_attention")
mixer = model.layers[mamba_block].self_attn
m = mixer._module
assert m.n_groups == 1 and m.norm.group_size == m.intermediate_size
d = m.head_dim
with model.trace(prompt):
    normed = mixer.norm.output.save()
with model.trace(prompt):
    mixer.norm.input[..., :d] *= 2                         # head 0's scan output, doubled
    doubled = mixer.norm.output.save()
assert not torch.allclose(doubled[..., d:2 * d], normed[..., d:2 * d], atol=1e-4)   # head 1 moves
```

## What each kind of block serves

On the Mamba-2 blocks `self_attn` is the mixer: `attention_output` is its `out_proj` output, and the attention's interior (`attention_queries`, `attention_scores`, `attention_probabilities`, `attention_head_outputs`, `attention_premix`) is not served: a scan has no pattern, and its gated norm mixes the heads before `out_proj`, so there are no per-head outputs to project. The mixer's own intermediate tensors are read through its children (`self_attn.in_proj.output`, `self_attn.norm.input`, the scan's output before the gate). On the attention blocks the interior is served; scores and pattern need `attn_implementation="eager"`, and softmax(scores) is the pattern.

```python
mamba_block = model.config.layers_block_type.index("linear_attention")
attention_block = model.config.layers_block_type.index("full_attention")
for name in ("attention_queries", "attention_scores", "attention_probabilities", "attention_head_outputs",
             "attention_premix"):
    assert model.serves(name, mamba_block) is not None and model.serves(name, attention_block) is None
assert model.serves("attention_output", mamba_block) is None

mixer = model.layers[mamba_block].self_attn
with model.trace(prompt):
    gated = mixer.norm.output.save()
    out = mixer.attention_output.save()
torch.testing.assert_close(mixer._module.out_proj(gated), out)

attention = model.layers[attention_block].self_attn
with model.trace(prompt):
    scores = attention.attention_scores.save()
    probs = attention.attention_probabilities.save()
torch.testing.assert_close(scores.softmax(-1), probs)
```

## Left padding is exact: the mixers zero the pads and the rotary is relative

A left-padded row's tokens sit at later positions than they would alone. The attention blocks do not mind: a rotary score depends on the distance between query and key, which padding does not change, and the mask hides the pads. The Mamba-2 mixers multiply their input and their conv output by the attention mask, so a pad adds nothing to the conv window or the state. A left-padded row therefore gives, at its real tokens, the logits the prompt gives alone, up to float32 rounding; without the mask it does not.

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
