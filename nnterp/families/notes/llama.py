"""Notes of the Llama family. The ``python`` snippets run on the tiny Llama under an eager load; the
``python checkpoint`` ones run on SmolLM2-135M-Instruct, the checkpoint shipped offline, and the
numbers in the text around them are what they measured when the page was built."""

from nnterp import real

LOAD = "eager"
CHECKPOINT = "HuggingFaceTB/SmolLM2-135M-Instruct"


def load_checkpoint():
    """SmolLM2-135M-Instruct under an eager load, or an error saying how to get it."""
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

`attention_keys` and `attention_values` have `num_kv_heads` heads, fewer than `num_heads`: they are read as the kernel receives them, before it repeats each key and value head for its group of query heads (`repeat_kv`). Query head h reads key and value head h // (num_heads / num_kv_heads). SmolLM2-135M-Instruct has 9 query heads of 64 (576 / 9: its config.json sets no `head_dim`, and `LlamaConfig` derives it) over 3 key and value heads.

```python
with model.trace(prompt):
    v = model.layers[0].self_attn.attention_values.save()
    p = model.layers[0].self_attn.attention_probabilities.save()
    heads = model.layers[0].self_attn.attention_head_outputs.save()

from transformers import LlamaConfig

smol = released("HuggingFaceTB/SmolLM2-135M-Instruct")
assert "head_dim" not in smol
assert (smol["num_attention_heads"], LlamaConfig(**smol).head_dim, smol["num_key_value_heads"]) == (9, 64, 3)
group = model.num_heads // model.num_kv_heads
assert group > 1 and v.shape[1] == model.num_kv_heads
v_per_head = v.repeat_interleave(group, dim=1)
torch.testing.assert_close((p @ v_per_head).transpose(1, 2), heads)
```

## The interior needs an eager load

The attention calls the kernel chosen at run time through `attention_interface`. Under the default sdpa load the scores and the pattern are never materialised: `attention_scores` and `attention_probabilities` carry ⚠︎ in the table above, and reading them raises a sentence that names `attn_implementation="eager"`. The queries, keys, values and head outputs are the kernel's arguments and output, served under eager or sdpa. The scores are q·kᵀ at the scale `head_dim ** -0.5`, masked before the softmax.

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

from nnterp import tiny
default = tiny.load("llama")                                      # the default load: sdpa
refused = None
try:
    with default.trace(prompt):
        default.layers[0].self_attn.attention_scores.save()
except Exception as error:
    refused = str(error)
assert refused is not None and "attn_implementation" in refused and "eager" in refused
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

Measured when this page was built, on SmolLM2-135M-Instruct (the checkpoint nnterp ships offline, dequantized to float32, eager) and the prompt "The Eiffel Tower is in the city of". SmolLM2-135M-Instruct's tokenizer adds no BOS, so here position 0 is the prompt's first token, `{{first_token}}` (Llama 2's and Llama 3's tokenizers prepend one, and there position 0 is the BOS).

```python checkpoint
norms, on_key_0 = [], []
with model.trace(prompt):
    for layer in model.layers:
        # the pattern's share on key 0, averaged over heads and the queries after position 0
        on_key_0.append(layer.self_attn.attention_probabilities[0, :, 1:, 0].mean().save())
        norms.append(layer.layer_output[0].norm(dim=-1).save())

prompt_ids = model.tokenizer(prompt).input_ids
assert prompt_ids[0] != model.tokenizer.bos_token_id             # SmolLM2's: no BOS, the prompt's own first token
first_token = model.tokenizer.convert_ids_to_tokens(prompt_ids)[0]
ratio = [float(n[0] / n[1:].median()) for n in norms]
sink = [i for i, r in enumerate(ratio) if r > 10]              # blocks where position 0 stands out
assert sink == list(range(sink[0], sink[-1] + 1))             # one run of blocks
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

## One MLP writes a huge stream entry at position 0 (measured on SmolLM2-135M-Instruct)

Measured when this page was built, on the same load and prompt as above. Block {{jump_block}}'s MLP adds {{jump_write:,.0f}} to dimension {{huge_dim}} of position 0 in one step (its attention adds {{jump_attn:+.1f}} there). From block {{huge_first}}'s output to block {{huge_last}}'s, that entry is {{huge_low:,.0f}} to {{huge_high:,.0f}}, and no entry at any other position exceeds {{rest_max:,.0f}} in magnitude over those blocks, while the median magnitude of an entry is {{median_low:.1f}} to {{median_high:.1f}}; the entry alone is at least {{entry_share:.2f}} of position 0's norm there. Dimension {{huge_dim}} also holds the largest entry over all the later positions, at each of blocks 0 to {{shared_last}}. The entry is the norm the sink note above reports, on the same blocks: a raw-stream cosine, a PCA or a mean over positions is dominated by it. Leave position 0 out, or drop dimension {{huge_dim}}, before any statistic of the stream.

```python checkpoint
streams, mlp_writes, attn_writes = [], [], []
with model.trace(prompt):
    for layer in model.layers:
        streams.append(layer.layer_output[0].save())
        mlp_writes.append(layer.mlp.mlp_output[0].save())
        attn_writes.append(layer.self_attn.attention_output[0].save())

