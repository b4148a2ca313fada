"""Notes of GLM-4.5 (Glm4MoeForCausalLM) written by hand, added to the derived ones. Read against transformers'
configuration_glm4_moe.py (Glm4MoeConfig.__post_init__ fills partial_rotary_factor 0.5; the attribute map from
num_mtp_layers to num_nextn_predict_layers) and modeling_glm4_moe.py (Glm4MoeTopkRouter, Glm4MoeMoE, Glm4MoeAttention
with its q_norm and k_norm, apply_rotary_pos_emb, Glm4MoePreTrainedModel's _keep_in_fp32_modules_strict and
_keys_to_ignore_on_load_unexpected), with modeling_glm4.py for GLM-4's interleaved rotate_half. The checkpoint numbers
are GLM-4.5's config.json's as nnterp/families/checkpoints/glm4_moe.json records them; GLM-4.5-Air's record names no
source, so no number of it is stated. The MTP layer's module names are read from the quantization list of
zai-org/GLM-4.5-FP8's config.json (a copy in hlky/dinoml_v2, agents/plans/transformers/glm4_moe/_sources/). The
derived rotary note is replaced by the fourth note, which says what the derived one said and how the pairing differs
from GLM-4's."""

LOAD = "eager"

DROP = ("rotary_note",)

