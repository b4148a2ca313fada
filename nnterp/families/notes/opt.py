"""Notes of OPT written by hand, added to the derived ones. Read against transformers' modeling_opt.py:
OPTAttention.forward multiplies q_proj's output by self.scaling and calls the kernel with scaling=1.0;
OPTLearnedPositionalEmbedding adds its offset of 2 to positions counted from the attention mask; OPTDecoderLayer
flattens the stream to rows before fc1 and, with do_layer_norm_before=False, puts each norm after its add; OPTDecoder
builds project_in and project_out when word_embed_proj_dim differs from hidden_size and drops the final norm when
do_layer_norm_before is false."""

MORE = r'''
## The queries are scaled before the product: the scores are exactly q · kᵀ

`OPTAttention` multiplies `q_proj`'s output by `self.scaling` = `head_dim ** -0.5` (0.125 for 64-wide heads) and then calls the kernel with `scaling=1.0`. So `attention_queries` are already scaled, 1/8 of the projection's output, and `attention_scores` are the plain product of `attention_queries` and `attention_keys`, plus the mask, with nothing multiplied after. Dividing the product by `√head_dim` yourself, as on Llama, scales it twice, and a query vector patched in from another model or a steering vector added to `attention_queries` is not scaled again. The sdpa path receives the same pre-scaled queries with `scale=1.0`, so `attention_queries` mean the same under both loads.

```python
attention = model.layers[1].self_attn
with model.trace(prompt):
    q_raw = attention.q_proj.output.save()
with model.trace(prompt):
    q = attention.attention_queries.save()
    k = attention.attention_keys.save()
    scores = attention.attention_scores.save()

b, n, _ = q_raw.shape
heads = q_raw.view(b, n, model.num_heads, model.head_dim).transpose(1, 2)
assert torch.equal(heads * model.head_dim ** -0.5, q)           # scaled at q_proj's output
causal = torch.ones(n, n, dtype=torch.bool).tril()
assert torch.equal((q @ k.transpose(-1, -2))[..., causal], scores[..., causal])   # nothing applied after
assert attention.scaling == model.head_dim ** -0.5

from nnterp import tiny                                          # the same weights under sdpa: the same queries
sdpa = tiny.load("opt", attn_implementation="sdpa")
with sdpa.trace(prompt):
    q_sdpa = sdpa.layers[0].self_attn.attention_queries.save()   # block 0: no earlier kernel's rounding
with model.trace(prompt):
    q_eager = model.layers[0].self_attn.attention_queries.save()
assert torch.equal(q_sdpa, q_eager)
```

## Position p reads row p + 2 of `embed_positions`, counted from the first unpadded token

`embed_positions` is a learned table of `max_position_embeddings + 2` rows (2050 on opt-350m, whose `max_position_embeddings` is 2048): fairseq reserved the first two, and `OPTLearnedPositionalEmbedding` adds its `offset` of 2 to every position. Row 0 is never read. The positions are not `arange(seq_len)`: the model counts them as the cumulative sum of the attention mask minus 1, so under left padding the first real token of every row is position 0 (row 2) and the pads read row 1 (a batch traced through nnterp gets `position_ids` from nnsight, counted the same way for the real tokens, with the pads at 0). The positions are added to the stream after the token embedding (after `project_in` on opt-350m), so `layers[0].input` is `token_embeddings` plus rows 2 to n + 1, and `token_embeddings` carry no position.

```python
table = model._module.model.decoder.embed_positions
assert table.weight.shape[0] == model.config.max_position_embeddings + 2
assert released("facebook/opt-350m")["max_position_embeddings"] == 2048

with model.trace(prompt):
    tokens = model.token_embeddings.save()
    x = model.layers[0].input.save()

n = x.shape[1]
assert torch.equal(tokens + table.weight[2:2 + n], x)          # rows 2 .. n+1, after the token embedding

left_padded = torch.tensor([[0, 0, 1, 1, 1]])                  # two pads, then three tokens
assert torch.equal(table(left_padded), table.weight[[1, 1, 2, 3, 4]].unsqueeze(0))
```

## The MLP half runs on rows: fc1 and fc2 see [batch · seq, hidden]

The block has no MLP module: `fc1`, `activation_fn` and `fc2` are the decoder layer's own children, and before them the layer reshapes the stream to `[batch * seq, hidden]`, adds `fc2`'s output to that flattened residual and views the sum back. A hook on the native `fc1` or `fc2` therefore meets a 2-D tensor whose rows are positions of every batch item in turn: `[:, -1]` there is the last hidden dimension of every row, not the last position. nnterp serves `mlp_input`, `mlp_neurons` and `mlp_output` unflattened, as `[batch, seq, ...]` views of the same tensors, and the standard `mlp` is an alias of `fc2`.

```python
layer = model.layers[0]
with model.trace(prompt):
    native_in = layer.fc1.input.save()
    mlp_in = layer.mlp_input.save()
    native_out = layer.fc2.output.save()
    mlp_out = layer.mlp.mlp_output.save()

b, n = mlp_in.shape[:2]
assert native_in.dim() == 2 and native_in.shape[0] == b * n
assert torch.equal(native_in.view(b, n, -1), mlp_in)
assert torch.equal(native_out.view(b, n, -1), mlp_out)
```

## The MLP is ReLU, so its neurons are exactly zero where they are off

`activation_function` is `relu` on opt-350m, with `fc1` and `fc2` both biased (`enable_bias`) and no gate: `mlp_neurons` are `relu(fc1(final_layer_norm(h)))`, nonnegative, and a neuron below threshold contributes exactly nothing to `fc2`. A neuron's activation is zero, not small, so ablating an inactive neuron is a no-op and an attribution through an inactive one is exactly zero (ReLU's gradient there is 0).

```python
layer = model.layers[0]
with model.trace(prompt):
    h = layer.mlp_norm_output.save()
    neurons = layer.mlp.mlp_neurons.save()
    out = layer.mlp.mlp_output.save()

assert torch.equal(torch.relu(layer.fc1(h)), neurons)
assert (neurons >= 0).all() and (neurons == 0).any()
assert torch.equal(layer.fc2(neurons), out)
assert released("facebook/opt-350m")["activation_function"] == "relu" and released("facebook/opt-350m")["enable_bias"]
```

## opt-350m is post-norm: each LayerNorm follows its add, and the decoder has no final norm

By the class's default (`do_layer_norm_before` true) a LayerNorm precedes each sublayer; opt-350m sets it false, and the same `OPTDecoderLayer` then computes `h = self_attn_layer_norm(x + attn)` and `out = final_layer_norm(h + mlp)`: nothing normalizes the attention's input, the two norms sit on the residual path, and the block is not the sum of its input and its contributions (`layer_mid`, the stream after the attention add, is `self_attn_layer_norm`'s input, and what the MLP is added to is that norm's output). Every block's output has just been through a LayerNorm, so the stream's scale is reset at each block, and the decoder builds no `final_layer_norm` (`model.decoder.final_layer_norm` is `None`): the readout has no norm to apply. The snippet builds a tiny OPT with opt-350m's switch and checks the block's arithmetic.

```python
from nnterp import tiny

assert released("facebook/opt-350m")["do_layer_norm_before"] is False
from transformers import OPTConfig
assert OPTConfig().do_layer_norm_before is True
post = tiny.load("opt", attn_implementation="eager", do_layer_norm_before=False, word_embed_proj_dim=32)
layer = post.layers[0]
with post.trace(prompt):
    x = layer.layer_input.save()
    attn = layer.self_attn.attention_output.save()
    mid = layer.layer_mid.save()
    mlp = layer.mlp.mlp_output.save()
    out = layer.layer_output.save()

assert torch.equal(x + attn, mid)
assert torch.equal(layer.final_layer_norm(layer.self_attn_layer_norm(mid) + mlp), out)
assert post._module.model.decoder.final_layer_norm is None
```

## opt-350m embeds at 512 and maps into and out of the 1024-wide stream

opt-350m's `word_embed_proj_dim` is 512 against a `hidden_size` of 1024. `embed_tokens` is 512 wide; `project_in` (a Linear without bias, 512 → 1024) maps it into the stream before the positions are added, and `project_out` (1024 → 512) maps the last block's output back before `lm_head`, which is tied to the 512-wide `embed_tokens`. So `token_embeddings` is `project_in`'s output, the readout is `lm_head(project_out(h))`, and a logit lens or an embedding comparison in the stream's 1024 dimensions goes through these two matrices, which are two separate parameters. Where `word_embed_proj_dim` equals `hidden_size`, neither projection exists.

```python
from nnterp import tiny

assert released("facebook/opt-350m")["word_embed_proj_dim"] == 512 and released("facebook/opt-350m")["hidden_size"] == 1024
assert model._module.model.decoder.project_in is None and model._module.model.decoder.project_out is None
post = tiny.load("opt", attn_implementation="eager", do_layer_norm_before=False, word_embed_proj_dim=32)
decoder = post._module.model.decoder
assert decoder.project_in.bias is None and decoder.project_out.bias is None
assert decoder.project_in.weight is not decoder.project_out.weight
assert post.lm_head.weight is decoder.embed_tokens.weight and post.lm_head.weight.shape[1] == 32
ids = post.tokenizer(prompt, return_tensors="pt").input_ids
with post.trace(prompt):
    tokens = post.token_embeddings.save()
    last = post.layers[-1].layer_output.save()
    logits = post.logits.save()

assert torch.equal(decoder.project_in(decoder.embed_tokens(ids)), tokens)
assert torch.equal(post.lm_head(decoder.project_out(last)), logits)
assert torch.equal(post.project_on_vocab(last), logits)
```
'''
