"""Notes of BitNet b1.58 written by hand, added to the derived ones. Read against transformers' modeling_bitnet.py
(BitNetAttention's attn_sub_norm, BitNetMLP's ffn_sub_norm and relu2) and integrations/bitnet.py (BitLinear,
AutoBitLinear, WeightQuant, ActQuant: the linears a BitNet quantization_config puts in place of nn.Linear); the
checkpoint numbers are the released config.json of BitNet b1.58 2B4T, as nnterp/families/checkpoints/bitnet.json
records it. The snippets run on the tiny BitNet, whose projections are plain nn.Linear."""

LOAD = "eager"

MORE = r'''
## All heads are normalized together before `o_proj`: ablating one head rescales the others

`BitNetAttention` applies `attn_sub_norm`, an RMSNorm over the whole `hidden_size`-wide concatenation of the heads' outputs (2560 = 20 heads × 128 on BitNet b1.58 2B4T), before `o_proj`. `attention_head_outputs` is read before it, `attention_premix` after. The heads therefore do not add independently: the RMS is taken over all heads at once, so zeroing or patching one head's output changes the scale of every other head's slice of `attention_premix`, and a head's contribution to `attention_output` depends on what the other heads wrote. Ablate a head in `attention_premix` (after the norm) to remove it alone, and expect a different result from the same ablation in `attention_head_outputs`.

```python
facts = released("microsoft/bitnet-b1.58-2B-4T")
assert facts["hidden_size"] == 2560 and facts["hidden_size"] // facts["num_attention_heads"] == 128

attention = model.layers[1].self_attn
with model.trace(prompt):
    heads = attention.attention_head_outputs.save()
    premix = attention.attention_premix.save()
with model.trace(prompt):
    attention.attention_head_outputs[:, :, 0] = 0
    premix_ablated = attention.attention_premix.save()

b, s = heads.shape[:2]
torch.testing.assert_close(premix.reshape(b, s, -1), attention.attn_sub_norm(heads.reshape(b, s, -1)))
assert (premix_ablated[:, :, 1] - premix[:, :, 1]).abs().max() > 1e-3   # head 1 moved, though only head 0 was cut
```

## The MLP's neurons are normalized together before `down_proj`

`BitNetMLP` computes `relu(gate_proj(x))² · up_proj(x)` and applies `ffn_sub_norm`, an RMSNorm over all `intermediate_size` neurons (6912 on BitNet b1.58 2B4T), before `down_proj`. nnterp's `mlp_neurons`, `down_proj`'s input, is read after that norm; the product itself is `ffn_sub_norm`'s input. As with the heads, a neuron's value in `mlp_neurons` depends on every other neuron of its position: ablating one neuron before the norm rescales all the others, and a neuron's direct contribution is `down_proj`'s column times its normed value, not its raw activation.

```python
assert released("microsoft/bitnet-b1.58-2B-4T")["intermediate_size"] == 6912

mlp = model.layers[1].mlp
with model.trace(prompt):
    raw = mlp.ffn_sub_norm.input.save()
    neurons = mlp.mlp_neurons.save()
with model.trace(prompt):
    mlp.ffn_sub_norm.input[..., 0] = 0
    neurons_ablated = mlp.mlp_neurons.save()

torch.testing.assert_close(neurons, mlp.ffn_sub_norm(raw))
assert (neurons_ablated[..., 1:] - neurons[..., 1:]).abs().max() > 1e-4   # the other neurons moved
```

## The gate is a squared ReLU: a neuron is exactly zero wherever its gate is negative

`hidden_act` is `relu2` on BitNet b1.58 2B4T: `act_fn(gate) = relu(gate)²`, never negative and exactly zero wherever `gate_proj`'s output is negative, so the product with `up_proj` is exactly zero there, however large `up_proj`'s output. The sign of a neuron is `up_proj`'s sign, and its size grows with the square of the gate. `mlp_activation` is the squared ReLU; `mlp_neurons` is after `ffn_sub_norm` (previous note), which keeps the zeros at zero.

```python
assert released("microsoft/bitnet-b1.58-2B-4T")["hidden_act"] == "relu2"

mlp = model.layers[0].mlp
with model.trace(prompt):
    gate = mlp.gate_proj.output.save()
    act = mlp.mlp_activation.save()
    neurons = mlp.mlp_neurons.save()

assert torch.equal(act, torch.relu(gate).square())
assert torch.equal(neurons == 0, gate <= 0)
```

## Scaling all the values, or the up projection, changes almost nothing

The two sub-norms make each sublayer's output nearly blind to a common scale of what enters them. The heads' outputs are linear in `attention_values`, so multiplying every value by c multiplies the heads' outputs by c, and `attn_sub_norm` divides it out: `attention_output` changes only through the eps (1e-5 on BitNet b1.58 2B4T), by a fraction of about eps / mean square of the heads' outputs. The same holds for `up_proj`'s output and `ffn_sub_norm`. Steering by scaling values or the up projection, which moves a Llama's output, does next to nothing here; a direction added to them, not a scale, is what acts. The snippet shrinks the eps so that rounding alone is left:

```python
from nnterp import tiny

assert released("microsoft/bitnet-b1.58-2B-4T")["rms_norm_eps"] == 1e-05
exact = tiny.load("bitnet", attn_implementation="eager", rms_norm_eps=1e-12)
attention, mlp = exact.layers[1].self_attn, exact.layers[1].mlp
with exact.trace(prompt):
    attn_out = attention.attention_output.save()
    mlp_out = mlp.mlp_output.save()
with exact.trace(prompt):
    attention.attention_values[:] = attention.attention_values * 10
    attn_scaled = attention.attention_output.save()
with exact.trace(prompt):
    mlp.up_proj.output[:] = mlp.up_proj.output * 10
    mlp_scaled = mlp.mlp_output.save()

torch.testing.assert_close(attn_scaled, attn_out)
torch.testing.assert_close(mlp_scaled, mlp_out)
```

## The released projections are ternary: `BitNetForCausalLM` alone builds full-precision ones

`BitNetForCausalLM` builds every projection as a plain `nn.Linear`, and so does the tiny model. The checkpoint's 1.58 bits come from its `quantization_config`, which makes transformers replace the linears at load: with packed weights (`BitLinear`, or `AutoBitLinear` offline) each weight is −1, 0 or +1 times one scale per matrix; with master weights quantized online (`AutoBitLinear`), each forward rounds `W · (1 / mean|W|)` to {−1, 0, 1} and multiplies back. The weight `q_proj.weight` holds is then not the matrix the forward uses, and a weight-based analysis (a circuit read off `W_O W_V`, a norm of a row) must ternarize it first, or read the packed values. A load that drops the quantization config runs a different, full-precision model. The snippet runs `AutoBitLinear` online on the tiny model's `q_proj` weights (the quantizers are `torch.compile`d; the snippets run their code eagerly):

```python
import torch.nn.functional as F
from transformers.integrations.bitnet import ActQuant, AutoBitLinear

q_proj = model.layers[0].self_attn.q_proj
assert type(q_proj._module) is torch.nn.Linear
ternary_linear = AutoBitLinear(q_proj.in_features, q_proj.out_features, bias=False, online_quant=True)
with torch.no_grad():
    ternary_linear.weight.copy_(q_proj.weight)

scale = 1 / q_proj.weight.abs().mean()
ternary = (q_proj.weight * scale).round().clamp(-1, 1)
assert set(ternary.unique().tolist()) <= {-1.0, 0.0, 1.0}
x = torch.randn(3, q_proj.in_features)
with torch.compiler.set_stance("force_eager"):   # the quantizers are compiled functions: run their code as written
    out = ternary_linear(x)
    torch.testing.assert_close(out, F.linear(ActQuant.apply(x), ternary / scale))
assert (out - F.linear(x, q_proj.weight)).abs().max() > 1e-2   # not the full-precision matrix
```

## Each projection's input is rounded to 8 bits per token: one large entry coarsens the whole row

Under the quantization config, every projection also quantizes its input before the product: each token's row is scaled so its largest entry maps to 127, rounded to integers and scaled back. The step is `max|x| / 127` for the whole row, so a single large entry (an outlier dimension, or a steering vector added in one direction) makes every other entry of that token's row coarser, and entries under half a step become exactly zero before the projection. The value saved at `q_proj.input` (or `mlp_norm_output`) is before this rounding: the projection sees less than that tensor holds. Patches and steering vectors of large norm lose the small components of the row they are added to.

```python
from transformers.integrations.bitnet import ActQuant

row = torch.tensor([[0.3, -0.2, 0.004, 0.35]])
with_outlier = torch.cat([row, torch.tensor([[100.0]])], dim=-1)
with torch.compiler.set_stance("force_eager"):   # a compiled function: run its code as written
    assert not bool((ActQuant.apply(row) == 0).any())
    rounded = ActQuant.apply(with_outlier)
step = 100.0 / 127
assert bool((rounded[0, :4] == 0).all()) and (row.abs() < step / 2).all()   # all four small entries vanish
torch.testing.assert_close(rounded[0, 4], torch.tensor(100.0))
```
'''
