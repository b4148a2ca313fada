"""Notes of Mixtral written by hand, added to the derived ones. Read against transformers' modeling_mixtral.py
(MixtralTopKRouter: F.linear of the flattened MLP input with a bare [num_experts, hidden_size] weight, a float32
softmax over all experts, topk, division by the kept sum; MixtralExperts: gate_up_proj chunked gate first, each
expert run on its own tokens and index_add-ed with its weight) and configuration_mixtral.py; the snippets run on
the family's tiny model (4 experts, 2 per token)."""

MORE = r'''
## The router: a softmax over all experts, then the top 2, renormalised

`gate` is a `MixtralTopKRouter`, not a Linear: a bare `weight` of [num_local_experts, hidden_size] and no bias. On the positions flattened to [tokens, hidden_size] it computes `router_logits = F.linear(x, weight)`, their softmax over all experts in float32, the `top_k` largest probabilities (2 on both released checkpoints, of 8 experts), and divides them by their sum. `router_weights` therefore sum to one at every position, and they equal the softmax of the two chosen logits alone: the other experts' share cancels in the division. They are not the probabilities the full softmax gave the chosen experts, which sum to less than one; a probe that reads "how much the router trusts expert e" from `router_weights` reads a share among two. `router_logits` are the raw scores, served as [batch, seq, num_experts] views of the router's own tensor:

```python
for repo in ("mistralai/Mixtral-8x7B-v0.1", "mistralai/Mixtral-8x22B-v0.1"):
    assert (released(repo)["num_local_experts"], released(repo)["num_experts_per_tok"]) == (8, 2)

mlp = model.layers[0].mlp
with model.trace(prompt):
    x = model.layers[0].mlp_input.save()
    logits = mlp.router_logits.save()
    choices = mlp.router_choices.save()
    weights = mlp.router_weights.save()

assert mlp.gate.weight.shape == (model.num_experts, model.config.hidden_size)
torch.testing.assert_close(x @ mlp.gate.weight.T, logits)
full = logits.float().softmax(-1)
kept = full.gather(-1, choices)
assert torch.equal(choices, full.topk(model.num_experts_per_token, dim=-1).indices)
torch.testing.assert_close(kept / kept.sum(-1, keepdim=True), weights)       # softmax, top 2, renormalised
torch.testing.assert_close(logits.gather(-1, choices).float().softmax(-1), weights)   # = softmax of the 2 logits
torch.testing.assert_close(weights.sum(-1), torch.ones_like(weights[..., 0]))
assert (kept.sum(-1) < 1).all()                                              # not the full softmax's shares
```

## The router's weights are float32 whatever the model's dtype

The router casts its logits to float32 before the softmax, so under a bfloat16 load `router_logits` are bfloat16 and `router_weights` are float32. The weights are computed from the bfloat16 logits, so they are float32 numbers no more precise than those logits; a comparison of weights across loads compares the logits' rounding.

```python
from nnterp import tiny

hf, tokenizer = tiny.build("mixtral")
half = nnterp.StandardizedTransformer(hf.to(torch.bfloat16), tokenizer=tokenizer)
with half.trace(prompt):
    half_logits = half.layers[0].mlp.router_logits.save()
    half_weights = half.layers[0].mlp.router_weights.save()
assert half_logits.dtype == torch.bfloat16 and half_weights.dtype == torch.float32
```

## Expert weights are stored [expert, out, in], gate before up

There is no module per expert: `experts.gate_up_proj` is one parameter of [num_local_experts, 2 · intermediate_size, hidden_size] and `experts.down_proj` one of [num_local_experts, hidden_size, intermediate_size], each expert's matrix in `nn.Linear`'s [out, in] order, so `F.linear(x, gate_up_proj[e])` (that is `x @ gate_up_proj[e].T`) is its projection, and `x @ gate_up_proj[e]` does not even have the right shape. The first `intermediate_size` rows are the gate, the next the up projection. An expert runs only on the tokens that chose it, and nothing hooks its output: to read what expert e wrote, recompute it from these weights. The block's output is the sum, over each position's two choices, of weight × expert output, with no shared expert and no residual of its own:

```python
mlp = model.layers[0].mlp
experts = mlp.experts
with model.trace(prompt):
    x = model.layers[0].mlp_input.save()
    choices = mlp.router_choices.save()
    weights = mlp.router_weights.save()
    out = mlp.mlp_output.save()

inter = model.config.intermediate_size
assert experts.gate_up_proj.shape == (model.num_experts, 2 * inter, model.config.hidden_size)
assert experts.down_proj.shape == (model.num_experts, model.config.hidden_size, inter)

def expert(e, rows):
    gate, up = torch.nn.functional.linear(rows, experts.gate_up_proj[e]).chunk(2, dim=-1)   # gate first
    return torch.nn.functional.linear(experts.act_fn(gate) * up, experts.down_proj[e])

again = torch.zeros_like(out)
for slot in range(model.num_experts_per_token):
    for e in range(model.num_experts):
        where = choices[..., slot] == e
        again[where] += weights[..., slot][where, None] * expert(e, x[where])
torch.testing.assert_close(again, out)
```

## To switch an expert off, edit its router logit

An edit of `router_logits` is made in the router's own tensor before the softmax and the top-k, so it reaches both the choice and the weights. Setting expert e's logit to the dtype's minimum at every position sends no token to it: the router picks the next best expert, and the two kept weights are renormalised as before, so the block's output is a full-strength mixture of two other experts, not the original mixture with one term missing. To remove an expert's contribution and keep the other weight as it was, recompute the block from the note above instead.

```python
mlp = model.layers[0].mlp
with model.trace(prompt):
    logits = mlp.router_logits.save()
    before = mlp.router_choices.save()

off = int(before[0, -1, 0])     # the last position's first choice
with model.trace(prompt):
    mlp.router_logits[..., off] = torch.finfo(mlp.router_logits.dtype).min
    after = mlp.router_choices.save()
    after_weights = mlp.router_weights.save()

edited = logits.clone()
edited[..., off] = torch.finfo(logits.dtype).min
assert (before == off).any() and not (after == off).any()
assert torch.equal(after, edited.float().softmax(-1).topk(model.num_experts_per_token, dim=-1).indices)  # the next best
torch.testing.assert_close(after_weights.sum(-1), torch.ones_like(after_weights[..., 0]))
```

## No sliding window on the released checkpoints

Mixtral's attention is Mistral's, and passes `config.sliding_window` to the kernel and the mask; but `MixtralConfig`'s default is None (Mistral's is 4096), and both released configs set it to null, so every block attends over the whole context: 32768 positions on Mixtral-8x7B-v0.1, 65536 on Mixtral-8x22B-v0.1, at `rope_theta` 1000000 on both. The option still works: a config that sets a window gets one on every block.

```python
from transformers import MistralConfig, MixtralConfig
from nnterp import tiny

for repo, context in (("mistralai/Mixtral-8x7B-v0.1", 32768), ("mistralai/Mixtral-8x22B-v0.1", 65536)):
    facts = released(repo)
    assert facts["sliding_window"] is None and facts["max_position_embeddings"] == context
    assert facts["rope_theta"] == 1000000
assert MixtralConfig().sliding_window is None and MistralConfig().sliding_window == 4096

with model.trace(prompt):
    full = model.layers[0].self_attn.attention_probabilities.save()
windowed = tiny.load("mixtral", attn_implementation="eager", sliding_window=2)
slid = []
with windowed.trace(prompt):
    for layer in windowed.layers:
        slid.append(layer.self_attn.attention_probabilities.save())
n = full.shape[-1]
i, j = torch.meshgrid(torch.arange(n), torch.arange(n), indexing="ij")
assert (full[..., j <= i] > 0).all()                                 # no window: every earlier key
for probs in slid:                                                   # a window: on every block
    assert (probs[..., i - j >= 2] == 0).all() and (probs[..., (j <= i) & (i - j < 2)] > 0).all()
```

## 46.7B parameters, 12.9B of them used per token

Counted on the meta device from Mixtral-8x7B-v0.1's config: 46,702,792,704 parameters, of which the experts hold 45,097,156,608 (8 experts × 32 blocks × 3 · 4096 · 14336). Each token runs 2 of the 8, so one forward uses the 1,605,636,096 parameters outside the experts and a quarter of the experts': 12,879,925,248. Mixtral-8x22B-v0.1: 140,620,634,112 in all, 39,152,031,744 per token. The memory to load is the total; the compute per token is the active count.

```python
from transformers import AutoModelForCausalLM, MixtralConfig

counts = {}
for repo in ("mistralai/Mixtral-8x7B-v0.1", "mistralai/Mixtral-8x22B-v0.1"):
    facts = released(repo)
    with torch.device("meta"):
        meta = AutoModelForCausalLM.from_config(MixtralConfig(**facts))
    total = sum(p.numel() for p in meta.parameters())
    in_experts = sum(p.numel() for name, p in meta.named_parameters() if ".experts." in name)
    active = total - in_experts + in_experts * facts["num_experts_per_tok"] // facts["num_local_experts"]
    counts[repo] = (total, in_experts, active)
assert counts["mistralai/Mixtral-8x7B-v0.1"] == (46702792704, 45097156608, 12879925248)
assert counts["mistralai/Mixtral-8x7B-v0.1"][1] == 8 * 32 * 3 * 4096 * 14336
assert counts["mistralai/Mixtral-8x22B-v0.1"][0::2] == (140620634112, 39152031744)
```
'''
