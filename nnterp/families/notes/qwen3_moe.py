"""Notes of Qwen3-MoE written by hand, added to the derived ones. Read against transformers'
modeling_qwen3_moe.py (Qwen3MoeTopKRouter: a float32 softmax over all experts, topk, a division by the kept sum
only when norm_topk_prob, the weights cast back to the logits' dtype; Qwen3MoeSparseMoeBlock: the routed experts
and nothing else; Qwen3MoeAttention: head_dim from the config or hidden_size / num_attention_heads, q_norm and
k_norm before the rotary, one sliding_window for every layer) and configuration_qwen3_moe.py (no head_dim field,
norm_topk_prob false by default, no layer_types); the snippets run on the family's tiny model (4 experts, 2 per
token)."""

MORE = r'''
## The released checkpoints renormalise the top 8; the class default does not

The router takes the softmax of `router_logits` over all experts in float32, keeps the `top_k` largest and divides them by their sum only when `norm_topk_prob` is set. Qwen3-30B-A3B and Qwen3-235B-A22B set it true (8 of 128 experts, weights summing to one), but `Qwen3MoeConfig`'s default is false, the Qwen2-MoE behaviour: a config built by hand from the sizes alone routes with weights that sum to less than one, and every routed block's output shrinks. The tiny model keeps the class default; loaded with `norm_topk_prob=True` it routes as the releases do. Either way the weights are cast back to the logits' dtype.

```python
from transformers import Qwen3MoeConfig
from nnterp import tiny

for repo in ("Qwen/Qwen3-30B-A3B", "Qwen/Qwen3-235B-A22B"):
    facts = released(repo)
    assert facts["norm_topk_prob"] is True and (facts["num_experts"], facts["num_experts_per_tok"]) == (128, 8)
assert Qwen3MoeConfig().norm_topk_prob is False is model.config.norm_topk_prob

as_released = tiny.load("qwen3_moe", attn_implementation="eager", norm_topk_prob=True)
for routed, renormalised in ((model, False), (as_released, True)):
    with routed.trace(prompt):
        logits = routed.layers[0].mlp.router_logits.save()
        choices = routed.layers[0].mlp.router_choices.save()
        weights = routed.layers[0].mlp.router_weights.save()
    kept = logits.float().softmax(-1).gather(-1, choices)
    expected = kept / kept.sum(-1, keepdim=True) if renormalised else kept
    torch.testing.assert_close(expected.to(logits.dtype), weights)
    assert torch.allclose(weights.sum(-1), torch.ones(1)) is renormalised
```

## `head_dim` is not a field of the config: the releases set 128, a hand-built config gets 64

`Qwen3MoeConfig` has no `head_dim` default (Qwen3's has 128); the attention takes `config.head_dim` when present, else `hidden_size // num_attention_heads`. The released configs set `head_dim` 128, twice the 2048 / 32 = 64 of Qwen3-30B-A3B's width over its heads (and of Qwen3-235B-A22B's 4096 / 64), so `q_proj` maps 2048 to 32 · 128 = 4096 features on the first and 4096 to 8192 on the second: the queries are wider than the stream. Drop the key, or build the config from the sizes alone, and the heads are 64 wide, another model that loads no checkpoint:

```python
from transformers import AutoModelForCausalLM, Qwen3MoeConfig

facts = released("Qwen/Qwen3-30B-A3B")
assert facts["head_dim"] == 128 and facts["hidden_size"] // facts["num_attention_heads"] == 64
big = released("Qwen/Qwen3-235B-A22B")
assert big["head_dim"] == 128 and (big["hidden_size"], big["num_attention_heads"]) == (4096, 64)
assert not hasattr(Qwen3MoeConfig(), "head_dim")
widths = {}
for name, given in (("released", facts), ("without head_dim", {k: v for k, v in facts.items() if k != "head_dim"})):
    with torch.device("meta"):
        meta = AutoModelForCausalLM.from_config(Qwen3MoeConfig(**given))
    widths[name] = meta.model.layers[0].self_attn.q_proj.out_features
assert widths == {"released": 4096, "without head_dim": 2048}
```

## With the window on, every layer slides: `max_window_layers` is not read

Unlike Qwen2 and Qwen3, `Qwen3MoeConfig` builds no `layer_types`: the model picks one mask for all blocks (`create_sliding_window_causal_mask` whenever `sliding_window` is set) and every attention passes the same `sliding_window` to its kernel. `max_window_layers`, present in the released files (94 on Qwen3-235B-A22B), is never read. The released configs set `use_sliding_window` false, which sets `sliding_window` to None: no layer slides. Switched on, all of them do, block 0 included, whatever `max_window_layers` says:

```python
from transformers import Qwen3MoeConfig
from nnterp import tiny

big = released("Qwen/Qwen3-235B-A22B")
assert big["use_sliding_window"] is False and big["max_window_layers"] == big["num_hidden_layers"] == 94
assert Qwen3MoeConfig(**big).sliding_window is None

every = tiny.load("qwen3_moe", attn_implementation="eager", use_sliding_window=True, sliding_window=2,
                  max_window_layers=1)
with every.trace(prompt):
    bottom = every.layers[0].self_attn.attention_probabilities.save()
    top = every.layers[1].self_attn.attention_probabilities.save()
n = top.shape[-1]
i, j = torch.meshgrid(torch.arange(n), torch.arange(n), indexing="ij")
assert (bottom[..., i - j >= 2] == 0).all() and (top[..., i - j >= 2] == 0).all()   # both blocks windowed
```

## No shared expert: the block is the routed sum alone

`Qwen3MoeSparseMoeBlock` holds `gate` and `experts` only: no `shared_expert`, no `shared_expert_gate` (Qwen2-MoE's), no residual of its own. The experts are fused: `experts.gate_up_proj` [num_experts, 2 · moe_intermediate_size, hidden_size] and `experts.down_proj` [num_experts, hidden_size, moe_intermediate_size], each expert's matrix [out, in] with the gate rows first. Each expert is narrow: 768 on Qwen3-30B-A3B against a width of 2048, and the 8 chosen together are 8 · 768 = 6144 wide, exactly `intermediate_size`, the width of a dense block (1536 and 12288 on Qwen3-235B-A22B). The block recomputed from those weights:

```python
for repo, (expert, dense) in (("Qwen/Qwen3-30B-A3B", (768, 6144)), ("Qwen/Qwen3-235B-A22B", (1536, 12288))):
    facts = released(repo)
    assert (facts["moe_intermediate_size"], facts["intermediate_size"]) == (expert, dense)
    assert facts["num_experts_per_tok"] * facts["moe_intermediate_size"] == facts["intermediate_size"]

mlp = model.layers[0].mlp
experts = mlp.experts
assert not hasattr(mlp._module, "shared_expert")
with model.trace(prompt):
    x = model.layers[0].mlp_input.save()
    choices = mlp.router_choices.save()
    weights = mlp.router_weights.save()
    out = mlp.mlp_output.save()

routed = torch.zeros_like(out)
for slot in range(model.num_experts_per_token):
    for e in range(model.num_experts):
        where = choices[..., slot] == e
        g, u = torch.nn.functional.linear(x[where], experts.gate_up_proj[e]).chunk(2, dim=-1)
        routed[where] += weights[..., slot][where, None] * torch.nn.functional.linear(experts.act_fn(g) * u, experts.down_proj[e])
torch.testing.assert_close(routed, out)
```

## Every block is routed on the releases; `mlp_only_layers` makes a dense one

Block i holds the experts unless i is in `mlp_only_layers` or (i + 1) is not a multiple of `decoder_sparse_step`; then it holds a dense `Qwen3MoeMLP` of width `intermediate_size`, which serves `mlp_activation` and `mlp_neurons` and no router values. Both released configs set `mlp_only_layers` empty and a step of 1: all 48 blocks of Qwen3-30B-A3B and all 94 of Qwen3-235B-A22B are routed, and `mlp_neurons` is served on none of them.

```python
from nnterp import tiny

for repo, depth in (("Qwen/Qwen3-30B-A3B", 48), ("Qwen/Qwen3-235B-A22B", 94)):
    facts = released(repo)
    assert facts["mlp_only_layers"] == [] and facts["decoder_sparse_step"] == 1 and facts["num_hidden_layers"] == depth
assert all(model.serves("mlp_neurons", i) is not None for i in range(model.num_layers))   # all routed: no neurons

dense_first = tiny.load("qwen3_moe", attn_implementation="eager", mlp_only_layers=[0])
assert not hasattr(dense_first.layers[0].mlp._module, "experts") and hasattr(dense_first.layers[1].mlp._module, "experts")
with dense_first.trace(prompt):
    neurons = dense_first.layers[0].mlp.mlp_neurons.save()
    logits = dense_first.layers[1].mlp.router_logits.save()
assert neurons.shape[-1] == dense_first.config.intermediate_size and logits.shape[-1] == dense_first.num_experts
```

## A3B and A22B: the active parameters the names give

Counted on the meta device from the configs: Qwen3-30B-A3B holds 30,532,122,624 parameters, 28,991,029,248 of them in the experts; a token runs 8 of the 128, so one forward uses 3,353,032,704. Qwen3-235B-A22B: 235,093,634,560 in all, 227,096,395,776 in the experts, 22,190,763,520 per token. The experts hold 95 % of the weights on the first and 97 % on the second, and a token uses 1/16 of them.

```python
from transformers import AutoModelForCausalLM, Qwen3MoeConfig

counts = {}
for repo in ("Qwen/Qwen3-30B-A3B", "Qwen/Qwen3-235B-A22B"):
    facts = released(repo)
    with torch.device("meta"):
        meta = AutoModelForCausalLM.from_config(Qwen3MoeConfig(**facts))
    total = sum(p.numel() for p in meta.parameters())
    routed = sum(p.numel() for name, p in meta.named_parameters() if ".experts." in name)
    counts[repo] = (total, routed, total - routed + routed * facts["num_experts_per_tok"] // facts["num_experts"])
    counts[repo] += (round(routed / total, 2),)
assert counts["Qwen/Qwen3-30B-A3B"] == (30532122624, 28991029248, 3353032704, 0.95)
assert counts["Qwen/Qwen3-235B-A22B"] == (235093634560, 227096395776, 22190763520, 0.97)
```

'''
