"""Notes of Mistral 4 (the text model of Mistral Small 4) written by hand, added to the derived ones. Read against
transformers' modeling_mistral4.py (get_llama_4_attn_scale and where Mistral4Attention applies it; the query path
q_a_proj, q_a_layernorm, q_b_proj; kv_a_proj_with_mqa split before kv_a_layernorm; apply_rotary_pos_emb_interleave;
Mistral4MoE's experts plus unweighted shared_experts of moe_intermediate_size * n_shared_experts; the dense MLP only
below first_k_dense_replace) and configuration_mistral4.py, with modeling_rope_utils.py's YaRN frequencies. The
checkpoint numbers are the text_config of Mistral-Small-4-119B-2603-heretic's config.json (a derivative of
mistralai/Mistral-Small-4-119B-2603 with edited weights and the same text tower) as
nnterp/families/checkpoints/mistral4.json records it. The snippets run on the tiny Mistral 4, whose temperature moves
from its fourth position on."""

LOAD = "eager"

MORE = r'''
## Queries are heated by position: past 8192 tokens every query is multiplied by `1 + 0.1 · log(1 + ⌊p / 8192⌋)`

After the rotary, `Mistral4Attention` multiplies the joined queries at position p by Llama 4's temperature, `1 + β · log(1 + floor(p / original_max_position_embeddings))`, with β = `llama_4_scaling_beta` 0.1 and 8192 on Mistral-Small-4-119B-2603-heretic. It is exactly 1 for the first 8192 positions, 1.069 from 8192 to 16383, and rises in steps to 1.485 at the last of the 1048576 positions: later queries make sharper patterns from the same keys. `attention_queries`, read where the kernel takes them, include the factor, so a query read at position 20000 is 1.110 times what the projections and the rotary made, and comparing the queries of early and late positions compares scaled vectors. The snippet reads the unrotated part of each query head, which the factor alone changes, against `q_b_proj`'s output:

```python
import math

rope = released("darkc0de/Mistral-Small-4-119B-2603-heretic")["rope_parameters"]
assert (rope["llama_4_scaling_beta"], rope["original_max_position_embeddings"]) == (0.1, 8192)
assert released("darkc0de/Mistral-Small-4-119B-2603-heretic")["max_position_embeddings"] == 1048576
assert abs(1 + 0.1 * math.log(1 + 8192 // 8192) - 1.069) < 1e-3
assert 1 + 0.1 * math.log(1 + 8191 // 8192) == 1 < 1 + 0.1 * math.log(1 + 8192 // 8192)   # the first step is at 8192
assert abs(1 + 0.1 * math.log(1 + (1048576 - 1) // 8192) - 1.485) < 1e-3
assert abs(1 + 0.1 * math.log(1 + 20000 // 8192) - 1.110) < 1e-3

model.instrument()   # q_b_proj (a module) is read before attention_queries (inside the forward)
attention = model.layers[1].self_attn
with model.trace(prompt):
    projected = attention.q_b_proj.output.save()
    q = attention.attention_queries.save()

b, n = q.shape[0], q.shape[2]
nope = model.config.qk_nope_head_dim
before = projected.view(b, n, -1, model.config.qk_head_dim).transpose(1, 2)[..., :nope]
params = model.config.rope_parameters
beta, original = params["llama_4_scaling_beta"], params["original_max_position_embeddings"]
heat = 1 + beta * torch.log(1 + torch.floor(torch.arange(n) / original))
torch.testing.assert_close(q[..., :nope], before * heat[:, None])
assert heat[0] == 1 and heat[-1] > 1.5                                  # the tiny model's steps are every 4 positions
```

## The rotary half is the last 64 dimensions, and interleaved: `attention_queries` reorders them

Each 128-dimensional query and key head is 64 unrotated dimensions (`qk_nope_head_dim`) then 64 rotated ones (`qk_rope_head_dim`): the rotary turns the end of each head, not the start as a Llama-style partial rotary does. With `rope_interleave` true (as on Mistral-Small-4-119B-2603-heretic) the projections' rotary dimensions are stored in pairs (2i, 2i + 1); `apply_rotary_pos_emb_interleave` first gathers them into (i, i + 32), the even dimensions then the odd ones, and rotates that. So the rotary half of `attention_queries` and `attention_keys` is a permutation of what `q_b_proj` and `kv_a_proj_with_mqa` produced, even at position 0 where the rotation is the identity: comparing dimension d of a projection with dimension d of `attention_queries` pairs the wrong entries. At position 0:

```python
facts = released("darkc0de/Mistral-Small-4-119B-2603-heretic")
assert facts["rope_interleave"] is True and (facts["qk_nope_head_dim"], facts["qk_rope_head_dim"]) == (64, 64)
assert model.config.rope_interleave is True

model.instrument()
attention = model.layers[1].self_attn
with model.trace(prompt):
    projected = attention.q_b_proj.output.save()
    q = attention.attention_queries.save()

b, n = q.shape[0], q.shape[2]
nope = model.config.qk_nope_head_dim
rot = projected.view(b, n, -1, model.config.qk_head_dim).transpose(1, 2)[..., nope:]
half = rot.shape[-1]
evens_then_odds = torch.cat([torch.arange(0, half, 2), torch.arange(1, half, 2)])
assert torch.equal(q[:, :, 0, nope:], rot[:, :, 0][..., evens_then_odds])   # position 0: only the reordering
assert not torch.equal(q[:, :, 0, nope:], rot[:, :, 0])
```

## The stream's size reaches the scores only through the one shared rotary key

The queries pass through `q_a_layernorm` (an RMSNorm over the 1024-wide `q_lora_rank` latent on Mistral-Small-4-119B-2603-heretic) before `q_b_proj`, and the keys' unrotated halves and the values come from `kv_a_layernorm` over the 256-wide `kv_lora_rank` latent. Only the 64-dimensional rotary key, split off `kv_a_proj_with_mqa`'s output before that norm and shared by all 32 heads, is the projection of the stream itself. Scaling what enters the attention by 1000 therefore leaves the queries, the unrotated keys and the values as they were (up to the norms' eps and rounding), and multiplies the rotary keys, and with them the positional part of every score, by 1000: how large the stream is decides how much position counts against content in every head at once. (The snippet loads the tiny model with eps 1e-12.)

```python
from nnterp import tiny

facts = released("darkc0de/Mistral-Small-4-119B-2603-heretic")
assert (facts["q_lora_rank"], facts["kv_lora_rank"], facts["num_attention_heads"]) == (1024, 256, 32)
small = tiny.load("mistral4", attn_implementation="eager", rms_norm_eps=1e-12)
attention = small.layers[1].self_attn
nope = small.config.qk_nope_head_dim
with small.trace(prompt):
    q = attention.attention_queries.save()
    k = attention.attention_keys.save()
    v = attention.attention_values.save()
with small.trace(prompt):
    small.layers[1].attention_norm_output[:] = small.layers[1].attention_norm_output * 1000
    q_big = attention.attention_queries.save()
    k_big = attention.attention_keys.save()
    v_big = attention.attention_values.save()

for before, after in ((q, q_big), (k[..., :nope], k_big[..., :nope]), (v, v_big)):
    torch.testing.assert_close(after, before, rtol=1e-3, atol=1e-3 * before.abs().max().item())
torch.testing.assert_close(k_big[..., nope:], 1000 * k[..., nope:], rtol=1e-3, atol=1e-3)
assert torch.equal(k[:, 0, :, nope:], k[:, 1, :, nope:])                # one rotary key for every head
```

## The router picks 4 of 128 by plain softmax: the group step is inert, and the shared expert weighs as much as the four

Mistral-Small-4-119B-2603-heretic sets `n_group` 1 and `topk_group` 1: the one group holds all 128 experts and is always kept, so DeepSeek-V3's group-limited choice does nothing and the router is a softmax over 128 experts and its top 4 (`num_experts_per_tok`). With `norm_topk_prob` true and `routed_scaling_factor` 1.0, the four weights are renormalized to sum to exactly 1, and the shared expert (one MLP of `moe_intermediate_size` 2048 neurons) is added unweighted: every token's MLP output is one part routed, averaged over four experts, and one part shared, at equal weight. `mlp_output` is `experts` plus `shared_experts`, nothing else. On the tiny model with one group:

```python
from nnterp import tiny

facts = released("darkc0de/Mistral-Small-4-119B-2603-heretic")
assert (facts["n_group"], facts["topk_group"], facts["n_routed_experts"], facts["num_experts_per_tok"]) == (1, 1, 128, 4)
assert facts["norm_topk_prob"] is True and facts["routed_scaling_factor"] == 1.0
assert (facts["n_shared_experts"], facts["moe_intermediate_size"]) == (1, 2048)
one_group = tiny.load("mistral4", attn_implementation="eager", n_group=1, topk_group=1)
mlp = one_group.layers[1].mlp
with one_group.trace(prompt):
    logits = mlp.router_logits.save()
    weights = mlp.router_weights.save()
    choices = mlp.router_choices.save()
    routed = mlp.experts.output.save()
    shared = mlp.shared_experts.output.save()
    out = mlp.mlp_output.save()

k = one_group.config.num_experts_per_tok
top = logits.float().softmax(-1).topk(k, dim=-1).indices
assert torch.equal(top.sort(-1).values, choices.sort(-1).values)          # plain top-k of the softmax
torch.testing.assert_close(weights.sum(-1), torch.ones_like(weights.sum(-1)))
assert torch.equal(routed.view_as(out) + shared, out)
```

## YaRN is fixed, not dynamic: 7 of the 32 rotary frequencies are divided by 128 at every position

The rotary is YaRN with `factor` 128 over `original_max_position_embeddings` 8192 (base 10000, on the 64 rotated dimensions of each head), and YaRN's frequencies are computed once: the same stretched rotary runs on a 10-token prompt as on a million-token one. Of the 32 frequencies, the 13 fastest are kept, the 7 slowest are divided by 128, and 12 in between are blended. Its `mscale` and `mscale_all_dim` are equal (1.0), so the rotary's own cos/sin factor is 1, and YaRN's temperature goes into the softmax scale instead (the note above on the scale). On the tiny model, the rotary's frequencies are the YaRN function of its config and do not move with the call's length:

```python
from transformers import Mistral4Config
from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

facts = released("darkc0de/Mistral-Small-4-119B-2603-heretic")
rope = facts["rope_parameters"]
assert (rope["rope_type"], rope["factor"], rope["original_max_position_embeddings"], rope["rope_theta"]) == ("yarn", 128.0, 8192, 10000.0)
assert rope["mscale"] == rope["mscale_all_dim"] == 1.0
config = Mistral4Config(**facts)
inv_freq, cos_sin_factor = ROPE_INIT_FUNCTIONS["yarn"](config)
d = 64
ratio = inv_freq / (1.0 / 10000.0 ** (torch.arange(0, d, 2).float() / d))
assert len(inv_freq) == 32 and cos_sin_factor == 1.0
assert int((ratio > 1 - 1e-6).sum()) == 13 and int((ratio < 1 / 128 + 1e-6).sum()) == 7

rotary = model._module.model.rotary_emb
expected, _ = ROPE_INIT_FUNCTIONS["yarn"](model.config)
for text in ("Hi", prompt + prompt):
    with model.trace(text):
        model.logits.save()
    torch.testing.assert_close(rotary.inv_freq, expected)
```

## `intermediate_size` is read by nothing: every block is a mixture of experts

Mistral-Small-4-119B-2603-heretic sets `first_k_dense_replace` 0, so all 36 blocks hold `Mistral4MoE` and none the dense `Mistral4MLP` that `intermediate_size` (12288) sizes; the shared expert is sized by `moe_intermediate_size` times `n_shared_experts`, 2048. The 12288 in the file describes no matrix of the model, unlike DeepSeek-V3, whose first three blocks are dense. A tiny model with no dense block loads identically whatever `intermediate_size` says:

```python
from nnterp import tiny

facts = released("darkc0de/Mistral-Small-4-119B-2603-heretic")
assert facts["first_k_dense_replace"] == 0 and facts["intermediate_size"] == 12288 and facts["num_hidden_layers"] == 36
sparse = tiny.load("mistral4", attn_implementation="eager", first_k_dense_replace=0)
odd = tiny.load("mistral4", attn_implementation="eager", first_k_dense_replace=0, intermediate_size=999)
assert not any(999 in (getattr(m, "in_features", 0), getattr(m, "out_features", 0)) for m in odd._module.modules())
assert all(type(odd.layers[i].mlp._module).__name__ == "Mistral4MoE" for i in range(odd.num_layers))
with sparse.trace(prompt):
    logits = sparse.logits.save()
with odd.trace(prompt):
    logits_odd = odd.logits.save()
assert torch.equal(logits_odd, logits)
```
'''
