"""Notes of Phi-3.5-MoE written by hand, added to the derived ones. Read against transformers' modeling_phimoe.py
(sparsemixer in eval: the argmax expert, its weight a softmax over the experts within a 2·jitter_eps relative window
of the maximum, then the same for the runner-up with the first masked; PhimoeTopKRouter, an nn.Linear without bias;
PhimoeExperts' fused gate_up_proj and down_proj; PhimoeDecoderLayer's nn.LayerNorm built with rms_norm_eps;
PhimoeRotaryEmbedding.forward, which multiplies cos and sin by short_mscale or long_mscale and picks the factors on
the call's longest position; PhimoeForCausalLM's lm_head bias) and configuration_phimoe.py (PhimoeConfig's defaults:
router_jitter_noise 0.01, attention_bias and lm_head_bias false). The checkpoint numbers are Phi-3.5-MoE-instruct's
config.json keys as nnterp/families/checkpoints/phimoe.json records them (a partial record: no router_jitter_noise,
no rope factors); what is said of router_jitter_noise is PhimoeConfig's default. The snippets run on the tiny
Phi-MoE (4 experts, no biases), loaded again with the options a note is about. The derived window note is replaced
by the one below, which says what the released window does."""

LOAD = "eager"

DROP = ("sliding_note",)

