"""Notes of Granite MoE Shared written by hand, added to the derived ones. Read against transformers'
modeling_granitemoeshared.py (GraniteMoeSharedDecoderLayer: shared_mlp built only when shared_intermediate_size > 0,
run on the same normed stream as block_sparse_moe, the two outputs summed and multiplied by residual_multiplier;
GraniteMoeSharedMLP's input_linear, gate rows first, and output_linear; the Granite multipliers) and
configuration_granitemoeshared.py (every multiplier 1 and shared_intermediate_size 0 by default). No copy of a Granite
MoE Shared config.json with its source was found (the public IBM configs read as this family's are granitemoe's),
so these notes state no checkpoint's number: what they say of the defaults is GraniteMoeSharedConfig's. The snippets
run on the tiny model, which carries Granite's multipliers (12, 0.22, 1/64, 6) and a shared MLP of width 64."""

LOAD = "eager"

MORE = r'''
## The shared MLP sits beside the MoE, not inside it, and is added at full weight

`GraniteMoeSharedDecoderLayer` holds `shared_mlp` next to `block_sparse_moe` (nnterp's `mlp`), runs both on `post_attention_layernorm`'s output and adds `residual_multiplier · (block_sparse_moe(h) + shared_mlp(h))`. The shared path has no gate and no router weight: every token gets it whole, where Qwen2-MoE scales its shared expert by a sigmoid gate and Cohere 2 MoE averages it in by default. `mlp_output` is the whole product; the MoE module's own output (`mlp.output`) is only the routed half and misses the shared MLP, so a hook on `block_sparse_moe`, the module `print(model)` shows as the MLP, under-reads the block's write.

```python
model.instrument()   # the two children beside the standard value
with model.trace(prompt):
    routed = model.layers[0].mlp.output.save()
    out = model.layers[0].mlp.mlp_output.save()
    shared = model.layers[0].shared_mlp.output.save()

r = model.config.residual_multiplier
assert r == 0.22 and model._module.model.layers[0].shared_mlp is not None
torch.testing.assert_close(out, r * (routed + shared))
assert (out - r * routed).abs().max() > 1e-3                          # the MoE module alone is not the write
```

## With `shared_intermediate_size` 0, the class's default, the model is Granite MoE bit for bit

`shared_mlp` is built only when `shared_intermediate_size` is above 0; `GraniteMoeSharedConfig` defaults it to 0, and then every block is `GraniteMoeDecoderLayer`'s, with the same parameter names. A config that omits the key therefore loads a shared-expert checkpoint without its shared MLPs (their weights reported unused), and a model built from the class's defaults has no shared expert at all. The tiny model without it has Granite MoE's state dict and logits:

```python
from nnterp import tiny

plain = tiny.load("granitemoeshared", attn_implementation="eager", shared_intermediate_size=0)
granite = tiny.load("granitemoe", attn_implementation="eager")
assert all(block.shared_mlp is None for block in plain._module.model.layers)
left, right = plain._module.state_dict(), granite._module.state_dict()
assert left.keys() == right.keys() and all(torch.equal(left[k], right[k]) for k in left)
with plain.trace(prompt):
    logits = plain.logits.save()
with granite.trace(prompt):
    logits_granite = granite.logits.save()
assert torch.equal(logits, logits_granite)
```

## The shared expert's neurons are a real tensor: `shared_mlp.output_linear`'s input

`mlp_neurons` is not served here, because the routed experts' neurons exist only inside the experts kernel. The shared MLP's do: `input_linear` maps the normed stream to `2 · shared_intermediate_size` columns, the first half the gate and the second the up projection, and `output_linear` reads `silu(gate) · up`, [batch, seq, shared_intermediate_size], a dense tensor with the same neurons at every position. Probe, patch or attribute the shared neurons there; neuron n writes column n of `output_linear.weight` (times the block's 0.22 on the tiny model).

```python
shared_mlp = model._module.model.layers[0].shared_mlp
width = model.config.shared_intermediate_size
assert shared_mlp.input_linear.weight.shape == (2 * width, model.hidden_size)
model.instrument()
with model.trace(prompt):
    h = model.layers[0].mlp_norm_output.save()
    neurons = model.layers[0].shared_mlp.output_linear.input.save()
    shared = model.layers[0].shared_mlp.output.save()

gate, up = shared_mlp.input_linear(h).chunk(2, dim=-1)
torch.testing.assert_close(neurons, torch.nn.functional.silu(gate) * up)
assert neurons.shape[-1] == width
torch.testing.assert_close(shared, neurons @ shared_mlp.output_linear.weight.T)
```

## One normed tensor feeds both halves: an edit of `mlp_input` reaches the experts and the shared MLP

The router, the routed experts and `shared_mlp` all read the same tensor, `post_attention_layernorm`'s output. `mlp_input` is that tensor, and an assignment to it is copied into it, so the edit reaches both halves: steering or patching the MLP's input is not limited to the routed experts. Setting it to zero silences the whole MLP write (no bias anywhere), and the block passes `layer_mid` on unchanged:

```python
model.instrument()
with model.trace(prompt):
    model.layers[0].mlp_input[:] = 0
    routed_in = model.layers[0].mlp.input.save()
    shared_in = model.layers[0].shared_mlp.input.save()
    mid = model.layers[0].layer_mid.save()
    out = model.layers[0].layer_output.save()

assert (routed_in == 0).all() and (shared_in == 0).all()
assert torch.equal(out, mid)
```

## Granite's four multipliers, each 1 by `GraniteMoeSharedConfig`'s default

The family keeps Granite's arithmetic: the embeddings are multiplied by `embedding_multiplier` before block 0, each sublayer's write by `residual_multiplier`, the attention's scores by `attention_multiplier` in place of `head_dim ** -0.5`, and the logits are `lm_head`'s output divided by `logits_scaling`. All four default to 1 in `GraniteMoeSharedConfig`, which then computes an ordinary model with a scale of 1 on the scores (not 1/√d): a config that loses a multiplier key loads silently into another model. The tiny model carries 12, 0.22, 1/64 and 6; the snippet checks the four there:

```python
from transformers import GraniteMoeSharedConfig

defaults = GraniteMoeSharedConfig()
assert (defaults.embedding_multiplier, defaults.residual_multiplier, defaults.attention_multiplier,
        defaults.logits_scaling, defaults.shared_intermediate_size) == (1.0, 1.0, 1.0, 1.0, 0)
c = model.config
assert (c.embedding_multiplier, c.residual_multiplier, c.attention_multiplier, c.logits_scaling) == (12.0, 0.22, 0.015625, 6.0)
with model.trace(prompt):
    native = model.embed_tokens.output.save()
    x = model.layers[0].layer_input.save()
    head = model.lm_head_output.save()
    logits = model.logits.save()

assert torch.equal(x, native * 12.0) and torch.equal(logits, head / 6.0)
assert model._module.model.layers[0].self_attn.scaling == 0.015625 != model.head_dim ** -0.5
```

## Ablating the shared MLP leaves its block's routing alone and moves every later block's

The router reads `post_attention_layernorm`'s output, computed before either half runs, so the shared MLP never influences which experts its own block chooses: zeroing `shared_mlp`'s output leaves that block's `router_logits`, `router_choices` and `router_weights` bit-identical. Its write enters the stream, and so every later block's routing; an experiment that removes the shared expert to see "what the routed experts do alone" changes the routing downstream.

```python
model.instrument()
with model.trace(prompt):
    logits_0 = model.layers[0].mlp.router_logits.save()
    logits_1 = model.layers[1].mlp.router_logits.save()
with model.trace(prompt):
    logits_0_cut = model.layers[0].mlp.router_logits.save()
    model.layers[0].shared_mlp.output[:] = 0
    logits_1_cut = model.layers[1].mlp.router_logits.save()

assert torch.equal(logits_0, logits_0_cut)
assert not torch.equal(logits_1, logits_1_cut)
```
'''
