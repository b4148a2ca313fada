"""Notes of OLMoE written by hand, added to the derived ones. Read against transformers' modeling_olmoe.py
(OlmoeTopKRouter: a float32 softmax over every expert, top-k, renormalized only if norm_topk_prob; OlmoeExperts' fused
gate_up_proj and down_proj; OlmoeAttention's q_norm, k_norm and in-place clip_qkv clamp) and the OLMo, OLMo 2 family
modules. The checkpoint numbers are OLMoE-1B-7B-0924's config.json's as nnterp/families/checkpoints/olmoe.json
records them; the snippets run on the tiny OLMoE (4 experts, 2 per token)."""

LOAD = "eager"

MORE = r'''
## The eight chosen weights are not renormalized: they sum to less than one

OLMoE-1B-7B-0924 sets `norm_topk_prob` false. `OlmoeTopKRouter` takes the softmax of the 64 router logits, keeps the 8 largest probabilities and uses them as they are: `router_weights` are probabilities over all 64 experts, and their sum, the mass the router put on the chosen eight, is below one. The MLP's write is `Σ pₑ · expertₑ(x)` over the chosen experts with that mass: a token on which the router is unsure gets a smaller MLP output than one it routes sharply, on top of whatever the experts compute. Mixtral-style code that divides the chosen weights by their sum, or compares `mlp_output` norms across tokens as if the weights summed to one, computes another model.

```python
facts = released("allenai/OLMoE-1B-7B-0924")
assert (facts["norm_topk_prob"], facts["num_experts"], facts["num_experts_per_tok"]) == (False, 64, 8)
assert model.config.norm_topk_prob is False
with model.trace(prompt):
    logits = model.layers[0].mlp.router_logits.save()
    weights = model.layers[0].mlp.router_weights.save()
    choices = model.layers[0].mlp.router_choices.save()

k = choices.shape[-1]
probs = logits.view(-1, logits.shape[-1]).float().softmax(-1)
torch.testing.assert_close(weights.view(-1, k), probs.gather(-1, choices.view(-1, k)))
mass = weights.sum(-1)
assert bool((mass < 1).all()) and bool((mass > k / model.config.num_experts).all())   # more than uniform, less than all
```

## An expert is a slice of two 3-D tensors: `gate_up_proj` holds the gate then the up rows

`experts.gate_up_proj` is [64, 2 · 1024, 2048] on OLMoE-1B-7B-0924 and `experts.down_proj` [64, 2048, 1024]. Expert e's first 1024 rows of `gate_up_proj` are its gate and the next 1024 its up projection (the forward `chunk`s the product in two), and `down_proj[e]` is a Linear weight: neuron n of expert e writes column `down_proj[e][:, n]` into the stream. A layer holds 64 × 1024 = 65536 expert neurons, of which 8 × 1024 = 8192 run on a token, one of C(64, 8) ≈ 4.4 × 10⁹ expert sets. No [batch, seq, neurons] tensor exists, so `mlp_neurons` is not served; the write is rebuilt from the slices:

```python
import math

facts = released("allenai/OLMoE-1B-7B-0924")
assert (facts["intermediate_size"], facts["hidden_size"]) == (1024, 2048) and math.comb(64, 8) == 4426165368
experts = model._module.model.layers[0].mlp.experts
size = model.config.intermediate_size
assert experts.gate_up_proj.shape == (model.config.num_experts, 2 * size, model.hidden_size)
assert experts.down_proj.shape == (model.config.num_experts, model.hidden_size, size)
with model.trace(prompt):
    x = model.layers[0].mlp.input.save()
    weights = model.layers[0].mlp.router_weights.save()
    choices = model.layers[0].mlp.router_choices.save()
    out = model.layers[0].mlp.mlp_output.save()

rows, k = x.view(-1, model.hidden_size), choices.shape[-1]
total = torch.zeros_like(rows)
for p in range(rows.shape[0]):
    for slot in range(k):
        e = int(choices.view(-1, k)[p, slot])
        gate, up = experts.gate_up_proj[e][:size] @ rows[p], experts.gate_up_proj[e][size:] @ rows[p]
        total[p] += weights.view(-1, k)[p, slot] * (experts.down_proj[e] @ (torch.nn.functional.silu(gate) * up))
torch.testing.assert_close(total, out.view(-1, model.hidden_size))
```

## Masking an expert's logit and zeroing its weight are two different ablations

Because the weights are a softmax over all 64 experts, not renormalized over the chosen, the two usual ways to remove an expert disagree. Zeroing its entry of `router_weights` removes exactly its term and leaves the other seven as they were. Setting its router logit to −∞ removes it from the softmax: every other expert's probability grows, and the ninth-ranked expert enters the top eight with its own term. An ablation study has to say which it did.

```python
with model.trace(prompt):
    logits = model.layers[0].mlp.router_logits.save()
    weights = model.layers[0].mlp.router_weights.save()
    choices = model.layers[0].mlp.router_choices.save()

top = int(choices[0, -1, 0])                                        # the last position's first choice
with model.trace(prompt):
    model.layers[0].mlp.router_logits[0, -1, top] = float("-inf")
    weights_masked = model.layers[0].mlp.router_weights.save()
    choices_masked = model.layers[0].mlp.router_choices.save()

k = choices.shape[-1]
before, after = choices.view(-1, k)[-1].tolist(), choices_masked.view(-1, k)[-1].tolist()
assert top in before and top not in after and len(set(after) - set(before)) == 1   # another expert comes in
kept = [e for e in before if e != top]
old = dict(zip(before, weights.view(-1, k)[-1].tolist()))
new = dict(zip(after, weights_masked.view(-1, k)[-1].tolist()))
assert all(new[e] > old[e] for e in kept)                          # the others' weights grow
```

## The router sees only the direction of the stream

The router reads `post_attention_layernorm`'s output, an RMSNorm of `layer_mid` times the norm's weight, through a gate without bias: its 64 logits depend on the stream's direction and not on its size. Scaling `layer_mid` (a steering vector added with a large coefficient, say) changes which experts are chosen only through the direction it moves the stream, up to the norm's eps against the stream's mean square. The tiny model's stream is small enough for the class eps, 1e-5, to matter, so the snippet loads it with 1e-12:

```python
from nnterp import tiny

small = tiny.load("olmoe", attn_implementation="eager", rms_norm_eps=1e-12)
assert small._module.model.layers[0].mlp.gate.weight.shape == (small.config.num_experts, small.hidden_size)
with small.trace(prompt):
    logits = small.layers[0].mlp.router_logits.save()
with small.trace(prompt):
    small.layers[0].layer_mid[:] = small.layers[0].layer_mid * 10
    logits_loud = small.layers[0].mlp.router_logits.save()
torch.testing.assert_close(logits_loud, logits)
```

## OLMoE is neither OLMo's block nor OLMo 2's

The three OLMo families before OLMo 3 build three different blocks, and code written for one misreads the others. OLMo (v1) normalizes before each sublayer with parameter-free LayerNorms. OLMo 2 normalizes after each sublayer (post-norm) with learned RMSNorms. OLMoE is Llama's pre-norm block with learned RMSNorm weights before each sublayer and, as OLMo 2 has, `q_norm` and `k_norm` over the whole projection width (2048 on OLMoE-1B-7B-0924), before the rotary. On OLMoE `attention_norm_output` and `mlp_norm_output` are served and carry a weight, `attention_output` is `o_proj`'s output as the stream receives it, and the stream is read through a norm before every sublayer:

```python
from nnterp import tiny

olmo, olmo2 = tiny.load("olmo"), tiny.load("olmo2")
assert list(olmo.layers[0].input_layernorm.parameters()) == []                   # OLMo: no weight
assert olmo2.serves("attention_norm_output", 0) is not None                      # OLMo 2: nothing before
assert model.serves("attention_norm_output", 0) is None and model.layers[0].input_layernorm.weight is not None
assert model.layers[0].self_attn.q_norm.weight.shape[0] == model.num_heads * model.head_dim   # whole width
with model.trace(prompt):
    x = model.layers[0].layer_input.save()
    normed = model.layers[0].attention_norm_output.save()
    attn = model.layers[0].self_attn.attention_output.save()
    mid = model.layers[0].layer_mid.save()
torch.testing.assert_close(model.layers[0].input_layernorm(x), normed)
torch.testing.assert_close(x + attn, mid)
```

## `clip_qkv`, null on OLMoE-1B-7B-0924, would clamp after the q/k norm and in place

`OlmoeConfig` keeps OLMo's `clip_qkv` (null on OLMoE-1B-7B-0924), but OLMoE applies it after `q_norm` and `k_norm`, to normed queries and keys whose entries have an RMS of about the norm's weight, where OLMo clamps the raw projections. A bound carried over from an OLMo checkpoint (8 on OLMo-7B-0724) therefore means something else here. The clamp is in place, on the very tensor `q_norm` returned: a saved `q_norm.output` is the clamped tensor, not the norm's. The snippet sets a bound of 0.1:

```python
from nnterp import tiny

assert released("allenai/OLMoE-1B-7B-0924")["clip_qkv"] is None
clipped = tiny.load("olmoe", attn_implementation="eager", clip_qkv=0.1)
clipped.instrument()   # q_proj and q_norm (modules) are read in one trace
attention = clipped.layers[0].self_attn
with clipped.trace(prompt):
    raw = attention.q_proj.output.save()
    saved = attention.q_norm.output.save()

assert saved.abs().max() <= 0.1 and attention.q_norm(raw).abs().max() > 1     # clamped after the norm, in place
```
'''