MORE = r'''
## In eval each chosen expert usually weighs exactly 1: the MoE adds two whole experts

Phi-3.5-MoE does not route with a top-k softmax. In eval `sparsemixer` takes the argmax expert and gives it the softmax of the router logits over a window: the experts whose logit s lies within a relative distance 2·`router_jitter_noise` of the maximum m, `(m − s) / max(|s|, m) ≤ 0.02` with `PhimoeConfig`'s default 0.01. Unless a rival comes that close, the window holds the argmax alone and its weight is exactly 1. The second expert is the argmax of the rest, weighted the same way within its own window, so it too weighs 1. `router_weights` are then [1, 1] and `mlp_output` is the sum of two whole expert outputs: twice what a Mixtral-style reading (weights summing to one) expects, and with no router probability scaling either expert. The snippet checks the window is empty on the tiny model and rebuilds the write from the experts' slices with weight 1 each:

```python
with model.trace(prompt):
    x = model.layers[0].mlp.input.save()
    logits = model.layers[0].mlp.router_logits.save()
    weights = model.layers[0].mlp.router_weights.save()
    choices = model.layers[0].mlp.router_choices.save()
    out = model.layers[0].mlp.mlp_output.save()

assert model.config.router_jitter_noise == 0.01
top = logits.max(-1, keepdim=True).values
gap = (top - logits) / logits.abs().clamp(min=top)
assert ((gap <= 0.02).sum(-1) == 1).all()                 # only the argmax is inside its window
assert torch.equal(weights, torch.ones_like(weights))      # so both weights are exactly 1

experts = model._module.model.layers[0].mlp.experts
size = model.config.intermediate_size
rows = x.view(-1, model.hidden_size)
total = torch.zeros_like(rows)
for p in range(rows.shape[0]):
    for e in choices.view(-1, 2)[p].tolist():
        gate, up = experts.gate_up_proj[e][:size] @ rows[p], experts.gate_up_proj[e][size:] @ rows[p]
        total[p] += experts.down_proj[e] @ (torch.nn.functional.silu(gate) * up)
torch.testing.assert_close(total, out.view(-1, model.hidden_size))
```

## A rival within 2% halves an expert's weight: the weights jump, they do not slide

The same window makes the weights discontinuous in the logits. When a second logit comes within the relative 2% of the maximum, the first expert's weight drops from 1 to the softmax of the two close logits, about 0.5 (`e⁰ / (e⁰ + e⁻⁰·⁰⁰⁵)` = 0.5012 for logits 1.0 and 0.995), while that rival, picked second, is alone in its own window (the first is masked) and keeps weight 1: the two weights sum to 1.5. Moving one logit by 1% can therefore halve an expert's contribution, and `router_weights` neither sum to one nor follow the router probabilities; an analysis that treats them as a distribution, or a gradient through them (zero while an expert is alone in its window), misreads the router. The snippet writes the near tie into the router's logits:

```python
tie = torch.tensor([1.0, 0.995, -1.0, -2.0])
with model.trace(prompt):
    model.layers[0].mlp.router_logits[:] = tie
    weights = model.layers[0].mlp.router_weights.save()
    choices = model.layers[0].mlp.router_choices.save()

assert (choices[..., 0] == 0).all() and (choices[..., 1] == 1).all()
torch.testing.assert_close(weights[..., 0], torch.full_like(weights[..., 0], tie[:2].softmax(-1)[0].item()))
assert (weights[..., 1] == 1).all()                        # the runner-up is alone in its window
assert abs(tie[:2].softmax(-1)[0].item() - 0.5012) < 1e-4
```

## Two experts, always: `num_experts_per_tok` is not read, and the two slots are ranked

`sparsemixer` picks exactly two experts, the argmax and then the argmax of the rest, and never reads `top_k`; `num_experts_per_tok` (2 on Phi-3.5-MoE-instruct, of 16 experts) changes nothing at run time, and a config edited to 1 or 4 still runs two. The two slots are not interchangeable: slot 0 of `router_choices` is always the top-scoring expert and slot 1 the runner-up, each weighted against its own window, so a per-slot statistic ("how often is expert e chosen first") is meaningful here, where on a top-k router the order is only the sort order of the weights.

```python
from nnterp import tiny

facts = released("microsoft/Phi-3.5-MoE-instruct")
assert (facts["num_local_experts"], facts["num_experts_per_tok"]) == (16, 2)
for k in (1, 3):
    other = tiny.load("phimoe", attn_implementation="eager", num_experts_per_tok=k)
    with other.trace(prompt):
        chosen = other.layers[0].mlp.router_choices.save()
    assert chosen.shape[-1] == 2

with model.trace(prompt):
    logits = model.layers[0].mlp.router_logits.save()
    choices = model.layers[0].mlp.router_choices.save()
ranked = logits.topk(2, dim=-1).indices
assert torch.equal(choices, ranked)                         # slot 0 the argmax, slot 1 the runner-up
```

## The norms are LayerNorms with a bias, and the release adds a bias to every projection and the head

`input_layernorm`, `post_attention_layernorm` and the final `norm` are `nn.LayerNorm` with weight and bias, built with the config's `rms_norm_eps` as their eps: despite the key's name, they remove the mean (Phi-3, the dense family, uses RMSNorms). Phi-3.5-MoE-instruct's config sets `attention_bias` and `lm_head_bias` true, where `PhimoeConfig`'s defaults are false: `q_proj`, `k_proj`, `v_proj`, `o_proj` and `lm_head` carry biases, and a model built from the class's defaults (or from a config that lost the two keys) has none of them. With the final norm's bias and the head's, a logit lens adds the same vector at every block whatever the input, `lm_head(norm.bias)`, which `project_on_vocab` of a zero stream gives:

```python
from transformers import PhimoeConfig
from nnterp import tiny

facts = released("microsoft/Phi-3.5-MoE-instruct")
assert facts["attention_bias"] is True and facts["lm_head_bias"] is True
assert PhimoeConfig().attention_bias is False and PhimoeConfig().lm_head_bias is False
biased = tiny.load("phimoe", attn_implementation="eager", attention_bias=True, lm_head_bias=True)
attention = biased.layers[0].self_attn
assert all(getattr(attention, name).bias is not None for name in ("q_proj", "k_proj", "v_proj", "o_proj"))
for norm in (biased.layers[0].input_layernorm, biased.layers[0].post_attention_layernorm, biased.norm):
    assert isinstance(norm._module, torch.nn.LayerNorm) and norm.bias is not None and norm.eps == biased.config.rms_norm_eps

constant = biased.lm_head(biased.norm.bias)                  # the norm of a zero stream is its bias
torch.testing.assert_close(biased.project_on_vocab(torch.zeros(1, 1, biased.hidden_size))[0, 0], constant)
assert biased.lm_head.bias is not None and constant.abs().max() > 0
```

## LongRoPE multiplies every query and key by an mscale, and switches factors for the whole call past 4096 positions

Phi-3.5-MoE-instruct's rotary is LongRoPE with `original_max_position_embeddings` 4096 against a context of 131072 (32 times). `PhimoeRotaryEmbedding.forward` multiplies both cos and sin by `short_mscale` or `long_mscale`, so every rotated query and key is that factor times a pure rotation of the projection: at position 0, where the rotation is the identity, `attention_keys` is the projection times the mscale, and the scores carry its square. Which factors and which mscale apply is decided once per call, on the largest position id: a call longer than 4096 positions rotates all of its positions, the first ones included, with the long factors. The same prefix therefore gets other queries and keys, and other attention, depending on how long the whole input is; a cache built below 4096 positions is recomputed by `generate` when the sequence crosses it. The tiny model below switches at 8 positions, with mscales 1.5 and 2:

```python
from nnterp import tiny

facts = released("microsoft/Phi-3.5-MoE-instruct")
assert (facts["original_max_position_embeddings"], facts["max_position_embeddings"]) == (4096, 131072) and 131072 // 4096 == 32
rope = {"rope_type": "longrope", "rope_theta": 10000.0, "original_max_position_embeddings": 8,
        "short_factor": [1.0] * 8, "long_factor": [2.0] * 8, "short_mscale": 1.5, "long_mscale": 2.0}
long = tiny.load("phimoe", attn_implementation="eager", rope_parameters=rope, max_position_embeddings=64)
long.instrument()   # k_proj's output beside the kernel's keys
ids = long.tokenizer(prompt, return_tensors="pt").input_ids

def key_scale(n):
    with long.trace(ids.repeat(1, 2)[:, :n]):
        raw = long.layers[0].self_attn.k_proj.output.save()
        keys = long.layers[0].self_attn.attention_keys.save()
    raw = raw.view(1, n, -1, long.head_dim).transpose(1, 2)
    return keys[:, :, 0] / raw[:, :, 0]                       # position 0: no rotation, only the mscale

torch.testing.assert_close(key_scale(6), torch.full_like(key_scale(6), 1.5))
torch.testing.assert_close(key_scale(12), torch.full_like(key_scale(12), 2.0))   # the same position, a longer call
```

## The release's sliding window is the whole context: it never binds

`PhimoeAttention` hands `config.sliding_window` to the mask, and the class applies it: with a window of 3, a query sees itself and the two keys before it. Phi-3.5-MoE-instruct's config sets `sliding_window` 131072, equal to its `max_position_embeddings`, so within the model's context every query sees every earlier key and the window changes nothing; code that reads a non-null `sliding_window` as "local attention" (a KV-cache budget, a mask rebuilt by hand) misreads this checkpoint. The eager and sdpa loads compute the same full causal attention:

```python
from nnterp import tiny

facts = released("microsoft/Phi-3.5-MoE-instruct")
assert facts["sliding_window"] == facts["max_position_embeddings"] == 131072
windowed = tiny.load("phimoe", attn_implementation="eager", sliding_window=3)
with windowed.trace(prompt):
    probs = windowed.layers[0].self_attn.attention_probabilities.save()

n = probs.shape[-1]
i, j = torch.meshgrid(torch.arange(n), torch.arange(n), indexing="ij")
inside = (j <= i) & (i - j < 3)
assert (probs[..., ~inside] == 0).all() and (probs[..., inside] > 0).all()
wide = tiny.load("phimoe", attn_implementation="eager", sliding_window=n)   # a window as long as the input
with wide.trace(prompt):
    full = wide.layers[0].self_attn.attention_probabilities.save()
with model.trace(prompt):
    unwindowed = model.layers[0].self_attn.attention_probabilities.save()
torch.testing.assert_close(full, unwindowed)
```

## The release names a class transformers does not define: `PhiMoEForCausalLM` is Microsoft's remote code

Phi-3.5-MoE-instruct's config.json gives `architectures` `["PhiMoEForCausalLM"]`, the class of the modeling file shipped in the repository (its `auto_map` points there), while transformers' own class is `PhimoeForCausalLM`, chosen from `model_type` `phimoe`. A load with `trust_remote_code=True` runs Microsoft's file instead of transformers'; without it, transformers' classes are built from the same weights. Everything on this page, the names and the snippets, is transformers' `PhimoeForCausalLM`:

```python
import transformers
from transformers.models.auto.configuration_auto import CONFIG_MAPPING

assert released("microsoft/Phi-3.5-MoE-instruct")["architectures"] == ["PhiMoEForCausalLM"]
assert not hasattr(transformers, "PhiMoEForCausalLM") and hasattr(transformers, "PhimoeForCausalLM")
assert CONFIG_MAPPING["phimoe"] is transformers.PhimoeConfig
assert type(model._module).__name__ == "PhimoeForCausalLM"
```
'''
