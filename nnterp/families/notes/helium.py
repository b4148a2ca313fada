"""Notes of Helium written by hand, added to the derived ones. Read against transformers'
modeling_helium.py (HeliumRMSNorm's float32 gain, rotate_half on interleaved pairs, HeliumAttention's
o_proj and biases) and configuration_helium.py, beside modeling_llama.py. Numbers are Helium-1 preview 2B's
released config as recorded in nnterp/families/checkpoints/helium.json. The derived rotary note, which did not
say the pairs are interleaved, is replaced by the first note; the snippets run on the tiny Helium (heads of
16)."""

LOAD = "eager"

DROP = ("rotary_note",)

MORE = r'''
## The rotary is not Llama's: it turns adjacent pairs (2i, 2i + 1) of every head, at base 100000

`HeliumAttention` looks like Llama's, but Helium's `rotate_half` is interleaved: dimension 2i of each query and key head turns with 2i + 1, at `rope_theta` ^ (−2i / 128), and Llama pairs i with i + 64. On Helium-1 preview 2B (`rope_theta` 100000, heads of 128) dimensions 0 and 1 turn fastest and 126 and 127 slowest; with Llama's layout the slowest are 63 and 127. Code that applies Llama's rotary to Helium's projections (a reimplementation, a port written for Llama), or that picks "the low-frequency dimensions" of `attention_queries` by Llama's layout, turns or picks the wrong ones.

```python
facts = released("kyutai/helium-1-preview-2b")
assert facts["rope_parameters"]["rope_theta"] == 100000.0 and facts["head_dim"] == 128

model.instrument()   # q_proj (a module) is read before attention_queries (inside the forward)
attention = model.layers[0].self_attn
with model.trace(prompt):
    raw = attention.q_proj.output.save()
    q = attention.attention_queries.save()

d = model.head_dim
pre = raw.view(*raw.shape[:2], -1, d).transpose(1, 2)
freq = 1.0 / model.config.rope_parameters["rope_theta"] ** (torch.arange(0, d, 2).float() / d)
angle = torch.arange(pre.shape[-2]).float()[:, None] * freq[None]
cos, sin = angle.cos(), angle.sin()
even, odd = pre[..., 0::2], pre[..., 1::2]
torch.testing.assert_close(q, torch.stack((even * cos - odd * sin, odd * cos + even * sin), dim=-1).flatten(-2))
llama = torch.cat((pre[..., :d // 2] * cos - pre[..., d // 2:] * sin, pre[..., d // 2:] * cos + pre[..., :d // 2] * sin), -1)
assert not torch.allclose(q, llama, atol=1e-4)
```

## Helium's weights run under Llama's code once each head's query and key rows are reordered

Because the pairing is all that differs in the attention, a `LlamaForCausalLM` with Helium's config computes Helium's model if each head's rows of `q_proj` and `k_proj` are reordered from interleaved to split halves (rows 0, 2, 4, … then 1, 3, 5, …): the dot products of queries and keys are unchanged by applying the same permutation to both. The values, `o_proj`, the MLP and the norms (in float32) carry over as they are. A converter between the two layouts has to do this permutation; without it, the model runs and is wrong.

```python
from transformers import LlamaConfig, LlamaForCausalLM

helium = model._module
config = LlamaConfig(**{k: v for k, v in helium.config.to_dict().items() if k not in ("model_type", "architectures")})
llama = LlamaForCausalLM(config).eval()
d = model.head_dim
order = torch.cat((torch.arange(0, d, 2), torch.arange(1, d, 2)))
state = {}
for name, tensor in helium.state_dict().items():
    if name.endswith(("q_proj.weight", "k_proj.weight")):
        tensor = tensor.view(-1, d, tensor.shape[-1])[:, order].reshape(tensor.shape)
    state[name] = tensor
llama.load_state_dict(state)

ids = model.tokenizer(prompt, return_tensors="pt").input_ids
with torch.no_grad():
    torch.testing.assert_close(llama(ids).logits, helium(ids).logits)
    llama.load_state_dict(helium.state_dict())
    assert not torch.allclose(llama(ids).logits, helium(ids).logits, atol=1e-4)   # without the reorder
```

## The norm's gain is applied in float32, before the cast: under bfloat16, Llama's norm differs in the last bit

`HeliumRMSNorm` normalizes in float32 and multiplies by `weight` while still in float32, then casts to the input's dtype; Llama's casts the normed stream first and multiplies in the input's dtype. In float32 the two agree; under a bfloat16 load (Helium-1 preview 2B's files are bfloat16) they round differently, and a norm reimplemented Llama's way, or a lens that folds the gain into `lm_head` in bfloat16, is off by one unit in the last place at many entries. The snippet gives the tiny model's norm a non-trivial gain, since a gain of ones rounds the same either way:

```python
from nnterp import tiny

assert released("kyutai/helium-1-preview-2b")["dtype"] == "bfloat16"
half = tiny.load("helium", attn_implementation="eager", dtype=torch.bfloat16)
norm = half.layers[0].input_layernorm
generator = torch.Generator().manual_seed(0)
norm.weight.data = (1 + 0.3 * torch.randn(norm.weight.shape, generator=generator)).to(torch.bfloat16)
with half.trace(prompt):
    x = half.layers[0].layer_input.save()
    normed = half.layers[0].attention_norm_output.save()

unit = x.float() * torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + half.config.rms_norm_eps)
assert torch.equal(normed, (norm.weight.float() * unit).to(torch.bfloat16))          # Helium's order
assert not torch.equal(normed, norm.weight * unit.to(torch.bfloat16))                # Llama's order
```

## eps is 1e-8: the norms are scale-free even on a stream a thousand times smaller than usual

Helium-1 preview 2B's config sets `rms_norm_eps` 1e-08, a thousand times smaller than 1e-05. An RMSNorm's output is x / √(mean(x²) + eps) · w: it ignores the stream's scale only where the mean square dwarfs eps, and shrinks the output by a relative eps / (2 · mean(x²)) otherwise. At 1e-8, a stream with an RMS of 0.01 (mean square 1e-4) is normed to within 5e-5 of scale-free, where eps 1e-5 would shrink it by 5%: an intervention that scales the stream entering a block down (a scaled ablation, a steering coefficient) changes almost nothing the block's norms pass on. The tiny model's stream is about that small (an RMS near 0.02), so the snippet compares the stream with ten times the stream under both eps:

```python
facts = released("kyutai/helium-1-preview-2b")
assert facts["rms_norm_eps"] == 1e-08 and model.config.rms_norm_eps == 1e-08
norm = model.layers[0].input_layernorm
with model.trace(prompt):
    x = model.layers[0].layer_input.save()

x = x.detach()
smallest = float(x.pow(2).mean(-1).min())                   # the smallest mean square over positions
assert smallest < 1e-3                                       # a small stream: ten times it is a real change of scale
bound = facts["rms_norm_eps"] / (2 * smallest)               # the largest relative shrink eps causes
torch.testing.assert_close(norm(x), norm(10 * x), rtol=2 * bound + 1e-5, atol=0)   # 1e-5: float32 rounding
norm._module.variance_epsilon = 1e-5
shrink = (norm(x).norm(dim=-1) / norm(10 * x).norm(dim=-1)).min()
norm._module.variance_epsilon = facts["rms_norm_eps"]
assert float(shrink) < 1 - 1e-5 / (4 * float(x.pow(2).mean(-1).max()))   # eps 1e-5 changes the output
```

## `o_proj` is built `hidden_size` × `hidden_size`, whatever `head_dim` says

`HeliumAttention` sizes `q_proj`, `k_proj` and `v_proj` from `num_heads · head_dim` but builds `o_proj` as `hidden_size → hidden_size`, where Llama uses `num_heads · head_dim → hidden_size`. On Helium-1 preview 2B the two agree (20 heads of 128 are 2560), so nothing shows; a config whose heads do not span the stream builds an `o_proj` that cannot take the heads' output, and the first forward fails. (The class's rule, not a checkpoint's.)

```python
from nnterp import tiny

facts = released("kyutai/helium-1-preview-2b")
assert facts["num_attention_heads"] * facts["head_dim"] == facts["hidden_size"] == 2560

narrow = tiny.load("helium", attn_implementation="eager", head_dim=8)
attention = narrow.layers[0].self_attn
assert attention.q_proj.weight.shape[0] == narrow.num_heads * 8 == 32
assert attention.o_proj.weight.shape == (narrow.hidden_size, narrow.hidden_size)
try:
    with narrow.trace(prompt):
        narrow.logits.save()
except RuntimeError:
    pass
else:
    raise AssertionError("heads narrower than the stream ran")
```

## `attention_bias` adds a bias to the query, key and value projections only, never to `o_proj`

`HeliumConfig` has `attention_bias` and `mlp_bias`, both false on Helium-1 preview 2B (which has no bias anywhere). Set, `attention_bias` gives `q_proj`, `k_proj` and `v_proj` a bias but leaves `o_proj` without one (it is built with `bias=False`), where Llama's `attention_bias` biases `o_proj` too; `mlp_bias` biases all three MLP projections. A fine-tune or a converted checkpoint with an output-projection bias has nowhere to put it.

```python
from nnterp import tiny

facts = released("kyutai/helium-1-preview-2b")
assert facts["attention_bias"] is False and facts["mlp_bias"] is False
biased = tiny.load("helium", attn_implementation="eager", attention_bias=True, mlp_bias=True)
attention, mlp = biased.layers[0].self_attn, biased.layers[0].mlp
assert all(getattr(attention, name).bias is not None for name in ("q_proj", "k_proj", "v_proj"))
assert attention.o_proj.bias is None
assert all(getattr(mlp, name).bias is not None for name in ("gate_proj", "up_proj", "down_proj"))

llama_like = tiny.load("llama", attention_bias=True)
assert llama_like.layers[0].self_attn.o_proj.bias is not None
```
'''
