"""Notes of Zamba2 written by hand, added to the derived ones. Read against transformers' configuration_zamba2.py
(the default layers_block_type, attention_hidden_size and attention_head_dim, num_mem_blocks, adapter_rank,
use_shared_attention_adapter, use_mem_rope) and modeling_zamba2.py (Zamba2Model.get_layers, which ties the shared
blocks in a cycle of num_mem_blocks; Zamba2HybridLayer, Zamba2AttentionDecoderLayer's concatenation with the
embeddings and its missing residual, Zamba2Attention's (head_dim / 2)^-0.5 scale, its q/k/v adapters and its rotary
under use_mem_rope only; Zamba2MLP's gate_up_proj adapters; Zamba2MambaDecoderLayer adding the shared output to the
mixer's input). The snippets run on the tiny Zamba2 (a Mamba block, then a hybrid block) and on variants of it built
with more hybrid blocks, two shared blocks and adapters, or the rotary on."""

LOAD = "eager"

MORE = r'''
## A hybrid block runs a shared attention+MLP on the stream joined to the embeddings, and feeds it to the Mamba mixer

A hybrid block (`Zamba2HybridLayer`) is three modules: `shared_transformer`, `linear` and `mamba_decoder`. The shared block reads the stream x concatenated with the token embeddings of the prompt (the model's `embed_tokens` output, the same at every hybrid block), 2 · `hidden_size` wide, normed by its own `input_layernorm`; it runs the attention, `pre_ff_layernorm` on the attention's output and the gated MLP, with no residual anywhere. `linear` projects the result, which is added not to the stream but to the Mamba mixer's input:

```formula
s   = feed_forward(pre_ff_layernorm(self_attn(input_layernorm([x ; emb]))))
out = x + mamba(mamba_decoder.input_layernorm(x + linear(s)))
```

The stream therefore never receives the attention's output or the MLP's directly: it receives the Mamba mixer's output alone, which is `attention_output` on both kinds of block, and `layer_input + attention_output == layer_output`. The token's own embedding re-enters at every hybrid block, however far down the stack. The snippet recomputes the block's contribution from the shared attention's output, read at `self_attn.output`, and gets `attention_output` exactly.

```python
i = model.config.hybrid_layer_ids[0]
layer = model.layers[i]
hybrid = layer._module
with model.trace(prompt):
    emb = model.token_embeddings.save()
    x = layer.layer_input.save()
    shared_in = layer.self_attn.input.save()
    attention = layer.self_attn.output[0].save()
    mix = layer.self_attn.attention_output.save()
    out = layer.layer_output.save()

shared = hybrid.shared_transformer
assert torch.equal(shared.input_layernorm(torch.cat([x, emb], dim=-1)), shared_in)   # 2 · hidden_size wide
s = shared.feed_forward(shared.pre_ff_layernorm(attention), i)
decoder = hybrid.mamba_decoder
torch.testing.assert_close(decoder.mamba(decoder.input_layernorm(x + hybrid.linear(s))), mix)
assert torch.equal(x + mix, out)
```

## The shared attention is twice as wide as the stream, and scales by (head_dim / 2)^-0.5

Because it reads 2 · `hidden_size` numbers, the attention's heads are `attention_head_dim` = 2 · `hidden_size` / `num_attention_heads` wide: 160 on Zamba2-2.7B (2 · 2560 / 32), not 80, and `q_proj`, `k_proj` and `v_proj` take 5120 inputs while `o_proj` returns 2560. The scores are q · k · (head_dim / 2)^-0.5, 1/√80 on the 2.7B rather than the 1/√160 of a standard attention of that width, as if each head's dot product counted only the stream's half. A pattern recomputed from `attention_queries` and `attention_keys` with `head_dim ** -0.5` is too flat by a factor √2 in the logits. `model.head_dim` is `attention_head_dim`.

```python
facts = released("Zyphra/Zamba2-2.7B")
assert facts["num_key_value_heads"] == facts["num_attention_heads"] == 32
assert facts["attention_head_dim"] == 2 * facts["hidden_size"] // facts["num_attention_heads"] == 160
assert model.head_dim == model.config.attention_head_dim == 2 * model.config.hidden_size // model.num_heads

i = model.config.hybrid_layer_ids[0]
attention = model.layers[i].self_attn
with model.trace(prompt):
    q = attention.attention_queries.save()
    k = attention.attention_keys.save()
    scores = attention.attention_scores.save()
k = k.repeat_interleave(q.shape[1] // k.shape[1], dim=1)
causal = torch.ones(q.shape[2], q.shape[2]).tril().bool()
ours = (q @ k.transpose(-1, -2)) * (model.head_dim / 2) ** -0.5
torch.testing.assert_close(ours[..., causal], scores[..., causal])
assert not torch.allclose((q @ k.transpose(-1, -2) * model.head_dim ** -0.5)[..., causal], scores[..., causal])
```

## The shared blocks are one set of weights (or a few) reused down the stack; `linear` and the mixers are not

`Zamba2Model.get_layers` ties the `shared_transformer` of every hybrid block to one of `num_mem_blocks` sets, in a cycle over the hybrid blocks in order: with two sets, hybrid blocks 1, 3, 5, … share the first and 2, 4, 6, … the second. The class's default is one set and its default pattern, which its docstring calls Zamba2-2.7B style, is 54 blocks with hybrid blocks at 6, 12, 18, 24, 30, 36, 42, 47 and 51: the same attention and MLP weights run nine times. Each hybrid block keeps its own `linear` and its own Mamba mixer. An edit to a shared block's weights (or a hook on one of its modules, which is one module object) therefore acts at every block that uses it, and the per-block differences live in `linear`, the mixer and the adapters (next note).

```python
from nnterp import tiny
from transformers import Zamba2Config

default = Zamba2Config()
assert default.num_hidden_layers == 54 and default.num_mem_blocks == 1
assert default.hybrid_layer_ids == [6, 12, 18, 24, 30, 36, 42, 47, 51]

deep = tiny.load("zamba2", num_hidden_layers=5, num_mem_blocks=2,
                 layers_block_type=["linear_attention"] + ["hybrid"] * 4)
blocks = deep._module.model.layers
hybrid = deep.config.hybrid_layer_ids
assert hybrid == [1, 2, 3, 4]
for a in hybrid:
    for b in hybrid:
        shared = blocks[a].shared_transformer.self_attn.q_proj.weight is blocks[b].shared_transformer.self_attn.q_proj.weight
        assert shared == (hybrid.index(a) % 2 == hybrid.index(b) % 2)
        assert (blocks[a].linear.weight is blocks[b].linear.weight) == (a == b)
```

## Each use of a shared block has its own low-rank adapters: always on the MLP, on q, k, v with `use_shared_attention_adapter`

A tied block would compute the same function at every use; Zamba2 adds per-use LoRA adapters. `Zamba2MLP` always holds one `gate_up_proj` adapter per hybrid use it serves (`Linear(hidden, adapter_rank)` then `Linear(adapter_rank, 2 · intermediate_size)`, added to `gate_up_proj`'s output), and with `use_shared_attention_adapter` `Zamba2Attention` holds the same for q, k and v (2 · `hidden_size` wide). A set serves every `num_mem_blocks`-th use, and its adapter slots for the other uses are `nn.Identity`. The forward picks the adapter by the block's index, so the effective query projection at a use is `q_proj.weight + up @ down` of that use's adapter. The class's `adapter_rank` default is 128. The k and v adapters return 2 · `hidden_size` numbers, as many as there are query dimensions, so a config with adapters and fewer key/value heads than query heads (grouped keys) fails at its first forward; Zamba2-2.7B has 32 of each. A weight-level analysis of the shared attention (its QK or OV circuits) that reads `q_proj` alone misses the per-use part.

```python
from nnterp import tiny
from transformers import Zamba2Config

assert Zamba2Config().adapter_rank == 128 and Zamba2Config().use_shared_attention_adapter is False
variant = dict(attn_implementation="eager", num_hidden_layers=5, num_mem_blocks=2, use_shared_attention_adapter=True,
               layers_block_type=["linear_attention"] + ["hybrid"] * 4)
adapted = tiny.load("zamba2", num_key_value_heads=model.num_heads, **variant)
hybrid = adapted.config.hybrid_layer_ids
for use, i in enumerate(hybrid):
    attention = adapted.layers[i].self_attn
    native = attention._module
    adapters = native.linear_q_adapter_list
    assert [type(a).__name__ for a in adapters] == ["Sequential" if u % 2 == use % 2 else "Identity"
                                                    for u in range(len(hybrid))]
    with adapted.trace(prompt):
        h = attention.input.save()
        q = attention.attention_queries.save()
    down, up = adapters[use]
    assert down.out_features == adapted.config.adapter_rank
    b, n, _ = h.shape
    ours = (native.q_proj(h) + up(down(h))).view(b, n, -1, native.head_dim).transpose(1, 2)
    torch.testing.assert_close(ours, q)
    assert not torch.allclose(native.q_proj(h).view(b, n, -1, native.head_dim).transpose(1, 2), q)
mlp = adapted._module.model.layers[hybrid[0]].shared_transformer.feed_forward
assert type(mlp.gate_up_proj_adapter_list[0]).__name__ == "Sequential"

grouped = tiny.load("zamba2", num_key_value_heads=model.num_heads // 2, **variant)
try:
    with grouped.trace(prompt):
        grouped.logits.save()
except RuntimeError as error:
    assert "must match the size" in str(error)
else:
    raise AssertionError("the k adapter fitted grouped keys")
```

## The shared attention reads positions only under `use_mem_rope`, which is off by default

`Zamba2Attention` applies the rotary only when `use_mem_rope` is true; the class's default is false, and then the attention has no positional encoding at all: queries and keys are the projections as they are, and a query's scores against earlier keys do not depend on their order. The order of tokens reaches the stream only through the Mamba-2 mixers' causal conv and scan (the first block is always a Mamba block). The snippet shuffles the earlier positions of the shared attention's input: the last query's scores come out shuffled the same way. Under `use_mem_rope` the same attention rotates its queries and keys, so a checkpoint's config decides which of the two models it is: read `model.config.use_mem_rope`.

```python
from nnterp import tiny

assert model.config.use_mem_rope is False
i = model.config.hybrid_layer_ids[0]
attention = model.layers[i].self_attn
with model.trace(prompt):
    h = attention.input.save()
    q = attention.attention_queries.save()
    q_unrotated = attention.attention_queries_unrotated.save()
    scores = attention.attention_scores.save()
assert torch.equal(q, q_unrotated)
n = h.shape[1]
order = torch.cat([torch.arange(n - 2, -1, -1), torch.tensor([n - 1])])
with model.trace(prompt):
    attention.input[:] = h[:, order]
    shuffled = attention.attention_scores.save()
torch.testing.assert_close(shuffled[..., -1, :], scores[..., -1, order])   # the same dot products, reordered

rotary = tiny.load("zamba2", attn_implementation="eager", use_mem_rope=True)
with rotary.trace(prompt):
    q = rotary.layers[i].self_attn.attention_queries.save()
    q_unrotated = rotary.layers[i].self_attn.attention_queries_unrotated.save()
assert torch.equal(q[..., 0, :], q_unrotated[..., 0, :]) and not torch.equal(q, q_unrotated)
```

## What the standard values are on each kind of block

On a Mamba block, `self_attn` is the Mamba-2 mixer: `attention_norm_output` is the block's norm output and `attention_output` the mixer's, and the attention's interior is not served. On a hybrid block, `self_attn` is the shared attention, and its interior is served (queries, keys, values, scores and pattern under eager); `attention_output` is still the Mamba mixer's output, the only thing the stream receives, so it is not the attention's own output, which is `layers[i].self_attn.output[0]`. `attention_norm_output` is not served there: the attention reads 2 · `hidden_size` numbers, which is `self_attn.input`. The shared MLP has no standard name (`mlp_output`, `layer_mid` and the MLP's values are refused with the reason) and is read at `shared_transformer.feed_forward` natively.

```python
mamba_block = model.config.layers_block_type.index("linear_attention")
hybrid_block = model.config.hybrid_layer_ids[0]
assert model.serves("attention_scores", mamba_block) is not None and model.serves("attention_scores", hybrid_block) is None
assert model.serves("attention_norm_output", mamba_block) is None
assert model.serves("attention_norm_output", hybrid_block) is not None
for name in ("mlp_output", "layer_mid", "mlp_neurons"):
    assert model.serves(name, hybrid_block) is not None

layer = model.layers[hybrid_block]
with model.trace(prompt):
    head_outputs = layer.self_attn.attention_premix.save()
    attention_own = layer.self_attn.output[0].save()
    mix = layer.self_attn.attention_output.save()
assert attention_own.shape == mix.shape and not torch.allclose(attention_own, mix)
torch.testing.assert_close(layer.self_attn._module.o_proj(head_outputs.flatten(-2)), attention_own)
```
'''
