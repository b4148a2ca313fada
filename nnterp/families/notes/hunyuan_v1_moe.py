"""Notes of Hunyuan V1 MoE (HunYuanMoEV1ForCausalLM) written by hand, added to the derived ones. Read against
transformers' configuration_hunyuan_v1_moe.py (HunYuanMoEV1Config: num_experts 1 and moe_topk 1 by default, moe_topk
as an int or a per-layer list, _rope_parameters_validation) and modular_hunyuan_v1_moe.py /
modeling_hunyuan_v1_moe.py (HunYuanMoEV1Gate with its float32 wg, HunYuanMoEV1Experts from Mixtral's, HunYuanMoEV1Moe
with one shared_mlp, the ntk_alpha rotary). No config.json of a Hunyuan MoE checkpoint is recorded with its source;
numbers are the class's defaults or the tiny model's, and the rotary note cites the config in Tencent's Hunyuan-A13B
GitHub repository (models/config.json, read in the fork tianyu1412/Hunyuan-A13B at df832eb), named as that file."""

LOAD = "eager"

MORE = r'''
## Every expert and the shared MLP are `intermediate_size` wide: `moe_intermediate_size` is not read

`HunYuanMoEV1Experts` is Mixtral's: its fused `gate_up_proj` and `down_proj` are sized by `intermediate_size`, and the shared MLP is one `HunYuanMoEV1MLP` of the same width. Tencent's configs also carry `moe_intermediate_size` and `num_shared_expert`, as per-layer lists (the config in Tencent's Hunyuan-A13B repository gives 3072 and 1 for each of its 32 layers, with `intermediate_size` 3072); transformers reads neither. A config whose `moe_intermediate_size` differs from `intermediate_size` builds experts of the wrong width without a word, and there is always exactly one shared MLP.

```python
from nnterp import tiny

small = tiny.load("hunyuan_v1_moe", attn_implementation="eager", moe_intermediate_size=8, num_shared_expert=3)
moe = small.layers[0].mlp._module
width = small.config.intermediate_size
assert width != 8
assert moe.experts.gate_up_proj.shape == (small.config.num_experts, 2 * width, small.hidden_size)
assert moe.experts.down_proj.shape == (small.config.num_experts, small.hidden_size, width)
assert moe.shared_mlp.down_proj.in_features == width
assert not any("shared" in name and name != "shared_mlp" for name, _ in moe.named_children())
```

## The router always renormalizes its top-k: `norm_topk_prob` is not read

`HunYuanMoEV1Gate` takes the softmax of `wg`'s logits over all experts, keeps the top `moe_topk`, and divides them by their sum, unconditionally: every position's `router_weights` sum to 1. A config's `norm_topk_prob` (the config in Tencent's Hunyuan-A13B repository carries `true`) changes nothing, and `false` does not give Qwen2-MoE's unnormalized weights. The shared MLP is added after, with weight 1.

```python
from nnterp import tiny

plain = tiny.load("hunyuan_v1_moe", attn_implementation="eager", norm_topk_prob=False)
with plain.trace(prompt):
    logits = plain.layers[0].mlp.router_logits.save()
    weights = plain.layers[0].mlp.router_weights.save()
    choices = plain.layers[0].mlp.router_choices.save()

chosen = logits.softmax(-1).gather(-1, choices)
torch.testing.assert_close(weights, chosen / chosen.sum(-1, keepdim=True))
torch.testing.assert_close(weights.sum(-1), torch.ones(weights.shape[:-1]))
```

## The class's defaults are one expert chosen top-1: two dense MLPs, not a mixture

`HunYuanMoEV1Config` defaults to `num_experts` 1 and `moe_topk` 1, numbers of no mixture. With one expert the router has nothing to choose: every position goes to expert 0 with weight exactly 1, and the block is `expert_0(x) + shared_mlp(x)`, two dense gated MLPs summed. A config built from the class without the checkpoint's `num_experts` and `moe_topk` therefore loads no mixture, and the router values on it are constant.

```python
from nnterp import tiny
from transformers import HunYuanMoEV1Config

defaults = HunYuanMoEV1Config()
assert (defaults.num_experts, defaults.moe_topk) == (1, 1)
single = tiny.load("hunyuan_v1_moe", attn_implementation="eager", num_experts=1, moe_topk=1)
with single.trace(prompt):
    x = single.layers[0].mlp_input.save()
    weights = single.layers[0].mlp.router_weights.save()
    choices = single.layers[0].mlp.router_choices.save()
    out = single.layers[0].mlp.mlp_output.save()

assert torch.equal(choices, torch.zeros_like(choices)) and torch.equal(weights, torch.ones_like(weights))
moe = single.layers[0].mlp._module
gate, up = (x @ moe.experts.gate_up_proj[0].T).chunk(2, dim=-1)
expert = (torch.nn.functional.silu(gate) * up) @ moe.experts.down_proj[0].T
torch.testing.assert_close(out, expert + moe.shared_mlp(x))
```

## `moe_topk` can differ from block to block

`moe_topk` is an int or a list with one entry per block, and `HunYuanMoEV1Gate` takes `moe_topk[layer_idx]` when it is a list (the config in Tencent's Hunyuan-A13B repository writes it as a list, 8 for each of its 32 blocks). Where the entries differ, `router_choices` and `router_weights` have a different last dimension on different blocks: stack them across blocks only after checking it.

```python
from nnterp import tiny

varied = tiny.load("hunyuan_v1_moe", attn_implementation="eager", moe_topk=[1, 3])
with varied.trace(prompt):
    first = varied.layers[0].mlp.router_choices.save()
    second = varied.layers[1].mlp.router_choices.save()

assert first.shape[-1] == 1 and second.shape[-1] == 3
assert [varied.layers[i].mlp._module.gate.top_k for i in range(2)] == [1, 3]
```

## The router is float32 even in a bfloat16 load

`HunYuanMoEV1Gate` builds `wg` with `dtype=torch.float32` written in, casts its input to float32 when `wg` is, and returns the weights in the logits' dtype: in a bfloat16 load `router_logits` and `router_weights` are float32 (ERNIE 4.5's MoE, by contrast, rounds its weights to bfloat16), while the experts, the shared MLP and `mlp_output` are bfloat16.

```python
from nnterp import tiny

half = tiny.load("hunyuan_v1_moe", dtype=torch.bfloat16)
moe = half.layers[0].mlp._module
assert moe.gate.wg.weight.dtype == torch.float32 and moe.experts.gate_up_proj.dtype == torch.bfloat16
with half.trace(prompt):
    logits = half.layers[0].mlp.router_logits.save()
    weights = half.layers[0].mlp.router_weights.save()
    out = half.layers[0].mlp.mlp_output.save()

assert logits.dtype == weights.dtype == torch.float32 and out.dtype == torch.bfloat16
```

## The rotary's base is `rope_theta · alpha ** (d / (d − 2))`, and the config's own rope check never runs

The config in Tencent's Hunyuan-A13B repository gives `rope_theta` 10000.0 and `rope_scaling` `{"type": "dynamic", "alpha": 1000.0, "factor": 1.0, …}` with heads of 128 (as `attention_head_dim`; transformers needs `head_dim`). `HunYuanMoEV1RotaryEmbedding` reads "dynamic" with an alpha as a fixed NTK stretch of the base, to `10000 · 1000 ** (128 / 126)`, about 1.12e7, and never updates it with the sequence's length. `HunYuanMoEV1Config` defines a `_rope_parameters_validation` that would refuse that `rope_scaling` (it wants exactly two keys and a factor above 1), but nothing calls it: the config is accepted as it is.

```python
from nnterp import tiny
from transformers import HunYuanMoEV1Config

repository = {"alpha": 1000.0, "beta_fast": 32, "beta_slow": 1, "factor": 1.0, "mscale": 1.0,
              "mscale_all_dim": 1.0, "type": "dynamic"}                  # Tencent's Hunyuan-A13B config.json
assert round(10000.0 * 1000.0 ** (128 / 126) / 1e7, 2) == 1.12
config = HunYuanMoEV1Config(rope_scaling=dict(repository), rope_theta=10000.0, head_dim=128)
try:
    config._rope_parameters_validation()
    raise AssertionError("the validation accepted the repository's rope_scaling")
except ValueError:
    pass

stretched = tiny.load("hunyuan_v1_moe", attn_implementation="eager", rope_scaling=dict(repository), rope_theta=10000.0)
rotary, d = stretched._module.model.rotary_emb, stretched.head_dim
assert rotary.rope_type == "ntk_alpha"
base = 10000.0 * 1000.0 ** (d / (d - 2))
torch.testing.assert_close(rotary.inv_freq, 1.0 / base ** (torch.arange(0, d, 2).float() / d))
```

## The shared MLP is added unweighted, so zeroing the router leaves it

`HunYuanMoEV1Moe` returns the routed sum plus `shared_mlp(x)`, with weight 1 and no gate of its own. Setting `router_weights` to zero removes every routed expert and leaves exactly the shared MLP's output, a clean ablation of the routed part; zeroing `mlp_output` removes both.

```python
with model.trace(prompt):
    x = model.layers[0].mlp_input.save()
    model.layers[0].mlp.router_weights[:] = 0
    out = model.layers[0].mlp.mlp_output.save()

torch.testing.assert_close(out, model.layers[0].mlp._module.shared_mlp(x))
assert out.abs().max() > 1e-3
```
'''