# blocks where position 0's largest entry is more than 10 times any entry at the other positions
huge = [i for i, s in enumerate(streams) if s[0].abs().max() > 10 * s[1:].abs().max()]
assert huge == list(range(huge[0], huge[-1] + 1))            # one run of blocks
dims = {int(streams[i][0].abs().argmax()) for i in huge}
assert len(dims) == 1                                        # one dimension throughout
huge_dim = dims.pop()
jump_block = huge[0]
jump_write = float(mlp_writes[jump_block][0, huge_dim])
jump_attn = float(attn_writes[jump_block][0, huge_dim])
assert jump_write > 0.9 * float(streams[jump_block][0, huge_dim])   # the MLP, not the attention, writes it
huge_values = [float(streams[i][0, huge_dim].abs()) for i in huge]
rest_max = max(float(streams[i][1:].abs().max()) for i in huge)
medians = [float(streams[i].abs().median()) for i in huge]
entry_share = min(float(streams[i][0, huge_dim].abs() / streams[i][0].norm()) for i in huge)
assert entry_share > 0.9 and huge == sink                     # the sink's norm is this entry
shared = [int(s[1:].abs().amax(0).argmax()) == huge_dim for s in streams]
shared_last = shared.index(False) - 1 if False in shared else len(shared) - 1
assert shared_last >= jump_block
```

## The logit lens finds " Paris" only in the last blocks (measured on SmolLM2-135M-Instruct)

`project_on_vocab` is the final `norm` and `lm_head`; applied to each block's `layer_output` at the last position of "The Eiffel Tower is in the city of", it first ranks ' Paris' top at block {{lens_first}} of {{num_blocks}} (block indices from 0), and ranks it first at every block after. Its rank is {{rank_before}} at block {{lens_before}}, {{rank_quarter}} at block {{lens_quarter}} and {{rank_half}} of {{vocab:,}} at block {{lens_half}}, half-way. Before block {{lens_first}}, the lens's top token is punctuation or a function word at {{filler_count}} of the {{lens_first}} blocks (the most frequent is `{{filler_top}}`). On this 135M model the answer appears in the last few blocks: a lens experiment that looks for it in the middle of the network finds it ranked in the thousands.

```python checkpoint
paris = model.tokenizer(" Paris").input_ids[0]
lens_streams = []
with model.trace(prompt):
    for layer in model.layers:
        lens_streams.append(layer.layer_output[:, -1].save())

lens_logits = [model.project_on_vocab(s)[0] for s in lens_streams]
ranks = [int((row > row[paris]).sum()) for row in lens_logits]
lens_first = ranks.index(0)
assert all(rank == 0 for rank in ranks[lens_first:])
num_blocks, vocab = len(ranks), lens_logits[0].numel()
lens_before, lens_quarter, lens_half = lens_first - 1, 3 * num_blocks // 4, num_blocks // 2
rank_before, rank_quarter, rank_half = ranks[lens_before], ranks[lens_quarter], ranks[lens_half]
tops = [model.tokenizer.decode([int(row.argmax())]) for row in lens_logits[:lens_first]]
filler = [t for t in tops if not t.strip().isalpha() or t.strip().lower() in ("and", "the", "a", "of", "my")]
assert rank_half > 1000 and rank_quarter > 1000
filler_count = len(filler)
filler_top = max(set(filler), key=filler.count)
assert filler_count > len(tops) / 2
```

## bfloat16 against float32 (measured on SmolLM2-135M-Instruct)

The copy nnterp ships is the checkpoint's Q4_1 GGUF, dequantized to float32, and everything measured on this page is that float32 model. Loaded with `dtype=torch.bfloat16`, the same weights give the same five most likely next tokens, p(' Paris') = {{p_paris_bf16:.3f}} against {{p_paris_fp32:.3f}}, and last-position logits that differ by up to {{logit_gap:.2f}} (the logits reach {{logit_max:.0f}}). The large entry of the note above is where bfloat16 bites: its 8 significant bits space the numbers between 16,384 and 32,768 by 128, and at block {{bf_block}} the entry is {{bf_entry:,.0f}} in bfloat16 against {{fp_entry:,.1f}} in float32. Under bfloat16, a change of that entry smaller than 128 is rounding.

```python checkpoint
from nnterp import real

half = real.load(dtype=torch.bfloat16, attn_implementation="eager")
bf_block = len(model.layers) // 2
with half.trace(prompt):
    half_logits = half.logits.save()
    half_first = half.layers[bf_block].layer_output[0, 0].save()
with model.trace(prompt):
    full_logits = model.logits.save()
    full_first = model.layers[bf_block].layer_output[0, 0].save()