MORE = r'''
## The router's weights are sigmoid scores that sum to 2.5 on GLM-4.5, and the bias that chose the experts is not in them

`Glm4MoeTopkRouter` is DeepSeek-V3's router. `router_logits` are `F.linear(x, gate.weight)` in float32 and each expert's score is its own `sigmoid`, so the 160 scores of GLM-4.5 do not sum to 1. The 8 experts are chosen on `scores + e_score_correction_bias`, a per-expert buffer the checkpoint ships for load balancing, but the weights are gathered from the scores without it, divided by their sum (`norm_topk_prob` true) and multiplied by `routed_scaling_factor`, 2.5 in GLM-4.5's config.json: every position's `router_weights` sum to 2.5. GLM-4.5 sets `n_group` and `topk_group` to 1, so the group-limited choice of DeepSeek-V3 is inert here: the choice is the plain top 8 of the biased scores. The snippet gives expert 3 of the tiny router a bias of 5 and the release's scaling:

```python
from nnterp import tiny

facts = released("zai-org/GLM-4.5")
assert (facts["routed_scaling_factor"], facts["norm_topk_prob"], facts["n_group"], facts["topk_group"]) == (2.5, True, 1, 1)
assert (facts["n_routed_experts"], facts["num_experts_per_tok"]) == (160, 8)
hf, tok = tiny.build("glm4_moe", routed_scaling_factor=2.5)
with torch.no_grad():
    hf.model.layers[1].mlp.gate.e_score_correction_bias[3] = 5.0
small = StandardizedTransformer(hf, tokenizer=tok)
with small.trace(prompt):
    logits = small.layers[1].mlp.router_logits.save()
    weights = small.layers[1].mlp.router_weights.save()
    choices = small.layers[1].mlp.router_choices.save()

assert (choices == 3).any(-1).all()                       # the bias chose expert 3 everywhere
biased = logits.sigmoid() + hf.model.layers[1].mlp.gate.e_score_correction_bias
assert torch.equal(choices.sort(-1).values, biased.topk(2, dim=-1).indices.sort(-1).values)   # one group: plain top-k
chosen = logits.sigmoid().gather(-1, choices)             # the scores without the bias
torch.testing.assert_close(weights, chosen / chosen.sum(-1, keepdim=True) * 2.5)
torch.testing.assert_close(weights.sum(-1), torch.full(weights.shape[:-1], 2.5))
```

## Blocks 0 to 2 are dense; every later block adds an unweighted shared expert to its 8 routed ones

GLM-4.5's `first_k_dense_replace` is 3: blocks 0, 1 and 2 hold a `Glm4MoeMLP` of width `intermediate_size` 12288, and blocks 3 to 91 a `Glm4MoeMoE`. In an MoE block a token runs 8 routed experts and `n_shared_experts` = 1 shared expert of `moe_intermediate_size` 1536 each: 13824 neurons, more than the dense blocks' 12288. `mlp_output` is the routed sum (weighted by `router_weights`, which sum to 2.5) plus `shared_experts(x)` with weight 1. Zeroing `router_weights` therefore does not silence the MLP: the shared expert's output is left. On the dense blocks the router values are refused with a sentence saying the block has no router and `mlp_neurons` are served; on the MoE blocks it is the reverse. The tiny model's `first_k_dense_replace` is 1.

```python
from transformers import AutoModelForCausalLM, Glm4MoeConfig

facts = released("zai-org/GLM-4.5")
assert (facts["first_k_dense_replace"], facts["intermediate_size"], facts["moe_intermediate_size"]) == (3, 12288, 1536)
assert (facts["num_experts_per_tok"] + facts["n_shared_experts"]) * facts["moe_intermediate_size"] == 13824
with torch.device("meta"):
    real = AutoModelForCausalLM.from_config(Glm4MoeConfig(**facts))
kinds = [type(layer.mlp).__name__ for layer in real.model.layers]
assert kinds[:3] == ["Glm4MoeMLP"] * 3 and set(kinds[3:]) == {"Glm4MoeMoE"} and len(kinds) == 92

first = model.config.first_k_dense_replace
assert "no router" in model.serves("router_weights", first - 1) and model.serves("router_weights", first) is None
assert model.serves("mlp_neurons", first - 1) is None and model.serves("mlp_neurons", first) is not None
with model.trace(prompt):
    x = model.layers[first].mlp_input.save()
    model.layers[first].mlp.router_weights[:] = 0
    out = model.layers[first].mlp.mlp_output.save()
shared = model.layers[first].mlp._module.shared_experts
torch.testing.assert_close(out, shared(x))
assert out.abs().max() > 1e-3
```

## GLM-4.5 RMS-normalizes every query and key head before the rotary; the class default does not

`use_qk_norm` is true in GLM-4.5's config.json, against the class default false. `Glm4MoeAttention` then builds `q_norm` and `k_norm`, two RMSNorms over one head's 128 dimensions, with one weight vector shared by all heads, and applies them to each head of `q_proj`'s and `k_proj`'s output before the rotary; the values are not normalized. The projections' biases are added before the norm, so `q_proj` sets only a query head's direction: its size is `q_norm.weight`'s doing, and the rotary, which turns pairs, keeps it (at position 0, where the rotary is the identity, a head of `attention_queries` is exactly `q_norm` of the projection's). A reader who takes `q_proj.output` for the queries, as on Llama, reads them before a per-head rescaling. The tiny model has no q/k norm; the snippet builds one with it:

```python
from nnterp import tiny

assert released("zai-org/GLM-4.5")["use_qk_norm"] is True
assert not hasattr(model.layers[0].self_attn._module, "q_norm")          # the class default: none
normed = tiny.load("glm4_moe", attn_implementation="eager", use_qk_norm=True)
attention = normed.layers[0].self_attn
with normed.trace(prompt):
    q_raw = attention.q_proj.output.save()
    v_raw = attention.v_proj.output.save()
    q = attention.attention_queries.save()
    v = attention.attention_values.save()

hd, eps = normed.head_dim, normed.config.rms_norm_eps
heads = q_raw.view(*q_raw.shape[:2], -1, hd)
expected = heads * torch.rsqrt(heads.pow(2).mean(-1, keepdim=True) + eps) * attention._module.q_norm.weight
torch.testing.assert_close(q[:, :, 0], expected[:, 0])                    # position 0: the norm, no rotation
assert attention._module.q_norm.weight.shape == (hd,)                      # one weight for every head
torch.testing.assert_close(v, v_raw.view(*v_raw.shape[:2], -1, hd).transpose(1, 2))   # values: no norm
```

## Rotary turns the first 64 of each head's 128 dimensions, pairing i with i + 32, not GLM-4's adjacent pairs

`partial_rotary_factor` is 0.5 in GLM-4.5's config.json and the base `rope_theta` 1000000, with no rope scaling: 64 of each 128-dimensional query and key head turn, at 32 frequencies, and the last 64 are the projection's output (after `q_norm`) unchanged, carrying no position. `Glm4MoeConfig` fills `partial_rotary_factor` 0.5 itself when a config lacks it, so a hand-built config rotates half a head too. The rotation is Llama's `rotate_half` on the first 64: dimension i turns with i + 32. GLM-4 (the dense `glm4` family) rotates the same half in adjacent pairs (0, 1), (2, 3), …; an analysis written for one, a frequency read per dimension say, is wrong on the other. `attention_queries` and `attention_keys` are read after the rotary. The snippet rotates the tiny model's queries both ways:

```python
from transformers import Glm4MoeConfig

facts = released("zai-org/GLM-4.5")
assert (facts["partial_rotary_factor"], facts["rope_theta"], facts["head_dim"]) == (0.5, 1000000, 128)
assert facts["rope_scaling"] is None
absent = {key: value for key, value in facts.items() if key != "partial_rotary_factor"}
assert Glm4MoeConfig(**absent).rope_parameters["partial_rotary_factor"] == 0.5

model.instrument()
attention = model.layers[0].self_attn
with model.trace(prompt):
    q_raw = attention.q_proj.output.save()
    q = attention.attention_queries.save()

hd = model.head_dim
rot = int(hd * model.config.rope_parameters["partial_rotary_factor"])
pre = q_raw.view(*q_raw.shape[:2], -1, hd).transpose(1, 2)
angles = torch.arange(pre.shape[2]).float()[:, None] * model._module.model.rotary_emb.inv_freq
cos, sin = angles.cos(), angles.sin()
first, second = pre[..., : rot // 2], pre[..., rot // 2 : rot]            # i with i + rot / 2
halves = torch.cat([first * cos - second * sin, second * cos + first * sin], dim=-1)
torch.testing.assert_close(q[..., :rot], halves)
even, odd = pre[..., 0:rot:2], pre[..., 1:rot:2]                          # GLM-4's adjacent pairs
adjacent = torch.stack([even * cos - odd * sin, odd * cos + even * sin], dim=-1).flatten(-2)
assert not torch.allclose(q[..., :rot], adjacent, atol=1e-3)
assert torch.equal(q[..., rot:], pre[..., rot:])
```

## 96 heads of 128 read 12288 dimensions from a 5120-wide stream: `head_dim` is set, not derived

GLM-4.5's hidden size is 5120 and it has 96 query heads, whose `head_dim` the config.json sets to 128: `q_proj` widens the stream to 12288 and `o_proj` narrows 12288 back to 5120, and `attention_premix` (`o_proj`'s input) is 2.4 times as wide as the stream. The 8 key and value heads are 1024 wide each side. Nothing in the block is 5120 / 96: a config written without `head_dim` builds heads of 5120 // 96 = 53, a model whose q_proj has 5088 outputs and that cannot load the released weights.

```python
from transformers import AutoModelForCausalLM, Glm4MoeConfig

facts = released("zai-org/GLM-4.5")
assert (facts["hidden_size"], facts["num_attention_heads"], facts["head_dim"], facts["num_key_value_heads"]) == (5120, 96, 128, 8)
with torch.device("meta"):
    real = AutoModelForCausalLM.from_config(Glm4MoeConfig(**facts))
    attention = real.model.layers[0].self_attn
    assert (attention.q_proj.out_features, attention.o_proj.in_features, attention.o_proj.out_features) == (12288, 12288, 5120)
    assert attention.k_proj.out_features == 1024
    guessed = AutoModelForCausalLM.from_config(Glm4MoeConfig(**{k: v for k, v in facts.items() if k != "head_dim"}))
    assert guessed.model.layers[0].self_attn.head_dim == 53
    assert guessed.model.layers[0].self_attn.q_proj.out_features == 5088

with model.trace(prompt):
    premix = model.layers[0].self_attn.attention_premix.save()
assert premix.shape[-2:] == (model.num_heads, model.head_dim)
```

## The multi-token-prediction layer is in the files, not in the model you trace

GLM-4.5's config.json sets `num_nextn_predict_layers` to 1: after its 92 blocks the checkpoint stores one multi-token-prediction (MTP) layer, as `model.layers.92`, which predicts the token after next (its `eh_proj` and `embed_tokens` are named, under that index, in the quantization list of the config of GLM's own FP8 release, zai-org/GLM-4.5-FP8). `Glm4MoeForCausalLM` builds `num_hidden_layers` = 92 blocks and lists `model\.layers\.92.*` (and `model\.layers\.46.*`) in `_keys_to_ignore_on_load_unexpected`, so the loader drops those weights without a warning. `generate(..., use_mtp=True)` loads them into a separate model for speculative decoding; a trace never runs them, and `logits` are the next-token prediction alone.

```python
import inspect
import re
from transformers import AutoModelForCausalLM, Glm4MoeConfig
from transformers.generation.candidate_generator import MTPCandidateGenerator

facts = released("zai-org/GLM-4.5")
assert facts["num_nextn_predict_layers"] == 1 and facts["num_hidden_layers"] == 92
config = Glm4MoeConfig(**facts)
assert config.num_mtp_layers == 1                                        # an alias of num_nextn_predict_layers
with torch.device("meta"):
    real = AutoModelForCausalLM.from_config(config)
assert len(real.model.layers) == 92
assert not any(part in name for name, _ in real.named_modules() for part in ("eh_proj", "enorm", "hnorm", "shared_head"))
ignored = real._keys_to_ignore_on_load_unexpected
assert any(re.match(pattern, "model.layers.92.eh_proj.weight") for pattern in ignored)
assert not any(re.match(pattern, "model.layers.91.mlp.gate.weight") for pattern in ignored)
assert "MtpModel.from_pretrained" in inspect.getsource(MTPCandidateGenerator)
```

## The router stays float32 in a bfloat16 load

`Glm4MoePreTrainedModel._keep_in_fp32_modules_strict` names `gate.weight` and `e_score_correction_bias`: a load with `dtype=torch.bfloat16` (GLM-4.5's `torch_dtype`) keeps both in float32, and the router casts its input to float32 before `F.linear`. `router_logits` and `router_weights` are float32 tensors while the stream, the experts and `mlp_output` are bfloat16; the expert outputs are multiplied by float32 weights and cast back when they are summed. Compare router values across loads in float32, and do not expect `router_logits.dtype == model.dtype`.

```python
from nnterp import tiny

assert released("zai-org/GLM-4.5")["dtype"] == "bfloat16"
half = tiny.load("glm4_moe", dtype=torch.bfloat16)
moe = half.layers[1].mlp._module
assert moe.gate.weight.dtype == torch.float32 and moe.gate.e_score_correction_bias.dtype == torch.float32
assert moe.experts.gate_up_proj.dtype == torch.bfloat16 and moe.shared_experts.up_proj.weight.dtype == torch.bfloat16
with half.trace(prompt):
    logits = half.layers[1].mlp.router_logits.save()
    weights = half.layers[1].mlp.router_weights.save()
    out = half.layers[1].mlp.mlp_output.save()

assert logits.dtype == weights.dtype == torch.float32 and out.dtype == torch.bfloat16
```
'''
