"""Notes of LFM2-MoE written by hand, added to the derived ones. Read against transformers' configuration_lfm2_moe.py
(Lfm2MoeConfig: no full_attn_idxs, no default layer_types, num_dense_layers, use_expert_bias, no two-thirds rule
for the MLP) and modeling_lfm2_moe.py (Lfm2MoeShortConv, which runs causal_conv1d_fn on conv.weight without calling
conv; Lfm2MoeDecoderLayer, whose MLP slot is Lfm2MoeMLP before num_dense_layers and Lfm2MoeSparseMoeBlock after;
Lfm2MoeTopKRouter's sigmoid scores, expert_bias for the choice only, the 1e-6 in the renormalisation and
routed_scaling_factor; Lfm2MoeExperts' fused gate_up_proj). The snippets run on the tiny LFM2-MoE (block 0 a
short-convolution block with a dense MLP, block 1 an attention block with four experts) and on configs built from
LFM2-8B-A1B's config.json, recorded whole."""

LOAD = "eager"

MORE = r'''
## Six blocks of 24 attend, the other 18 run a short convolution, and only blocks 0 and 1 have a dense MLP

Each block holds one mixer, `self_attn` (an `Lfm2MoeAttention`) or `conv` (an `Lfm2MoeShortConv`, which nnterp serves as `self_attn` too), and one MLP slot, `feed_forward`: the dense SwiGLU `Lfm2MoeMLP` on the first `num_dense_layers` blocks and the routed `Lfm2MoeSparseMoeBlock` on the rest. LFM2-8B-A1B's config.json lists `layer_types` block by block: blocks 2, 6, 10, 14, 18 and 21 attend and the other 18 convolve, and `num_dense_layers` is 2, so the two dense blocks are convolution blocks and every attention block is followed by experts. Unlike LFM2, `Lfm2MoeConfig` has no `full_attn_idxs` and no default for `layer_types`: a config without the list builds no model at all (`TypeError` at the first block), and LFM2's `full_attn_idxs`, passed to it, is not turned into a schedule.

```python
from transformers import Lfm2MoeConfig, Lfm2MoeForCausalLM

facts = released("LiquidAI/LFM2-8B-A1B")
kinds = facts["layer_types"]
assert len(kinds) == facts["num_hidden_layers"] == 24
assert [i for i, kind in enumerate(kinds) if kind == "full_attention"] == [2, 6, 10, 14, 18, 21]
assert facts["num_dense_layers"] == 2 and kinds[:2] == ["conv", "conv"]

assert Lfm2MoeConfig(num_hidden_layers=2, full_attn_idxs=[1]).layer_types is None
try:
    with torch.device("meta"):
        Lfm2MoeForCausalLM(Lfm2MoeConfig(num_hidden_layers=2))
except TypeError:
    pass
else:
    raise AssertionError("a config without layer_types built a model")

for i, kind in enumerate(model.config.layer_types):   # the tiny model: conv + dense, then attention + experts
    block = model.layers[i]._module
    assert hasattr(block, "conv") == (kind == "conv")
    routed = type(block.feed_forward).__name__ == "Lfm2MoeSparseMoeBlock"
    assert routed == (i >= model.config.num_dense_layers)
```

## The short convolution is C · taps(B · x): three causal taps per channel, no activation, and its `Conv1d` is never called

`Lfm2MoeShortConv` splits `in_proj` (hidden → 3 · hidden) into B, C and x, multiplies B and x, runs the product through a depthwise causal convolution of `conv_L_cache` taps per channel (3 on LFM2-8B-A1B, no bias since `conv_bias` is false), multiplies by C and projects back with `out_proj`:

```formula
B, C, x = in_proj(h).chunk(3)                       h = operator_norm(stream)
y[t]    = C[t] · (w0 · (B·x)[t-2] + w1 · (B·x)[t-1] + w2 · (B·x)[t])     per channel
out     = out_proj(y)
```

Both gates are linear, so the mixer is a cubic polynomial of its input, with no state over the whole past and no norm inside. The module `self_attn.conv` holds the filters but is never called: the forward passes `conv.weight` to `causal_conv1d_fn`, so `self_attn.conv.output` is never produced (nnsight reports it as a value the model "already ran past") and a hook on it changes nothing; the gated taps, C times the convolution, are `self_attn.out_proj.input`. The snippet recomputes the mixer from its weights and gets `attention_output` bit for bit.

```python
import torch.nn.functional as F

facts = released("LiquidAI/LFM2-8B-A1B")
assert facts["conv_L_cache"] == 3 and facts["conv_bias"] is False
conv_block = model.config.layer_types.index("conv")
mixer = model.layers[conv_block].self_attn
with model.trace(prompt):
    h = model.layers[conv_block].attention_norm_output.save()
    gated = mixer.out_proj.input.save()
    out = mixer.attention_output.save()

m = mixer._module
B, C, x = m.in_proj(h).transpose(1, 2).chunk(3, dim=1)
taps = F.conv1d(B * x, m.conv.weight, m.conv.bias, padding=m.conv_kernel_size - 1, groups=x.shape[1])[..., :h.shape[1]]
assert torch.equal((C * taps).transpose(1, 2), gated) and torch.equal(m.out_proj(gated), out)

try:
    with model.trace(prompt):
        mixer.conv.output.save()
except Exception as error:
    assert "ran past" in str(error)
else:
    raise AssertionError("the Conv1d module ran")
```

## Positions come from the three taps and from the rotary of the six attention blocks

A conv block takes no `position_ids`: its output at position t is a function of the normed stream at t - 2, t - 1 and t alone, so changing the stream at position 0 changes its `attention_output` at positions 0 to 2 and, bit for bit, nowhere later, and shifting the position ids changes nothing in it. The attention blocks rotate every dimension of their 64-dimensional heads (2048 / 32 on LFM2-8B-A1B) at base 1000000 (the derived notes below prove it). On LFM2-8B-A1B, blocks 0 and 1 convolve, so what reaches the first attention block at position t has read tokens t - 4 to t and nothing earlier; the snippet builds that schedule and finds the same five-token window.

```python
from nnterp import tiny

conv_block = model.config.layer_types.index("conv")
layer = model.layers[conv_block]
with model.trace(prompt):
    h = layer.attention_norm_output.save()
    out = layer.self_attn.attention_output.save()
changed = h.clone()
changed[:, 0] += 1.0
with model.trace(prompt):
    layer.attention_norm_output[:] = changed
    moved = layer.self_attn.attention_output.save()
assert not torch.equal(moved[:, 2], out[:, 2]) and torch.equal(moved[:, 3:], out[:, 3:])

ids = model.tokenizer(prompt, return_tensors="pt").input_ids
with model.trace(ids, position_ids=torch.arange(ids.shape[1])[None] + 1000):
    shifted = layer.layer_output.save()
with model.trace(ids):
    plain = layer.layer_output.save()
assert torch.equal(shifted, plain)

stacked = tiny.load("lfm2_moe", num_hidden_layers=3, layer_types=["conv", "conv", "full_attention"])
with stacked.trace(prompt):
    emb = stacked.token_embeddings.save()
    reached = stacked.layers[2].layer_input.save()
changed = emb.clone()
changed[:, 0] += 1.0
with stacked.trace(prompt):
    stacked.token_embeddings[:] = changed
    moved = stacked.layers[2].layer_input.save()
assert not torch.equal(moved[:, 4], reached[:, 4]) and torch.equal(moved[:, 5:], reached[:, 5:])
```

## The router chooses by sigmoid score plus `expert_bias`, and weights by the sigmoid score alone

`Lfm2MoeTopKRouter` scores every expert with `gate.weight` (no bias) and a sigmoid, not a softmax: each score is in (0, 1) on its own, and the scores of one position need not sum to anything. With `use_expert_bias` (true on LFM2-8B-A1B) the choice is the top `num_experts_per_tok` (4 of 32) of sigmoid + `expert_bias`, a per-block vector that balances the load, while the weights are the chosen experts' sigmoid scores without the bias, divided by their sum plus 1e-6 (`norm_topk_prob` is true) and multiplied by `routed_scaling_factor` (1.0). An expert can therefore be chosen with a lower score than one left out, and the weights sum to just under 1. `expert_bias` is a buffer of `feed_forward`, not a parameter: it is in the state dict and loads with the checkpoint, but `model.parameters()` does not list it. `router_logits` are the scores before the sigmoid; `router_weights` are the final weights.

```python
from nnterp import tiny

facts = released("LiquidAI/LFM2-8B-A1B")
assert facts["use_expert_bias"] is True and facts["norm_topk_prob"] is True and facts["routed_scaling_factor"] == 1.0
assert (facts["num_experts"], facts["num_experts_per_tok"]) == (32, 4)

biased = tiny.load("lfm2_moe", attn_implementation="eager")
routed = model.config.num_dense_layers
block = biased._module.model.layers[routed].feed_forward
assert "expert_bias" in dict(block.named_buffers()) and "expert_bias" not in dict(block.named_parameters())
block.expert_bias.copy_(torch.tensor([2.0] + [0.0] * (biased.num_experts - 1)))   # favour expert 0
mlp = biased.layers[routed].mlp
with biased.trace(prompt):
    logits = mlp.router_logits.save()
    choices = mlp.router_choices.save()
    weights = mlp.router_weights.save()

scores = logits.sigmoid()
chosen = (scores + block.expert_bias).topk(biased.num_experts_per_token, dim=-1).indices
assert torch.equal(chosen, choices) and (choices == 0).any(-1).all()   # the bias puts expert 0 in every choice
picked = scores.gather(-1, choices)
torch.testing.assert_close(weights, picked / (picked.sum(-1, keepdim=True) + 1e-6) * biased.config.routed_scaling_factor)
assert not torch.equal(scores.topk(biased.num_experts_per_token, dim=-1).indices.sort(-1).values, choices.sort(-1).values)
```

## The experts are SwiGLUs of 1792 on a fused `gate_up_proj`, and a token runs 1.56B of the 8.34B weights

`Lfm2MoeExperts` stores all experts of a block in two tensors: `gate_up_proj` [num_experts, 2 · moe_intermediate_size, hidden_size] ([32, 3584, 2048] on LFM2-8B-A1B), whose first half of rows is the gate and second half the up projection, and `down_proj` [num_experts, hidden_size, moe_intermediate_size]. Each chosen expert computes down(silu(gate · x) · (up · x)), 1792 neurons wide, and `mlp_output` is the weighted sum over a position's four experts. There are no `nn.Linear` experts to hook, and no expert's neurons are a standard value; read them by recomputing from these tensors, as the snippet does. From LFM2-8B-A1B's config, 7.75B of its 8.34B weights (tied matrices once) are in the 22 routed blocks' experts; a token uses 4 of 32 in each, so 1.56B weights touch it.

```python
from transformers import AutoModelForCausalLM, Lfm2MoeConfig

facts = released("LiquidAI/LFM2-8B-A1B")
with torch.device("meta"):
    real = AutoModelForCausalLM.from_config(Lfm2MoeConfig(**facts))
total = sum(p.numel() for p in real.parameters())
experts = sum(p.numel() for name, p in real.named_parameters() if ".experts." in name)
assert real.model.layers[2].feed_forward.experts.gate_up_proj.shape == (32, 3584, 2048)
assert (total, experts) == (8339929856, 7751073792)
assert total - experts + experts * facts["num_experts_per_tok"] // facts["num_experts"] == 1557740288

routed = model.config.num_dense_layers
mlp = model.layers[routed].mlp
with model.trace(prompt):
    x = mlp.input.save()
    choices = mlp.router_choices.save()
    weights = mlp.router_weights.save()
    out = mlp.mlp_output.save()
fused = mlp._module.experts
ours = torch.zeros_like(x)
for slot in range(choices.shape[-1]):
    e = choices[..., slot]
    gate, up = (fused.gate_up_proj[e] @ x[..., None])[..., 0].chunk(2, dim=-1)
    ours += weights[..., slot, None] * (fused.down_proj[e] @ (torch.nn.functional.silu(gate) * up)[..., None])[..., 0]
torch.testing.assert_close(ours, out)
```

## The dense MLP of blocks 0 and 1 is `intermediate_size` wide as given: 7168, with no two-thirds rule

LFM2's config shrinks its MLP to two thirds of `block_ff_dim` and rounds to 256; `Lfm2MoeConfig` has none of those keys, and `Lfm2MoeMLP` builds `w1`, `w3` and `w2` at `intermediate_size` exactly. On LFM2-8B-A1B that is 7168, 3.5 · `hidden_size`, and four times an expert's 1792: each of the two dense blocks has the neurons of four experts, which is what a token meets in every later block. `mlp_neurons` and `mlp_activation` are served on the dense blocks only, 7168 wide on the checkpoint.

```python
from transformers import Lfm2MoeConfig
from transformers.models.lfm2_moe.modeling_lfm2_moe import Lfm2MoeMLP

facts = released("LiquidAI/LFM2-8B-A1B")
config = Lfm2MoeConfig(**facts)
assert not hasattr(config, "block_auto_adjust_ff_dim")
with torch.device("meta"):
    dense = Lfm2MoeMLP(config)
assert dense.w1.out_features == dense.w3.out_features == dense.w2.in_features == facts["intermediate_size"] == 7168
assert facts["intermediate_size"] == 4 * facts["moe_intermediate_size"]

assert model.layers[0].mlp._module.w1.out_features == model.config.intermediate_size == model.intermediate_size
with model.trace(prompt):
    neurons = model.layers[0].mlp.mlp_neurons.save()
assert neurons.shape[-1] == model.config.intermediate_size
```

## What each kind of block serves

The mixer and the MLP slot vary independently. On a conv block `self_attn` is the short convolution: `attention_norm_output` is `operator_norm`'s output and `attention_output` is `out_proj`'s, and the attention's interior (`attention_queries`, `attention_keys`, `attention_values`, `attention_scores`, `attention_probabilities`, `attention_head_outputs`, `attention_premix`) is not served: a per-channel convolution has no queries, keys, heads or pattern. On an attention block the interior is served (scores and pattern under `attn_implementation="eager"`). On a routed block `router_logits`, `router_choices` and `router_weights` are served and the neurons are not (they live inside the fused experts); on a dense block the neurons are served and the router values are not. Every block is pre-norm with `ffn_norm` between its sublayers, so `layer_mid` exists everywhere and the block is x + mixer(norm(x)), then + mlp(norm(·)).

```python
for i, kind in enumerate(model.config.layer_types):
    routed = i >= model.config.num_dense_layers
    for name in ("attention_queries", "attention_keys", "attention_values", "attention_scores",
                 "attention_probabilities", "attention_head_outputs", "attention_premix"):
        assert (model.serves(name, i) is None) == (kind == "full_attention")
    for name in ("router_logits", "router_choices", "router_weights"):
        assert (model.serves(name, i) is None) == routed
    assert (model.serves("mlp_neurons", i) is None) == (not routed)

    layer = model.layers[i]
    with model.trace(prompt):
        x = layer.layer_input.save()
        mix = layer.self_attn.attention_output.save()
        mid = layer.layer_mid.save()
        mlp = layer.mlp.mlp_output.save()
        out = layer.layer_output.save()
    assert torch.equal(x + mix, mid) and torch.equal(mid + mlp, out)
```

## Left padding is exact: the convolution zeroes the pads and the rotary is relative

A left-padded row's tokens sit at later positions than they would alone. `Lfm2MoeShortConv` multiplies its input by the padding mask before `in_proj`, which has no bias, so a pad contributes B·x = 0 to the taps, exactly the zeros the convolution pads with before position 0; the attention's mask hides the pads, a rotary score depends only on the distance between query and key, and the router and the experts act on each position alone. A left-padded row therefore gives, at its real tokens, the logits the prompt gives alone, up to float32 rounding; run without the mask, the pads enter the taps and the attention as tokens, and it does not.

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
