"""Notes of Command A MoE (Cohere 2 MoE) written by hand, added to the derived ones. Read against transformers'
configuration_cohere2_moe.py (Cohere2MoeConfig.__post_init__: first_k_dense_replace popped from the keyword arguments,
layer_types and mlp_layer_types built from it, the window pattern counted again after the prefix) and
modeling_cohere2_moe.py (Cohere2MoeTopKRouter: top-k on the raw logits, then a softmax over the chosen or their
sigmoid, norm_topk_prob read only under sigmoid; Cohere2MoeSparseMoeBlock's shared_experts, one MLP of
intermediate_size · num_shared_experts, averaged or summed in; Cohere2MoeExperts' fused gate_up_proj and down_proj;
Cohere2MoeAttention.force_rope; the decoder layer's choice of Cohere2MoeRMSNorm or Cohere2MoeLayerNorm on
rms_norm_eps). No copy of a Cohere 2 MoE checkpoint's config.json was found, so these notes state no checkpoint's
number: what they say of the defaults is Cohere2MoeConfig's. The snippets run on the tiny Cohere 2 MoE (4 experts,
2 per token), loaded again with the options a note is about."""

LOAD = "eager"

MORE = r'''
## The router reads the block's input, not its attention: a block's attention never steers its own experts

The block is parallel: `input_layernorm`'s output is the attention's input and the MoE's input at once, and the router (`mlp.gate`) scores that tensor. Which experts block i runs, and with what weights, is fixed before block i's attention has written anything; its attention first reaches a router at block i + 1. On a Mixtral- or Qwen-style MoE the router reads `post_attention_layernorm(x + attn)`, so attribution of a routing decision to "the attention just before it" carries over wrongly to this family. Zeroing block 0's `attention_output` leaves block 0's `router_logits` bit-identical and changes block 1's:

```python
with model.trace(prompt):
    logits_0 = model.layers[0].mlp.router_logits.save()
    logits_1 = model.layers[1].mlp.router_logits.save()

with model.trace(prompt):
    model.layers[0].self_attn.attention_output[:] = 0
    ablated_0 = model.layers[0].mlp.router_logits.save()
    ablated_1 = model.layers[1].mlp.router_logits.save()

assert torch.equal(logits_0, ablated_0)          # block 0 routed before its attention wrote
assert not torch.equal(logits_1, ablated_1)      # block 1 sees it
```

## The router picks on raw logits, then weights the chosen alone; `norm_topk_prob` acts only under sigmoid

`Cohere2MoeTopKRouter` takes `topk` of the raw logits `x @ gate.weight.T` first (no softmax, no bias, no grouping), so the chosen experts are the same whatever `expert_selection_fn` says. Only then does it turn the k chosen logits into weights: with `"softmax"` (`Cohere2MoeConfig`'s default) a softmax over those k alone, which sums to one by construction, and `norm_topk_prob` is never read; with `"sigmoid"` each chosen logit's own sigmoid, divided by their sum only when `norm_topk_prob` is true. Sigmoid weights without that division do not sum to one (two chosen experts with positive logits weigh more than 1 together), and the sigmoid, normalized, is not the softmax: `σ(a) / (σ(a) + σ(b))` is flatter than `eᵃ / (eᵃ + eᵇ)`. The same `norm_topk_prob: true` therefore means "nothing" under one selection function and "renormalize" under the other. `router_weights` are these weights, `router_logits` the raw scores of every expert:

```python
from nnterp import tiny

def route(net):
    with net.trace(prompt):
        logits = net.layers[0].mlp.router_logits.save()
        weights = net.layers[0].mlp.router_weights.save()
        choices = net.layers[0].mlp.router_choices.save()
    return logits.gather(-1, choices), weights, choices

chosen, weights, choices = route(model)
assert model.config.expert_selection_fn == "softmax" and model.config.norm_topk_prob is True
torch.testing.assert_close(weights, chosen.softmax(-1))
unnormalized = tiny.load("cohere2_moe", attn_implementation="eager", expert_selection_fn="softmax", norm_topk_prob=False)
torch.testing.assert_close(route(unnormalized)[1], weights)                 # ignored under softmax

raw = tiny.load("cohere2_moe", attn_implementation="eager", expert_selection_fn="sigmoid", norm_topk_prob=False)
chosen_raw, weights_raw, choices_raw = route(raw)
assert torch.equal(choices_raw, choices)                                    # same experts: top-k of raw logits
torch.testing.assert_close(weights_raw, chosen_raw.sigmoid())
assert (weights_raw.sum(-1) - 1).abs().max() > 1e-3                         # not a distribution
normed = tiny.load("cohere2_moe", attn_implementation="eager", expert_selection_fn="sigmoid", norm_topk_prob=True)
chosen_n, weights_n, _ = route(normed)
torch.testing.assert_close(weights_n, chosen_n.sigmoid() / chosen_n.sigmoid().sum(-1, keepdim=True))
assert (weights_n - chosen_n.softmax(-1)).abs().max() > 1e-3                # flatter than the softmax
```

## Shared experts are averaged in: `mlp_output` is half of routed plus shared

With `num_shared_experts` above 0, `Cohere2MoeSparseMoeBlock` adds `shared_experts`, one gated MLP of width `intermediate_size · num_shared_experts` (not n separate experts), run on every token with no router weight. Under `shared_expert_combination_strategy` `"average"`, `Cohere2MoeConfig`'s default, the block returns `(routed + shared) / 2`: both halves are scaled by 0.5 before they reach the stream. An attribution that adds `shared_experts.output` to `experts.output`, as one would on Qwen2-MoE or DeepSeek, is twice what the block wrote; `"sum"` adds them as they are. `experts.output` and `shared_experts.output` are [tokens, hidden_size], the positions flattened:

```python
from nnterp import tiny

shared = tiny.load("cohere2_moe", attn_implementation="eager", num_shared_experts=1)
assert shared.config.shared_expert_combination_strategy == "average"
mlp = shared._module.model.layers[0].mlp
assert mlp.shared_experts.down_proj.in_features == shared.config.intermediate_size * 1
shared.instrument()   # read the two children and the standard value in one trace
with shared.trace(prompt):
    routed = shared.layers[0].mlp.experts.output.save()
    always = shared.layers[0].mlp.shared_experts.output.save()
    out = shared.layers[0].mlp.mlp_output.save()

torch.testing.assert_close(out.view_as(routed), (routed + always) / 2)
assert (out.view_as(routed) - (routed + always)).abs().max() > 1e-3         # not their sum
```

## `rms_norm_eps` decides which norm the model builds, and the weights load into either

Every norm of the model (`input_layernorm` and the final `norm`) is built by one test: `Cohere2MoeRMSNorm` with `rms_norm_eps` when that key is set, `Cohere2MoeLayerNorm` (mean removed, no bias) with `layer_norm_eps` when it is null, as it is in `Cohere2MoeConfig`'s defaults. The two hold one parameter of the same name and shape, `weight` [hidden_size], so a checkpoint trained with one loads into the other without a missing or unexpected key and silently computes another model. A config edited or converted by hand (or an external port that reads only `layer_norm_eps`) must keep the key as released. What the norm is also decides what a lens can fold: under the LayerNorm a stream shifted by the same constant in every dimension normalizes to the same vector; under the RMSNorm it does not:

```python
from nnterp import tiny

rms = tiny.load("cohere2_moe", attn_implementation="eager", rms_norm_eps=1e-6)
assert model.config.rms_norm_eps is None
assert type(model.layers[0].input_layernorm._module).__name__ == "Cohere2MoeLayerNorm"
assert type(rms.layers[0].input_layernorm._module).__name__ == "Cohere2MoeRMSNorm"
assert {k: v.shape for k, v in rms._module.state_dict().items()} == {k: v.shape for k, v in model._module.state_dict().items()}

x = torch.randn(1, 3, model.hidden_size)
shift = torch.full_like(x, 5.0)
layer_norm, rms_norm = model.layers[0].input_layernorm, rms.layers[0].input_layernorm
torch.testing.assert_close(layer_norm(x + shift), layer_norm(x), atol=1e-4, rtol=1e-4)   # mean removed
assert (rms_norm(x + shift) - rms_norm(x)).abs().max() > 0.1
```

## A dense prefix rotates even where its layers are called full attention

`first_k_dense_replace`, the key a config uses to make its first k blocks dense, is not a field of `Cohere2MoeConfig`: `__post_init__` pops it from the keyword arguments, writes `mlp_layer_types` (`"dense"` for the first k) and builds `layer_types` from it, and it is not saved back (`to_dict()` has no such key). Two rules follow. The prefix's attention types use `prefix_dense_sliding_window_pattern`, 1 by default, which makes every prefix layer `"full_attention"`; yet `Cohere2MoeAttention` sets `force_rope` on a dense layer when that pattern is 1, so these full-attention layers rotate, unlike every other full-attention layer of the model (NoPE). And the sliding pattern is counted again from the first block after the prefix: with one dense block and `sliding_window_pattern` 4, the full layers are 0, 4, 8, … (not 3, 7, 11, …). A dense block's MLP is a plain gated MLP of `prefix_dense_intermediate_size` with no router, so `router_logits` is not served there. The snippet builds the config, then a tiny model whose two blocks are both full attention, the first dense:

```python
from transformers import Cohere2MoeConfig
from nnterp import tiny

config = Cohere2MoeConfig(num_hidden_layers=9, first_k_dense_replace=1)
assert config.mlp_layer_types == ["dense"] + ["sparse"] * 8
assert [i for i, kind in enumerate(config.layer_types) if kind == "full_attention"] == [0, 4, 8]
assert "first_k_dense_replace" not in config.to_dict()

prefixed = tiny.load("cohere2_moe", attn_implementation="eager", layer_types=["full_attention", "full_attention"],
                     mlp_layer_types=["dense", "sparse"], prefix_dense_intermediate_size=96)
assert prefixed.serves("router_logits", 0) is not None and prefixed.serves("router_logits", 1) is None
prefixed.instrument()   # q_proj's output and the kernel's queries in one trace
with prefixed.trace(prompt):
    raw_0 = prefixed.layers[0].self_attn.q_proj.output.save()
    queries_0 = prefixed.layers[0].self_attn.attention_queries.save()
    raw_1 = prefixed.layers[1].self_attn.q_proj.output.save()
    queries_1 = prefixed.layers[1].self_attn.attention_queries.save()

def heads(raw):
    return raw.view(*raw.shape[:2], -1, prefixed.head_dim).transpose(1, 2)

assert not torch.equal(heads(raw_0), queries_0)    # the dense, full-attention block rotates (force_rope)
assert torch.equal(heads(raw_1), queries_1)        # the sparse full-attention block does not
```

## An expert is a slice of two 3-D tensors, the gate's rows first

`experts.gate_up_proj` is [num_experts, 2 · intermediate_size, hidden_size] and `experts.down_proj` [num_experts, hidden_size, intermediate_size]. For expert e, `gate_up_proj[e] @ x` is split in two halves, the first the gate and the second the up projection (`chunk(2)`), and `down_proj[e]` is a Linear weight: neuron n of expert e writes the column `down_proj[e][:, n]` into the MoE's output, which the block then adds to the stream as it is (or halves, with shared experts averaged in). No [batch, seq, neurons] tensor exists for a routed expert, so `mlp_neurons` is not served on a sparse block; the write is rebuilt from the slices and the router's choice:

```python
experts = model._module.model.layers[0].mlp.experts
size = model.config.intermediate_size
assert experts.gate_up_proj.shape == (model.num_experts, 2 * size, model.hidden_size)
assert experts.down_proj.shape == (model.num_experts, model.hidden_size, size)
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
        gate, up = (experts.gate_up_proj[e] @ rows[p]).chunk(2)
        total[p] += weights.view(-1, k)[p, slot] * (experts.down_proj[e] @ (torch.nn.functional.silu(gate) * up))
torch.testing.assert_close(total, out.view(-1, model.hidden_size))
```
'''
