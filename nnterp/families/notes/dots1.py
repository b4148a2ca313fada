"""Notes of dots.llm1 (Dots1ForCausalLM) written by hand, added to the derived ones. Read against transformers'
configuration_dots1.py and modular_dots1.py (Dots1Config's defaults: no expert counts, first_k_dense_replace 0,
norm_topk_prob false, sliding_window 4096 from max_window_layers on; Dots1Attention is Qwen3's, Dots1TopkRouter,
Dots1MoE and Dots1DecoderLayer DeepSeek-V3's; Dots1PreTrainedModel sets _keys_to_ignore_on_load_unexpected to None).
No released config.json of dots.llm1 is recorded with its source, so every number here is Dots1Config's default,
said as the class's, or the tiny model's."""

LOAD = "eager"

MORE = r'''
## `Dots1Config()` builds no model: the expert counts have no default

`Dots1Config` leaves `n_routed_experts`, `n_shared_experts` and `num_experts_per_tok` at None, unlike DeepSeek-V3's config, whose defaults describe a whole model. A config built by hand from the class, say to get a small dots1 for a test, fails when the model is built, with an error that does not name the cause (`TypeError: empty() takes 1 positional argument but 3 were given`, from the experts' parameter of shape [None, …]). Give the three counts (and `first_k_dense_replace`, `norm_topk_prob`, `routed_scaling_factor`, whose defaults are not the release's either, see below), or start from a checkpoint's config.json.

```python
from transformers import AutoModelForCausalLM, Dots1Config

defaults = Dots1Config(num_hidden_layers=2)
assert defaults.n_routed_experts is None and defaults.n_shared_experts is None and defaults.num_experts_per_tok is None
try:
    with torch.device("meta"):
        AutoModelForCausalLM.from_config(defaults)
    raise AssertionError("a Dots1Config without expert counts built a model")
except TypeError as error:
    assert "empty()" in str(error), error
with torch.device("meta"):
    built = AutoModelForCausalLM.from_config(
        Dots1Config(num_hidden_layers=2, n_routed_experts=4, n_shared_experts=1, num_experts_per_tok=2))
assert built.model.layers[1].mlp.experts.gate_up_proj.shape[0] == 4
```

## By the class default every block is routed and the weights are not renormalized

Two defaults of `Dots1Config` change what the MLP computes. `first_k_dense_replace` is 0: no block keeps a dense `Dots1MLP` and the router values are served from block 0 (the tiny model sets 1, so its block 0 is dense). `norm_topk_prob` is false: `router_weights` are the chosen experts' plain sigmoid scores times `routed_scaling_factor` (1.0), each between 0 and 1 on its own, their sum anywhere between 0 and `num_experts_per_tok`; with it true they are divided by their sum first and sum to `routed_scaling_factor`. Comparing weights across configs, or reading one as "the share of the token an expert gets", needs to know which. The choice is made on `sigmoid(router_logits) + e_score_correction_bias` either way; the weights never include the bias.

```python
from nnterp import tiny
from transformers import Dots1Config

defaults = Dots1Config()
assert (defaults.first_k_dense_replace, defaults.norm_topk_prob, defaults.routed_scaling_factor) == (0, False, 1.0)

def routed(m):
    with m.trace(prompt):
        logits = m.layers[1].mlp.router_logits.save()
        weights = m.layers[1].mlp.router_weights.save()
        choices = m.layers[1].mlp.router_choices.save()
    return logits, weights, choices

logits, weights, choices = routed(tiny.load("dots1", norm_topk_prob=False))
torch.testing.assert_close(weights, logits.sigmoid().gather(-1, choices))             # the raw scores
assert not torch.allclose(weights.sum(-1), torch.ones(weights.shape[:-1]), atol=1e-3)
logits, weights, choices = routed(tiny.load("dots1", norm_topk_prob=True))
chosen = logits.sigmoid().gather(-1, choices)
torch.testing.assert_close(weights, chosen / chosen.sum(-1, keepdim=True))
all_routed = tiny.load("dots1", first_k_dense_replace=0)
assert all_routed.serves("router_weights", 0) is None and "no router" in model.serves("router_weights", 0)
```

## The sliding window applies from `max_window_layers` on, and by the class default to no layer

`Dots1Config` has `sliding_window` 4096, but it builds `layer_types` with Qwen2's convention: a layer slides when its index is at least `max_window_layers`, 62 by default, which is also the default depth. So with the defaults no layer slides, and a config that only adds layers makes the added ones, the deepest, slide, not the shallow ones. A sliding layer attends to the last `sliding_window` positions, itself included. The snippet makes the tiny model's block 1 slide over 3 positions:

```python
from nnterp import tiny
from transformers import Dots1Config

defaults = Dots1Config()
assert (defaults.sliding_window, defaults.max_window_layers, defaults.num_hidden_layers) == (4096, 62, 62)
assert set(defaults.layer_types) == {"full_attention"}
assert Dots1Config(num_hidden_layers=64).layer_types[60:] == ["full_attention"] * 2 + ["sliding_attention"] * 2

small = tiny.load("dots1", attn_implementation="eager", max_window_layers=1, sliding_window=3)
assert small.config.layer_types == ["full_attention", "sliding_attention"]
with small.trace(prompt):
    full = small.layers[0].self_attn.attention_probabilities.save()
    sliding = small.layers[1].self_attn.attention_probabilities.save()

position = torch.arange(full.shape[-1])
causal = position[None, :] <= position[:, None]
assert torch.equal(full[0, 0] > 0, causal)
assert torch.equal(sliding[0, 0] > 0, causal & (position[:, None] - position[None, :] < 3))
```

## The shared experts are one MLP, unweighted, and the routed experts can be silenced without it

`Dots1MoE` is DeepSeek-V3's: `mlp_output` is the routed sum plus `shared_experts(x)`, one gated MLP of width `n_shared_experts × moe_intermediate_size` (the shared experts fused into one module, not several of width `moe_intermediate_size`), added with weight 1 and never seen by the router. Setting `router_weights` to zero therefore leaves exactly the shared MLP's output, a clean ablation of the routed part; zeroing `mlp_output` removes both.

```python
with model.trace(prompt):
    x = model.layers[1].mlp_input.save()
    model.layers[1].mlp.router_weights[:] = 0
    out = model.layers[1].mlp.mlp_output.save()

moe = model.layers[1].mlp._module
width = model.config.n_shared_experts * model.config.moe_intermediate_size
assert moe.shared_experts.down_proj.in_features == width
torch.testing.assert_close(out, moe.shared_experts(x))
assert out.abs().max() > 1e-3
```

## The router stays float32 in a bfloat16 load, and nothing in the files is dropped

`Dots1PreTrainedModel` inherits DeepSeek-V3's `_keep_in_fp32_modules_strict` (`gate.weight`, `e_score_correction_bias`): in a bfloat16 load the router's weight and bias stay float32, and `router_logits` and `router_weights` are float32 while the stream and `mlp_output` are bfloat16. Unlike DeepSeek-V3, it sets `_keys_to_ignore_on_load_unexpected` to None: it declares no multi-token-prediction layer, nor any other weight of the files, to be skipped without a report.

```python
from nnterp import tiny
from transformers.models.dots1.modeling_dots1 import Dots1PreTrainedModel
from transformers.models.deepseek_v3.modeling_deepseek_v3 import DeepseekV3PreTrainedModel

assert set(Dots1PreTrainedModel._keep_in_fp32_modules_strict) >= {"gate.weight", "e_score_correction_bias"}
assert Dots1PreTrainedModel._keys_to_ignore_on_load_unexpected is None
assert DeepseekV3PreTrainedModel._keys_to_ignore_on_load_unexpected
half = tiny.load("dots1", dtype=torch.bfloat16)
with half.trace(prompt):
    logits = half.layers[1].mlp.router_logits.save()
    weights = half.layers[1].mlp.router_weights.save()
    out = half.layers[1].mlp.mlp_output.save()

assert half.layers[1].mlp._module.gate.weight.dtype == torch.float32
assert logits.dtype == weights.dtype == torch.float32 and out.dtype == torch.bfloat16
```

## Attention is Qwen3's, with every head its own keys and values by the class default

`Dots1Attention` is `Qwen3Attention`: per-head `q_norm` and `k_norm` before the rotary (see the derived note below), no bias on any projection (`attention_bias` false), and `head_dim` taken from the config when set, else `hidden_size // num_attention_heads` (4608 / 32 = 144 by the class defaults). `num_key_value_heads` defaults to 32, the number of query heads: unlike most recent MoE models, the class default is full multi-head attention, so `attention_keys` and `attention_values` have as many heads as the queries and each query head has its own (the tiny model groups 4 over 2).

```python
from transformers import AutoModelForCausalLM, Dots1Config
from transformers.models.dots1.modeling_dots1 import Dots1Attention
from transformers.models.qwen3.modeling_qwen3 import Qwen3Attention

defaults = Dots1Config()
assert (defaults.num_attention_heads, defaults.num_key_value_heads, defaults.attention_bias) == (32, 32, False)
assert Dots1Attention.forward.__code__.co_code == Qwen3Attention.forward.__code__.co_code
with torch.device("meta"):
    real = AutoModelForCausalLM.from_config(Dots1Config(num_hidden_layers=1, n_routed_experts=4, n_shared_experts=1,
                                                        num_experts_per_tok=2))
attention = real.model.layers[0].self_attn
assert attention.head_dim == 4608 // 32 == 144
assert attention.k_proj.out_features == attention.q_proj.out_features == 32 * 144
assert all(getattr(attention, n).bias is None for n in ("q_proj", "k_proj", "v_proj", "o_proj"))
```
'''
