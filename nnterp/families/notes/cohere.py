"""Notes of Command R (Cohere) written by hand, added to the derived ones. Read against transformers'
modeling_cohere.py (CohereLayerNorm, its per-head use for q_norm and k_norm, CohereRotaryEmbedding's
repeat_interleave and the interleaved rotate_half, CohereDecoderLayer's parallel sum, CohereForCausalLM's logit_scale)
and configuration_cohere.py. The checkpoint numbers are Command R's and Command R+'s config.json's as
nnterp/families/checkpoints/cohere.json records them; the snippets run on the tiny Cohere model."""

LOAD = "eager"

MORE = r'''
## `max_position_embeddings` limits nothing: Command R says 8192 and 131072

Command R's config.json sets `max_position_embeddings` 8192 and, beside it, `model_max_length` 131072, with an unscaled rotary at base 8,000,000 (`rope_theta`; Command R+: 75,000,000, the same two lengths). `CohereRotaryEmbedding` computes each position's angles from `inv_freq` at call time and keeps no table of positions: nothing in the forward reads `max_position_embeddings`, and a prompt past 8192 tokens is rotated by the same formula as the first token. The 8192 is neither a limit nor the length the model was trained to; which context length holds is a question for the checkpoint's documentation, not for the config. On the tiny model built with a limit of 4, the queries at positions 4 to 12 are the formula's:

```python
from nnterp import tiny

for repo, base in (("CohereForAI/c4ai-command-r-v01", 8000000), ("CohereForAI/c4ai-command-r-plus", 75000000)):
    facts = released(repo)
    assert (facts["max_position_embeddings"], facts["model_max_length"], facts["rope_theta"]) == (8192, 131072, base)
    assert "rope_scaling" not in facts
short = tiny.load("cohere", attn_implementation="eager", max_position_embeddings=4)
short.instrument()   # q_proj (a module) is read before attention_queries (inside the forward)
attention = short.layers[0].self_attn
with short.trace(prompt):
    raw = attention.q_proj.output.save()
    q = attention.attention_queries.save()
b, s, _ = raw.shape
d = short.head_dim
heads = raw.view(b, s, -1, d).transpose(1, 2)
inv_freq = 1.0 / short.config.rope_parameters["rope_theta"] ** (torch.arange(0, d, 2).float() / d)
angles = (torch.arange(s).float()[:, None] * inv_freq).repeat_interleave(2, -1)
pairs = torch.stack([-heads[..., 1::2], heads[..., ::2]], -1).flatten(-2)
assert s > 4
torch.testing.assert_close(q, heads * angles.cos() + pairs * angles.sin())
```

## The rotary turns neighbouring dimensions, so a head's slowest pair is its last two

`CohereRotaryEmbedding` repeats each frequency twice in place (`repeat_interleave`) and Cohere's `rotate_half` pairs dimension 2i with 2i + 1, where Llama's pairs i with i + 64. Pair i turns at `rope_theta^(−2i/128)`: on Command R dimensions 0 and 1 turn fastest, and 126 and 127 slowest, about 1.6 × 10⁻⁷ radians a token at base 8,000,000, a full turn per 39 million tokens. An analysis that ranks a head's dimensions by how positional they are, or a rotary ported from Llama, gets the pairing wrong on every dimension; Llama's `rotate_half` applied to these heads does not give `attention_queries`:

```python
import math

facts = released("CohereForAI/c4ai-command-r-v01")
d = facts["hidden_size"] // facts["num_attention_heads"]
slowest = facts["rope_theta"] ** (-(d - 2) / d)
assert d == 128 and round(slowest * 1e7, 1) == 1.6 and round(2 * math.pi / slowest / 1e6) == 39

model.instrument()
attention = model.layers[0].self_attn
with model.trace(prompt):
    raw = attention.q_proj.output.save()
    q = attention.attention_queries.save()
b, s, _ = raw.shape
d = model.head_dim
heads = raw.view(b, s, -1, d).transpose(1, 2)
inv_freq = 1.0 / model.config.rope_parameters["rope_theta"] ** (torch.arange(0, d, 2).float() / d)
angle = torch.arange(s).float()[:, None] * inv_freq                       # [positions, pairs]
for i in (0, d // 2 - 1):                                                  # the fastest and the slowest pair
    x, y = heads[..., 2 * i], heads[..., 2 * i + 1]
    c, n = angle[:, i].cos(), angle[:, i].sin()
    torch.testing.assert_close(q[..., 2 * i], x * c - y * n)
    torch.testing.assert_close(q[..., 2 * i + 1], y * c + x * n)
llama_pairs = torch.cat([-heads[..., d // 2:], heads[..., :d // 2]], -1)
llama_angles = torch.cat([angle, angle], -1)
assert not torch.allclose(q, heads * llama_angles.cos() + llama_pairs * llama_angles.sin(), atol=1e-4)
```

## Command R+ gives every query and key head its own LayerNorm gain

With `use_qk_norm` (true on Command R+, false on Command R), `q_norm` and `k_norm` are `CohereLayerNorm`s of shape (`num_heads`, `head_dim`): each head's 128 entries have their mean removed and are divided by their standard deviation, then multiplied by that head's own 128 weights, a [96, 128] table for the queries and [8, 128] for the keys on Command R+. Qwen3's and Gemma 3's q/k norms are RMSNorms with one weight vector shared by every head; OLMo 2's span all heads at once. A query head's length on R+ is set by its own gain, so heads can differ in sharpness by design, whatever the stream.

```python
from nnterp import tiny

plus = released("CohereForAI/c4ai-command-r-plus")
assert plus["use_qk_norm"] is True and "use_qk_norm" not in released("CohereForAI/c4ai-command-r-v01")
assert (plus["num_attention_heads"], plus["num_key_value_heads"], plus["hidden_size"] // plus["num_attention_heads"]) == (96, 8, 128)
normed = tiny.load("cohere", attn_implementation="eager", use_qk_norm=True)
normed.instrument()
attention = normed.layers[0].self_attn
assert attention.q_norm.weight.shape == (normed.num_heads, normed.head_dim)
assert attention.k_norm.weight.shape == (normed.num_kv_heads, normed.head_dim)
with normed.trace(prompt):
    raw = attention.q_proj.output.save()
    q = attention.q_norm.output.save()
b, s, _ = raw.shape
heads = raw.view(b, s, normed.num_heads, normed.head_dim)
unit = torch.nn.functional.layer_norm(heads, (normed.head_dim,), eps=normed.config.layer_norm_eps)
torch.testing.assert_close(q, unit * attention.q_norm.weight)             # one gain per head
shared = unit * attention.q_norm.weight[0]
assert not torch.allclose(q, shared, atol=1e-3)                             # not one gain for all heads
```

## A block's MLP never sees its own attention

The block is parallel: `input_layernorm`'s output feeds both the attention and the MLP, and `out = x + attn + mlp`. Block i's MLP computes from `layer_input` alone, so zeroing or patching block i's `attention_output` leaves that block's `mlp_output` bit-identical; its effect first reaches an MLP at block i + 1. A circuit analysis that routes an attention head into "the next MLP" must skip to the next block, and per-block attributions of the attention and the MLP are independent within a block.

```python
with model.trace(prompt):
    mlp = model.layers[0].mlp.mlp_output.save()
    out = model.layers[0].layer_output.save()
    next_mlp = model.layers[1].mlp.mlp_output.save()
with model.trace(prompt):
    model.layers[0].self_attn.attention_output[:] = 0
    mlp_ablated = model.layers[0].mlp.mlp_output.save()
    out_ablated = model.layers[0].layer_output.save()
    next_mlp_ablated = model.layers[1].mlp.mlp_output.save()

assert torch.equal(mlp, mlp_ablated)
assert not torch.equal(out, out_ablated) and not torch.allclose(next_mlp, next_mlp_ablated)
```

## The unembedding is the embedding matrix, divided by 16 on Command R

Command R ties `lm_head` to `embed_tokens` (`tie_word_embeddings` true; Command R+'s config omits the key and the class default, true, holds) and multiplies the head's output by `logit_scale`, 0.0625 on Command R and 0.8333 on Command R+. A token's logit is `logit_scale · embed_tokens.weight[t] · norm(x)`. A lens at the embeddings therefore scores each token by its embedding's dot product with the normed input embedding, which favours the input token itself: an early-block lens that predicts the current token is the tie. On the tiny model, tied the same way, the lens at `token_embeddings` returns the input token at every position:

```python
facts, plus = released("CohereForAI/c4ai-command-r-v01"), released("CohereForAI/c4ai-command-r-plus")
assert facts["tie_word_embeddings"] is True and "tie_word_embeddings" not in plus and model.config.tie_word_embeddings
assert facts["logit_scale"] == 0.0625 and round(plus["logit_scale"], 4) == 0.8333
assert model.lm_head.weight is model.embed_tokens.weight
with model.trace(prompt):
    ids = model.input_ids.save()
    embedded = model.token_embeddings.save()
    final = model.final_norm_output.save()
    logits = model.logits.save()
torch.testing.assert_close(logits, model.config.logit_scale * final @ model.embed_tokens.weight.T)
assert torch.equal(model.project_on_vocab(embedded).argmax(-1), ids)
```

## Nothing has a bias, so a lens adds no constant and the stream's mean is invisible

`CohereLayerNorm` has a weight and no bias, and neither the projections (`attention_bias` false on both checkpoints), the MLP nor `lm_head` carry one. `project_on_vocab` maps the zero vector to zero logits, so a logit lens at any block adds no input-independent vector (unlike Phi's), and because every norm subtracts the mean, a constant added to every dimension of the stream reaches neither the next block nor the logits. The norm's statistics are computed in float32 and its weight applied before the cast back to the checkpoints' float16.

```python
facts = released("CohereForAI/c4ai-command-r-v01")
assert facts["attention_bias"] is False and facts["dtype"] == "float16"
assert model.lm_head.bias is None and model.layers[0].self_attn.q_proj.bias is None
assert not hasattr(model.norm, "bias") or model.norm.bias is None
zero = torch.zeros(1, 1, model.hidden_size)
assert torch.equal(model.project_on_vocab(zero), torch.zeros(1, 1, model.vocab_size))
with model.trace(prompt):
    last = model.layers[-1].layer_output.save()
    logits = model.logits.save()
torch.testing.assert_close(model.project_on_vocab(last + 3 * last.std()), logits)
```
'''
