"""Notes of Nemotron-H written by hand, added to the derived ones. Read against transformers'
configuration_nemotron_h.py (hybrid_override_pattern turned into layers_block_type, residual_in_fp32, no rope
parameters) and modeling_nemotron_h.py (NemotronHBlock's one sublayer, NemotronHAttention with no rotary call,
NemotronHMLP's relu² without a gate, NemotronHTopkRouter's sigmoid, grouped top-k, renormalization and
routed_scaling_factor, NemotronHMoE's shared expert, NemotronHRMSNormGated's groups, NemotronHForCausalLM's float32
logits). Numbers are from the recorded config.json of nvidia/Nemotron-H-8B-Base-8K and
nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16. The snippets run on the tiny Nemotron-H (a Mamba-2 block, a mixture of
experts, an attention and a dense MLP, in that order) and on variants of it."""

LOAD = "eager"

MORE = r'''
## Each block is one sublayer, and the pattern string says which: Mamba-2, attention, MLP or experts

A Nemotron-H block is `x + mixer(norm(x))` with a single mixer, and a transformer layer of the usual kind spans two blocks. `hybrid_override_pattern` names each block's mixer with one character, `M` a Mamba-2 mixer, `*` an attention, `-` a dense MLP and `E` a mixture of experts, and `NemotronHConfig` turns it into `layers_block_type`. Nemotron-H-8B-Base-8K's 52 blocks are 24 Mamba-2 blocks, 24 MLP blocks and 4 attention blocks (7, 18, 29 and 40); NVIDIA-Nemotron-3-Nano-30B-A3B's 52 are 23 Mamba-2 blocks, 23 expert blocks and 6 attention blocks (5, 12, 19, 26, 33 and 42), and it has no dense MLP at all. `model.num_layers` counts blocks, so "layer 20" of the 8B is a Mamba-2 or an MLP block, not a transformer layer. On each block nnterp serves either the token mixer's values (`self_attn`: `attention_output`, and the attention's interior on attention blocks) or the MLP's (`mlp`: `mlp_output`, and the router's values on expert blocks), and `layer_mid` exists nowhere.

```python
from transformers import NemotronHConfig

dense, nano = released("nvidia/Nemotron-H-8B-Base-8K"), released("nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16")
for facts, counts, attention in ((dense, {"linear_attention": 24, "mlp": 24, "full_attention": 4}, [7, 18, 29, 40]),
                                 (nano, {"linear_attention": 23, "moe": 23, "full_attention": 6},
                                  [5, 12, 19, 26, 33, 42])):
    kinds = NemotronHConfig(**facts).layers_block_type
    assert len(facts["hybrid_override_pattern"]) == len(kinds) == 52
    assert {kind: kinds.count(kind) for kind in set(kinds)} == counts
    assert [i for i, kind in enumerate(kinds) if kind == "full_attention"] == attention

kinds = model.config.layers_block_type
for i, kind in enumerate(kinds):
    mixes = kind in ("linear_attention", "full_attention")
    assert (model.serves("attention_output", i) is None) == mixes
    assert (model.serves("mlp_output", i) is None) == (not mixes)
    assert (model.serves("attention_scores", i) is None) == (kind == "full_attention")
    assert (model.serves("router_logits", i) is None) == (kind == "moe")
    assert model.serves("layer_mid", i) is not None
```

## The attention has no positional encoding, and the Nano's `rope_theta` is read by nothing

`NemotronHAttention` projects the normed stream to queries, keys and values and calls the attention kernel on them as they are: there is no rotary call in its forward and no rotary module in the model. NVIDIA-Nemotron-3-Nano-30B-A3B's config.json nevertheless carries `rope_theta` 10000 and `partial_rotary_factor` 1.0; `NemotronHConfig` builds no rope parameters from them and the model never reads them. A query's scores do not depend on where the earlier keys sit, so each attention block treats the tokens before a query as a set, and order reaches it only through the Mamba-2 blocks before it (the first attention block is 7 on the 8B and 5 on the Nano). The snippet shuffles the earlier positions of the attention's input: the last query's scores come out shuffled the same way. Any `position_ids` give the same logits.

```python
facts = released("nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16")
assert facts["rope_theta"] == 10000 and facts["partial_rotary_factor"] == 1.0
assert not any("rotary" in name for name, _ in model._module.named_modules())

block = model.config.layers_block_type.index("full_attention")
attention = model.layers[block].self_attn
with model.trace(prompt):
    h = model.layers[block].attention_norm_output.save()
    q = attention.attention_queries.save()
    q_unrotated = attention.attention_queries_unrotated.save()
    scores = attention.attention_scores.save()
assert torch.equal(q, q_unrotated)
n = h.shape[1]
order = torch.cat([torch.arange(n - 2, -1, -1), torch.tensor([n - 1])])
with model.trace(prompt):
    model.layers[block].attention_norm_output[:] = h[:, order]
    shuffled = attention.attention_scores.save()
torch.testing.assert_close(shuffled[..., -1, :], scores[..., -1, order])   # the same dot products, reordered

ids = model.tokenizer(prompt, return_tensors="pt").input_ids
with model.trace(ids):
    logits = model.logits.save()
with model.trace(ids, position_ids=torch.arange(ids.shape[1])[None] + 1000):
    shifted = model.logits.save()
assert torch.equal(logits, shifted)
```

## The MLP is squared ReLU with no gate

`NemotronHMLP` is `down_proj(relu(up_proj(x))²)`: one up projection, no gate projection, and `mlp_hidden_act` "relu2" on both checkpoints; the experts and the shared expert have the same form. A neuron's activation is zero for a negative pre-activation and grows quadratically above it, so its contribution is never negative: a neuron's output direction is fixed by `down_proj`'s column, only its size varies. On Nemotron-H-8B the MLP is 21504 neurons wide (`intermediate_size`) on a 4096-wide stream.

```python
dense = released("nvidia/Nemotron-H-8B-Base-8K")
assert dense["mlp_hidden_act"] == "relu2" and (dense["intermediate_size"], dense["hidden_size"]) == (21504, 4096)

block = model.config.layers_block_type.index("mlp")
with model.trace(prompt):
    x = model.layers[block].mlp.input.save()
    out = model.layers[block].mlp.mlp_output.save()
mlp = model.layers[block].mlp._module
assert not hasattr(mlp, "gate_proj")
assert torch.equal(mlp.down_proj(torch.relu(mlp.up_proj(x)) ** 2), out)
```

## The router is a sigmoid, its weights are renormalized then multiplied by 2.5, and a shared expert always runs

`NemotronHTopkRouter` scores every expert with a sigmoid of `router_logits` (in float32, its weight kept in float32), chooses the top `num_experts_per_tok` within the top `topk_group` of `n_group` groups (one group on the Nano, so a plain top-6 of 128), takes the chosen sigmoid scores, renormalizes them to sum to 1 (`norm_topk_prob`) and multiplies them by `routed_scaling_factor`: 2.5 on the Nano, so `router_weights` sum to 2.5 at every position, not to 1. The MoE block adds the shared expert's output (a relu² MLP of `moe_shared_expert_intermediate_size`, 3712 on the Nano) for every token. The snippet recomputes the block's output from the routed experts with those weights plus the shared expert.

```python
import torch.nn.functional as F
from nnterp import tiny

nano = released("nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16")
assert (nano["n_routed_experts"], nano["num_experts_per_tok"], nano["n_group"]) == (128, 6, 1)
assert nano["norm_topk_prob"] is True and nano["routed_scaling_factor"] == 2.5
assert nano["moe_shared_expert_intermediate_size"] == 3712

scaled = tiny.load("nemotron_h", routed_scaling_factor=nano["routed_scaling_factor"])
block = scaled.config.layers_block_type.index("moe")
moe = scaled.layers[block].mlp
with scaled.trace(prompt):
    x = moe.input.save()
    logits = moe.router_logits.save()
    weights = moe.router_weights.save()
    choices = moe.router_choices.save()
    out = moe.mlp_output.save()

assert logits.dtype == torch.float32
chosen = logits.sigmoid().gather(-1, choices)
torch.testing.assert_close(weights, chosen / chosen.sum(-1, keepdim=True) * 2.5)
torch.testing.assert_close(weights.sum(-1), torch.full(weights.shape[:-1], 2.5))

native = moe._module
experts = native.experts
def expert(e, row):
    return F.linear(torch.relu(F.linear(row, experts.up_proj[e])) ** 2, experts.down_proj[e])
routed = sum(weights[0, :, k, None] * torch.stack([expert(int(e), x[0, t]) for t, e in enumerate(choices[0, :, k])])
             for k in range(choices.shape[-1]))
torch.testing.assert_close(routed + native.shared_experts(x)[0], out[0])
```

## The Mamba-2 mixer's gated norm works per group: 8 groups of 1024 channels on the 8B

The Mamba-2 mixer multiplies its scan output by silu(gate) and RMS-normalizes it in `n_groups` groups of `mamba_num_heads · mamba_head_dim / n_groups` channels before `out_proj`. On Nemotron-H-8B that is 128 heads of 64 in 8 groups of 1024 channels, 16 heads each; on the Nano, 64 heads of 64 in 8 groups of 512. Heads interact through the norm only within their group: scaling one group's scan output changes that group's normalized output (through the shared scale) and leaves every other group's bit for bit as it was. A per-head intervention is therefore local to its group of 16 heads, not to the head.

```python
from nnterp import tiny

for repo, heads, group in (("nvidia/Nemotron-H-8B-Base-8K", 128, 1024),
                           ("nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16", 64, 512)):
    facts = released(repo)
    assert facts["mamba_num_heads"] == heads and facts["mamba_head_dim"] == 64 and facts["n_groups"] == 8
    assert heads * facts["mamba_head_dim"] // facts["n_groups"] == group

grouped = tiny.load("nemotron_h", n_groups=2)
block = grouped.config.layers_block_type.index("linear_attention")
mixer = grouped.layers[block].self_attn
size = mixer._module.norm.group_size
assert size == mixer._module.intermediate_size // 2
with grouped.trace(prompt):
    normed = mixer.norm.output.save()
with grouped.trace(prompt):
    mixer.norm.input[..., :size] *= 10
    scaled = mixer.norm.output.save()
assert torch.equal(scaled[..., size:], normed[..., size:])
assert not torch.equal(scaled[..., :size], normed[..., :size])
```

## The stream stays in the load's dtype, and the logits are float32

Both checkpoints set `residual_in_fp32` false (the config class's default too): unlike Mamba and Mamba-2, whose blocks keep the residual in float32, a Nemotron-H block adds its mixer's output to the stream in the load's dtype, so under the checkpoints' bfloat16 every `layer_output` is bfloat16, and rounding accumulates over the 52 adds. `NemotronHForCausalLM` returns float32 `logits`.

```python
from nnterp import tiny
from transformers import NemotronHConfig

for repo in ("nvidia/Nemotron-H-8B-Base-8K", "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16"):
    assert released(repo)["residual_in_fp32"] is False and released(repo)["dtype"] == "bfloat16"
assert NemotronHConfig().residual_in_fp32 is False
half = tiny.load("nemotron_h", dtype=torch.bfloat16)
with half.trace(prompt):
    out = half.layers[0].layer_output.save()
    logits = half.logits.save()
assert out.dtype == torch.bfloat16 and logits.dtype == torch.float32
```
'''
