"""Notes of Reformer written by hand, added to the derived ones. Read against transformers'
modeling_reformer.py (ReformerAttention picks LocalSelfAttention or LSHSelfAttention per config.attn_layers;
AxialPositionEmbeddings keeps one weight per axis of axial_pos_shape, whose widths axial_pos_embds_dim sum to
hidden_size); the snippets run on the family's tiny model."""

MORE = r'''
## The blocks alternate local and LSH attention, as `attn_layers` lists them

Each block's `attention.self_attention` is built from `config.attn_layers[i]`: `"local"` gives a `LocalSelfAttention` (separate `query`, `key` and `value`; the sequence cut into chunks of `local_attn_chunk_length`, each attending causally to itself and `local_num_chunks_before` earlier chunks), `"lsh"` an `LSHSelfAttention` (one shared `query_key` projection and `value`; positions hashed into buckets, sorted and chunked). On the HF port of Reformer (Crime and Punishment) the six blocks are local, lsh, local, lsh, local, lsh, with chunks of 64 positions for both kinds and `num_buckets` [64, 128]. A head's pattern is therefore not one n × n causal matrix once the prompt is longer than a chunk: only within a chunk and its neighbours.

```python
kinds = {"local": "LocalSelfAttention", "lsh": "LSHSelfAttention"}
built = [type(layer._module.attention.self_attention).__name__ for layer in model.layers]
assert built == [kinds[kind] for kind in model.config.attn_layers]
assert "query_key" in dict(model.layers[1]._module.attention.self_attention.named_children())   # lsh: shared
```

## Positions are axial embeddings, one table per axis

The embedding adds `position_embeddings`, an `AxialPositionEmbeddings`: one weight per axis of `axial_pos_shape`, each `axial_pos_embds_dim[k]` wide, broadcast over the other axes and concatenated, so the widths sum to `hidden_size`. On the HF port `axial_pos_shape` is [512, 1024] (524288 positions, its `max_position_embeddings`) and the widths are 64 and 192, which sum to its hidden size of 256: position p's embedding is the first table's row p // 1024 beside the second's row p % 1024.

```python
axial = model._module.reformer.embeddings.position_embeddings
widths = [weight.shape[-1] for weight in axial.weights]
assert widths == list(model.config.axial_pos_embds_dim) and sum(widths) == model.hidden_size
```
'''
