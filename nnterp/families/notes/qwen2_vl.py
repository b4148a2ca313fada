"""Notes of Qwen2-VL (Qwen2VLForConditionalGeneration) written by hand, added to the derived ones. Read against
transformers' modeling_qwen2_vl.py (Qwen2VLModel.get_rope_index, get_vision_position_ids, compute_3d_position_ids
and its rope_deltas, Qwen2VLRotaryEmbedding.recomposition_frequencies, PatchEmbed, PatchMerger,
Qwen2VisionTransformerPretrainedModel.forward), configuration_qwen2_vl.py and image_processing_qwen2_vl.py
(smart_resize and its defaults), with Qwen/Qwen2-VL-2B-Instruct's released config.json (flat, transformers 4.41.2);
the snippets run on the tiny Qwen2-VL (a one-block vision transformer on one 16-pixel image of 4-pixel patches,
merged 2 x 2 into 4 image positions, a two-block Qwen2 with mrope_section [2, 3, 3]) under an eager load."""

LOAD = "eager"

MORE = r'''
## Every token has three position ids, and an image's are its rows and columns

Qwen2-VL's rotary (M-RoPE) takes `position_ids` of shape `[3, batch, seq]`: a temporal, a height and a width index per token. `get_rope_index` gives a text token the same index three times, counting on from the previous token. An image whose merged grid is `h × w` (after the 2 × 2 merge) starting at index `s` gets `(s, s + row, s + column)` for each of its positions in raster order: the temporal index is the same for the whole image, the patches of one row share their height index, those of one column their width index. So two patches in the same column are at rotary distance 0 on the width frequencies, however many positions apart they sit in the sequence. `attention_keys` are `attention_keys_unrotated` turned by these three ids, not by the sequence index.

```python
from nnterp import tiny

inputs = tiny.image_call("qwen2_vl")
core = model._module.model
grid = torch.tensor(inputs["image_grid_thw"])
ids, _ = core.get_rope_index(inputs["input_ids"], inputs["mm_token_type_ids"], grid)
image = inputs["mm_token_type_ids"][0] == 1
start = int(image.nonzero()[0])                             # 2: after BOS and <|vision_start|>
h, w = int(grid[0, 1]) // 2, int(grid[0, 2]) // 2
rows, columns = torch.meshgrid(torch.arange(h), torch.arange(w), indexing="ij")
assert torch.equal(ids[0, 0, image], torch.full((h * w,), start))
assert torch.equal(ids[1, 0, image], start + rows.flatten()) and torch.equal(ids[2, 0, image], start + columns.flatten())

attention = model.layers[0].self_attn
with model.trace(inputs):
    unrotated = attention.attention_keys_unrotated.save()
    keys = attention.attention_keys.save()
inv_freq, d = core.language_model.rotary_emb.inv_freq, keys.shape[-1]
section = model.config.text_config.rope_parameters["mrope_section"]
freqs = ids[:, 0, :, None].float() * inv_freq                              # [3, seq, d / 2]
angles = torch.cat([part[i % 3] for i, part in enumerate(freqs.split(section, -1))], -1)
cos, sin = torch.cat((angles, angles), -1).cos(), torch.cat((angles, angles), -1).sin()
torch.testing.assert_close(keys, unrotated * cos + torch.cat((-unrotated[..., d // 2:], unrotated[..., :d // 2]), -1) * sin)
```

## The text after an image resumes max(h, w) indices on, not h · w

After an image, `get_rope_index` moves the running index by `max(h, w)` of the merged grid, not by the image's number of positions. A 448 × 448 image is 32 × 32 patches, merged to 16 × 16 = 256 positions, and the text after it continues 16 indices later: its rotary index is 240 less than its sequence index, and each further image widens the gap. `get_rope_index` returns that gap per row as `mrope_position_deltas` (negative). Code that assumes position = sequence index (a rotary reimplementation, a position probe, a patch that moves tokens) is wrong for every token after an image.

```python
from nnterp import tiny

inputs = tiny.image_call("qwen2_vl")
grid = torch.tensor(inputs["image_grid_thw"])
ids, delta = model._module.model.get_rope_index(inputs["input_ids"], inputs["mm_token_type_ids"], grid)
image = inputs["mm_token_type_ids"][0] == 1
start, after = int(image.nonzero()[0]), int(image.nonzero()[-1]) + 1
h, w = int(grid[0, 1]) // 2, int(grid[0, 2]) // 2
assert torch.equal(ids[:, 0, after], torch.full((3,), start + max(h, w)))
assert int(delta) == max(h, w) - h * w == -2                # the tiny image: 2 x 2 positions, 2 indices
assert (448 // 14 // 2) ** 2 == 256 and 256 - 448 // 14 // 2 == 240
```

## `mrope_section` [16, 24, 24]: time turns the fastest frequencies, width the slowest

Qwen2-VL-2B's heads are 128 wide (1536 / 12), so the rotary has 64 frequencies, from fast to slow. The released `rope_scaling` is `{"type": "mrope", "mrope_section": [16, 24, 24]}`: frequencies 0–15 turn with the temporal index, 16–39 with the height index, 40–63 with the width index, and each pair of dimensions (i, i + 64) uses one frequency, as in `rotate_half`. A column offset is therefore carried only by the 24 slowest frequencies, a row offset by the middle ones. On text the three indices are equal and the rotation is Qwen2's ordinary rotary; `transformers` 5 reads the legacy `type: mrope` as `rope_type` default with the section kept.

```python
from transformers import Qwen2VLConfig

facts = released("Qwen/Qwen2-VL-2B-Instruct")
assert facts["rope_scaling"] == {"type": "mrope", "mrope_section": [16, 24, 24]}
text = Qwen2VLConfig(**facts).text_config
assert text.hidden_size // text.num_attention_heads == 128 and sum(text.rope_parameters["mrope_section"]) == 64
assert text.rope_parameters["rope_type"] == "default" and text.rope_parameters["rope_theta"] == 1000000.0

attention = model.layers[0].self_attn
with model.trace(prompt):                                   # text alone: one index per token, three times
    unrotated = attention.attention_keys_unrotated.save()
    keys = attention.attention_keys.save()
n, d = keys.shape[-2], keys.shape[-1]
angles = torch.arange(n).float()[:, None] * model._module.model.language_model.rotary_emb.inv_freq[None]
cos, sin = torch.cat((angles, angles), -1).cos(), torch.cat((angles, angles), -1).sin()
torch.testing.assert_close(keys, unrotated * cos + torch.cat((-unrotated[..., d // 2:], unrotated[..., :d // 2]), -1) * sin)
```

## Each image position is four neighbouring patches of the last vision block, merged by an MLP

The vision transformer embeds each 14 × 14 patch over two frames (an image is its own frame twice, `temporal_patch_size` 2) with a `Conv3d`, runs all 32 blocks (no layer is chosen, no class token is dropped), and `visual.merger` normalizes each patch (`ln_q`, a LayerNorm), concatenates four consecutive patches, 4 × 1280 = 5120, and maps them through Linear 5120 → 5120, GELU, Linear 5120 → 1536. The processor orders `pixel_values` so that each four consecutive patches are one 2 × 2 square: one image position is one 28 × 28-pixel square of the last block's output (whose attention, full over the image, has already mixed every patch into every other). In the released config, `vision_config.hidden_size` (1536) is that output, the language model's width; the vision transformer's own width is `embed_dim` (1280).

```python
from nnterp import tiny
from transformers import Qwen2VLConfig

facts = released("Qwen/Qwen2-VL-2B-Instruct")
vision = facts["vision_config"]
assert (vision["embed_dim"], vision["hidden_size"], vision["depth"], vision["spatial_merge_size"]) == (1280, 1536, 32, 2)
assert vision["hidden_size"] == facts["hidden_size"] and 4 * vision["embed_dim"] == 5120

inputs = tiny.image_call("qwen2_vl")
visual = model._module.model.visual
with model.trace(inputs):
    features = model.image_features.save()
with torch.no_grad():
    last = visual(inputs["pixel_values"], grid_thw=torch.tensor(inputs["image_grid_thw"])).last_hidden_state
    merger = visual.merger
    torch.testing.assert_close(features, merger.mlp(merger.ln_q(last).view(-1, 4 * last.shape[-1])))

    changed = last.clone()
    changed[5] += 1.0                                       # one patch of the second square
    moved = (merger.mlp(merger.ln_q(changed).view(-1, 4 * last.shape[-1])) - features).abs().amax(-1) > 0
assert moved.tolist() == [False, True, False, False]
```

## The number of positions follows the image: a multiple of 28 pixels per side, four to 1280 by default

There is no fixed resolution. `Qwen2VLImageProcessor` resizes each image with `smart_resize` to sides that are multiples of 28 (patch 14 × merge 2) whose area lies between `min_pixels` and `max_pixels` (the class defaults are 56 × 56 and 28 × 28 × 1280), keeping the aspect ratio as closely as it can; the image then takes `(H / 28) · (W / 28)` positions: 4 at the smallest, 1280 at the class's largest, 256 for a 448 × 448 image. `image_grid_thw` gives each image's `(1, H / 14, W / 14)`, and the ids hold `<|vision_start|>`, that many `<|image_pad|>` (151655) and `<|vision_end|>`; `image_mask` marks the pads. A checkpoint's own processor file may set other limits.

```python
from nnterp import tiny
from transformers.models.qwen2_vl.image_processing_pil_qwen2_vl import Qwen2VLImageProcessorPil, smart_resize

facts = released("Qwen/Qwen2-VL-2B-Instruct")
assert (facts["vision_start_token_id"], facts["image_token_id"], facts["vision_end_token_id"]) == (151652, 151655, 151653)
assert Qwen2VLImageProcessorPil.size == {"shortest_edge": 56 * 56, "longest_edge": 28 * 28 * 1280}
assert smart_resize(448, 448) == (448, 448) and (448 // 28) ** 2 == 256
assert smart_resize(10, 10) == (56, 56)                     # raised to min_pixels: 4 positions
height, width = smart_resize(4000, 3000)
assert height % 28 == 0 and width % 28 == 0 and (height // 28) * (width // 28) <= 1280

inputs = tiny.image_call("qwen2_vl")
with model.trace(inputs):
    mask = model.image_mask.save()
    features = model.image_features.save()
grid = torch.tensor(inputs["image_grid_thw"])
assert int(mask.sum()) == features.shape[0] == int(grid.prod()) // 4
assert torch.equal(mask[0], inputs["input_ids"][0] == model.config.image_token_id)
```

## A call with an image needs `mm_token_type_ids`

`compute_3d_position_ids` builds the three position ids from `mm_token_type_ids` (0 text, 1 image, 2 video), which the processor returns beside `input_ids`. A call with `pixel_values` and `image_grid_thw` but without them is refused ("Multimodal data was passed … but `mm_token_type_ids` is missing"); a hand-built call must mark the image pads with 1. Passing zeros instead runs, but gives every image position a text index of its own, as if each were a word, and the model computes something else.

```python
from nnterp import tiny

inputs = tiny.image_call("qwen2_vl")
untyped = {name: value for name, value in inputs.items() if name != "mm_token_type_ids"}
try:
    with model.trace(untyped):
        model.logits.save()
    raise AssertionError("an image call without mm_token_type_ids ran")
except ValueError as error:
    assert "mm_token_type_ids" in str(error)

with model.trace(inputs):
    typed = model.logits.save()
with model.trace({**inputs, "mm_token_type_ids": torch.zeros_like(inputs["mm_token_type_ids"])}):
    as_text = model.logits.save()
assert not torch.allclose(typed, as_text)
```

## The model keeps the last image call's position offset, and an `inputs_embeds` call uses it

`Qwen2VLModel` stores `rope_deltas` from the last call that computed M-RoPE positions, on the module, and keeps it across calls. A later call with `input_ids` and no cache ignores it, but a call with `inputs_embeds` alone adds it to `arange(seq)`: after an image call, the same embeddings run at positions shifted by the image's gap (−2 on the tiny model's image, −240 after one 448 × 448 image), and the outputs differ from a fresh model's. Patching through `inputs_embeds` after an image trace computes another model. Reset `model._module.model.rope_deltas = None`, or pass `position_ids`, before such a call.

```python
from nnterp import tiny

fresh = tiny.load("qwen2_vl", attn_implementation="eager")
embeds = fresh._module.model.language_model.embed_tokens(torch.tensor([[5, 6, 7, 8]]))
with fresh.trace(inputs_embeds=embeds):
    before = fresh.logits.save()

with fresh.trace(tiny.image_call("qwen2_vl")):
    fresh.logits.save()
assert fresh._module.model.rope_deltas.tolist() == [[-2]]
with fresh.trace(inputs_embeds=embeds):
    after = fresh.logits.save()
assert not torch.allclose(before, after)

fresh._module.model.rope_deltas = None
with fresh.trace(inputs_embeds=embeds):
    reset = fresh.logits.save()
torch.testing.assert_close(reset, before)
```
'''
