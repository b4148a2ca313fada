"""Notes of Qwen3-Next written by hand, added to the derived ones. Read against transformers'
modeling_qwen3_next.py (Qwen3NextAttention, Qwen3NextGatedDeltaNet.fix_query_key_value_ordering, Qwen3NextRMSNorm,
Qwen3NextRMSNormGated, Qwen3NextTopKRouter, Qwen3NextSparseMoeBlock, Qwen3NextPreTrainedModel) and
configuration_qwen3_next.py; the checkpoint numbers are Qwen3-Next-80B-A3B-Instruct's recorded config facts. The
tiny model's block 0 is a DeltaNet block and block 1 a softmax-attention block. The derived rotary note (which gave
the class's default base, the recorded facts having no rope_theta), the derived MoE note (which had every token pass
through the shared expert unweighted) and the derived q-norm note (unit RMS, where the weight is 1 + weight) are
replaced by the notes below."""

DROP = ("rotary_note", "moe_note", "qk_norm_property_note")

MORE = r'''
## One block in four has softmax attention; the other three have no pattern at all

Qwen3-Next-80B-A3B-Instruct's recorded facts set `full_attention_interval` 4 over 48 blocks: blocks 3, 7, …, 47 (12) are `full_attention`, the other 36 `linear_attention`, a gated DeltaNet (`linear_attn`, which nnterp names `self_attn`). A DeltaNet block keeps a recurrent state updated by the delta rule: it has no softmax, so `attention_queries`, `attention_keys`, `attention_scores`, `attention_probabilities` and the per-head outputs are refused there with a sentence saying so, and `attention_output` (`out_proj`'s output) is served. A loop over every block's `attention_probabilities` must skip three blocks in four.

```python
from transformers import Qwen3NextConfig

facts = released("Qwen/Qwen3-Next-80B-A3B-Instruct")
assert (facts["full_attention_interval"], facts["num_hidden_layers"]) == (4, 48)
types = Qwen3NextConfig(**facts).layer_types
assert [i for i, kind in enumerate(types) if kind == "full_attention"] == list(range(3, 48, 4))

assert model.config.layer_types == ["linear_attention", "full_attention"]
assert "DeltaNet" in model.serves("attention_probabilities", 0) and model.serves("attention_probabilities", 1) is None
assert model.serves("attention_output", 0) is None
with model.trace(prompt):
    native = model.layers[0].self_attn.out_proj.output.save()
    delta_out = model.layers[0].self_attn.attention_output.save()
assert torch.equal(delta_out, native)
```

## `q_proj` emits each head's query and its output gate side by side

On the softmax blocks `q_proj` is `num_heads · head_dim · 2` wide (16 × 256 × 2 = 8192 on Qwen3-Next-80B-A3B-Instruct), read per head: head h's 2 · 256 outputs are its query, then its gate. The first 4096 outputs are not all the queries. The kernel's output, `attention_head_outputs`, is multiplied by `sigmoid(gate)` before `o_proj`: `attention_premix` is after the gate, and a head whose gate is near 0 is silenced whatever its pattern. Attribute to heads from `attention_premix`, or multiply by the gate yourself.

```python
facts = released("Qwen/Qwen3-Next-80B-A3B-Instruct")
assert (facts["num_attention_heads"], facts["head_dim"]) == (16, 256)
attention = model.layers[1].self_attn
with model.trace(prompt):
    projected = attention.source.self_q_proj_0.output.save()
    heads = attention.attention_head_outputs.save()
    premix = attention.attention_premix.save()

b, s, _ = projected.shape
h, d = model.num_heads, model.head_dim
assert attention.q_proj.out_features == h * d * 2
gate = projected.view(b, s, h, 2 * d)[..., d:]                     # per head: query, then gate
torch.testing.assert_close(premix, heads * torch.sigmoid(gate))
blocks = projected[..., h * d:].view(b, s, h, d)                   # all gates after all queries: wrong
assert not torch.allclose(premix, heads * torch.sigmoid(blocks))
```

## Two RMSNorm conventions in one model: `1 + weight` in the blocks, `weight` in the DeltaNet

`Qwen3NextRMSNorm`, used for `input_layernorm`, `post_attention_layernorm`, the final `norm`, `q_norm` and `k_norm`, multiplies by `1 + weight`, and its weight is initialised at 0: a weight of 0 is the identity scale. The DeltaNet's output norm, `Qwen3NextRMSNormGated`, multiplies by `weight` itself, initialised at 1, and then by `silu(z)`, the gate from `in_proj_qkvz`. A block-norm weight applied as Llama does, without the 1, scales the stream by the offset alone (0 at initialisation); the gated norm's weight applied as `1 + weight` doubles it at initialisation.

```python
block = model.layers[0]._module
with model.trace(prompt):
    x = model.layers[0].layer_input.save()
    normed = model.layers[0].attention_norm_output.save()
    core = model.layers[0].self_attn.source.core_attn_out_0.output.save()
    z = model.layers[0].self_attn.source.z_0.output.save()
    gated = model.layers[0].self_attn.source.self_norm_0.output.save()

rms = lambda t, eps: t * (t.pow(2).mean(-1, keepdim=True) + eps).rsqrt()
norm = block.input_layernorm
torch.testing.assert_close(normed, rms(x, norm.eps) * (1 + norm.weight))
deltanet = block.linear_attn.norm
torch.testing.assert_close(gated, deltanet.weight * rms(core, deltanet.variance_epsilon) * torch.nn.functional.silu(z))
from transformers.models.qwen3_next.modeling_qwen3_next import Qwen3NextRMSNorm, Qwen3NextRMSNormGated
assert torch.equal(Qwen3NextRMSNorm(8).weight, torch.zeros(8))       # initialised at 0
assert torch.equal(Qwen3NextRMSNormGated(8).weight, torch.ones(8))   # initialised at 1
```

## Queries and keys are normed per head, then a quarter of each head is rotated

`q_norm` and `k_norm` are RMSNorms of width `head_dim` (256), applied to each head separately after the split (OLMo 2's span all heads). The rotary then turns `partial_rotary_factor` = 0.25 of each head, its first 64 dimensions with `rotate_half` (pairing i with i + 32); the other 192 dimensions of `attention_queries` and `attention_keys` are `q_norm`'s and `k_norm`'s outputs unchanged and carry no position.

```python
facts = released("Qwen/Qwen3-Next-80B-A3B-Instruct")
assert facts["partial_rotary_factor"] == 0.25 and int(facts["head_dim"] * 0.25) == 64
attention = model.layers[1].self_attn
assert attention.q_norm.weight.shape[0] == model.head_dim
with model.trace(prompt):
    q_normed = attention.source.self_q_norm_0.output.save()
    q = attention.attention_queries.save()

rot = int(model.head_dim * model.config.rope_parameters["partial_rotary_factor"])     # 4 on the tiny model
q_normed = q_normed.transpose(1, 2)
assert torch.equal(q[..., rot:], q_normed[..., rot:])
assert not torch.equal(q[:, :, 1:, :rot], q_normed[:, :, 1:, :rot])
```

## 10 of 512 experts, renormalized, beside a shared expert the token gates itself

The router takes the softmax of `router_logits` over all `num_experts` (512), keeps the top `num_experts_per_tok` (10) and, `norm_topk_prob` being true, divides them by their sum: `router_weights` sum to 1. The shared expert (`shared_expert`, width `shared_expert_intermediate_size` 512) runs on every token, but its output is multiplied by `sigmoid(shared_expert_gate(x))`, a scalar per token in (0, 1): `mlp_output` is the routed experts' weighted sum plus the gated shared output. A token can turn its shared expert nearly off; read the gate, `mlp.shared_expert_gate.output`, before attributing to it. Every block's MLP is this MoE under the class defaults `decoder_sparse_step` 1 and empty `mlp_only_layers` (the recorded facts set neither), so `mlp_neurons` are refused on every block.

```python
from transformers import Qwen3NextConfig

facts = released("Qwen/Qwen3-Next-80B-A3B-Instruct")
assert (facts["num_experts"], facts["num_experts_per_tok"], facts["norm_topk_prob"]) == (512, 10, True)
config = Qwen3NextConfig(**facts)
assert "decoder_sparse_step" not in facts and config.decoder_sparse_step == 1 and config.mlp_only_layers == []
assert all(model.serves("mlp_neurons", i) is not None for i in range(model.num_layers))
with model.trace(prompt):                                          # the forward's order: shared expert first
    shared = model.layers[0].mlp.shared_expert.output.save()
    logits = model.layers[0].mlp.router_logits.save()
    weights = model.layers[0].mlp.router_weights.save()
    choices = model.layers[0].mlp.router_choices.save()
    gate = model.layers[0].mlp.shared_expert_gate.output.save()
    out = model.layers[0].mlp.mlp_output.save()

top = logits.softmax(-1).gather(-1, choices)
torch.testing.assert_close(weights, top / top.sum(-1, keepdim=True))
torch.testing.assert_close(weights.sum(-1), torch.ones(weights.shape[:-1]))
routed = out - torch.sigmoid(gate).view(*out.shape[:-1], 1) * shared.view(out.shape)
with model.trace(prompt):
    model.layers[0].mlp.shared_expert_gate.output[:] = -1e4         # gate closed: sigmoid = 0
    out_closed = model.layers[0].mlp.mlp_output.save()
torch.testing.assert_close(out_closed, routed)
```

## The DeltaNet's fused projection is grouped per key head

`in_proj_qkvz` computes the DeltaNet's queries, keys, values and output gate `z` in one Linear, and `fix_query_key_value_ordering` reads its rows per key head: `view(num_k_heads, 2·head_k_dim + 2·head_v_dim·num_v_heads/num_k_heads)`, each group holding its query (128), its key (128), then the values and `z` of its `num_v_heads / num_k_heads` value heads (2 × 128 each on Qwen3-Next-80B-A3B-Instruct, 16 key heads over 32 value heads). The first `key_dim` rows are not the queries. `in_proj_ba` is grouped the same way for the per-value-head `b` (the write strength, `sigmoid(b)`) and `a` (the decay, `−exp(A_log)·softplus(a + dt_bias)`).

```python
facts = released("Qwen/Qwen3-Next-80B-A3B-Instruct")
assert (facts["linear_num_key_heads"], facts["linear_num_value_heads"], facts["linear_key_head_dim"],
        facts["linear_value_head_dim"]) == (16, 32, 128, 128)
delta = model.layers[0]._module.linear_attn
with model.trace(prompt):
    fused = model.layers[0].self_attn.source.self_in_proj_qkvz_0.output.save()
    ordered = model.layers[0].self_attn.source.self_fix_query_key_value_ordering_0.output.save()
    beta = model.layers[0].self_attn.source.beta_0.output.save()
    decay = model.layers[0].self_attn.source.g_0.output.save()

query, key, value, z, b, a = ordered
torch.testing.assert_close(beta, b.sigmoid())
torch.testing.assert_close(decay, -delta.A_log.exp() * torch.nn.functional.softplus(a + delta.dt_bias))
k_heads, per, dk, dv = delta.num_k_heads, delta.num_v_heads // delta.num_k_heads, delta.head_k_dim, delta.head_v_dim
groups = fused.view(*fused.shape[:-1], k_heads, 2 * dk + 2 * per * dv)
assert torch.equal(query, groups[..., :dk]) and torch.equal(key, groups[..., dk:2 * dk])
assert torch.equal(z.flatten(-2), groups[..., 2 * dk + per * dv:].flatten(-2))
assert not torch.equal(query.flatten(-2), fused[..., :k_heads * dk])          # blocks would be wrong
```

## The multi-token-prediction weights are dropped at load

`Qwen3NextPreTrainedModel._keys_to_ignore_on_load_unexpected` is `^mtp.*`: weights of a multi-token-prediction module stored under `mtp.` in a checkpoint are discarded without a warning, and `Qwen3NextForCausalLM` builds no such module. `logits` are the main model's next-token prediction only.

```python
import re
from nnterp import tiny

hf, _ = tiny.build("qwen3_next")
ignored = type(hf)._keys_to_ignore_on_load_unexpected
assert any(re.match(pattern, "mtp.layers.0.mlp.gate.weight") for pattern in ignored)
assert not any(re.match(pattern, "model.layers.0.mlp.gate.weight") for pattern in ignored)
assert not any("mtp" in name for name, _ in hf.named_modules())
```
'''
