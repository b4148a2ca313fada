"""Notes of VaultGemma written by hand, added to the derived ones. Read against transformers'
configuration_vaultgemma.py (the class defaults: both soft-caps on, alternating layer types, 8192 positions)
and modeling_vaultgemma.py (VaultGemmaDecoderLayer's two norms, VaultGemmaRMSNorm, the eager kernel's
optional cap, _supports_sdpa). google/vaultgemma-1b's config.json is gated: its numbers are those recorded in
nnterp/families/checkpoints/vaultgemma.json from the open mirrors named there. The derived scale and
readout notes, which described the tiny model's caps as the checkpoint's, are replaced by the first three
notes. The snippets run on the tiny VaultGemma, built from the class's defaults (both caps on, one sliding
and one full layer), reloaded without caps where a note is about the checkpoint's layout."""

LOAD = "eager"

DROP = ("scale_note", "past_head_note")

MORE = r'''
## VaultGemma-1B caps nothing: its config sets both soft-caps to null, where the class defaults to 50 and 30

VaultGemma comes from Gemma 2, and `VaultGemmaConfig` keeps Gemma 2's caps as defaults: `attn_logit_softcapping` 50 and `final_logit_softcapping` 30. VaultGemma-1B's config sets both to null, so its `attention_scores` are the plain scaled product `q · k / 16` (masked) and its `logits` are `lm_head`'s output unchanged: `logits` equals `lm_head_output`, and a logit lens needs no tanh. A config written without the two keys, or a model built from `VaultGemmaConfig()` (as the family's tiny model is), caps both; code carried over from Gemma 2 that applies `30 · tanh(x / 30)` to the 1B's logits computes another model.

```python
from transformers import VaultGemmaConfig
from nnterp import tiny

facts = released("google/vaultgemma-1b")
assert facts["attn_logit_softcapping"] is None and facts["final_logit_softcapping"] is None
assert VaultGemmaConfig(**facts).final_logit_softcapping is None                     # kept as released
assert (VaultGemmaConfig().attn_logit_softcapping, VaultGemmaConfig().final_logit_softcapping) == (50.0, 30.0)

with model.trace(prompt):                              # the tiny model: the class's caps
    head = model.lm_head_output.save()
    logits = model.logits.save()
torch.testing.assert_close(logits, 30.0 * torch.tanh(head / 30.0))

uncapped = tiny.load("vaultgemma", attn_implementation="eager",
                     attn_logit_softcapping=None, final_logit_softcapping=None)
attention = uncapped.layers[0].self_attn
with uncapped.trace(prompt):
    q = attention.attention_queries.save()
    k = attention.attention_keys.save()
    scores = attention.attention_scores.save()
    head = uncapped.lm_head_output.save()
    logits = uncapped.logits.save()
assert torch.equal(logits, head)
k = k.repeat_interleave(uncapped.num_heads // uncapped.num_kv_heads, dim=1)
live = scores > torch.finfo(scores.dtype).min / 2
torch.testing.assert_close(scores[live], (q @ k.transpose(-1, -2) * facts["query_pre_attn_scalar"] ** -0.5)[live])
```

## Every layer of VaultGemma-1B attends in full: `sliding_window` 512 is in its config, but no layer slides

VaultGemma-1B's config lists `layer_types` as `full_attention` for all 26 layers and also carries `sliding_window` 512, which only a `sliding_attention` layer reads: it is inert. Its `max_position_embeddings` is 1024: within that context every query sees every earlier key at every layer. `VaultGemmaConfig` without `layer_types` alternates, Gemma 2's way, sliding at the even layers and full at the odd ones: a config rebuilt from the sizes alone gets 13 sliding layers the checkpoint does not have.

```python
from transformers import VaultGemmaConfig
from nnterp import tiny

facts = released("google/vaultgemma-1b")
assert facts["layer_types"] == ["full_attention"] * 26 and facts["sliding_window"] == 512
assert facts["max_position_embeddings"] == 1024
rebuilt = VaultGemmaConfig(**{k: v for k, v in facts.items() if k != "layer_types"}).layer_types
assert rebuilt[:2] == ["sliding_attention", "full_attention"] and rebuilt.count("sliding_attention") == 13

full = tiny.load("vaultgemma", attn_implementation="eager", sliding_window=3,
                 layer_types=["full_attention"] * 2)
windowed = tiny.load("vaultgemma", attn_implementation="eager", sliding_window=3)     # the class's alternation
with full.trace(prompt):
    probs_full = full.layers[0].self_attn.attention_probabilities.save()
with windowed.trace(prompt):
    probs_windowed = windowed.layers[0].self_attn.attention_probabilities.save()

n = probs_full.shape[-1]
causal = torch.ones(n, n, dtype=torch.bool).tril()
assert bool((probs_full[..., causal] > 0).all())                           # the window is never applied
assert bool((probs_windowed[..., torch.ones(n, n, dtype=torch.bool).tril(-3)] == 0).all())
```

## transformers refuses sdpa for every VaultGemma, caps or not: the model runs eager

`VaultGemmaPreTrainedModel` sets `_supports_sdpa = False` ("sdpa does not support softcapping") for the class, not for a config that caps. VaultGemma-1B, whose caps are null, is refused sdpa all the same: a load with `attn_implementation="sdpa"` raises, and a load that names none runs eager, materialising every score. That is the load nnterp serves (eager only), so the attention's interior is always available, and a long prompt costs the full `[batch, 4, seq, seq]` score tensor per layer.

```python
from nnterp import tiny

try:
    tiny.load("vaultgemma", attn_implementation="sdpa", attn_logit_softcapping=None, final_logit_softcapping=None)
except ValueError as error:
    assert "eager" in str(error)
else:
    raise AssertionError("sdpa was accepted")
assert model.config._attn_implementation == "eager"
assert model.family.loads == ("eager",)
```

## Two norms per block, not Gemma 2's four: `attention_output` is `o_proj`'s own output

VaultGemma keeps Gemma 2's arithmetic but drops its post-norms: `VaultGemmaDecoderLayer` holds `input_layernorm` and `pre_feedforward_layernorm` only, and adds `o_proj`'s and `down_proj`'s outputs to the stream as they are. So `attention_output` is what `self_attn` returns and `mlp_output` what `mlp` returns, and the block is the plain sum `x + attn + mlp`, in that order, bit for bit. A hook on the sublayer's output reads what the stream receives (on Gemma 2 it reads the value before a norm the stream never skips). The pre-MLP norm keeps Gemma 2's name: there is no `post_attention_layernorm`.

```python
block = model.layers[0]
assert not hasattr(block._module, "post_attention_layernorm") and not hasattr(block._module, "post_feedforward_layernorm")
with model.trace(prompt):
    x = block.layer_input.save()
    attn_own = block.self_attn.output[0].save()
    attn = block.self_attn.attention_output.save()
    mlp = block.mlp.mlp_output.save()
    out = block.layer_output.save()

assert torch.equal(attn_own, attn)
assert torch.equal(x + attn + mlp, out)
```

## The norms' gain is `1 + weight`, computed in float32: a lens that folds `weight` alone erases the stream

`VaultGemmaRMSNorm` stores a weight initialised at zero and multiplies by `1 + weight` after upcasting to float32, then casts back (Gemma's order, not Llama's). The final `norm`, `input_layernorm` and `pre_feedforward_layernorm` all work so. A tuned or logit lens, an SAE preprocessing step or a weight-folding routine written for Llama multiplies by `weight`, values near zero on a trained checkpoint, and reads a stream almost erased. `final_norm_output` is the normed stream times `1 + weight`:

```python
norm = model._module.model.norm
with model.trace(prompt):
    last = model.layers[-1].layer_output.save()
    normed = model.final_norm_output.save()

unit = last.float() * torch.rsqrt(last.float().pow(2).mean(-1, keepdim=True) + norm.eps)
assert torch.equal(normed, (unit * (1.0 + norm.weight.float())).to(last.dtype))
assert not torch.allclose(normed, unit * norm.weight)          # Llama's fold
```

## The heads are narrower than the stream: 4 heads of 256 read and write a 1152-wide stream

VaultGemma-1B's config sets `hidden_size` 1152, 4 heads (4 key and value heads: no grouping, where Gemma 2 2B groups 8 over 4) and `head_dim` 256, so `q_proj` maps 1152 to 1024 and `o_proj` 1024 back to 1152: neither is square. `attention_premix` and `attention_head_outputs` are 1024 wide, not `hidden_size`, and a head's slice of `o_proj` is a 1152 × 256 block. The scale is `query_pre_attn_scalar ** -0.5` = 256 ** -0.5, which equals `head_dim ** -0.5` on the 1B only because both are 256. The snippet loads the tiny model with heads of 8, so that 4 heads span 32 of its 64 stream dimensions:

```python
from nnterp import tiny

facts = released("google/vaultgemma-1b")
assert facts["num_attention_heads"] * facts["head_dim"] == 1024 != facts["hidden_size"] == 1152
assert facts["num_key_value_heads"] == facts["num_attention_heads"] == 4 and facts["query_pre_attn_scalar"] == 256

narrow = tiny.load("vaultgemma", attn_implementation="eager", head_dim=8)
attention = narrow.layers[0].self_attn
with narrow.trace(prompt):
    premix = attention.attention_premix.save()        # [batch, seq, heads, head_dim]
    out = attention.attention_output.save()
joined = premix.flatten(-2)
assert joined.shape[-1] == narrow.num_heads * narrow.head_dim == 32 and out.shape[-1] == narrow.hidden_size == 64
torch.testing.assert_close(attention.o_proj(joined), out)
assert attention._module.scaling == narrow.config.query_pre_attn_scalar ** -0.5 != narrow.head_dim ** -0.5
```
'''
