"""Notes of Persimmon written by hand, added to the derived ones. Read against transformers' modeling_persimmon.py
(PersimmonAttention._split_heads, its q_layernorm and k_layernorm, the rotary on rotary_ndims, PersimmonMLP,
PersimmonDecoderLayer's dropout) and configuration_persimmon.py (the partial_rotary_factor it fills in). The checkpoint
numbers are Persimmon-8B's and Persimmon-8B-chat's config.json's as nnterp/families/checkpoints/persimmon.json records
them; the snippets run on the tiny Persimmon (16-dimensional heads)."""

LOAD = "eager"

MORE = r'''
## Neither released config says how much of a head turns: the class fills in half

Persimmon-8B's and Persimmon-8B-chat's config.json files carry `rope_theta` 25000 but no `partial_rotary_factor`. `PersimmonConfig` supplies 0.5 (`kwargs.setdefault`), so the first 32 of each 64-dimensional head (4096 / 64) turn and the other 32 carry no position. The frequencies are computed over the rotated width: `25000^(−2i/32)` for the 16 pairs, from one radian a token down to 25000^(−30/32) = 7.5 × 10⁻⁵. A reimplementation that reads the config alone, or a class that defaults to a full rotary, rotates the whole head: another model.

```python
from transformers import PersimmonConfig

for repo in ("adept/persimmon-8b-base", "adept/persimmon-8b-chat"):
    facts = released(repo)
    assert "partial_rotary_factor" not in facts and facts["rope_theta"] == 25000
    assert PersimmonConfig(**facts).rope_parameters["partial_rotary_factor"] == 0.5
    assert facts["hidden_size"] // facts["num_attention_heads"] == 64
assert round(25000 ** (-30 / 32) * 1e5, 1) == 7.5

inner = model._module.model.layers[0].self_attn
rot = inner.rotary_ndims
assert rot == model.head_dim // 2
base = model.config.rope_parameters["rope_theta"]
torch.testing.assert_close(model._module.model.rotary_emb.inv_freq, 1.0 / base ** (torch.arange(0, rot, 2).float() / rot))
```

## `query_key_value` is laid out head by head, not as three blocks

The fused projection's output is [q₀, k₀, v₀, q₁, k₁, v₁, …]: `_split_heads` views it as (heads, 3, head_dim), so head h's query is columns `192h` to `192h + 63` on Persimmon-8B, its key the next 64 and its value the 64 after. Code that takes the first 4096 columns as the queries, the next 4096 as the keys and the last 4096 as the values (the layout of Falcon's or Phi-3's fused projections) mixes queries, keys and values of different heads. To read one head's query before the norm, slice the view:

```python
with model.trace(prompt):
    fused = model.layers[0].self_attn.query_key_value.output.save()
    v = model.layers[0].self_attn.attention_values.save()

b, s, _ = fused.shape
per_head = fused.view(b, s, model.num_heads, 3, model.head_dim)
torch.testing.assert_close(v, per_head[..., 2, :].transpose(1, 2))           # head by head
blocks = fused[..., 2 * model.hidden_size:].view(b, s, model.num_heads, model.head_dim)
assert not torch.allclose(v, blocks.transpose(1, 2))                        # three blocks: wrong
```

## One LayerNorm, shared by all heads, normalizes every query and key, and it has a bias

`q_layernorm` and `k_layernorm` are single `nn.LayerNorm(head_dim)`s with a weight and a bias (`qk_layernorm` true on both checkpoints), applied to every head's query or key: all 64 heads share the same 64 gains and 64 offsets, unlike the per-head gains of Command R+ or StableLM 2's qk norms. Each query head has its mean removed, is divided by its standard deviation and then gets the shared bias added: the query norm's bias is a fixed query every head asks of every key on top of its own, and the key norm's bias is a fixed key every key carries. On the unrotated half of the head, the key bias adds the same amount to all of a query's scores and the softmax removes it; the query bias does not cancel:

```python
for repo in ("adept/persimmon-8b-base", "adept/persimmon-8b-chat"):
    assert released(repo)["qk_layernorm"] is True
inner = model._module.model.layers[0].self_attn
assert inner.q_layernorm.weight.shape == (model.head_dim,) and inner.q_layernorm.bias is not None
rot = inner.rotary_ndims
def probabilities():
    with model.trace(prompt):
        probs = model.layers[0].self_attn.attention_probabilities.save()
    return probs
probs = probabilities()
saved = {name: getattr(inner, name).bias.detach().clone() for name in ("q_layernorm", "k_layernorm")}
assert all(bias[rot:].abs().max() > 0.05 for bias in saved.values())
with torch.no_grad():
    inner.k_layernorm.bias[rot:] = 0
probs_key_bias = probabilities()
with torch.no_grad():
    inner.k_layernorm.bias.copy_(saved["k_layernorm"])
    inner.q_layernorm.bias[rot:] = 0
probs_query_bias = probabilities()
with torch.no_grad():
    inner.q_layernorm.bias.copy_(saved["q_layernorm"])
torch.testing.assert_close(probs_key_bias, probs)                           # the key bias: cancelled
assert (probs_query_bias - probs).abs().max() > 1e-4                        # the query bias: a query of its own
```

## The MLP is a squared ReLU: about half its neurons are exactly zero

`hidden_act` is `relu2` on both checkpoints: `dense_h_to_4h`, then `relu(x)²`, then `dense_4h_to_h`, with biases and no gate. Every neuron whose pre-activation is negative outputs exactly 0, and a positive one grows quadratically: `mlp_activation` (= `mlp_neurons`) is a sparse, non-negative code, and a neuron's effect on the stream is its down-projection column times a value that is either zero or large. On the tiny model about half the 128 neurons are zero at each position.

```python
for repo in ("adept/persimmon-8b-base", "adept/persimmon-8b-chat"):
    assert released(repo)["hidden_act"] == "relu2"
with model.trace(prompt):
    pre = model.layers[0].mlp.up_proj.output.save()
    act = model.layers[0].mlp.mlp_activation.save()
    neurons = model.layers[0].mlp.mlp_neurons.save()
assert torch.equal(act, torch.relu(pre) ** 2) and torch.equal(neurons, act)
assert torch.equal(act == 0, pre <= 0)
assert 0.2 < (act == 0).float().mean() < 0.8
```

## `hidden_dropout` is 0.6: a forward in training mode drops most of every MLP output

Both configs set `hidden_dropout` 0.6 (and `attention_dropout` 0.0). `PersimmonDecoderLayer` applies it to the MLP's output before the residual add. A loaded model is in eval mode and the dropout does nothing; but a forward after `model.train()` (to get gradients with dropout layers "as trained", or by a training loop left on) zeroes 60% of every MLP output entry and multiplies the rest by 2.5, so the stream, the logits and any gradient differ from the model's. Keep the model in eval mode for attribution by gradients.

```python
from nnterp import tiny

for repo in ("adept/persimmon-8b-base", "adept/persimmon-8b-chat"):
    assert released(repo)["hidden_dropout"] == 0.6
dropping = tiny.load("persimmon", attn_implementation="eager", hidden_dropout=0.6)
block = dropping._module.model.layers[0]
with dropping.trace(prompt):
    mid = dropping.layers[0].layer_mid.save()
    out = dropping.layers[0].layer_output.save()
torch.manual_seed(0)
dropping._module.train()
with dropping.trace(prompt):
    mid_train = dropping.layers[0].layer_mid.save()
    out_train = dropping.layers[0].layer_output.save()
dropping._module.eval()
written = out_train - mid_train
mlp = out - mid
dropped = (written == 0) & (mlp != 0)
torch.testing.assert_close(mid_train, mid)                                  # nothing before the MLP's dropout
assert 0.5 < dropped.float().mean() < 0.7
kept = ~dropped
torch.testing.assert_close(written[kept], 2.5 * mlp[kept], rtol=1e-4, atol=1e-5)
```

## Persimmon-8B has 9.4B parameters, 2.1B of them in its two vocabulary matrices

`vocab_size` is 262144 on both checkpoints (2¹⁸), and `tie_word_embeddings` false: `embed_tokens` and `lm_head` are two 262144 × 4096 matrices, 1.07B parameters each. Built from its config, the model holds 9,397,175,296 parameters, so 22.9% of the parameters are vocabulary; the 36 blocks and the final norm hold the other 7.25B. `lm_head`'s output is a [batch, seq, 262144] tensor, 1 MB per position in float32: saving `logits` or `lm_head_output` over a long prompt costs far more than any stream value.

```python
from transformers import PersimmonConfig, PersimmonForCausalLM

facts = released("adept/persimmon-8b-base")
assert facts["vocab_size"] == 262144 == 2 ** 18 and facts["tie_word_embeddings"] is False
with torch.device("meta"):
    built = PersimmonForCausalLM(PersimmonConfig(**facts))
total = sum(p.numel() for p in built.parameters())
vocabulary = built.model.embed_tokens.weight.numel() + built.lm_head.weight.numel()
assert total == 9397175296 and vocabulary == 2 * 262144 * 4096
assert round(vocabulary / total, 3) == 0.229 and round((total - vocabulary) / 1e9, 2) == 7.25
assert 262144 * 4 == 1048576                                                # bytes of one position's float32 logits
```
'''
