"""Notes of Falcon written by hand, added to the derived ones. Read against transformers' modeling_falcon.py
(FalconModel.forward folds alibi / sqrt(head_dim) into the causal mask; FalconAttention's eager branch adds alibi
to q @ k^T again before scaling); the snippets run on the family's tiny model with Falcon-RW's switches."""

MORE = r'''
## Falcon-RW under eager adds ALiBi twice, so eager and sdpa compute two models

With `alibi=True` (Falcon-RW-1B), `FalconModel` builds the ALiBi tensor and folds `alibi / sqrt(head_dim)` into the causal mask it hands every block. The attention's sdpa branch passes that mask to `scaled_dot_product_attention`, which scales `q @ kᵀ` by `1 / sqrt(head_dim)` itself: ALiBi is added once. The eager branch computes `(q @ kᵀ + alibi) · inv_norm_factor` and then adds the same mask: `attention_scores` hold `(q @ kᵀ + alibi) / sqrt(head_dim) + alibi / sqrt(head_dim)`, ALiBi twice. The eager load that `attention_scores` and `attention_probabilities` need therefore runs another model than the default sdpa load: on the tiny model with Falcon-RW's switches the logits differ by about 0.04. Compare readings across the two loads only with this in mind; the values nnterp serves without an eager load (queries, keys, values, head outputs) are the sdpa model's.

```python
from transformers.models.falcon.modeling_falcon import build_alibi_tensor
from nnterp import tiny

rw = dict(alibi=True, parallel_attn=False, multi_query=False, num_kv_heads=4)   # Falcon-RW's layout
eager = tiny.load("falcon", attn_implementation="eager", **rw)
sdpa = tiny.load("falcon", attn_implementation="sdpa", **rw)
attention = eager.layers[0].self_attn
with eager.trace(prompt):
    q = attention.attention_queries.save()
    k = attention.attention_keys.save()
    scores = attention.attention_scores.save()
    logits_eager = eager.logits.save()
with sdpa.trace(prompt):
    logits_sdpa = sdpa.logits.save()

n, d = scores.shape[-1], eager.head_dim
alibi = build_alibi_tensor(torch.ones(1, n), eager.num_heads, torch.float32).view(1, eager.num_heads, 1, n)
causal = torch.ones(n, n, dtype=torch.bool).tril()
twice = (q @ k.transpose(-1, -2) + alibi) / d ** 0.5 + alibi / d ** 0.5
torch.testing.assert_close(twice[..., causal], scores[..., causal])
assert (logits_eager - logits_sdpa).abs().max() > 1e-2      # two models
```
'''
