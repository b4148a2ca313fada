"""Notes of Granite MoE written by hand, added to the derived ones. Read against transformers' modeling_granitemoe.py
(GraniteMoeModel.forward: inputs_embeds times embedding_multiplier; GraniteMoeDecoderLayer: each sublayer's output
times residual_multiplier; GraniteMoeTopKRouter: top-k of the raw logits, a softmax over the chosen; GraniteMoeExperts'
fused gate_up_proj and down_proj; GraniteMoeRMSNorm; GraniteMoeForCausalLM: lm_head's output divided by
logits_scaling) and configuration_granitemoe.py. The checkpoint numbers are granite-3.0-1b-a400m-base's and
granite-3.0-3b-a800m-base's config.json's as nnterp/families/checkpoints/granitemoe.json records them; the tiny model
carries the checkpoints' four multipliers (12, 0.22, 1/64, 6) but is untied, 4 experts, 2 per token."""

LOAD = "eager"

MORE = r'''
## The embeddings enter the stream times 12, and the tied head reads them unscaled

`GraniteMoeModel` multiplies `embed_tokens`' output by `embedding_multiplier` before block 0: 12.0 on granite-3.0-1b-a400m-base and granite-3.0-3b-a800m-base. `token_embeddings` is `embed_tokens`' own output, before the product; `layers[0].input` (`layer_input` of block 0) is the product, 12 times larger: the stream starts at the multiplied embedding, and a lens or a norm taken at `token_embeddings` is 12 times off the stream's scale. Both checkpoints tie the head, so `lm_head.weight` is the unscaled embedding matrix: a token's direction as the stream first holds it is 12 times its unembedding row. A steering vector taken from `embed_tokens.weight` is 1/12 of a token's own size in the stream.

```python
from transformers import AutoModelForCausalLM, GraniteMoeConfig

for repo in ("ibm-granite/granite-3.0-1b-a400m-base", "ibm-granite/granite-3.0-3b-a800m-base"):
    assert released(repo)["embedding_multiplier"] == 12.0 and released(repo)["tie_word_embeddings"] is True
with model.trace(prompt):
    native = model.embed_tokens.output.save()
    embedded = model.token_embeddings.save()
    x = model.layers[0].layer_input.save()

assert model.config.embedding_multiplier == 12.0
assert torch.equal(embedded, native) and torch.equal(x, native * 12.0)
facts = released("ibm-granite/granite-3.0-1b-a400m-base")
with torch.device("meta"):                                   # the tiny model is untied; the checkpoints are not
    real = AutoModelForCausalLM.from_config(GraniteMoeConfig(**{**facts, "num_hidden_layers": 1}))
assert real.lm_head.weight is real.model.embed_tokens.weight
```

## Each block adds 0.22 times what its attention and its experts return

`GraniteMoeDecoderLayer` computes `h = x + 0.22 · self_attn(input_layernorm(x))` and `out = h + 0.22 · block_sparse_moe(post_attention_layernorm(h))`, with `residual_multiplier` 0.22 on both checkpoints. `attention_output` and `mlp_output` are the products, what the stream receives, so `x + attention_output == layer_mid` holds; the native outputs (`o_proj`'s, `block_sparse_moe`'s) are 1 / 0.22 ≈ 4.5 times larger. A head's or an expert's attribution computed from `o_proj` or the experts' weights is in the stream's units only once multiplied by 0.22, and an edit of `attention_output` or `mlp_output` is carried back divided by 0.22, so the stream receives the value written:

```python
for repo in ("ibm-granite/granite-3.0-1b-a400m-base", "ibm-granite/granite-3.0-3b-a800m-base"):
    assert released(repo)["residual_multiplier"] == 0.22
model.instrument()   # o_proj's output and the MoE module's output beside the standard values
with model.trace(prompt):
    x = model.layers[0].layer_input.save()
    o = model.layers[0].self_attn.o_proj.output.save()
    attn = model.layers[0].self_attn.attention_output.save()
    mid = model.layers[0].layer_mid.save()
    moe = model.layers[0].mlp.output.save()
    mlp = model.layers[0].mlp.mlp_output.save()
    out = model.layers[0].layer_output.save()

assert torch.equal(attn, o * 0.22) and torch.equal(mlp, moe * 0.22)
assert torch.equal(x + attn, mid) and torch.equal(mid + mlp, out)

with model.trace(prompt):
    model.layers[0].mlp.mlp_output[:] = 0
    zeroed_out = model.layers[0].layer_output.save()
torch.testing.assert_close(zeroed_out, mid)            # the write reaches the stream as written
```

## Only the ratio 0.22 / 12 shapes the forward: the stream's scale is arbitrary

Every norm of the model is an RMSNorm (`input_layernorm`, `post_attention_layernorm`, the final `norm`), and an RMSNorm gives the same output for x and c·x, up to its eps (1e-6 on both checkpoints) against the stream's mean square. So multiplying `embedding_multiplier` and `residual_multiplier` by the same c multiplies the whole residual stream by c and leaves every sublayer's input, every routing decision and the logits unchanged; only their ratio, 0.22 / 12 ≈ 0.018 on both checkpoints, sets how much one sublayer moves the stream against the embedding. The absolute size of a Granite MoE stream (its norms in a lens plot, a steering coefficient taken from another family) therefore carries no meaning of its own; sizes compare only within the model, in units of the embedding's. Changing the ratio changes the model:

```python
from nnterp import tiny

for repo in ("ibm-granite/granite-3.0-1b-a400m-base", "ibm-granite/granite-3.0-3b-a800m-base"):
    facts = released(repo)
    assert (facts["embedding_multiplier"], facts["residual_multiplier"], facts["rms_norm_eps"]) == (12.0, 0.22, 1e-6)
scaled = tiny.load("granitemoe", attn_implementation="eager", embedding_multiplier=120.0, residual_multiplier=2.2)
ratio = tiny.load("granitemoe", attn_implementation="eager", embedding_multiplier=12.0, residual_multiplier=0.44)

def run(net):
    with net.trace(prompt):
        stream = net.layers[-1].layer_output.save()
        choices = net.layers[-1].mlp.router_choices.save()
        logits = net.logits.save()
    return stream, choices, logits

stream, choices, logits = run(model)
stream_10, choices_10, logits_10 = run(scaled)
torch.testing.assert_close(stream_10, 10 * stream)           # the whole stream is 10 times larger
assert torch.equal(choices_10, choices)
torch.testing.assert_close(logits_10, logits)                # and the model computes the same logits
assert (run(ratio)[2] - logits).abs().max() > 1e-2 * logits.abs().max()   # another ratio: another model
```

## The router weights the chosen eight by a softmax over their own logits: the other experts' scores do not count

`GraniteMoeTopKRouter` computes the raw logits (`router.weight`, no bias), keeps the `num_experts_per_tok` largest, 8 of 32 on granite-3.0-1b-a400m-base and 8 of 40 on granite-3.0-3b-a800m-base, and takes the softmax of those 8 alone; the weights sum to one. The experts not chosen do not enter the weights at all: raising an unchosen expert's logit, as long as it stays below the eighth, leaves `router_weights` bit-identical, where under a softmax over every expert (OLMoE's, without renormalization) it would shrink them. Two ablations follow: masking a chosen expert's logit brings the next-ranked one in and gives the survivors their own softmax; zeroing its weight in the MoE's output removes its term and leaves the others' weights as they were, summing to less than one.

```python
import math

facts_1b, facts_3b = released("ibm-granite/granite-3.0-1b-a400m-base"), released("ibm-granite/granite-3.0-3b-a800m-base")
assert (facts_1b["num_local_experts"], facts_3b["num_local_experts"], facts_1b["num_experts_per_tok"], facts_3b["num_experts_per_tok"]) == (32, 40, 8, 8)
assert math.comb(40, 8) == 76904685 and math.comb(32, 8) == 10518300
with model.trace(prompt):
    logits = model.layers[0].mlp.router_logits.save()
    weights = model.layers[0].mlp.router_weights.save()
    choices = model.layers[0].mlp.router_choices.save()

chosen = logits.gather(-1, choices)
torch.testing.assert_close(weights, chosen.softmax(-1))
kth = chosen.min(-1, keepdim=True).values
losers = torch.ones_like(logits, dtype=torch.bool).scatter(-1, choices, False)
raised = torch.where(losers, kth - 1e-3, logits)               # every unchosen expert just below the k-th
with model.trace(prompt):
    model.layers[0].mlp.router_logits[:] = raised
    weights_raised = model.layers[0].mlp.router_weights.save()
    choices_raised = model.layers[0].mlp.router_choices.save()

assert torch.equal(choices_raised, choices) and torch.equal(weights_raised, weights)
everyone = raised.softmax(-1).gather(-1, choices)               # a softmax over every expert would shrink them
assert (everyone - weights).abs().max() > 1e-2
```

## An expert is a slice of two 3-D tensors, and its write reaches the stream times 0.22 and its weight

`block_sparse_moe.experts.gate_up_proj` is [experts, 2 · 512, hidden] on both checkpoints (each expert 512 neurons wide: a third of granite-3.0-3b-a800m-base's 1536-wide stream, half of granite-3.0-1b-a400m-base's 1024) and `down_proj` [experts, hidden, 512]. Expert e's first 512 rows of `gate_up_proj[e]` are its gate, the next 512 its up projection (the forward `chunk`s the product in two), and `down_proj[e]` is a Linear weight: neuron n of expert e writes the column `down_proj[e][:, n]`. A token runs 8 × 512 = 4096 of the layer's 40 × 512 = 20480 expert neurons on the 3b checkpoint. What the stream receives from expert e at a position is `0.22 · w_e · down_proj[e] @ (silu(gate) · up)`: no [batch, seq, neurons] tensor exists, so `mlp_neurons` is not served, and the write is rebuilt from the slices:

```python
for repo in ("ibm-granite/granite-3.0-1b-a400m-base", "ibm-granite/granite-3.0-3b-a800m-base"):
    assert released(repo)["intermediate_size"] == 512
assert released("ibm-granite/granite-3.0-3b-a800m-base")["hidden_size"] == 1536 == 3 * 512
assert released("ibm-granite/granite-3.0-1b-a400m-base")["hidden_size"] == 1024 == 2 * 512
experts = model._module.model.layers[0].block_sparse_moe.experts
size = model.config.intermediate_size
assert experts.gate_up_proj.shape == (model.num_experts, 2 * size, model.hidden_size)
assert experts.down_proj.shape == (model.num_experts, model.hidden_size, size)
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
torch.testing.assert_close(0.22 * total, out.view(-1, model.hidden_size))
```

## The router sees only the direction of the stream: a steering vector moves experts only by turning it

The router reads `post_attention_layernorm`'s output, an RMSNorm of `layer_mid` times the norm's weight, through a matrix without bias: its logits depend on the stream's direction, not its size, up to the eps (1e-6 on both checkpoints) against the stream's mean square. A vector added to `layer_mid` with a large coefficient changes which experts run only through the direction it gives the stream, and scaling the stream at a block (multiplying it by 10, say) leaves that block's routing exactly where it was, though the MoE's write, computed from the same normed input, is then 10 times smaller relative to the stream:

```python
assert released("ibm-granite/granite-3.0-3b-a800m-base")["rms_norm_eps"] == 1e-6
assert model._module.model.layers[0].block_sparse_moe.router.weight.shape == (model.num_experts, model.hidden_size)
with model.trace(prompt):
    logits = model.layers[0].mlp.router_logits.save()
    mlp = model.layers[0].mlp.mlp_output.save()
with model.trace(prompt):
    model.layers[0].layer_mid[:] = model.layers[0].layer_mid * 10
    logits_loud = model.layers[0].mlp.router_logits.save()
    mlp_loud = model.layers[0].mlp.mlp_output.save()

torch.testing.assert_close(logits_loud, logits, rtol=1e-4, atol=1e-5)
torch.testing.assert_close(mlp_loud, mlp, rtol=1e-4, atol=1e-5)
```
'''
