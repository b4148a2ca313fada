"""Notes of RWKV-4 written by hand, added to the derived ones. Read against transformers' modeling_rwkv.py
(rwkv_linear_attention_cpu, RwkvLinearAttention's length check, RwkvSelfAttention.extract_key_value's token shift,
RwkvFeedForward, RwkvModel.forward's halving and _rescale_layers, the ignored attention mask); the checkpoint numbers
are the released config.json files of RWKV-4 430M, 1.5B, 3B and 7B (Pile), as nnterp/families/checkpoints/rwkv.json
records them. The snippets run on the tiny RWKV, and on its variant with rescale_every 2 where the halving is
shown."""

LOAD = "eager"

MORE = r'''
## The time mix is a recurrence with a per-channel decay: no heads, no pattern

`attention` (nnterp's `self_attn`) has no queries, no softmax and no heads. Each of the `hidden_size` channels carries a weighted average of the values seen so far, with weights `exp(k_i)` that decay by `exp(−w)` per step, `w = exp(time_decay)` per channel, and the current token gets the bonus `u = time_first` in place of the decay:

```formula
wkv_t = (Σ_{i<t} e^{−(t−1−i)·w + k_i} · v_i + e^{u + k_t} · v_t) / (Σ_{i<t} e^{−(t−1−i)·w + k_i} + e^{u + k_t})
out_t = output(sigmoid(r_t) · wkv_t)
```

The attention's interior values (`attention_scores`, `attention_probabilities`, queries, keys) are unavailable: there is no position-by-position weight to read, only each channel's decay. A channel with a large `time_decay` forgets within a token or two, one with a small one averages the whole prefix. The model computes the sums in float32 with a running maximum for stability; the snippet recomputes them directly from `key`'s and `value`'s outputs:

```python
attention = model.layers[1].self_attn
with model.trace(prompt):
    k = attention.key.output.save()
    v = attention.value.output.save()
    r = attention.receptance.output.save()
    gated = attention.o_proj.input.save()

w = attention.time_decay.exp()
u = attention.time_first
s = k.shape[1]
rows = []
for t in range(s):
    steps = torch.arange(t - 1, -1, -1, dtype=torch.float32)          # t-1-i for i < t
    weights = torch.cat([(-steps[:, None] * w + k[0, :t]).exp(), (u + k[0, t]).exp()[None]])
    rows.append((weights * v[0, :t + 1]).sum(0) / weights.sum(0))
wkv = torch.stack(rows)[None]
torch.testing.assert_close(torch.sigmoid(r) * wkv, gated)
assert model.serves("attention_probabilities", 1) is not None   # unavailable: there is no pattern
```

## Every projection reads a blend of this token and the previous one

Before its projections, each mixer shifts the stream by one position (`time_shift`) and mixes it with the current one, channel by channel: `key` reads `x_t · time_mix_key + x_{t−1} · (1 − time_mix_key)`, and likewise `value`, `receptance` and the channel mix's `key` and `receptance`, each with its own mix. At position 0 the previous token is a vector of zeros. So the channel mix, nnterp's `mlp`, is not position-wise as an MLP is: `mlp_output` at position t depends on the normed stream at t − 1 too, and patching one position changes the next position's MLP.

```python
mlp = model.layers[0].mlp
with model.trace(prompt):
    normed = model.layers[0].mlp_norm_output.save()
    key_in = mlp.up_proj.input.save()

shifted = torch.cat([torch.zeros_like(normed[:, :1]), normed[:, :-1]], dim=1)
mix = mlp._module.time_mix_key
torch.testing.assert_close(key_in, normed * mix + shifted * (1 - mix))

with model.trace(prompt):
    model.layers[0].mlp_norm_output[:, 3] = 0
    out_edited = mlp.mlp_output.save()
with model.trace(prompt):
    out = mlp.mlp_output.save()
assert (out_edited[:, 4] - out[:, 4]).abs().max() > 1e-4     # position 4's MLP read position 3
torch.testing.assert_close(out_edited[:, 5:], out[:, 5:])     # and nothing further back
```

## The channel mix gates after the down projection, and its neurons are squared ReLUs

The channel mix returns `sigmoid(receptance(x')) · value(relu(key(x'))²)`. `mlp_neurons`, what `value` (the down projection) receives, are squared ReLUs: never negative, and exactly zero wherever `key`'s output is negative. The gate is a `hidden_size`-wide sigmoid applied after the down projection, not a gate on the neurons as in a SwiGLU: a neuron's contribution to `mlp_output` is its `value` column times its activation, multiplied channel by channel by a gate that depends on the input. Direct attribution to one neuron must carry the gate along: `down_proj(mlp_neurons)` is not `mlp_output`.

```python
mlp = model.layers[0].mlp
with model.trace(prompt):
    pre = mlp.up_proj.output.save()
    neurons = mlp.mlp_neurons.save()
    gate = mlp.receptance.output.save()
    out = mlp.mlp_output.save()

assert torch.equal(neurons, torch.relu(pre).square()) and bool((neurons == 0).any())
torch.testing.assert_close(out, torch.sigmoid(gate) * mlp.down_proj(neurons))
assert (mlp.down_proj(neurons) - out).abs().max() > 1e-3           # the gate is not the identity
```

## The stream is halved after every sixth block

With `rescale_every` 6 (every released checkpoint), `RwkvModel` in eval divides the stream by 2 after blocks 6, 12, 18, … (1-based): `layers[i + 1].layer_input` is `layers[i].layer_output / 2` where `(i + 1) % 6 == 0`. RWKV-4 430M and 1.5B have 24 blocks, so the stream is halved four times, the last time after the last block, before `ln_out`; RWKV-4 3B and 7B have 32, halved five times, the last after block 30. The identity `layer_input + attention_output + mlp_output == layer_output` holds within each block, but the stream's scale falls by 2 at each halving: a steering vector of fixed size added after block 6 is twice as strong, relative to the stream, as the same vector added before it, and a patch of `layer_output` from one block into the next block's input must be halved there. The snippet uses the tiny variant with `rescale_every` 2:

```python
from nnterp import tiny

for repo, depth, halvings in (("RWKV/rwkv-4-430m-pile", 24, 4), ("RWKV/rwkv-4-1b5-pile", 24, 4),
                              ("RWKV/rwkv-4-3b-pile", 32, 5), ("RWKV/rwkv-4-7b-pile", 32, 5)):
    facts = released(repo)
    assert facts["rescale_every"] == 6 and facts["num_hidden_layers"] == depth
    assert depth // facts["rescale_every"] == halvings

halving = tiny.load("rwkv", attn_implementation="eager", num_hidden_layers=4, rescale_every=2)
with halving.trace(prompt):
    out1 = halving.layers[1].layer_output.save()
    in2 = halving.layers[2].layer_input.save()
    out2 = halving.layers[2].layer_output.save()
    in3 = halving.layers[3].layer_input.save()
    last = halving.layers[3].layer_output.save()
    logits = halving.logits.save()

assert torch.equal(in2, out1 / 2) and torch.equal(in3, out2)   # after block 2 of 4, not after block 3
torch.testing.assert_close(halving.project_on_vocab(last), logits)
```

## The first forward in eval divides weights in place: save before it, never after

The halving is built into the weights: on its first forward in eval mode, `RwkvModel._rescale_layers` divides block i's `attention.output.weight` and `feed_forward.value.weight` in place by `2^(i // rescale_every)` (1 to 8 on the 24-block checkpoints, 1 to 32 on the 32-block ones), and multiplies them back on the first forward after `model.train()`. Weights read after a trace are therefore not the checkpoint's, and `save_pretrained` after a forward writes the divided weights: loading that copy divides them a second time, and its logits are wrong. Save the model from a fresh load, or reload it from its checkpoint, and read weights for a weight-based analysis before the first forward or divide by the factor knowingly.

```python
import tempfile
from nnterp import tiny
from transformers import AutoModelForCausalLM

for repo, largest in (("RWKV/rwkv-4-430m-pile", 8), ("RWKV/rwkv-4-3b-pile", 32)):
    facts = released(repo)
    assert 2 ** ((facts["num_hidden_layers"] - 1) // facts["rescale_every"]) == largest

hf, tokenizer = tiny.build("rwkv", attn_implementation="eager", num_hidden_layers=4, rescale_every=2)
ids = tokenizer(prompt, return_tensors="pt").input_ids
fresh = hf.rwkv.blocks[3].attention.output.weight.clone()
logits = hf(ids).logits
assert torch.equal(hf.rwkv.blocks[3].attention.output.weight, fresh / 2)   # 2 ** (3 // 2)

with tempfile.TemporaryDirectory() as folder:
    hf.save_pretrained(folder)
    reloaded = AutoModelForCausalLM.from_pretrained(folder).eval()
    assert (reloaded(ids).logits - logits).abs().max() > 1e-2           # divided twice
```

## The attention mask is ignored: in a batch, padding runs through the recurrence

`RwkvModel.forward` accepts `attention_mask`, warns that it is unused, and runs every position through the recurrence. In a batch of prompts of different lengths, nnterp left-pads the shorter ones, and their padding tokens enter the state before the prompt does: the longest prompt's logits are its own, every shorter prompt's are those of the padded text. Nothing fails. Trace prompts of different lengths one at a time, or batch only prompts of the same length.

```python
with model.trace([prompt, "Hello"]):
    batch = model.logits.save()
with model.trace(prompt):
    alone = model.logits.save()
with model.trace("Hello"):
    short = model.logits.save()

torch.testing.assert_close(batch[0], alone[0])                     # the longest prompt: unpadded
assert (batch[1, -1] - short[0, -1]).abs().max() > 1e-2           # the padded one is another text
```

## `context_length` bounds only the CUDA kernel: 1024 tokens there, any length on CPU

Every released config.json sets `context_length` 1024. Only the CUDA kernel for the recurrence reads it: loaded with that length, it refuses a longer call ("Cannot process a batch with N tokens at the same time, use a maximum of 1024 with this model"). On CPU, or when the kernel is not loaded (the `kernels` package is not installed), the model runs the recurrence in a Python loop over the tokens and any length runs, at one step per token, and nothing warns past 1024. A call of more than 1024 tokens on GPU needs the state: run it in pieces with `use_cache=True` and pass `state` on.

```python
import transformers.models.rwkv.modeling_rwkv as modeling

assert all(released(repo)["context_length"] == 1024
           for repo in ("RWKV/rwkv-4-430m-pile", "RWKV/rwkv-4-7b-pile"))

long = torch.randint(0, model.vocab_size, (1, model._module.config.context_length + 8))
with model.trace(long):
    logits = model.logits.save()
assert logits.shape[1] == long.shape[1]                              # the CPU loop has no limit

class Kernel:   # stands in for the CUDA kernel, loaded for a context of 4
    max_seq_length = 4
kept = modeling.rwkv_cuda_kernel
modeling.rwkv_cuda_kernel = Kernel()
try:
    x = torch.zeros(1, 5, 8)
    modeling.RwkvLinearAttention.apply(torch.zeros(8), torch.zeros(8), x, x, None, False)
    raise AssertionError("the kernel took more tokens than its context")
except ValueError as error:
    assert "maximum of 4" in str(error)
finally:
    modeling.rwkv_cuda_kernel = kept
```
'''
