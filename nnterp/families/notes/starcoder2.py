"""Notes of StarCoder2 written by hand, added to the derived ones. Read against transformers'
modeling_starcoder2.py (Starcoder2Attention, Starcoder2MLP, Starcoder2Model) and configuration_starcoder2.py, and
masking_utils.sliding_window_overlay; the checkpoint numbers are StarCoder2-3B's and StarCoder2-15B's config.json's,
as the family module records them. The derived rotary and sliding-window notes are replaced by the first two notes, which
give the bases the released configs set and the window's exact extent."""

DROP = ("rotary_note", "sliding_note")

MORE = r'''
## Rotary at base 999999.44 on StarCoder2-3B, 100000 on StarCoder2-15B

StarCoder2-3B's config.json sets `rope_theta` to 999999.4420358813, not 1e6, and StarCoder2-15B's to 100000; neither sets rope scaling. The class default, 10000, is neither: a config built without `rope_theta` turns its slowest pair about 100 times faster than StarCoder2-3B's. Rotary turns all 128 dimensions of each head (3072 / 24) with `rotate_half`, pair i at frequency `rope_theta ** (-2i / 128)`. The odd base is not 1e6 in float32 either: pair i's frequency differs from base 1e6's by about 5.6e-7 · i / 64 relative (ln(1e6 / 999999.44) · 2i / 128), more than float32 resolves for all but the lowest pairs (exactly how many of the 64 round apart depends on the CPU's `pow`), so a reimplementation with 1e6 matches to about 5e-4 radians at position 16383, not bit for bit.

```python
from transformers import Starcoder2Config
from transformers.models.starcoder2.modeling_starcoder2 import Starcoder2RotaryEmbedding

small, large = released("bigcode/starcoder2-3b"), released("bigcode/starcoder2-15b")
assert (small["rope_theta"], large["rope_theta"]) == (999999.4420358813, 100000)
assert "rope_scaling" not in small and "rope_scaling" not in large

def inv_freq(**facts):
    return Starcoder2RotaryEmbedding(Starcoder2Config(**facts)).inv_freq

shape = {key: small[key] for key in ("hidden_size", "num_attention_heads", "num_key_value_heads")}
released_freq = inv_freq(**shape, rope_theta=small["rope_theta"])
million, default = inv_freq(**shape, rope_theta=1e6), inv_freq(**shape)
assert released_freq.numel() == 64
assert int((released_freq != million).sum()) >= 36   # every pair whose gap is over two float32 steps, i >= 28
assert ((released_freq - million) / million).abs().max() < 6e-7
assert 4e-4 < float((released_freq - million).abs().max() * 16383) < 6e-4     # radians at the last position
assert small["max_position_embeddings"] == 16384
assert 90 < float(default[-1] / released_freq[-1]) < 100
```

## Every block attends to the last 4096 keys, itself included

StarCoder2-3B's and StarCoder2-15B's configs set `sliding_window` 4096 against a `max_position_embeddings` of 16384, and the attention passes the same window to the kernel on every block: there are no global layers. The mask keeps key j for query i when `i - 4096 < j ≤ i`, 4096 keys counting the query's own position. Past position 4095 a block never reads the first tokens directly; information from them reaches later positions only through the stream, across blocks. The masked entries of `attention_probabilities` are exactly 0. The snippet uses a window of 4 on the tiny model:

```python
from nnterp import tiny

assert released("bigcode/starcoder2-3b")["sliding_window"] == released("bigcode/starcoder2-15b")["sliding_window"] == 4096
assert released("bigcode/starcoder2-3b")["max_position_embeddings"] == 16384
windowed = tiny.load("starcoder2", attn_implementation="eager", sliding_window=4)
probs = []
with windowed.trace(prompt):
    for layer in windowed.layers:
        probs.append(layer.self_attn.attention_probabilities.save())

n = probs[0].shape[-1]
i, j = torch.arange(n)[:, None], torch.arange(n)[None, :]
seen = (j <= i) & (j > i - 4)
for p in probs:                                            # every block, the same window
    assert (p[..., ~seen] == 0).all() and (p[..., seen] > 0).all()
```

## Three dropouts of 0.1 fire in train mode, two of them inside `attention_output` and `mlp_output`

StarCoder2-3B's config.json sets `attention_dropout`, `residual_dropout` and `embedding_dropout` to 0.1 (the class defaults are 0). All three are inert in eval mode, which is how nnterp loads. In train mode (fine-tuning, or a gradient method that calls `model.train()`), the attention drops pattern entries, and `residual_dropout` is applied at the end of the attention's and the MLP's own forwards: `attention_output` is `o_proj`'s output with a tenth of its entries zeroed and the rest divided by 0.9, and `mlp_output` likewise after `c_proj`. The embeddings are dropped before block 0 too. Two traces of the same prompt then differ.

```python
from nnterp import tiny

facts = released("bigcode/starcoder2-3b")
assert facts["attention_dropout"] == facts["residual_dropout"] == facts["embedding_dropout"] == 0.1
hf, tok = tiny.build("starcoder2", attention_dropout=0.1, residual_dropout=0.1, embedding_dropout=0.1)
noisy = StandardizedTransformer(hf, tokenizer=tok)
hf.train()
with noisy.trace(prompt):
    projected = noisy.layers[0].self_attn.o_proj.output.save()
    attn = noisy.layers[0].self_attn.attention_output.save()
with noisy.trace(prompt):
    attn_again = noisy.layers[0].self_attn.attention_output.save()
hf.eval()

kept = attn != 0
torch.testing.assert_close(attn[kept], projected[kept] / 0.9)
assert 0.02 < 1 - kept.float().mean() < 0.25                   # about a tenth dropped
assert not torch.equal(attn, attn_again)
```

## `o_proj` and `c_proj` have biases: a zeroed sublayer still writes a constant

`use_bias` is true on both checkpoints: `q_proj`, `k_proj`, `v_proj`, `o_proj`, `c_fc` and `c_proj` all have a bias, and the LayerNorms have one whatever `use_bias` says. Zeroing every head (`attention_head_outputs[:] = 0`) leaves `attention_output` equal to `o_proj.bias` at every position, not zero; zeroing `mlp_neurons` leaves `c_proj.bias`. Every block adds the two biases to the stream whatever the input, so a zero-ablation of a sublayer is an ablation to a constant vector, and a mean-ablation differs from it.

```python
assert released("bigcode/starcoder2-3b")["use_bias"] is True and released("bigcode/starcoder2-15b")["use_bias"] is True
block = model.layers[1]
with model.trace(prompt):
    block.self_attn.attention_head_outputs[:] = 0
    block.mlp.mlp_neurons[:] = 0
    attn = block.self_attn.attention_output.save()
    mlp = block.mlp.mlp_output.save()

assert torch.equal(attn, block.self_attn.o_proj.bias.expand_as(attn))
assert torch.equal(mlp, block.mlp.down_proj.bias.expand_as(mlp)) and block.mlp.down_proj.bias.abs().sum() > 0
```

## StarCoder2-3B ties its head to the embeddings, StarCoder2-15B does not

StarCoder2-3B's config.json has no `tie_word_embeddings`, and the class default, true, ties `lm_head.weight` to `embed_tokens.weight`: one tensor, so an edit of one is an edit of the other, and a logit lens reads the stream against the input embeddings. StarCoder2-15B's sets it false: its head is a matrix of its own. A result about the unembedding on one size does not carry to the other.

```python
from transformers import AutoModelForCausalLM, Starcoder2Config

small, large = released("bigcode/starcoder2-3b"), released("bigcode/starcoder2-15b")
assert "tie_word_embeddings" not in small and large["tie_word_embeddings"] is False
tied = {}
for name, facts in (("3b", small), ("15b", large)):
    with torch.device("meta"):
        real = AutoModelForCausalLM.from_config(Starcoder2Config(**{**facts, "num_hidden_layers": 1}))
    tied[name] = real.lm_head.weight is real.model.embed_tokens.weight
assert tied == {"3b": True, "15b": False}
assert model.lm_head.weight is model.embed_tokens.weight         # the tiny model keeps the default
```

## `norm_type` and `mlp_type` in config.json are not read

The released configs carry `norm_type` "layer_norm" and `mlp_type` "default", keys of BigCode's training code. transformers' classes read neither: the norms are always `nn.LayerNorm` with `norm_epsilon` (1e-5), and the MLP always `c_fc`, GELU-tanh (`gelu_pytorch_tanh`), `c_proj`, not gated, so `mlp_activation` and `mlp_neurons` are one tensor. A config that says `rms_norm` and `gated` builds the same model.

```python
from nnterp import tiny

facts = released("bigcode/starcoder2-3b")
assert (facts["norm_type"], facts["mlp_type"], facts["norm_epsilon"]) == ("layer_norm", "default", 1e-05)
other = tiny.load("starcoder2", attn_implementation="eager", norm_type="rms_norm", mlp_type="gated")
assert type(other.layers[0]._module.input_layernorm) is torch.nn.LayerNorm
with model.trace(prompt):
    logits = model.logits.save()
    act = model.layers[0].mlp.mlp_activation.save()
    neurons = model.layers[0].mlp.mlp_neurons.save()
with other.trace(prompt):
    logits_other = other.logits.save()

assert torch.equal(logits, logits_other) and torch.equal(act, neurons)
```
'''
