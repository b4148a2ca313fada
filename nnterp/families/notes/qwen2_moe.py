"""Notes of Qwen2-MoE written by hand, added to the derived ones. Read against transformers'
modeling_qwen2_moe.py (Qwen2MoeTopKRouter: a float32 softmax over all experts, topk, a division by the kept sum
only when norm_topk_prob, the weights cast back to the logits' dtype; Qwen2MoeSparseMoeBlock: routed experts plus
sigmoid(shared_expert_gate(x)) · shared_expert(x); Qwen2MoeDecoderLayer: a dense MLP on mlp_only_layers and off
the decoder_sparse_step grid) and configuration_qwen2_moe.py (the sliding layers are the even ones below
max_window_layers; sliding_window 0 when off); Qwen1.5-MoE-A2.7B's recorded facts have no source, so only
Qwen2-57B-A14B's numbers are quoted; the snippets run on the family's tiny model (4 experts, 2 per
token)."""

MORE = r'''
## The kept router weights are not renormalised: they sum to less than one

The router takes the softmax of `router_logits` over all experts in float32 and keeps the `top_k` largest probabilities; it divides them by their sum only when `norm_topk_prob` is set, and Qwen2-57B-A14B's released config sets it false (it keeps 8 of 64 experts). `router_weights` are therefore the chosen experts' shares of the full softmax, and the routed part of the block is scaled by their sum, a number below one that changes from token to token: on Mixtral the same two lines end in a renormalisation and the weights sum to one. The weights are then cast back to the logits' dtype (bfloat16 under a bfloat16 load, unlike Mixtral's float32).

```python
facts = released("Qwen/Qwen2-57B-A14B")
assert facts["norm_topk_prob"] is False and (facts["num_experts"], facts["num_experts_per_tok"]) == (64, 8)

mlp = model.layers[0].mlp
assert model.config.norm_topk_prob is False
with model.trace(prompt):
    logits = mlp.router_logits.save()
    choices = mlp.router_choices.save()
    weights = mlp.router_weights.save()

full = logits.float().softmax(-1)
torch.testing.assert_close(full.gather(-1, choices).to(logits.dtype), weights)   # shares of the full softmax
assert (weights.sum(-1) < 1).all()                                                # and no renormalisation

from nnterp import tiny
hf, tokenizer = tiny.build("qwen2_moe")
half = nnterp.StandardizedTransformer(hf.to(torch.bfloat16), tokenizer=tokenizer)
with half.trace(prompt):
    half_weights = half.layers[0].mlp.router_weights.save()
assert half_weights.dtype == torch.bfloat16
```

## A shared expert runs on every token, gated by a sigmoid

Beside the routed experts, each MoE block holds `shared_expert`, a dense gated MLP (`gate_proj`, `up_proj`, `down_proj`, `act_fn`) of width `shared_expert_intermediate_size`, and `shared_expert_gate`, a Linear from `hidden_size` to one unit. The block returns the routed sum plus sigmoid(`shared_expert_gate(x)`) · `shared_expert(x)`: a scalar between 0 and 1 per token scales the shared expert's output, independently of the router. Both are modules, so `mlp.shared_expert.output` and `mlp.shared_expert_gate.output` (the gate before its sigmoid) are hookable, unlike a routed expert's output; the block runs the shared expert before the router and its gate after the experts, and a trace reads them in that order; `mlp_output` is the sum of the two parts. Qwen2-57B-A14B's shared expert is 20480 wide, exactly its 8 chosen experts of 2560 together.

```python
facts = released("Qwen/Qwen2-57B-A14B")
assert (facts["shared_expert_intermediate_size"], facts["moe_intermediate_size"]) == (20480, 2560)
assert facts["shared_expert_intermediate_size"] == facts["num_experts_per_tok"] * facts["moe_intermediate_size"]

mlp = model.layers[0].mlp
experts = mlp.experts
with model.trace(prompt):
    x = model.layers[0].mlp_input.save()
    shared = mlp.shared_expert.output.save()          # in forward order: the shared expert runs first,
    choices = mlp.router_choices.save()               # then the router and the experts,
    weights = mlp.router_weights.save()
    gate = mlp.shared_expert_gate.output.save()       # then the shared expert's gate
    out = mlp.mlp_output.save()

assert gate.shape[-1] == 1 and mlp.shared_expert_gate.in_features == model.config.hidden_size
assert mlp.shared_expert.down_proj.in_features == model.config.shared_expert_intermediate_size
routed = torch.zeros_like(out)
for slot in range(model.num_experts_per_token):
    for e in range(model.num_experts):
        where = choices[..., slot] == e
        g, u = torch.nn.functional.linear(x[where], experts.gate_up_proj[e]).chunk(2, dim=-1)
        routed[where] += weights[..., slot][where, None] * torch.nn.functional.linear(experts.act_fn(g) * u, experts.down_proj[e])
torch.testing.assert_close(routed + torch.sigmoid(gate) * shared, out)
```

## `max_window_layers` means the opposite of Qwen2's here

Both families read `use_sliding_window`, `sliding_window` and `max_window_layers`, but they build `layer_types` differently. On Qwen2 the layers from `max_window_layers` up slide; on Qwen2-MoE a layer slides when its index i is even and below `max_window_layers`: the bottom layers, every other one. And with the window off, `Qwen2MoeConfig` sets `sliding_window` to 0, not None. Qwen2-57B-A14B's released config sets `use_sliding_window` false, so no layer slides (its file says `sliding_window` 131072 and `max_window_layers` 28; neither is used). A config carried over from a Qwen2 model with the window on slides other layers here:

```python
from transformers import Qwen2Config, Qwen2MoeConfig

facts = released("Qwen/Qwen2-57B-A14B")
assert facts["use_sliding_window"] is False and (facts["sliding_window"], facts["max_window_layers"]) == (131072, 28)
loaded = Qwen2MoeConfig(**facts)
assert loaded.sliding_window == 0 and set(loaded.layer_types) == {"full_attention"}

on = dict(num_hidden_layers=4, use_sliding_window=True, sliding_window=2, max_window_layers=2)
assert Qwen2MoeConfig(**on).layer_types == ["sliding_attention", "full_attention", "full_attention", "full_attention"]
assert Qwen2Config(**on).layer_types == ["full_attention", "full_attention", "sliding_attention", "sliding_attention"]
```

## Which blocks are routed: `mlp_only_layers` and `decoder_sparse_step`

Block i holds the mixture of experts when i is not in `mlp_only_layers` and (i + 1) is a multiple of `decoder_sparse_step`; otherwise it holds a dense `Qwen2MoeMLP` of width `intermediate_size` (18944 on Qwen2-57B-A14B), not `moe_intermediate_size`. With a step of 2 the routed blocks are 1, 3, 5, …, not 0, 2, 4. Qwen2-57B-A14B's released config uses a step of 1 and lists no `mlp_only_layers`, so every block is routed. A dense block serves `mlp_activation` and `mlp_neurons` and no router values; a routed block the reverse:

```python
from nnterp import tiny

facts = released("Qwen/Qwen2-57B-A14B")
assert facts["decoder_sparse_step"] == 1 and not facts.get("mlp_only_layers") and facts["intermediate_size"] == 18944

listed = tiny.load("qwen2_moe", mlp_only_layers=[1])
assert hasattr(listed.layers[0].mlp._module, "experts") and not hasattr(listed.layers[1].mlp._module, "experts")

stepped = tiny.load("qwen2_moe", attn_implementation="eager", decoder_sparse_step=2)
assert not hasattr(stepped.layers[0].mlp._module, "experts") and hasattr(stepped.layers[1].mlp._module, "experts")
assert stepped.layers[0].mlp.down_proj.in_features == stepped.config.intermediate_size
with stepped.trace(prompt):
    neurons = stepped.layers[0].mlp.mlp_neurons.save()
    routed_logits = stepped.layers[1].mlp.router_logits.save()
assert neurons.shape[-1] == stepped.config.intermediate_size and routed_logits.shape[-1] == stepped.num_experts
```

## Qwen2-57B-A14B groups 7 query heads to one key and value head

Qwen2-57B-A14B sets 28 attention heads over 4 key and value heads, 7 query heads to each. The family keeps Qwen2's biased `q_proj`, `k_proj` and `v_proj` (`qkv_bias`, true by default) and an unbiased `o_proj`, so the value bias is again a constant in every attention output.

```python
from transformers import Qwen2MoeConfig

facts = released("Qwen/Qwen2-57B-A14B")
assert (facts["num_attention_heads"], facts["num_key_value_heads"]) == (28, 4)
assert Qwen2MoeConfig().qkv_bias is True

attention = model.layers[0].self_attn
assert model.config.qkv_bias is True and attention.o_proj.bias is None
assert all(getattr(attention, name).bias is not None for name in ("q_proj", "k_proj", "v_proj"))
```

## A14B: the active parameters the name gives

Counted on the meta device from Qwen2-57B-A14B's config: 57,408,658,944 parameters in all, 49,325,015,040 of them in the routed experts; a token runs 8 of the 64, so one forward uses 14,249,270,784, the "A14B" of the name. The shared experts count in full, as they run on every token.

```python
from transformers import AutoModelForCausalLM, Qwen2MoeConfig

facts = released("Qwen/Qwen2-57B-A14B")
with torch.device("meta"):
    meta = AutoModelForCausalLM.from_config(Qwen2MoeConfig(**facts))
total = sum(p.numel() for p in meta.parameters())
routed = sum(p.numel() for name, p in meta.named_parameters() if ".experts." in name)
active = total - routed + routed * facts["num_experts_per_tok"] // facts["num_experts"]
assert (total, routed, active) == (57408658944, 49325015040, 14249270784)
shared = [name for name, _ in meta.named_parameters() if ".shared_expert." in name]
assert shared and not any(".experts." in name for name in shared)     # not discounted: counted in full
```
'''
