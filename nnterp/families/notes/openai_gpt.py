"""Notes of the original GPT (openai-gpt) written by hand, added to the derived ones. Read against transformers'
modeling_openai.py (ACT_FNS, Attention._attn's −1e4 mask, OpenAIGPTModel's position_ids buffer, Block's two norms
after the adds, Conv1D projections), configuration_openai.py and tokenization_openai.py (BERT's normalizer, the </w>
suffix); the checkpoint numbers are the released config.json of openai-community/openai-gpt, as
nnterp/families/checkpoints/openai_gpt.json records it. The snippets run on the tiny GPT."""

LOAD = "eager"

DROP = ("scale_note",)

MORE = r'''
## `afn: "gelu"` is the tanh approximation here

The released config.json sets `afn` to `"gelu"`, and `OpenAIGPTConfig`'s default is the same. GPT's MLP does not look it up in transformers' `ACT2FN`, where `"gelu"` is the exact, erf-based GELU, but in the module's own `ACT_FNS`, where `"gelu"` is `gelu_new`, the tanh approximation GPT was trained with. A reimplementation that takes `"gelu"` at its word, or a converter to a library whose `gelu` is exact, computes other neurons: the two differ by up to about 5e-4 per neuron at the same input, more than float32 rounding, and the error compounds over 12 blocks.

```python
import torch.nn.functional as F
from transformers.activations import ACT2FN, NewGELUActivation

assert released("openai-community/openai-gpt")["afn"] == "gelu"
mlp = model.layers[0].mlp
with model.trace(prompt):
    pre = mlp.up_proj.output.save()
    act = mlp.mlp_activation.save()

assert torch.equal(act, NewGELUActivation()(pre))
assert torch.equal(ACT2FN["gelu"](pre), F.gelu(pre))                 # "gelu" elsewhere is exact
assert (act - F.gelu(pre)).abs().max() > 1e-6
x = torch.linspace(-4, 4, 801)
assert 4e-4 < (NewGELUActivation()(x) - F.gelu(x)).abs().max() < 6e-4
```

## Every block ends in a LayerNorm, and the head reads the last one's output

GPT is post-norm: `ln_1` normalizes the stream after the attention's add and `ln_2` after the MLP's, so `layer_output` is `ln_2`'s output, and the stream is renormalized at every block. There is no final norm: `lm_head` reads the last block's `layer_output` as it is, so `project_on_vocab` is `lm_head` alone and a logit lens at any block is exact in the sense that the model itself reads its last block that way. Unlike a pre-norm model, the stream does not grow along the depth: every block hands on a row standardized and then scaled by `ln_2.weight` and shifted by `ln_2.bias`, so `layer_output`s of different blocks have comparable sizes, and a vector added to `layer_output` is renormalized at the next block's `ln_1`, diluted by what the attention adds.

```python
import torch.nn.functional as F

block = model.layers[1]
with model.trace(prompt):
    mid = block.layer_mid.save()
    normed = block.mlp_norm_output.save()
    mlp = block.mlp.mlp_output.save()
    out = block.layer_output.save()
    last = model.layers[-1].layer_output.save()
    logits = model.logits.save()

ln_2 = block._module.ln_2
torch.testing.assert_close(out, F.layer_norm(normed + mlp, (model.hidden_size,), ln_2.weight, ln_2.bias, 1e-5))
torch.testing.assert_close(normed, block._module.ln_1(mid))
torch.testing.assert_close(model.lm_head(last), logits)
torch.testing.assert_close(model.project_on_vocab(last), logits)
```

## A masked score is −10000, not −inf

GPT's `_attn` scales `q · kᵀ` by `1/√head_dim` (1/8 on the released checkpoint's 64-dimensional heads) and masks the future by `w · b − 1e4 · (1 − b)`, with `b` the causal buffer: every masked entry of `attention_scores` is exactly −10000, whatever the dtype. The softmax gives it a weight of `exp(−10000 − max)`, zero in float32 and bfloat16, but the entry is a finite number: a mean or a norm of `attention_scores` over keys that includes the masked ones is dominated by it, and `isinf` finds nothing. Select the causal entries, or read `attention_probabilities`.

```python
facts = released("openai-community/openai-gpt")
assert facts["n_embd"] // facts["n_head"] == 64

attention = model.layers[0].self_attn
with model.trace(prompt):
    q = attention.attention_queries.save()
    k = attention.attention_keys.save()
    scores = attention.attention_scores.save()
    probs = attention.attention_probabilities.save()

s = scores.shape[-1]
masked = torch.ones(s, s, dtype=torch.bool).triu(1)
torch.testing.assert_close((q @ k.transpose(-1, -2) / model.head_dim ** 0.5)[..., ~masked], scores[..., ~masked])
assert bool((scores[..., masked] == -1e4).all()) and not bool(scores.isinf().any())
assert bool((probs[..., masked] == 0).all())
```

## The tokenizer lowercases, splits punctuation off, and has no special tokens

`OpenAIGPTTokenizer` normalizes with BERT's normalizer, lowercase included, and splits punctuation from words before a BPE whose word-final pieces end in `</w>`. "Hello World." and "hello world ." are the same ids: the model never sees case, and decoding gives back lowercase text with a space before each punctuation mark. The tokenizer has an `<unk>` token and no BOS, EOS or padding token, and the released config names none: position 0 is the text's first word, nothing marks the end of a text, and a batch of texts of different lengths needs a padding token set by hand. The snippet builds the tokenizer on a vocabulary of single letters:

```python
from transformers import OpenAIGPTTokenizer

vocab = {"<unk>": 0}
for piece in sorted(set("helloworld.")):
    vocab.setdefault(piece, len(vocab))
    vocab.setdefault(piece + "</w>", len(vocab))
tokenizer = OpenAIGPTTokenizer(vocab=vocab, merges=[])
ids = tokenizer("Hello World.").input_ids
assert ids == tokenizer("hello world .").input_ids
assert tokenizer.convert_ids_to_tokens(ids)[-2:] == ["d</w>", ".</w>"]
assert tokenizer.decode(ids) == "hello world ."
assert (tokenizer.bos_token, tokenizer.eos_token, tokenizer.pad_token) == (None, None, None)
facts = released("openai-community/openai-gpt")
assert not any(key in facts for key in ("bos_token_id", "eos_token_id", "pad_token_id"))
```

## `n_special`, `predict_special_tokens` and `n_ctx` are read by nothing

The released config.json carries `n_special: 0`, `predict_special_tokens: true` and `n_ctx: 512`, left from the original fine-tuning code, where special tokens were appended to the vocabulary. `OpenAIGPTConfig` has no such fields in this transformers: it keeps them as extra attributes, and no module reads them. Setting `n_special` does not add embedding rows, and the vocabulary is `vocab_size`, 40478, whatever it says:

```python
from nnterp import tiny

facts = released("openai-community/openai-gpt")
assert (facts["n_special"], facts["predict_special_tokens"], facts["n_ctx"]) == (0, True, 512)
assert facts["vocab_size"] == 40478

with model.trace(prompt):
    logits = model.logits.save()
other = tiny.load("openai-gpt", n_special=5, predict_special_tokens=False, n_ctx=3)
assert other.config.n_special == 5
assert other.embed_tokens.weight.shape == model.embed_tokens.weight.shape
with other.trace(prompt):
    logits_other = other.logits.save()
assert torch.equal(logits_other, logits)
```

## 512 positions: a longer input fails on a size mismatch

Positions are a learned table of `n_positions` rows, 512 on the released checkpoint, indexed by a stored `position_ids` buffer of the same length. When the model is called without position ids it slices that buffer to the input's length, so a 513-token input gets 512 positions and fails with `RuntimeError: The size of tensor a (513) must match the size of tensor b (512)`: the message names no position limit. Cut inputs to 512 tokens. The bare model's positions ignore the attention mask (a left-padded prompt starts after its padding); nnterp gives a left-padded batch its positions from the mask.

```python
assert released("openai-community/openai-gpt")["n_positions"] == 512

limit = model.config.n_positions
try:
    with model.trace(torch.zeros(1, limit + 1, dtype=torch.long)):
        model.logits.save()
    raise AssertionError("an input past n_positions ran")
except RuntimeError as error:
    assert f"({limit + 1})" in str(error) and f"({limit})" in str(error)

with model.trace([prompt, "Hello"]):
    batch = model.logits.save()
with model.trace(prompt):
    single = model.logits.save()
torch.testing.assert_close(batch[0, -1], single[0, -1])
```

## The projections are Conv1D: `weight` is `[in, out]`, the transpose of a Linear's

`c_attn`, `c_proj` and `c_fc` are transformers' `Conv1D`, which computes `x @ weight + bias` with `weight` of shape `[in_features, out_features]`: `c_attn.weight` is 768 × 2304 on the released checkpoint, and its columns, not its rows, are the queries', keys' and values' directions, in thirds. Code written for `nn.Linear` (`weight @ x`, a row per output feature, `F.linear(x, weight)`) reads the transpose: output feature j's weights are `o_proj.weight[:, j]`, not `o_proj.weight[j]`.

```python
import torch.nn.functional as F

facts = released("openai-community/openai-gpt")
assert 3 * facts["n_embd"] == 2304

c_attn = model.layers[0].self_attn._module.c_attn
assert tuple(c_attn.weight.shape) == (model.hidden_size, 3 * model.hidden_size)
x = torch.randn(2, model.hidden_size)
torch.testing.assert_close(c_attn(x), x @ c_attn.weight + c_attn.bias)
torch.testing.assert_close(c_attn(x), F.linear(x, c_attn.weight.T, c_attn.bias))
torch.testing.assert_close(c_attn(x)[:, 5], x @ c_attn.weight[:, 5] + c_attn.bias[5])   # a column per output
```
'''
