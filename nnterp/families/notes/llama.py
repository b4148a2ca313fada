"""Notes of the Llama family. The ``python`` snippets run on the tiny Llama under an eager load; the
``python checkpoint`` ones run on SmolLM2-135M-Instruct, the checkpoint shipped offline, and the
numbers in the text around them are what they measured when the page was built."""

LOAD = "eager"
CHECKPOINT = "HuggingFaceTB/SmolLM2-135M-Instruct"


def load_checkpoint():
    """SmolLM2-135M-Instruct under an eager load, or an error saying how to get it."""
    from nnterp import real

    return real.load(attn_implementation="eager").instrument()


NOTES = r'''
## The common conventions

```formula
h   = x + self_attn(input_layernorm(x))
out = h + mlp(post_attention_layernorm(h))
```

Every other family is declared against this one: its module names are the standard names, and nothing is renamed. The block is sequential and pre-norm: `layer_mid` is `post_attention_layernorm`'s input, the stream after the attention add, and the MLP reads its own block's attention. The block returns a bare tensor, so `model.layers[i].output` is `layer_output`, and both adds are exact:

```python
with model.trace(prompt):
    x = model.layers[1].layer_input.save()
    attn = model.layers[1].self_attn.attention_output.save()
    mid = model.layers[1].layer_mid.save()
    mlp = model.layers[1].mlp.mlp_output.save()
    out = model.layers[1].layer_output.save()

assert torch.equal(x + attn, mid)
assert torch.equal(mid + mlp, out)
```

## Keys and values are grouped

`attention_keys` and `attention_values` have `num_kv_heads` heads, fewer than `num_heads`: they are read as the kernel receives them, before it repeats each key and value head for its group of query heads (`repeat_kv`). Query head h reads key and value head h // (num_heads / num_kv_heads). SmolLM2-135M-Instruct has 9 query heads of 64 over 3 key and value heads.

```python
with model.trace(prompt):
    v = model.layers[0].self_attn.attention_values.save()
    p = model.layers[0].self_attn.attention_probabilities.save()
    heads = model.layers[0].self_attn.attention_head_outputs.save()

group = model.num_heads // model.num_kv_heads
assert v.shape[1] == model.num_kv_heads
v_per_head = v.repeat_interleave(group, dim=1)
torch.testing.assert_close((p @ v_per_head).transpose(1, 2), heads)
```

## The interior needs an eager load

The attention calls the kernel chosen at run time through `attention_interface`. Under the default sdpa load the scores and the pattern are never materialised: `attention_scores` and `attention_probabilities` carry ⚠︎ in the table above, and reading them raises a sentence that names `attn_implementation="eager"`. The queries, keys, values and head outputs are the kernel's arguments and output, served under eager or sdpa. Rotary turns every dimension of each head; the scale is `head_dim ** -0.5`, and the scores entering the softmax are masked.

```python
with model.trace(prompt):
    q = model.layers[0].self_attn.attention_queries.save()
    k = model.layers[0].self_attn.attention_keys.save()
    scores = model.layers[0].self_attn.attention_scores.save()
    probs = model.layers[0].self_attn.attention_probabilities.save()

k_per_head = k.repeat_interleave(model.num_heads // model.num_kv_heads, dim=1)
n = scores.shape[-1]
causal = torch.ones(n, n, dtype=torch.bool).tril()
again = q @ k_per_head.transpose(-1, -2) * model.head_dim ** -0.5
torch.testing.assert_close(again[..., causal], scores[..., causal])
torch.testing.assert_close(scores.softmax(-1), probs)
```

## The MLP is gated

`mlp_activation` is `act_fn`'s output, the activation of `gate_proj` alone (silu); `mlp_neurons` is what `down_proj` receives, that activation times `up_proj`'s output. `mlp_input` is read on the block, as the MLP's input.

```python
mlp = model.layers[0].mlp
with model.trace(prompt):
    x = model.layers[0].mlp_input.save()
    act = mlp.mlp_activation.save()
    neurons = mlp.mlp_neurons.save()

torch.testing.assert_close(act * mlp.up_proj(x), neurons)
```

## The first position is a sink (measured on SmolLM2-135M-Instruct)

Measured when this page was built, on SmolLM2-135M-Instruct (the checkpoint nnterp ships offline, dequantized to float32, eager) and the prompt "The Eiffel Tower is in the city of". The tokenizer adds no BOS: position 0 is the prompt's first token, `{{first_token}}`.

```python checkpoint
norms, on_key_0 = [], []
with model.trace(prompt):
    for layer in model.layers:
        # the pattern's share on key 0, averaged over heads and the queries after position 0
        on_key_0.append(layer.self_attn.attention_probabilities[0, :, 1:, 0].mean().save())
        norms.append(layer.layer_output[0].norm(dim=-1).save())

first_token = model.tokenizer.convert_ids_to_tokens(model.tokenizer(prompt).input_ids)[0]
ratio = [float(n[0] / n[1:].median()) for n in norms]
sink = [i for i, r in enumerate(ratio) if r > 10]              # blocks where position 0 stands out
norm_0 = [float(norms[i][0]) for i in sink]
median_rest = [float(norms[i][1:].median()) for i in sink]
share = [float(on_key_0[i]) for i in sink]
```

From block {{first}}'s output to block {{last}}'s, the stream at position 0 has a norm of {{norm_0_low:,.0f}} to {{norm_0_high:,.0f}}, against medians of {{rest_low:,.0f}} to {{rest_high:,.0f}} at the other positions. Over those blocks, {{share_low:.0%}} to {{share_high:.0%}} of the pattern (averaged over heads and the later queries) is on key 0. Leave position 0 out of norms you scale a steering vector by and of activation statistics.

## The readout (measured on SmolLM2-135M-Instruct)

`logits` is `lm_head.output` with nothing applied, `project_on_vocab` applied to the last block's `layer_output` equals `logits` exactly, and `lm_head`'s weight is `embed_tokens.weight`, the same tensor (tied). On SmolLM2-135M-Instruct, when this page was built, the prompt's next token was `{{top_token}}`, with p(' Paris') = {{p_paris:.3f}}.

```python checkpoint
with model.trace(prompt):
    last = model.layers[-1].layer_output.save()
    logits = model.logits.save()
    probs = model.next_token_probs.save()

assert torch.equal(model.project_on_vocab(last), logits)
assert model.lm_head.weight is model.embed_tokens.weight
paris = model.tokenizer(" Paris").input_ids[0]
p_paris = float(probs[0, paris])
top_token = model.tokenizer.decode([int(probs[0].argmax())])
```
'''


def facts(scope: dict) -> dict:
    """The numbers the text quotes, from what the checkpoint snippets left behind."""
    found = {}
    if "sink" in scope:
        found.update(
            first=scope["sink"][0], last=scope["sink"][-1], first_token=scope["first_token"],
            norm_0_low=min(scope["norm_0"]), norm_0_high=max(scope["norm_0"]),
            rest_low=min(scope["median_rest"]), rest_high=max(scope["median_rest"]),
            share_low=min(scope["share"]), share_high=max(scope["share"]),
        )
    for name in ("p_paris", "top_token"):
        if name in scope:
            found[name] = scope[name]
    return found
