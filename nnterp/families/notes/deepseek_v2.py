"""Notes of DeepSeek-V2 written by hand, added to the derived ones. Read against transformers'
modeling_deepseek_v2.py (DeepseekV2TopkRouter, DeepseekV2Moe, DeepseekV2Attention, apply_rotary_emb,
DeepseekV2PreTrainedModel) and configuration_deepseek_v2.py; the checkpoint numbers are DeepSeek-V2's and
DeepSeek-V2-Lite's recorded config facts. The snippets run on the family's tiny model, every block of which is an
MoE block (first_k_dense_replace 0). The family's recorded facts carry no rope parameters, so the derived rotary
and scale notes (which would give the class's default base and an unscaled 192 ** -0.5) are replaced by the rope
note, which states the mechanism and no checkpoint number."""

DROP = ("rotary_note", "scale_note")

MORE = r'''
## The router's weights are softmax probabilities over all experts, not renormalized, times 16 on DeepSeek-V2

`DeepseekV2TopkRouter` takes the softmax of `router_logits` over all `n_routed_experts` (160 on DeepSeek-V2, 64 on DeepSeek-V2-Lite), keeps the top `num_experts_per_tok` (6 on both) and multiplies the kept probabilities by `routed_scaling_factor`, 16.0 on DeepSeek-V2 and 1.0 on DeepSeek-V2-Lite. The kept probabilities are not divided by their sum: `router_weights` sum to less than the factor, by how much depends on the token. The router does not read `norm_topk_prob`, so a config that sets it true routes the same. On DeepSeek-V2 the routed experts' outputs enter the block multiplied by up to 16, beside the unweighted shared experts: compare a routed expert's output to the shared one's only after the weight. The gate's weight is kept in float32 under a bfloat16 load (`_keep_in_fp32_modules_strict`), and `router_logits` are float32.

```python
from nnterp import tiny

v2, lite = released("deepseek-ai/DeepSeek-V2"), released("deepseek-ai/DeepSeek-V2-Lite")
assert (v2["routed_scaling_factor"], lite["routed_scaling_factor"]) == (16.0, 1.0)
assert (v2["n_routed_experts"], lite["n_routed_experts"], v2["num_experts_per_tok"], lite["num_experts_per_tok"]) == (160, 64, 6, 6)
scaled = tiny.load("deepseek_v2", routed_scaling_factor=16.0)
renormed = tiny.load("deepseek_v2", routed_scaling_factor=16.0, norm_topk_prob=True)
with scaled.trace(prompt):
    logits = scaled.layers[0].mlp.router_logits.save()
    weights = scaled.layers[0].mlp.router_weights.save()
    choices = scaled.layers[0].mlp.router_choices.save()
with renormed.trace(prompt):
    weights_renormed = renormed.layers[0].mlp.router_weights.save()

torch.testing.assert_close(weights, logits.softmax(-1).gather(-1, choices) * 16.0)
assert (weights.sum(-1) < 16.0).all() and torch.equal(weights, weights_renormed)

half = tiny.load("deepseek_v2", dtype=torch.bfloat16)
assert half.layers[0].mlp._module.gate.weight.dtype == torch.float32
with half.trace(prompt):
    logits_half = half.layers[0].mlp.router_logits.save()
assert logits_half.dtype == torch.float32
```

## DeepSeek-V2 chooses within 3 of 8 expert groups, each scored by its best expert

DeepSeek-V2's config sets `topk_method` "group_limited_greedy" with `n_group` 8 and `topk_group` 3: the 160 experts are 8 groups of 20, each group is scored by its single best probability (DeepSeek-V3 sums its two best biased sigmoid scores), the 3 best groups are kept, the others' probabilities are set to 0, and the top 6 are taken from the 60 kept. The weights stay the unmasked softmax probabilities, computed over all 160. DeepSeek-V2-Lite uses "greedy": no groups. The snippet splits a tiny router's 8 experts into 4 groups of 2 and keeps 1:

```python
from nnterp import tiny

v2, lite = released("deepseek-ai/DeepSeek-V2"), released("deepseek-ai/DeepSeek-V2-Lite")
assert (v2["topk_method"], v2["n_group"], v2["topk_group"], lite["topk_method"]) == ("group_limited_greedy", 8, 3, "greedy")
grouped = tiny.load("deepseek_v2", n_routed_experts=8, num_experts_per_tok=2, topk_method="group_limited_greedy",
                    n_group=4, topk_group=1)
with grouped.trace(prompt):
    logits = grouped.layers[0].mlp.router_logits.save()
    weights = grouped.layers[0].mlp.router_weights.save()
    choices = grouped.layers[0].mlp.router_choices.save()

probs = logits.softmax(-1)
best_group = probs.view(*probs.shape[:-1], 4, 2).amax(-1).argmax(-1)      # the group of the best expert
assert ((choices // 2) == best_group[..., None]).all()
torch.testing.assert_close(weights, probs.gather(-1, choices))             # over all 8, not the kept 2
plain = probs.topk(2, dim=-1).indices // 2
assert (plain[..., 0] != plain[..., 1]).any()                               # without groups, the top 2 would cross
```

## The rope dimensions are rotated as adjacent pairs, in place

`apply_rotary_emb` views the `qk_rope_head_dim` = 64 rope dimensions of a query or key as 32 complex numbers, dimensions (0, 1), (2, 3), …, multiplies each by `exp(i · position · inv_freq)` in float32, and writes the pairs back where they were. The rope part of `attention_queries` is therefore in the projection's order: dimension 2i is `q[2i]·cos − q[2i+1]·sin`, not `rotate_half`'s pairing of i with i + 32. DeepSeek-V3's transformers code rotates the same adjacent pairs but returns the evens first, then the odds. `config.head_dim` is `qk_rope_head_dim`, 64; nnterp's `model.qk_head_dim` is 192 and `model.head_dim` 128 (`v_head_dim`) on both checkpoints.

```python
assert (released("deepseek-ai/DeepSeek-V2")["qk_rope_head_dim"], released("deepseek-ai/DeepSeek-V2-Lite")["qk_rope_head_dim"]) == (64, 64)
attention = model.layers[0].self_attn
with model.trace(prompt):
    projected = attention.source.self_q_b_proj_0.output.save()
    q = attention.attention_queries.save()

nope, rope = model.config.qk_nope_head_dim, model.config.qk_rope_head_dim
b, s, _ = projected.shape
raw = projected.view(b, s, model.num_heads, nope + rope).transpose(1, 2)[..., nope:]
angle = torch.arange(s, dtype=torch.float32)[:, None] * model.model.rotary_emb.inv_freq     # [seq, rope / 2]
even, odd = raw[..., 0::2], raw[..., 1::2]
rotated = torch.stack([even * angle.cos() - odd * angle.sin(), odd * angle.cos() + even * angle.sin()], dim=-1)
torch.testing.assert_close(q[..., nope:], rotated.flatten(-2))
assert model.config.head_dim == rope
```

The softmax scale is `qk_head_dim ** -0.5`, 192 ** -0.5, unless `rope_parameters` are YaRN with `mscale_all_dim` set: then `DeepseekV2Attention` multiplies it by `mscale²`, `mscale = 0.1 · mscale_all_dim · ln(factor) + 1`. The family's recorded config facts name no rope parameters, so this page gives neither the checkpoints' base nor their scale; read `model.layers[i].self_attn.scaling` on the loaded checkpoint. On the tiny model with a YaRN rope:

```python
import math
from nnterp import tiny

yarn = {"rope_type": "yarn", "rope_theta": 10000.0, "factor": 40.0, "mscale": 0.707, "mscale_all_dim": 0.707,
        "original_max_position_embeddings": 4096, "beta_fast": 32.0, "beta_slow": 1.0}
plain, scaled = tiny.load("deepseek_v2", attn_implementation="eager"), tiny.load("deepseek_v2", attn_implementation="eager", rope_parameters=yarn)
mscale = 0.1 * 0.707 * math.log(40) + 1
assert plain.layers[0].self_attn.scaling == plain.qk_head_dim ** -0.5
assert abs(scaled.layers[0].self_attn.scaling - scaled.qk_head_dim ** -0.5 * mscale ** 2) < 1e-12
with scaled.trace(prompt):
    q = scaled.layers[0].self_attn.attention_queries.save()
    k = scaled.layers[0].self_attn.attention_keys.save()
    scores = scaled.layers[0].self_attn.attention_scores.save()
live = scores > torch.finfo(scores.dtype).min / 2
torch.testing.assert_close((q @ k.transpose(-1, -2) * scaled.layers[0].self_attn.scaling)[live], scores[live])
```

## DeepSeek-V2-Lite has no q-LoRA: its queries come from `q_proj`

DeepSeek-V2 sets `q_lora_rank` 1536: the queries are `q_b_proj(q_a_layernorm(q_a_proj(x)))`, through a 1536-wide bottleneck with its own RMSNorm, and `q_b_proj` is 128 heads × 192 = 24576 wide. DeepSeek-V2-Lite sets `q_lora_rank` null: one `q_proj` of 16 × 192 = 3072 outputs, and `q_a_proj`, `q_a_layernorm` and `q_b_proj` are None. Keys and values come from the 512-wide latent (`kv_lora_rank`) on both. A hook on `q_b_proj` finds nothing to hook on Lite; `attention_queries` is served on both, at the kernel's argument.

```python
from transformers import AutoModelForCausalLM, DeepseekV2Config

built = {}
for repo in ("deepseek-ai/DeepSeek-V2", "deepseek-ai/DeepSeek-V2-Lite"):
    facts = {**released(repo), "num_hidden_layers": 1}
    with torch.device("meta"):
        built[repo] = AutoModelForCausalLM.from_config(DeepseekV2Config(**facts)).model.layers[0].self_attn
full, lite = built["deepseek-ai/DeepSeek-V2"], built["deepseek-ai/DeepSeek-V2-Lite"]
assert full.q_proj is None and full.q_a_proj.out_features == 1536 and full.q_b_proj.out_features == 128 * 192
assert lite.q_a_proj is None and lite.q_b_proj is None and lite.q_proj.out_features == 16 * 192 == 3072
assert full.kv_a_layernorm.weight.shape[0] == lite.kv_a_layernorm.weight.shape[0] == 512
```

## Block 0 is dense; on DeepSeek-V2 it is as wide as the 8 experts a token uses

Both checkpoints set `first_k_dense_replace` 1: block 0 holds a dense `DeepseekV2MLP` of width `intermediate_size`, every later block a `DeepseekV2Moe`. On DeepSeek-V2 the dense width, 12288, is the width a token reaches in an MoE block, 6 routed experts and 2 shared ones of `moe_intermediate_size` 1536: 8 × 1536. DeepSeek-V2-Lite's is not: 10944 against 8 × 1408 = 11264. Block 0 serves `mlp_neurons` and refuses the router values; the MoE blocks the reverse. (The class default `first_k_dense_replace` is 0, every block MoE, as on the tiny model.)

```python
v2, lite = released("deepseek-ai/DeepSeek-V2"), released("deepseek-ai/DeepSeek-V2-Lite")
assert v2["first_k_dense_replace"] == lite["first_k_dense_replace"] == 1
active = lambda f: (f["num_experts_per_tok"] + f["n_shared_experts"]) * f["moe_intermediate_size"]
assert v2["intermediate_size"] == active(v2) == 12288 and lite["intermediate_size"] == 10944 != active(lite) == 11264

from nnterp import tiny

dense_first = tiny.load("deepseek_v2", first_k_dense_replace=1)
assert type(dense_first.layers[0].mlp._module).__name__ == "DeepseekV2MLP"
assert dense_first.serves("router_weights", 0) is not None and dense_first.serves("mlp_neurons", 0) is None
assert dense_first.serves("router_weights", 1) is None and dense_first.serves("mlp_neurons", 1) is not None
```

## The two shared experts are one MLP twice as wide

`n_shared_experts` is 2 on both checkpoints, but `shared_experts` is a single `DeepseekV2MLP` of width `n_shared_experts · moe_intermediate_size` (3072 on DeepSeek-V2, 2816 on Lite), not two modules. Two gated MLPs summed are one gated MLP over their concatenated neurons, so the split into experts is only a convention: the first 1536 neurons are one expert and the next 1536 the other, and their outputs sum to `shared_experts`' output. The shared experts' output is not a standard value; read it as `mlp.shared_experts.output`. The class default `num_experts_per_tok` is None: a hand-made config without it builds, then fails at its first MoE forward in `torch.topk`.

```python
from nnterp import tiny

assert released("deepseek-ai/DeepSeek-V2")["n_shared_experts"] == released("deepseek-ai/DeepSeek-V2-Lite")["n_shared_experts"] == 2
shared = model.layers[0].mlp._module.shared_experts
width = model.config.n_shared_experts * model.config.moe_intermediate_size
assert shared.gate_proj.out_features == width
with model.trace(prompt):
    x = model.layers[0].mlp_input.save()
    out = model.layers[0].mlp.shared_experts.output.save()

half = width // 2
def expert(rows):
    return (shared.act_fn(x @ shared.gate_proj.weight[rows].T) * (x @ shared.up_proj.weight[rows].T)) @ shared.down_proj.weight[:, rows].T
torch.testing.assert_close(expert(slice(0, half)) + expert(slice(half, width)), out)

hf, tok = tiny.build("deepseek_v2", num_experts_per_tok=None)
try:
    hf(tok(prompt, return_tensors="pt").input_ids)
    raise AssertionError("a config without num_experts_per_tok ran")
except TypeError as error:
    assert "topk" in str(error)
```
'''
