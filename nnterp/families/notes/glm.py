"""Notes of GLM (GLM-4-9B) written by hand, added to the derived ones. Read against transformers'
modeling_glm.py (rotate_half on interleaved pairs, apply_rotary_pos_emb's half-head split, GlmMLP's
chunked gate_up_proj, the biased q, k and v projections) and configuration_glm.py (GlmConfig.__post_init__:
the partial_rotary_factor kept for old configs, the three eos ids). Numbers are GLM-4-9B-Chat's as recorded in
nnterp/families/checkpoints/glm.json. The derived rotary note is replaced by the first note, which proves
the pairing and the frequencies; the snippets run on the tiny GLM (heads of 16, 8 of them rotated)."""

LOAD = "eager"

DROP = ("rotary_note",)

MORE = r'''
## The rotary turns adjacent pairs (0, 1), (2, 3), … of the first 64 dimensions, at frequencies over 64

GLM-4-9B-Chat's heads are 128 wide with `partial_rotary_factor` 0.5: `apply_rotary_pos_emb` cuts each query and key head into its first 64 dimensions, which rotate, and its last 64, which pass unchanged and carry no position. Within the first 64, GLM's `rotate_half` is interleaved: dimension 2i turns with 2i + 1 (Llama pairs i with i + 32), and the pair turns at `rope_theta` ^ (−2i / 64), base 10000, the frequencies of a 64-dimension rotary, not of a 128-dimension one. A rotary written Llama's way turns the wrong pairs at the right speeds; one written over the whole head also turns the half that carries none. On the tiny model, heads of 16 with 8 rotated:

```python
facts = released("THUDM/glm-4-9b-chat")
assert facts["head_dim"] == 128 and facts["rope_parameters"]["partial_rotary_factor"] == 0.5
assert facts["rope_parameters"]["rope_theta"] == 10000.0

model.instrument()   # q_proj (a module) is read before attention_queries (inside the forward)
attention = model.layers[0].self_attn
with model.trace(prompt):
    raw = attention.q_proj.output.save()
    q = attention.attention_queries.save()

d = model.head_dim
rot = int(d * model.config.rope_parameters["partial_rotary_factor"])
pre = raw.view(*raw.shape[:2], -1, d).transpose(1, 2)
freq = 1.0 / model.config.rope_parameters["rope_theta"] ** (torch.arange(0, rot, 2).float() / rot)
angle = torch.arange(pre.shape[-2]).float()[:, None] * freq[None]        # [seq, rot / 2]
cos, sin = angle.cos(), angle.sin()
even, odd = pre[..., 0:rot:2], pre[..., 1:rot:2]
turned = torch.stack((even * cos - odd * sin, odd * cos + even * sin), dim=-1).flatten(-2)
torch.testing.assert_close(q[..., :rot], turned)
assert torch.equal(q[..., rot:], pre[..., rot:])                          # the second half: no position
```

## The key bias matters only where the rotary turns it: on the other half it shifts every score equally

`k_proj` has a bias (`add_qkv_bias`, `attention_bias` true on GLM-4-9B-Chat), added before the rotary. On the unrotated half of a head, the bias is the same vector at every key, so it adds q · b to all of a query's scores and the softmax cancels it: removing it there leaves `attention_probabilities` as they were. On the rotated half, the rotary turns the bias by each key's position, so it adds a term that depends on the key's position and moves the pattern: on GLM the key bias is not the no-op it is on a model without rotary. The snippet zeroes the bias on one half at a time:

```python
assert released("THUDM/glm-4-9b-chat")["attention_bias"] is True
attention = model.layers[0].self_attn
d = model.head_dim
rot = int(d * model.config.rope_parameters["partial_rotary_factor"])
half = torch.arange(attention.k_proj.bias.shape[0]) % d < rot                # the rotated dimensions of each key head
bias = attention.k_proj.bias.detach().clone()

def pattern(kept):
    attention.k_proj.bias.data = torch.where(kept, bias, torch.zeros_like(bias))
    with model.trace(prompt):
        probs = attention.attention_probabilities.save()
    attention.k_proj.bias.data = bias.clone()
    return probs

assert bias[~half].abs().sum() > 0 and bias[half].abs().sum() > 0
full = pattern(torch.ones_like(half))
torch.testing.assert_close(pattern(half), full)                            # unrotated bias removed: no change
assert not torch.allclose(pattern(~half), full, atol=1e-6)                 # rotated bias removed: another pattern
```

## The value bias writes one fixed vector: `o_proj(b_v)` is in `attention_output` at every position

`v_proj` has a bias too. Each head's output is a mix of its values with weights that sum to one, so the value bias comes through whole, whatever the pattern: every head outputs its slice of b_v plus the mix of the bias-free values. `o_proj` (no bias) turns that into one constant vector, `o_proj.weight @ b_v` (with each key head's bias repeated over its 16 query heads on GLM-4-9B-Chat), added to `attention_output` at every position of every prompt. An attribution that splits `attention_output` over heads or over source positions has to put that vector somewhere: it belongs to no key.

```python
facts = released("THUDM/glm-4-9b-chat")
assert facts["num_attention_heads"] // facts["num_key_value_heads"] == 16
attention = model.layers[0].self_attn
with model.trace(prompt):
    out = attention.attention_output.save()

bias = attention.v_proj.bias.detach().clone()
attention.v_proj.bias.data.zero_()
with model.trace(prompt):
    out_unbiased = attention.attention_output.save()
attention.v_proj.bias.data = bias

group = model.num_heads // model.num_kv_heads
per_head = bias.view(model.num_kv_heads, model.head_dim).repeat_interleave(group, dim=0).flatten()
constant = attention.o_proj.weight @ per_head
torch.testing.assert_close(out - out_unbiased, constant.expand_as(out))
assert attention.o_proj.bias is None
```

## Neuron i of the MLP is two rows of `gate_up_proj`: row i is its gate, row i + 13696 its up projection

`gate_up_proj` is one Linear of 2 · 13696 = 27392 outputs on GLM-4-9B-Chat, cut with `chunk(2)`: the first half is the gate, the second the up projection (not interleaved). Neuron i, `mlp_neurons[..., i]`, is `silu(x · W[i]) · (x · W[i + 13696])`, and its output direction is column i of `down_proj`. Tools that look for `gate_proj` or `up_proj` find neither; reading a neuron's input weights means taking both rows:

```python
facts = released("THUDM/glm-4-9b-chat")
assert facts["intermediate_size"] == 13696
mlp = model.layers[0].mlp
width = model.config.intermediate_size
assert mlp.gate_up_proj.weight.shape[0] == 2 * width
with model.trace(prompt):
    x = model.layers[0].mlp_input.save()
    neurons = mlp.mlp_neurons.save()

i = 3
W = mlp.gate_up_proj.weight
torch.testing.assert_close(neurons[..., i], torch.nn.functional.silu(x @ W[i]) * (x @ W[i + width]))
```

## A config without `partial_rotary_factor` still rotates half of each head

`GlmConfig.__post_init__` sets `partial_rotary_factor` to 0.5 when a config does not give it ("assign default for BC"), so a GLM config rotates half of each head unless it says otherwise, where Llama's classes would rotate all of it. GLM-4-9B-Chat's converted config gives 0.5 in `rope_parameters`; removing it changes nothing, and only an explicit 1.0 makes the whole head turn.

```python
from transformers import GlmConfig

facts = released("THUDM/glm-4-9b-chat")
rope = {k: v for k, v in facts["rope_parameters"].items() if k != "partial_rotary_factor"}
assert GlmConfig(**{**facts, "rope_parameters": rope}).rope_parameters["partial_rotary_factor"] == 0.5

from nnterp import tiny
whole = tiny.load("glm", attn_implementation="eager", partial_rotary_factor=1.0)
whole.instrument()
attention = whole.layers[0].self_attn
with whole.trace(prompt):
    raw = attention.q_proj.output.save()
    q = attention.attention_queries.save()
pre = raw.view(*raw.shape[:2], -1, whole.head_dim).transpose(1, 2)
assert not torch.equal(q[:, :, 1:, whole.head_dim // 2:], pre[:, :, 1:, whole.head_dim // 2:])   # now it turns
```

## A config without `eos_token_id` stops generation at three tokens, 151329, 151336 and 151338

`GlmConfig` fills a missing `eos_token_id` with a list of three ids, 151329, 151336 and 151338, in its `__post_init__` (the class's values; GLM-4-9B-Chat's recorded facts do not give the key). `generate` stops at whichever comes first; code that reads `config.eos_token_id` as one integer (to mask it, or to compare a sampled id with it) gets a list. The tiny model's config has the same three.

```python
from transformers import GlmConfig

assert "eos_token_id" not in released("THUDM/glm-4-9b-chat")
assert GlmConfig().eos_token_id == [151329, 151336, 151338]
assert GlmConfig(eos_token_id=7).eos_token_id == 7
assert model.config.eos_token_id == [151329, 151336, 151338]
```
'''