assert half_logits.dtype == torch.bfloat16 and full_logits.dtype == torch.float32
p16, p32 = half_logits[0, -1].float().softmax(-1), full_logits[0, -1].softmax(-1)
assert torch.equal(p16.topk(5).indices, p32.topk(5).indices)
paris_id = model.tokenizer(" Paris").input_ids[0]
p_paris_bf16, p_paris_fp32 = float(p16[paris_id]), float(p32[paris_id])
logit_gap = float((half_logits[0, -1].float() - full_logits[0, -1]).abs().max())
logit_max = float(full_logits[0, -1].abs().max())
entry_dim = int(full_first.abs().argmax())
assert entry_dim == huge_dim and bf_block in huge                # the large entry of the note above
bf_entry, fp_entry = float(half_first[entry_dim]), float(full_first[entry_dim])
above = torch.tensor(bf_entry, dtype=torch.bfloat16).nextafter(torch.tensor(1e9, dtype=torch.bfloat16))
assert 16384 <= bf_entry < 32768 and float(above) - bf_entry == 128.0   # bfloat16's spacing there
```

## Tied embeddings: the lens at the embeddings reads the input back (measured on SmolLM2-135M-Instruct)

`lm_head.weight` is `embed_tokens.weight`, one tensor, so the unembedding of a token is its own embedding. The lens applied to block 0's input, the embeddings themselves, gives back the prompt's own token at {{echo_count}} of {{echo_of}} positions: an early-block lens predicts the current token, not the next, and a "direction of token t" taken from `lm_head` is the same vector as its input embedding. Adding to `embed_tokens.weight` or to `lm_head.weight` edits both.

```python checkpoint
with model.trace(prompt):
    embeddings = model.layers[0].layer_input.save()

assert model.lm_head.weight is model.embed_tokens.weight
prompt_ids = torch.tensor(model.tokenizer(prompt).input_ids)
read_back = model.project_on_vocab(embeddings)[0].argmax(-1)
echo_count, echo_of = int((read_back == prompt_ids).sum()), len(prompt_ids)
assert echo_count > echo_of / 2
```

## Llama 3's rope scaling slows only the slow frequencies

Llama 3.2 sets `rope_type` "llama3": Llama-3.2-1B's config sets `rope_theta` 500000, a context of 131072 (`max_position_embeddings`), and `rope_scaling` with `factor` 32, `low_freq_factor` 1, `high_freq_factor` 4 and `original_max_position_embeddings` 8192. The frequencies are not all divided by the factor: with wavelength = 2π / `inv_freq`, a frequency whose wavelength is under 8192 / 4 = 2048 positions is kept, one whose wavelength is over 8192 / 1 = 8192 is divided by 32, and those between are interpolated smoothly between the two. At head_dim 64 and base 500000 that keeps 15 of the 32 frequencies, divides 14 by 32 and blends 3. `attention_scaling` stays 1: cos and sin are not rescaled. The config is the tiny model's with Llama-3.2-1B's rotary:

```python
import math
from nnterp import tiny

facts = released("meta-llama/Llama-3.2-1B")
scaling = facts["rope_scaling"]
assert scaling == {"rope_type": "llama3", "factor": 32.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                   "original_max_position_embeddings": 8192}
assert facts["rope_theta"] == 500000.0 and facts["max_position_embeddings"] == 131072 and facts["head_dim"] == 64

size = dict(head_dim=64, max_position_embeddings=131072)
llama3 = tiny.load("llama", rope_parameters={"rope_theta": 500000.0, **scaling}, **size)
plain = tiny.load("llama", rope_parameters={"rope_type": "default", "rope_theta": 500000.0}, **size)
rotary, plain_rotary = llama3._module.model.rotary_emb, plain._module.model.rotary_emb
scaled, base = rotary.inv_freq, plain_rotary.inv_freq
wavelength = 2 * math.pi / base
kept, slowed = wavelength < 8192 / 4, wavelength > 8192 / 1
blended = ~kept & ~slowed
assert (int(kept.sum()), int(slowed.sum()), int(blended.sum())) == (15, 14, 3)
assert torch.equal(scaled[kept], base[kept])
torch.testing.assert_close(scaled[slowed], base[slowed] / 32)
assert ((scaled[blended] < base[blended]) & (scaled[blended] > base[blended] / 32)).all()
assert rotary.attention_scaling == 1.0
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
    if "huge" in scope:
        found.update(
            huge_first=scope["huge"][0], huge_last=scope["huge"][-1], huge_low=min(scope["huge_values"]),
            huge_high=max(scope["huge_values"]), median_low=min(scope["medians"]), median_high=max(scope["medians"]),
        )
    names = ("p_paris", "top_token", "huge_dim", "entry_share", "jump_block", "jump_write", "jump_attn", "rest_max", "shared_last",
             "lens_first", "num_blocks", "lens_before", "rank_before", "lens_quarter", "rank_quarter", "lens_half",
             "rank_half", "vocab", "filler_count", "filler_top", "p_paris_bf16", "p_paris_fp32", "logit_gap",
             "logit_max", "bf_block", "bf_entry", "fp_entry", "echo_count", "echo_of")
    for name in names:
        if name in scope:
            found[name] = scope[name]
    return found
