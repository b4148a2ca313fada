"""Notes of ERNIE 4.5 MoE (Ernie4_5_MoeForCausalLM) written by hand, added to the derived ones. Read against
transformers' configuration_ernie4_5_moe.py (Ernie4_5_MoeConfig: moe_layer_end_index -1 made the last block;
moe_norm_min) and modular_ernie4_5_moe.py / modeling_ernie4_5_moe.py (Ernie4_5_MoeTopKRouter with Ernie4_5_MoeStatics,
Ernie4_5_MoeSparseMoeBlock, Ernie4_5_MoeDecoderLayer's placement test, Ernie4_5_MoeExperts from Mixtral's,
Ernie4_5_MoePreTrainedModel's _keys_to_ignore_on_load_unexpected and _keep_in_fp32_modules_strict). No config.json
of an ERNIE 4.5 MoE checkpoint is recorded with its source, so every number here is Ernie4_5_MoeConfig's default,
said as the class's, or the tiny model's."""

LOAD = "eager"

MORE = r'''
## The router adds its balancing bias to softmax probabilities, for the choice only

`Ernie4_5_MoeTopKRouter` computes `router_logits` in float32 (autocast disabled), takes their softmax over all experts, and chooses the top `moe_k` of `softmax + moe_statics.e_score_correction_bias`: the bias is added to probabilities, not to logits or to sigmoid scores as in DeepSeek-V3. The weights are then the chosen experts' softmax probabilities without the bias, divided by their sum (clamped below at `moe_norm_min`, 1e-12 by the class default): every position's `router_weights` sum to 1. A bias of a few hundredths, the size of one probability among the class's 64 experts, can therefore change the choice, while the chosen expert's weight stays its own probability. The snippet gives expert 3 of the tiny router a bias of 5:

```python
from nnterp import tiny
from transformers import Ernie4_5_MoeConfig

assert (Ernie4_5_MoeConfig().moe_norm_min, Ernie4_5_MoeConfig().moe_num_experts) == (1e-12, 64)
hf, tok = tiny.build("ernie4_5_moe")
statics = hf.model.layers[1].mlp.gate.moe_statics
with torch.no_grad():
    statics.e_score_correction_bias[0, 3] = 5.0
small = StandardizedTransformer(hf, tokenizer=tok)
with small.trace(prompt):
    logits = small.layers[1].mlp.router_logits.save()
    weights = small.layers[1].mlp.router_weights.save()
    choices = small.layers[1].mlp.router_choices.save()

assert (choices == 3).any(-1).all()                                     # the bias chose expert 3 everywhere
chosen = logits.softmax(-1).gather(-1, choices)                         # the probabilities without the bias
torch.testing.assert_close(weights, chosen / chosen.sum(-1, keepdim=True))
torch.testing.assert_close(weights.sum(-1), torch.ones(weights.shape[:-1]))
```

## Which blocks are MoE: `(i + 1) % moe_layer_interval == 0`, between the start and end indices

`Ernie4_5_MoeDecoderLayer` puts a sparse block at index i when `(i + 1) % moe_layer_interval == 0` and `moe_layer_start_index <= i <= moe_layer_end_index`, and a dense `Ernie4_5_MoeMLP` of `intermediate_size` elsewhere. The class defaults (start 1, interval 1, end -1, which `__post_init__` turns into the last block) make block 0 dense and every other block MoE. The `+ 1` matters with an interval of 2: the MoE blocks are 1, 3, 5, …, the odd indices, not 0, 2, 4, and a start index of 0 does not make block 0 sparse. A loop over the blocks reading `router_weights` must follow the same test; on a dense block the value is refused with a sentence saying it has no router.

```python
from transformers import AutoModelForCausalLM, Ernie4_5_MoeConfig

defaults = Ernie4_5_MoeConfig()
assert (defaults.moe_layer_start_index, defaults.moe_layer_interval, defaults.moe_layer_end_index) == (1, 1, 27)
with torch.device("meta"):
    every = AutoModelForCausalLM.from_config(Ernie4_5_MoeConfig(num_hidden_layers=4))
    odd = AutoModelForCausalLM.from_config(Ernie4_5_MoeConfig(num_hidden_layers=6, moe_layer_interval=2,
                                                              moe_layer_start_index=0))

def sparse(m):
    return [i for i, layer in enumerate(m.model.layers) if type(layer.mlp).__name__ == "Ernie4_5_MoeSparseMoeBlock"]

assert sparse(every) == [1, 2, 3] and sparse(odd) == [1, 3, 5]
assert "no router" in model.serves("router_weights", 0) and model.serves("router_weights", 1) is None
```

## The shared experts are one MLP, added unweighted

`moe_num_shared_experts` (2 by the class default) shared experts are built as one `Ernie4_5_MoeMLP` of width `moe_num_shared_experts × moe_intermediate_size` (2 × 1536 = 3072 by the class defaults), run on every token and added to the routed sum with weight 1; the router never sees it. Zeroing `router_weights` leaves exactly the shared MLP's output, a clean ablation of the routed part. A config with `moe_num_shared_experts` 0 builds none, and the block is the routed sum alone.

```python
from transformers import Ernie4_5_MoeConfig

defaults = Ernie4_5_MoeConfig()
assert (defaults.moe_num_shared_experts, defaults.moe_intermediate_size) == (2, 1536)
moe = model.layers[1].mlp._module
assert moe.shared_experts.down_proj.in_features == model.config.moe_num_shared_experts * model.config.moe_intermediate_size
with model.trace(prompt):
    x = model.layers[1].mlp_input.save()
    model.layers[1].mlp.router_weights[:] = 0
    out = model.layers[1].mlp.mlp_output.save()

torch.testing.assert_close(out, moe.shared_experts(x))
assert out.abs().max() > 1e-3
```

## In a bfloat16 load the router's logits are float32 but its weights bfloat16

`Ernie4_5_MoePreTrainedModel._keep_in_fp32_modules_strict` keeps `gate.weight` and `e_score_correction_bias` in float32, and the router computes its logits, softmax and renormalization in float32; then it casts the weights to the stream's dtype before the experts use them. In a bfloat16 load `router_logits` are float32 and `router_weights` bfloat16, rounded to 8 bits of mantissa: two experts' weights that differ in float32 can be equal there, and `router_weights` need not sum to 1 exactly. Recompute them from `router_logits` in float32 when the precise split matters (GLM-4.5 and DeepSeek-V3 keep both in float32).

```python
from nnterp import tiny

half = tiny.load("ernie4_5_moe", dtype=torch.bfloat16)
assert half.layers[1].mlp._module.gate.weight.dtype == torch.float32
with half.trace(prompt):
    logits = half.layers[1].mlp.router_logits.save()
    weights = half.layers[1].mlp.router_weights.save()
    choices = half.layers[1].mlp.router_choices.save()

assert logits.dtype == torch.float32 and weights.dtype == torch.bfloat16
chosen = logits.softmax(-1).gather(-1, choices)
exact = chosen / chosen.sum(-1, keepdim=True)
assert torch.equal(weights, exact.to(torch.bfloat16))
```

## `use_bias` reaches the attention, the dense MLPs and the shared experts, never the routed experts

`use_bias` (false by the class default) gives a bias to `q_proj`, `k_proj`, `v_proj`, `o_proj` and to every `Ernie4_5_MoeMLP`, the dense blocks' and the shared experts', at once. The routed experts are Mixtral's fused `gate_up_proj` and `down_proj` tensors and have no bias under any config, so an expert given the zero vector returns zero, and a routed expert's contribution scales with its router weight.

```python
from nnterp import tiny
from transformers import Ernie4_5_MoeConfig

assert Ernie4_5_MoeConfig().use_bias is False
biased = tiny.load("ernie4_5_moe", attn_implementation="eager", use_bias=True)
attention, moe = biased.layers[1].self_attn, biased.layers[1].mlp._module
assert all(getattr(attention, n).bias is not None for n in ("q_proj", "k_proj", "v_proj", "o_proj"))
assert moe.shared_experts.up_proj.bias is not None and biased.layers[0].mlp.down_proj.bias is not None
assert {name for name, _ in moe.experts.named_parameters()} == {"gate_up_proj", "down_proj"}
```

## The multi-token-prediction weights are dropped at load, by name

`Ernie4_5_MoePreTrainedModel` lists `"mtp"` in `_keys_to_ignore_on_load_unexpected` ("Not supporting multi-token prediction (MTP) atm", its comment): any weight in the files whose name matches `mtp` is skipped without a warning, and the model has no module for it. `logits` are the next-token prediction alone; a checkpoint's extra prediction head, where it ships one, is not there to read.

```python
import re
from transformers.models.ernie4_5_moe.modeling_ernie4_5_moe import Ernie4_5_MoePreTrainedModel

ignored = Ernie4_5_MoePreTrainedModel._keys_to_ignore_on_load_unexpected
assert ignored == ["mtp"]
assert any(re.search(pattern, "model.mtp_block.0.mlp.gate.weight") for pattern in ignored)
assert not any("mtp" in name for name, _ in model._module.named_modules())
```

## The rotary is ERNIE 4.5's: adjacent pairs, in float32

`Ernie4_5_MoeRotaryEmbedding` is the dense model's, and the attention applies it the same way: dimensions 2i and 2i + 1 turn together at frequency i (Llama pairs i with i + head_dim / 2), and the rotation is computed in float32 and rounded once to the stream's dtype. The class has no `head_dim` field: unless a config.json adds one, a head is `hidden_size // num_attention_heads` wide, 2560 / 20 = 128 by the class defaults, all of it rotated, at base 500000 (the class's `default_theta`).

```python
from transformers import Ernie4_5_MoeConfig

defaults = Ernie4_5_MoeConfig()
assert defaults.hidden_size // defaults.num_attention_heads == 128 and defaults.rope_parameters["rope_theta"] == 500000.0
model.instrument()
attention = model.layers[1].self_attn
with model.trace(prompt):
    q_raw = attention.q_proj.output.save()
    q = attention.attention_queries.save()

hd = model.head_dim
pre = q_raw.view(*q_raw.shape[:2], -1, hd).transpose(1, 2)
angles = torch.arange(pre.shape[2]).float()[:, None] * model._module.model.rotary_emb.inv_freq
cos, sin = angles.cos(), angles.sin()
even, odd = pre[..., 0::2], pre[..., 1::2]
torch.testing.assert_close(q, torch.stack([even * cos - odd * sin, odd * cos + even * sin], dim=-1).flatten(-2))
first, second = pre[..., : hd // 2], pre[..., hd // 2 :]
assert not torch.allclose(q, torch.cat([first * cos - second * sin, second * cos + first * sin], dim=-1), atol=1e-3)
```
'''
