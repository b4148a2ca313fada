"""Notes of FlexOlmo written by hand, added to the derived ones. Read against transformers' configuration_flex_olmo.py
(FlexOlmoConfig's defaults: 7 experts, 5 per token, norm_topk_prob false) and modeling_flex_olmo.py
(FlexOlmoTopKRouter, FlexOlmoExperts' packed gate_up_proj and down_proj, FlexOlmoDecoderLayer's post-norms, the wide
q_norm and k_norm), and the save and load conversion of the experts' weights. The checkpoint numbers are
FlexOlmo-7x7B-1T's config.json's as nnterp/families/checkpoints/flex_olmo.json records them; the snippets run on the
tiny FlexOlmo (4 experts)."""

LOAD = "eager"

MORE = r'''
## FlexOlmo-7x7B-1T sends every token to all seven experts

FlexOlmo-7x7B-1T's config sets `num_experts` 7 and `num_experts_per_tok` 7: the top-k keeps every expert, so every token of every layer runs all seven expert MLPs, 7 × 11008 = 77056 neurons, and the "mixture" is a dense, softly weighted sum. `router_weights` are the softmax over the seven router logits and sum to one (whether `norm_topk_prob` is set or not), and `router_choices` only orders the experts by weight. `FlexOlmoConfig`'s class default, 5 of 7, is not the checkpoint's: a config built from the class, or code that treats FlexOlmo as sparse, drops two experts from every token. The snippet gives the tiny model's 4 experts the checkpoint's choice of all:

```python
from nnterp import tiny
from transformers import FlexOlmoConfig

facts = released("allenai/FlexOlmo-7x7B-1T")
assert facts["num_experts"] == facts["num_experts_per_tok"] == 7 and facts["intermediate_size"] == 11008
assert (FlexOlmoConfig().num_experts, FlexOlmoConfig().num_experts_per_tok) == (7, 5)
dense = tiny.load("flex_olmo", attn_implementation="eager", num_experts_per_tok=4)
assert dense.config.num_experts == 4
with dense.trace(prompt):
    logits = dense.layers[0].mlp.router_logits.save()
    weights = dense.layers[0].mlp.router_weights.save()
    choices = dense.layers[0].mlp.router_choices.save()

assert bool((choices.sort(-1).values == torch.arange(4)).all())              # every expert, every token
torch.testing.assert_close(weights, logits.float().softmax(-1).gather(-1, choices))
torch.testing.assert_close(weights.sum(-1), torch.ones(weights.shape[:-1]))
```

## The router reads the raw stream, so a larger stream routes more sharply

FlexOlmo keeps OLMo 2's post-norm block: nothing normalizes `layer_mid` before the MLP, and the router `gate` (a matrix without bias) reads it directly. Its logits are linear in the stream: multiplying `layer_mid` by 10 multiplies every router logit by 10, and the softmax over the experts turns nearly one-hot. A steering vector added with a large coefficient therefore changes how the experts are mixed, not only the direction they read, unlike a pre-norm MoE such as OLMoE, whose router sees an RMS-normed input. The experts read the same raw stream.

```python
with model.trace(prompt):
    mid = model.layers[0].layer_mid.save()
    mlp_in = model.layers[0].mlp.input.save()
    logits = model.layers[0].mlp.router_logits.save()
with model.trace(prompt):
    model.layers[0].layer_mid[:] = model.layers[0].layer_mid * 10
    logits_loud = model.layers[0].mlp.router_logits.save()

assert torch.equal(mlp_in, mid)                                               # no norm before the MLP
torch.testing.assert_close(logits_loud, 10 * logits)
sharp, soft = logits_loud.softmax(-1).max(-1).values, logits.softmax(-1).max(-1).values
assert bool((sharp >= soft).all()) and bool((sharp > soft).any())
```

## One expert's write is divided by the RMS of the whole mixture

`post_feedforward_layernorm` normalizes the mixture's sum: `mlp_output = weight ⊙ Σₑ pₑ·expertₑ(x) / rms(Σₑ pₑ·expertₑ(x))`. An expert's contribution to the stream is its weighted output divided by one number all seven share, so it is not a function of that expert alone: ablating one expert rescales what the others write, and a per-expert attribution must divide by the whole mixture's RMS, as a logit lens divides by the final norm's.

```python
block = model._module.model.layers[0]
experts, size = block.mlp.experts, model.config.intermediate_size
with model.trace(prompt):
    x = model.layers[0].mlp.input.save()
    weights = model.layers[0].mlp.router_weights.save()
    choices = model.layers[0].mlp.router_choices.save()
    out = model.layers[0].mlp.mlp_output.save()

rows, k = x.view(-1, model.hidden_size), choices.shape[-1]
terms = torch.zeros(k, *rows.shape)
for slot in range(k):
    for p in range(rows.shape[0]):
        e = int(choices.view(-1, k)[p, slot])
        gate, up = experts.gate_up_proj[e][:size] @ rows[p], experts.gate_up_proj[e][size:] @ rows[p]
        terms[slot, p] = weights.view(-1, k)[p, slot] * (experts.down_proj[e] @ (torch.nn.functional.silu(gate) * up))
norm = block.post_feedforward_layernorm
shared = (terms.sum(0).pow(2).mean(-1, keepdim=True) + norm.variance_epsilon).rsqrt()
torch.testing.assert_close((norm.weight * terms * shared).sum(0), out.view(-1, model.hidden_size))
alone = (terms.pow(2).mean(-1, keepdim=True) + norm.variance_epsilon).rsqrt()
assert not torch.allclose((norm.weight * terms * alone).sum(0), out.view(-1, model.hidden_size), atol=1e-3)
```

## Removing an expert, as FlexOlmo's opt-out does, is masking its router logit

FlexOlmo's experts are meant to be removable at inference, a data owner's opt-out. With the weights a softmax over the experts present, leaving expert e out gives exactly the model whose router logit for e is −∞: the others' weights are renormalized by the softmax over the remaining ones and nothing else changes. Dropping the expert from the checkpoint (its slice of `gate.weight`, `gate_up_proj` and `down_proj`, with `num_experts` lowered) and masking its logit in the full model give the same logits. Zeroing its `router_weights` entry instead gives a third model, whose other weights no longer sum to one.

```python
from nnterp import tiny

full = tiny.load("flex_olmo", attn_implementation="eager", num_experts_per_tok=4)
out_e, keep = 1, [0, 2, 3]
opted = tiny.load("flex_olmo", attn_implementation="eager", num_experts=3, num_experts_per_tok=3)
source = full._module.state_dict()
with torch.no_grad():
    for name, tensor in opted._module.state_dict().items():
        value = source[name]
        if name.endswith("mlp.gate.weight") or ".experts." in name:
            value = value[keep]
        tensor.copy_(value)

with opted.trace(prompt):
    logits_opted = opted.logits.save()
with full.trace(prompt):
    for i in range(full.num_layers):
        full.layers[i].mlp.router_logits[..., out_e] = float("-inf")
    logits_masked = full.logits.save()
torch.testing.assert_close(logits_opted, logits_masked)
```

## The checkpoint stores each expert as its own three matrices; transformers packs them at load

FlexOlmo-7x7B-1T's safetensors hold `model.layers.N.mlp.experts.E.gate_proj.weight`, `up_proj.weight` and `down_proj.weight` for each of the seven experts. The module has no such children: the load packs them into `experts.gate_up_proj` [7, 2 · 11008, 4096] (expert E's gate rows, then its up rows) and `experts.down_proj` [7, 4096, 11008], and `save_pretrained` unpacks them again. Code that looks up `mlp.experts[3].gate_proj` on the loaded model, or reads the safetensors by the module's names, finds nothing; expert E's gate is `gate_up_proj[E][:11008]`.

```python
import os
import tempfile
from safetensors import safe_open
from nnterp import tiny

hf, _ = tiny.build("flex_olmo")
experts = hf.model.layers[0].mlp.experts
size = hf.config.intermediate_size
assert not hasattr(experts, "gate_proj") and experts.gate_up_proj.shape[1] == 2 * size
with tempfile.TemporaryDirectory() as folder:
    hf.save_pretrained(folder)
    name = next(f for f in os.listdir(folder) if f.endswith(".safetensors"))
    with safe_open(os.path.join(folder, name), "pt") as stored:
        keys = set(stored.keys())
        assert "model.layers.0.mlp.experts.3.gate_proj.weight" in keys and not any("gate_up_proj" in k for k in keys)
        assert torch.equal(stored.get_tensor("model.layers.0.mlp.experts.3.gate_proj.weight"), experts.gate_up_proj[3][:size])
        assert torch.equal(stored.get_tensor("model.layers.0.mlp.experts.3.up_proj.weight"), experts.gate_up_proj[3][size:])
        assert torch.equal(stored.get_tensor("model.layers.0.mlp.experts.3.down_proj.weight"), experts.down_proj[3])
```

## `q_norm` and `k_norm` span all heads, so an edit of one head moves the others

As in OLMo 2, `q_norm` is an RMSNorm over the whole query projection, `num_heads · head_dim` = 4096 entries on FlexOlmo-7x7B-1T (32 heads of 128), applied before the split into heads, and `k_norm` likewise over the keys. One head's query is divided by an RMS every head contributes to: scaling one head's rows of `q_proj` changes every other head's query, and so their patterns. A per-head edit or ablation of the projections is not local to the head on FlexOlmo.

```python
facts = released("allenai/FlexOlmo-7x7B-1T")
assert (facts["hidden_size"], facts["num_attention_heads"]) == (4096, 32) and 4096 // 32 == 128
attention = model.layers[0].self_attn
assert attention.q_norm.weight.shape[0] == model.num_heads * model.head_dim
d = model.head_dim
with model.trace(prompt):
    normed = attention.source.self_q_norm_0.output.save()
with model.trace(prompt):
    attention.source.self_q_proj_0.output[..., :d] *= 5                       # head 0's rows only
    edited = attention.source.self_q_norm_0.output.save()
assert not torch.allclose(edited[..., d:2 * d], normed[..., d:2 * d])          # head 1 moved
```
'''
