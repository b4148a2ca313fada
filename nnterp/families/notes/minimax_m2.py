"""Notes of MiniMax-M2 written by hand, added to the derived ones. Read against transformers' modeling_minimax_m2.py
(MiniMaxM2TopKRouter: sigmoid of the logits in float32, top-k of sigmoid + e_score_correction_bias, the chosen
sigmoids renormalized; MiniMaxM2SparseMoeBlock's e_score_correction_bias buffer; MiniMaxM2Attention's q_norm and
k_norm over the whole projection width before the heads are split; apply_rotary_pos_emb on the first rotary dims
only) and configuration_minimax_m2.py (convert_rope_params_to_dict reading the legacy rotary_dim). No copy of a
MiniMax-M2 config.json with its source was found, so these notes state no checkpoint's number: what they say of the
defaults is MiniMaxM2Config's. The snippets run on the tiny MiniMax-M2 (4 experts, 2 per token, heads of 16),
loaded again with the options a note is about."""

LOAD = "eager"

MORE = r'''
## The routing bias decides which experts run, never how much they weigh

`MiniMaxM2TopKRouter` takes the sigmoid of every expert's logit (in float32), adds `e_score_correction_bias` (a buffer of the MoE block, one entry per expert, loaded with the weights) and keeps the `num_experts_per_tok` largest sums (8 of 256 by `MiniMaxM2Config`'s defaults). The weights are then the chosen experts' sigmoids without the bias, divided by their sum. So the bias, trained to balance the experts' load, can put an expert with a low score into the top k, but its weight is its own unbiased score: `router_weights` are not a function of `router_choices`' ranking, the weight order can disagree with the choice order, and the top-k of `router_logits` is not `router_choices`. The bias is a buffer, not a parameter: code that copies, counts or edits only parameters misses it, and a block whose buffer is left at zeros routes differently while computing the same weights for whatever it picks. The tiny model's bias is zero; the snippet gives one expert a large bias:

```python
from nnterp import tiny

mlp = model._module.model.layers[0].mlp
assert isinstance(mlp.e_score_correction_bias, torch.Tensor) and "e_score_correction_bias" not in dict(mlp.named_parameters())
with model.trace(prompt):
    logits = model.layers[0].mlp.router_logits.save()
    weights = model.layers[0].mlp.router_weights.save()
    choices = model.layers[0].mlp.router_choices.save()

scores = logits.float().sigmoid()
chosen = scores.gather(-1, choices)
torch.testing.assert_close(weights, chosen / chosen.sum(-1, keepdim=True))

weakest = int(scores.mean((0, 1)).argmin())                          # the expert the router likes least
biased = tiny.load("minimax_m2", attn_implementation="eager")
biased._module.model.layers[0].mlp.e_score_correction_bias[weakest] = 10.0
with biased.trace(prompt):
    weights_b = biased.layers[0].mlp.router_weights.save()
    choices_b = biased.layers[0].mlp.router_choices.save()

assert (choices_b == weakest).any(-1).all()                           # chosen everywhere by the bias
chosen_b = scores.gather(-1, choices_b)
torch.testing.assert_close(weights_b, chosen_b / chosen_b.sum(-1, keepdim=True))   # weighted without it
```

## The weights are sigmoids renormalized, not a softmax: one expert's score does not shrink another's

Each expert's score is its own sigmoid, independent of the other experts' logits; only the final division by the chosen scores' sum couples them. Raising an unchosen expert's logit (short of entering the top k) therefore changes nothing, and the weights of two chosen experts keep the ratio of their sigmoids whatever the rest do, where a softmax router's weights carry the ratio of their exponentials. A logit-lens style reading of `router_logits` as log-probabilities (softmaxing them) gives another ranking of confidence than the router's: the sigmoid saturates, so two experts with logits 4 and 8 weigh almost the same (0.982 against 0.9997), where a softmax would give the second 55 times the first.

```python
import math

with model.trace(prompt):
    logits = model.layers[0].mlp.router_logits.save()
    weights = model.layers[0].mlp.router_weights.save()
    choices = model.layers[0].mlp.router_choices.save()

sig = logits.float().sigmoid().gather(-1, choices)
torch.testing.assert_close(weights[..., 0] / weights[..., 1], sig[..., 0] / sig[..., 1])
soft = logits.float().softmax(-1).gather(-1, choices)
assert (weights[..., 0] / weights[..., 1] - soft[..., 0] / soft[..., 1]).abs().max() > 1e-3
assert abs(1 / (1 + math.exp(-4)) - 0.982) < 1e-3 and abs(1 / (1 + math.exp(-8)) - 0.9997) < 1e-4
assert round(math.exp(8 - 4)) == 55
```

## `q_norm` and `k_norm` normalize all heads together, before they are split

`MiniMaxM2Attention` applies `q_norm` to `q_proj`'s whole output, `num_attention_heads · head_dim` wide (48 · 128 = 6144 by `MiniMaxM2Config`'s defaults), and `k_norm` to `k_proj`'s (8 · 128 = 1024), one RMS over every head at once with a weight per element, and only then splits the heads. A head's normalized query therefore depends on every other head's projection: scaling one head's slice of `q_proj.output` changes the others' queries, which a per-head norm (Qwen3's) would not; OLMo 2 and OLMoE normalize the whole width too. Ablating or steering one head's query before the norm is not local to that head; do it after, on `attention_queries`.

```python
attention = model._module.model.layers[0].self_attn
width = model.config.num_attention_heads * model.config.head_dim
assert attention.q_norm.weight.shape == (width,)
assert attention.k_norm.weight.shape == (model.config.num_key_value_heads * model.config.head_dim,)
model.instrument()   # q_proj's output and the kernel's queries in one trace
with model.trace(prompt):
    queries = model.layers[0].self_attn.attention_queries.save()
with model.trace(prompt):
    model.layers[0].self_attn.q_proj.output[..., : model.config.head_dim] *= 5   # head 0 only
    queries_5 = model.layers[0].self_attn.attention_queries.save()

assert (queries_5[:, 1:] - queries[:, 1:]).abs().max() > 1e-3       # the other heads moved too
```

## The rotary turns the first `rotary_dim` dimensions of each head; the config reads it from a legacy key

`apply_rotary_pos_emb` rotates the first `rotary_dim` dimensions of every query and key head (pairing dimension i with i + rotary_dim / 2) and passes the rest through: they carry no position. `MiniMaxM2Config` reads the width from the legacy `rotary_dim` key, the one MiniMax's files use, and turns it into `partial_rotary_factor = rotary_dim / head_dim` (64 of 128 gives 0.5); a config without it rotates every dimension, so a hand-written config that drops the key, or writes the factor under another name, builds a model that rotates twice as many dimensions as it was trained with and loads without a warning. The snippet rotates 8 of the tiny model's 16:

```python
from transformers import MiniMaxM2Config
from nnterp import tiny

assert MiniMaxM2Config(rotary_dim=64).rope_parameters["partial_rotary_factor"] == 0.5
assert "partial_rotary_factor" not in MiniMaxM2Config().rope_parameters
half = tiny.load("minimax_m2", attn_implementation="eager", rotary_dim=8)
half.instrument()
with half.trace(prompt):
    raw = half.layers[0].self_attn.q_norm.output.save()
    queries = half.layers[0].self_attn.attention_queries.save()

heads = raw.view(*raw.shape[:2], -1, 16).transpose(1, 2)
assert torch.equal(heads[..., 8:], queries[..., 8:])                  # past rotary_dim: untouched
assert not torch.equal(heads[:, :, 1:, :8], queries[:, :, 1:, :8])   # the first 8 turn
```

## Config keys that transformers keeps and does not act on

Configs written for MiniMax's own modeling code can carry keys that `MiniMaxM2Config` keeps as plain attributes and `MiniMaxM2ForCausalLM` never reads: `use_qk_norm` (the norms are always built), `qk_norm_type`, `scoring_func` (the router is always a sigmoid), `use_routing_bias` (the bias buffer is always there), `shared_intermediate_size` (there is never a shared expert), and the multi-token-prediction keys `use_mtp`, `num_mtp_modules`, `mtp_transformer_layers`: no MTP module is built, so a checkpoint's MTP weights are left unloaded and the model predicts one token. Setting any of them to the opposite value builds the same model:

```python
from transformers import AutoModelForCausalLM, MiniMaxM2Config

small = dict(num_hidden_layers=1, num_local_experts=4, hidden_size=64, intermediate_size=32, num_attention_heads=4,
             num_key_value_heads=2, head_dim=16, vocab_size=300, bos_token_id=1, eos_token_id=2)
opposite = MiniMaxM2Config(**small, use_qk_norm=False, scoring_func="softmax", use_routing_bias=False,
                           shared_intermediate_size=64, use_mtp=True, num_mtp_modules=3, mtp_transformer_layers=1)
assert opposite.use_qk_norm is False and opposite.use_mtp is True                  # kept as attributes
with torch.device("meta"):
    built = AutoModelForCausalLM.from_config(opposite)
    plain = AutoModelForCausalLM.from_config(MiniMaxM2Config(**small))
shapes = lambda net: {name: tuple(p.shape) for name, p in net.state_dict().items()}
assert shapes(built) == shapes(plain)
assert not any("mtp" in name or "shared" in name for name in shapes(built))
assert "model.layers.0.self_attn.q_norm.weight" in shapes(built)
```

## An expert is a slice of two 3-D tensors, weighted by its renormalized sigmoid

`mlp.experts.gate_up_proj` is [num_experts, 2 · intermediate_size, hidden_size] and `down_proj` [num_experts, hidden_size, intermediate_size]: the first `intermediate_size` rows of `gate_up_proj[e]` are expert e's gate, the next its up projection, and column n of `down_proj[e]` is what its neuron n writes. With 8 of 256 experts of `intermediate_size` 1536 (`MiniMaxM2Config`'s defaults), a token runs 12288 of a layer's 393216 expert neurons. No [batch, seq, neurons] tensor exists, so `mlp_neurons` is not served; the write is rebuilt from the slices:

```python
assert 8 * 1536 == 12288 and 256 * 1536 == 393216
experts = model._module.model.layers[0].mlp.experts
size = model.config.intermediate_size
with model.trace(prompt):
    x = model.layers[0].mlp.input.save()
    weights = model.layers[0].mlp.router_weights.save()
    choices = model.layers[0].mlp.router_choices.save()
    out = model.layers[0].mlp.mlp_output.save()

rows, k = x.view(-1, model.hidden_size), choices.shape[-1]
total = torch.zeros_like(rows)
for p in range(rows.shape[0]):
    for slot in range(k):
        e = int(choices.view(-1, k)[p, slot])
        gate, up = experts.gate_up_proj[e][:size] @ rows[p], experts.gate_up_proj[e][size:] @ rows[p]
        total[p] += weights.view(-1, k)[p, slot] * (experts.down_proj[e] @ (torch.nn.functional.silu(gate) * up))
torch.testing.assert_close(total, out.view(-1, model.hidden_size))
```
'''
