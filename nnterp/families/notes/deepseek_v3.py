"""Notes of DeepSeek-V3 written by hand, added to the derived ones. Read against transformers'
modeling_deepseek_v3.py (DeepseekV3TopkRouter, DeepseekV3MoE, DeepseekV3Attention, DeepseekV3PreTrainedModel) and
configuration_deepseek_v3.py; the checkpoint numbers are DeepSeek-V3's config.json's, as the family module records
them. The derived scale and rotary notes are replaced by the first note, which reads the released YaRN parameters."""

DROP = ("scale_note", "rotary_note")

MORE = r'''
## The softmax scale is 192 ** -0.5 × mscale², about 0.1352, not 1 / √192

A query or key head is `qk_nope_head_dim + qk_rope_head_dim` = 128 + 64 = 192 wide, but the attention does not scale by `192 ** -0.5` (0.0722). DeepSeek-V3's config.json scales the rope by YaRN (`factor` 40, `mscale` 1.0, `mscale_all_dim` 1.0, `original_max_position_embeddings` 4096, `beta_fast` 32, `beta_slow` 1, `rope_theta` 10000), and `DeepseekV3Attention` multiplies the scale by `mscale²`, with `mscale = 0.1 · mscale_all_dim · ln(factor) + 1` = 1.3689: `self.scaling` is 0.13523. The rotary turns the `qk_rope_head_dim` = 64 rope dimensions of each head (the other 128 carry no position), with YaRN's frequencies; its own `attention_scaling` is 1.0 (`mscale` / `mscale_all_dim`), so cos and sin are not scaled. The snippet builds DeepSeek-V3 on the meta device from its released config and reads the scale the constructor computes, then checks on a tiny model with the same rope that the scores use `self.scaling`.

```python
import math
from transformers import AutoModelForCausalLM, DeepseekV3Config

facts = released("deepseek-ai/DeepSeek-V3")
yarn = facts["rope_scaling"]
assert (yarn["type"], yarn["factor"], yarn["mscale_all_dim"], facts["rope_theta"]) == ("yarn", 40, 1.0, 10000)
with torch.device("meta"):
    real = AutoModelForCausalLM.from_config(DeepseekV3Config(**facts))

mscale = 0.1 * yarn["mscale_all_dim"] * math.log(yarn["factor"]) + 1
scale = real.model.layers[0].self_attn.scaling
assert abs(scale - 192 ** -0.5 * mscale ** 2) < 1e-12 and round(scale, 4) == 0.1352
assert real.model.rotary_emb.attention_scaling == 1.0
```

```python
import math
from nnterp import tiny

yarn = {"rope_type": "yarn", "rope_theta": 10000.0, "factor": 40.0, "mscale": 1.0, "mscale_all_dim": 1.0,
        "original_max_position_embeddings": 4096, "beta_fast": 32.0, "beta_slow": 1.0}
mscale = 0.1 * math.log(40) + 1
small = tiny.load("deepseek_v3", attn_implementation="eager", rope_parameters=yarn)
attention = small.layers[0].self_attn
with small.trace(prompt):
    q = attention.attention_queries.save()
    k = attention.attention_keys.save()
    scores = attention.attention_scores.save()

assert abs(attention.scaling - small.qk_head_dim ** -0.5 * mscale ** 2) < 1e-12
live = scores > torch.finfo(scores.dtype).min / 2
torch.testing.assert_close((q @ k.transpose(-1, -2) * attention.scaling)[live], scores[live])
```

## The router's weights are sigmoid scores, without the bias that chose the experts, and sum to 2.5

`DeepseekV3TopkRouter` is no softmax router. `router_logits` are `F.linear(x, gate.weight)`; the scores are `sigmoid(router_logits)`, each expert's on its own, so they do not sum to 1. The choice is made on `scores + e_score_correction_bias`, a per-expert buffer the checkpoint ships (DeepSeek-V3's auxiliary-loss-free load balancing), but the weights are gathered from the scores without it: a large bias can send every token to one expert whose weight stays its plain sigmoid score. The chosen scores are then divided by their sum (`norm_topk_prob` true) and multiplied by `routed_scaling_factor`, 2.5 in DeepSeek-V3's config.json: every position's `router_weights` sum to 2.5, not 1. The shared expert is added after, unweighted. The snippet gives expert 7 of a tiny router a bias of 5:

```python
from nnterp import tiny

facts = released("deepseek-ai/DeepSeek-V3")
assert facts["routed_scaling_factor"] == 2.5 and facts["norm_topk_prob"] is True
hf, tok = tiny.build("deepseek_v3", n_routed_experts=8, n_group=1, topk_group=1, num_experts_per_tok=2)
with torch.no_grad():
    hf.model.layers[1].mlp.gate.e_score_correction_bias[7] = 5.0
small = StandardizedTransformer(hf, tokenizer=tok)
with small.trace(prompt):
    logits = small.layers[1].mlp.router_logits.save()
    weights = small.layers[1].mlp.router_weights.save()
    choices = small.layers[1].mlp.router_choices.save()

assert (choices == 7).any(-1).all()                       # the bias chose expert 7 everywhere
chosen = logits.sigmoid().gather(-1, choices)             # the scores without the bias
torch.testing.assert_close(weights, chosen / chosen.sum(-1, keepdim=True) * 2.5)
torch.testing.assert_close(weights.sum(-1), torch.full(weights.shape[:-1], 2.5))

with small.trace(prompt):                                 # with the routed experts silenced, the shared one is left
    x = small.layers[1].mlp_input.save()
    small.layers[1].mlp.router_weights[:] = 0
    out = small.layers[1].mlp.mlp_output.save()
torch.testing.assert_close(out, hf.model.layers[1].mlp.shared_experts(x))
```

## The top 8 are chosen inside 4 of 8 expert groups

The 256 routed experts are `n_group` = 8 groups of 32. Each group is scored by the sum of its two best biased scores, the best `topk_group` = 4 groups are kept, and the top `num_experts_per_tok` = 8 experts are chosen among their 128; the other 128 are masked to −inf before the top-k. The experts a position uses are therefore often not its 8 best scores: a reconstruction of the choice from `router_logits` needs the groups and `e_score_correction_bias`. The snippet splits 8 experts of a tiny router into 4 groups of 2 and keeps 1 group, so each position's two experts are one group, where the plain top 2 of the scores often are not:

```python
from nnterp import tiny

facts = released("deepseek-ai/DeepSeek-V3")
assert (facts["n_routed_experts"], facts["n_group"], facts["topk_group"], facts["num_experts_per_tok"]) == (256, 8, 4, 8)
small = tiny.load("deepseek_v3", n_routed_experts=8, n_group=4, topk_group=1, num_experts_per_tok=2)
with small.trace(prompt):
    logits = small.layers[1].mlp.router_logits.save()
    choices = small.layers[1].mlp.router_choices.save()

groups = choices // 2                                     # experts 2g and 2g + 1 form group g
assert (groups[..., 0] == groups[..., 1]).all()
plain = logits.sigmoid().topk(2, dim=-1).indices // 2
assert (plain[..., 0] != plain[..., 1]).any()             # the unrestricted top 2 would cross groups
```

## `scoring_func` and `topk_method` in config.json are not read

DeepSeek-V3's config.json says `scoring_func` "sigmoid", `topk_method` "noaux_tc", `moe_layer_freq` 1 and `ep_size` 1, keys of DeepSeek's own modeling code. transformers' router hard-codes the sigmoid and the bias-corrected group choice and reads none of them: a config that says `softmax` and `greedy` routes exactly as the default does. Change the router's arithmetic by editing `router_logits` or `router_weights`, not the config.

```python
from nnterp import tiny

facts = released("deepseek-ai/DeepSeek-V3")
assert (facts["scoring_func"], facts["topk_method"], facts["moe_layer_freq"], facts["ep_size"]) == ("sigmoid", "noaux_tc", 1, 1)
import inspect
from transformers.models.deepseek_v3 import modeling_deepseek_v3
code = inspect.getsource(modeling_deepseek_v3)
assert not any(key in code for key in ("scoring_func", "topk_method", "moe_layer_freq", "ep_size"))
plain = tiny.load("deepseek_v3")
other = tiny.load("deepseek_v3", scoring_func="softmax", topk_method="greedy")
with plain.trace(prompt):
    weights = plain.layers[1].mlp.router_weights.save()
with other.trace(prompt):
    weights_other = other.layers[1].mlp.router_weights.save()

assert torch.equal(weights, weights_other)
```

## The first 3 blocks are dense, as wide as the 9 experts a token uses

Blocks below `first_k_dense_replace` (3 in DeepSeek-V3's config.json) hold a `DeepseekV3MLP` of width `intermediate_size` 18432; blocks 3 to 60 a `DeepseekV3MoE`. The dense width is exactly the width a token reaches in an MoE block, 8 routed experts and 1 shared of `moe_intermediate_size` 2048 each: 9 × 2048 = 18432. On the dense blocks the router values are refused with a sentence saying the block has no router, and `mlp_neurons` are served; on the MoE blocks the experts run fused over rows sorted by expert, and `mlp_neurons` are refused. A loop over `model.layers` reading `router_weights` must start at block 3 (block 1 on the tiny model, whose `first_k_dense_replace` is 1).

```python
from transformers import AutoModelForCausalLM, DeepseekV3Config

facts = released("deepseek-ai/DeepSeek-V3")
assert facts["first_k_dense_replace"] == 3
assert facts["intermediate_size"] == (facts["num_experts_per_tok"] + facts["n_shared_experts"]) * facts["moe_intermediate_size"]
with torch.device("meta"):
    real = AutoModelForCausalLM.from_config(DeepseekV3Config(**facts))
kinds = [type(layer.mlp).__name__ for layer in real.model.layers]
assert kinds[:3] == ["DeepseekV3MLP"] * 3 and set(kinds[3:]) == {"DeepseekV3MoE"}

first = model.config.first_k_dense_replace
assert "no router" in model.serves("router_weights", first - 1) and model.serves("router_weights", first) is None
assert model.serves("mlp_neurons", first - 1) is None and model.serves("mlp_neurons", first) is not None
```

## The router computes in float32 in a bfloat16 load

`DeepseekV3PreTrainedModel._keep_in_fp32_modules_strict` names `gate.weight` and `e_score_correction_bias`: a load with `dtype=torch.bfloat16` keeps both in float32, and the router casts its input to float32 before `F.linear`. `router_logits` and `router_weights` are float32 tensors while the stream, the experts' weights and `mlp_output` are bfloat16. Compare router values across loads in float32, and do not expect `router_logits.dtype == model.dtype`.

```python
from nnterp import tiny

half = tiny.load("deepseek_v3", dtype=torch.bfloat16)
moe = half.layers[1].mlp._module
assert moe.gate.weight.dtype == torch.float32 and moe.gate.e_score_correction_bias.dtype == torch.float32
assert moe.experts.gate_up_proj.dtype == torch.bfloat16
with half.trace(prompt):
    logits = half.layers[1].mlp.router_logits.save()
    weights = half.layers[1].mlp.router_weights.save()
    out = half.layers[1].mlp.mlp_output.save()

assert logits.dtype == weights.dtype == torch.float32 and out.dtype == torch.bfloat16
```

## The rope dimensions come out de-interleaved, and `config.head_dim` counts only them

`rope_interleave` is not in DeepSeek-V3's config.json; the class default, true, applies: the 64 rope dimensions of a query or key are rotated as adjacent pairs (0, 1), (2, 3), …, and `apply_rotary_pos_emb_interleave` returns the rotated evens first, then the rotated odds. The rope part of `attention_queries` and `attention_keys` is therefore not in the projection's order: at position 0, where the rotation is the identity, it is the projection's dimensions 0, 2, 4, … followed by 1, 3, 5, …. `config.head_dim` is `qk_rope_head_dim`, 64 on DeepSeek-V3, the width of that part alone; nnterp's `model.qk_head_dim` is 192 and `model.head_dim` is `v_head_dim`, 128.

```python
from transformers import DeepseekV3Config

facts = released("deepseek-ai/DeepSeek-V3")
assert "rope_interleave" not in facts and DeepseekV3Config(**facts).rope_interleave is True
assert DeepseekV3Config(**facts).head_dim == facts["qk_rope_head_dim"] == 64

attention = model.layers[0].self_attn
with model.trace(prompt):
    projected = attention.source.self_q_b_proj_0.output.save()
    q = attention.attention_queries.save()

nope, rope = model.config.qk_nope_head_dim, model.config.qk_rope_head_dim
b, s, _ = projected.shape
raw = projected.view(b, s, model.num_heads, nope + rope).transpose(1, 2)[..., nope:]
assert torch.equal(q[:, :, 0, nope:], torch.cat([raw[:, :, 0, 0::2], raw[:, :, 0, 1::2]], dim=-1))
assert not torch.equal(q[:, :, 0, nope:], raw[:, :, 0])
```

## The multi-token-prediction block is in the files, not in the model

DeepSeek-V3's config.json sets `num_nextn_predict_layers` to 1: the checkpoint holds one multi-token-prediction module after the 61 blocks, stored as `model.layers.61` (its block, with `enorm`, `hnorm`, `eh_proj` and `shared_head`). `DeepseekV3ForCausalLM` builds `num_hidden_layers` = 61 blocks and lists `model\.layers\.61.*` in `_keys_to_ignore_on_load_unexpected`, so the loader drops those weights without a warning. `logits` are the main model's next-token prediction; the second-next-token head DeepSeek trained (and uses for speculative decoding) is not there to read.

```python
import re
from transformers import AutoModelForCausalLM, DeepseekV3Config

facts = released("deepseek-ai/DeepSeek-V3")
assert facts["num_nextn_predict_layers"] == 1 and facts["num_hidden_layers"] == 61
with torch.device("meta"):
    real = AutoModelForCausalLM.from_config(DeepseekV3Config(**facts))
assert len(real.model.layers) == 61
assert not any(part in name for name, _ in real.named_modules() for part in ("eh_proj", "enorm", "hnorm", "shared_head"))
ignored = real._keys_to_ignore_on_load_unexpected
assert any(re.match(pattern, "model.layers.61.eh_proj.weight") for pattern in ignored)
assert not any(re.match(pattern, "model.layers.60.mlp.gate.weight") for pattern in ignored)
```
'''
