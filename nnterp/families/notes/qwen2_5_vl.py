"""Notes of Qwen2.5-VL (Qwen2_5_VLForConditionalGeneration) written by hand, added to the derived ones. Read against
transformers' modeling_qwen2_5_vl.py (Qwen2_5_VisionTransformerPretrainedModel.forward: the window permutation,
fullatt_block_indexes and reverse_indices; Qwen2_5_VLPatchMerger; Qwen2_5_VLModel.get_rope_index and
get_vision_position_ids with tokens_per_second and second_per_grid_ts), vision_utils.get_vision_window_index,
configuration_qwen2_5_vl.py (the vision config's defaults, the flat legacy keys read into text_config) and
image_processing_pil_qwen2_vl.py (smart_resize), with Qwen/Qwen2.5-VL-3B-Instruct's released config.json (flat,
transformers 4.41.2); the snippets run on the tiny Qwen2.5-VL (a one-block vision transformer on one 16-pixel
image of 4-pixel patches, merged 2 x 2 into 4 image positions, a two-block Qwen2 with mrope_section [2, 3, 3])
under an eager load, and on one- and two-block vision towers built from its vision config."""

LOAD = "eager"

MORE = r'''
## The vision transformer attends within 112-pixel windows, except in four blocks

Qwen2.5-VL-3B's vision config sets `window_size` 112 and `fullatt_block_indexes` [7, 15, 23, 31] over `depth` 32. In the other 28 blocks a patch attends only to the patches of its window: 112 pixels square, 8 × 8 patches of 14, which the 2 × 2 merge turns into 4 × 4 image positions. Windows are laid from the top-left corner, so a 448 × 448 image is 16 windows and an image whose merged side is not a multiple of 4 gets narrower windows along its right and bottom edges. Only blocks 7, 15, 23 and 31 (counted from 0) attend over the whole image. Up to block 7 a patch knows nothing outside its 112-pixel square, and a probe of a single window at an early block reads local content by construction.

```python
from transformers.models.qwen2_5_vl.modeling_qwen2_5_vl import Qwen2_5_VisionTransformerPretrainedModel

facts = released("Qwen/Qwen2.5-VL-3B-Instruct")
vision = facts["vision_config"]
assert (vision["window_size"], vision["fullatt_block_indexes"], vision["depth"]) == (112, [7, 15, 23, 31], 32)
per_side = vision["window_size"] // vision["patch_size"]                         # 8 patches
assert per_side == 8 and per_side // vision["spatial_merge_size"] == 4 and (448 // 112) ** 2 == 16

def tower(full):                         # one block over 32-pixel images, windows of 2 x 2 image positions
    config = type(model.config.vision_config)(**{**model.config.vision_config.to_dict(), "depth": 1,
                                                 "window_size": 16, "fullatt_block_indexes": full})
    torch.manual_seed(0)
    return Qwen2_5_VisionTransformerPretrainedModel._from_config(config, attn_implementation="eager").eval()
grid = torch.tensor([[1, 8, 8]])                                    # 8 x 8 patches: 4 x 4 positions, 4 windows
pixels = torch.randn(64, 96, generator=torch.Generator().manual_seed(0))
edited = pixels.clone()
edited[0] += 1.0                                                     # the top-left patch
for full, reached in (([], 4), ([0], 16)):
    with torch.no_grad():
        vision_tower = tower(full)
        moved = (vision_tower(pixels, grid_thw=grid).pooler_output - vision_tower(edited, grid_thw=grid).pooler_output)
    changed = (moved.abs().amax(-1) > 0).view(4, 4)
    assert int(changed.sum()) == reached
```

## Inside the vision transformer the rows are in window order, not raster order

Before its first block, the vision transformer permutes its rows so that each window's patches are consecutive (`get_vision_window_index`), and it undoes the permutation only after the merger (`reverse_indices`). Every block's output, and the merger's input, holds the patches window by window: for a 448 × 448 image, rows 0–63 are the top-left 112-pixel square, not the first row of patches. `image_features` and `pooler_output` are back in raster order over the image positions. A hook on `visual.blocks[i]` that reshapes its rows to the image grid without `window_index` scrambles the image.

```python
from transformers.vision_utils import get_vision_window_index
from transformers.models.qwen2_5_vl.modeling_qwen2_5_vl import Qwen2_5_VisionTransformerPretrainedModel

config = type(model.config.vision_config)(**{**model.config.vision_config.to_dict(), "window_size": 16})
torch.manual_seed(0)
vision_tower = Qwen2_5_VisionTransformerPretrainedModel._from_config(config, attn_implementation="eager").eval()
grid = torch.tensor([[1, 8, 8]])
order, _ = get_vision_window_index(grid, 2, 16, 4)
assert order.tolist() == [0, 1, 4, 5, 2, 3, 6, 7, 8, 9, 12, 13, 10, 11, 14, 15]   # window by window
with torch.no_grad():
    out = vision_tower(torch.randn(64, 96, generator=torch.Generator().manual_seed(0)), grid_thw=grid)
    merged = vision_tower.merger(out.last_hidden_state)               # the last block's rows, merged in place
assert torch.equal(merged[torch.argsort(order)], out.pooler_output)
assert not torch.equal(merged, out.pooler_output)
```

## An image position is a 28-pixel square, merged by an MLP into the language model's width

`visual.merger` normalizes each patch of the last block with an RMSNorm (`ln_q`), concatenates the four patches of one 2 × 2 square, 4 × 1280 = 5120, and maps them through Linear 5120 → 5120, GELU, Linear 5120 → 2048 on the 3B (`out_hidden_size`, the language model's width). `Qwen2_5_VLModel.forward` writes those rows at the `<|image_pad|>` placeholders (id 151655) with `masked_scatter`: `image_mask` marks them, `layers[0].layer_input` there is `image_features` bit for bit, and `<|vision_start|>` (151652) and `<|vision_end|>` (151653) around them are text tokens. How many positions depends on the image: the image processor's `smart_resize` makes both sides multiples of 28, between 56 × 56 and 28 × 28 × 1280 pixels by the class's default, so a 448 × 448 image takes (448 / 28)² = 256 positions.

```python
from nnterp import tiny
from transformers.models.qwen2_vl.image_processing_pil_qwen2_vl import Qwen2VLImageProcessorPil, smart_resize

facts = released("Qwen/Qwen2.5-VL-3B-Instruct")
vision = facts["vision_config"]
assert (vision["hidden_size"], vision["out_hidden_size"], facts["hidden_size"]) == (1280, 2048, 2048)
assert (facts["image_token_id"], facts["vision_start_token_id"], facts["vision_end_token_id"]) == (151655, 151652, 151653)
assert Qwen2VLImageProcessorPil.size == {"shortest_edge": 56 * 56, "longest_edge": 28 * 28 * 1280}
assert smart_resize(448, 448) == (448, 448) and (448 // (vision["patch_size"] * vision["spatial_merge_size"])) ** 2 == 256

inputs = tiny.image_call("qwen2_5_vl")
visual = model._module.model.visual
with model.trace(inputs):
    mask = model.image_mask.save()
    features = model.image_features.save()
    entering = model.layers[0].layer_input.save()
with torch.no_grad():
    last = visual(inputs["pixel_values"], grid_thw=torch.tensor(inputs["image_grid_thw"])).last_hidden_state
    torch.testing.assert_close(features, visual.merger.mlp(visual.merger.ln_q(last).view(-1, 4 * last.shape[-1])))
assert torch.equal(entering[mask], features) and int(mask.sum()) == 4
assert torch.equal(mask[0], inputs["input_ids"][0] == model.config.image_token_id)
```

## A video's temporal index counts time: two indices per second in the released file, four by the class default

M-RoPE gives each image position (temporal, height, width) indices as in Qwen2-VL; for a video, Qwen2.5-VL spaces the temporal index by time: temporal patch t of a video starts at `start + t · tokens_per_second · second_per_grid_ts`, where `second_per_grid_ts` (from the processor) is the seconds one temporal patch of two frames covers. The 3B's file sets `tokens_per_second` 2, so one index is half a second whatever the sampling rate; `Qwen2_5_VLVisionConfig`'s default is 4, and a config without the key spaces the frames twice as far. Still images get no such scaling: their temporal index is the start index for every position.

```python
from transformers import Qwen2_5_VLConfig

facts = released("Qwen/Qwen2.5-VL-3B-Instruct")
assert facts["vision_config"]["tokens_per_second"] == 2
assert type(model.config.vision_config)().tokens_per_second == 4 == model.config.vision_config.tokens_per_second
assert Qwen2_5_VLConfig(**facts).vision_config.tokens_per_second == 2

core = model._module.model
video, start = 298, 2
ids = torch.tensor([[5, 297] + [video] * 16 + [6, 7]])              # 4 temporal patches of 2 x 2 positions
types = (ids == video).long() * 2
for seconds in (1.0, 0.5):
    positions, _ = core.get_rope_index(ids, types, video_grid_thw=torch.tensor([[4, 4, 4]]),
                                       second_per_grid_ts=torch.tensor([seconds]))
    step = int(4 * seconds)                                         # tokens_per_second · second_per_grid_ts
    temporal = positions[0, 0, start:start + 16].view(4, 4)[:, 0]
    assert temporal.tolist() == [start + t * step for t in range(4)]
```

## After a video, the prompt's text resumes below the video's last time index

`get_rope_index` moves the running index after a video, as after an image, by `max(h, w)` of the merged grid, and ignores how far the temporal index went. A video of several temporal patches therefore ends at a temporal index above the text that follows it: on a 4-patch video of 2 × 2 positions at one second per patch (tiny model, 4 indices per second), the frames reach index 14 and the next text token is at 4. The offset returned for generation (`rope_deltas`) is taken from the largest index instead, so a generated token continues at 15: the prompt's last token and the first generated one are ten indices apart. An image (one temporal patch) is unaffected.

```python
core = model._module.model
video = 298
ids = torch.tensor([[5, 297] + [video] * 16 + [6, 7]])
types = (ids == video).long() * 2
positions, delta = core.get_rope_index(ids, types, video_grid_thw=torch.tensor([[4, 4, 4]]),
                                       second_per_grid_ts=torch.tensor([1.0]))
frames, text_after = positions[:, 0, 2:18], positions[:, 0, 18]
assert int(frames.max()) == 14 and text_after.tolist() == [4, 4, 4]
assert int(delta) == 15 - ids.shape[1]                              # generation resumes at the largest index + 1
assert int(positions[0, 0, -1]) == 5 and ids.shape[1] + int(delta) - 5 == 10     # last prompt token, first generated
```

## The released file is flat: the language model's sizes are its top-level keys, and `lm_head` is tied

Qwen2.5-VL-3B's config.json has no `text_config`: `hidden_size` 2048, `num_hidden_layers` 36, 16 heads, 2 key-value heads, `intermediate_size` 11008, `vocab_size` 151936 and `rope_scaling` `{"type": "mrope", "mrope_section": [16, 24, 24]}` sit at the top level, beside `vision_config`. `Qwen2_5_VLConfig` builds its text config from them (in transformers 5 the legacy `type: mrope` becomes `rope_type` default with the section kept). `tie_word_embeddings` is true in the file, so `lm_head.weight` is `embed_tokens.weight`, one 151936 × 2048 matrix: a logit lens reads the embedding rows. A reader looking for `text_config` in the file finds nothing.

```python
from transformers import Qwen2_5_VLConfig, Qwen2_5_VLForConditionalGeneration

facts = released("Qwen/Qwen2.5-VL-3B-Instruct")
assert "text_config" not in facts and facts["tie_word_embeddings"] is True
built = Qwen2_5_VLConfig(**facts)
text = built.text_config
assert (text.num_hidden_layers, text.hidden_size, text.num_attention_heads, text.num_key_value_heads) == (36, 2048, 16, 2)
assert (text.intermediate_size, text.vocab_size) == (11008, 151936)
assert text.rope_parameters["mrope_section"] == [16, 24, 24] and text.rope_parameters["rope_type"] == "default"
assert built.tie_word_embeddings is True

data = model.config.to_dict()
data["tie_word_embeddings"] = True
tied = Qwen2_5_VLForConditionalGeneration(Qwen2_5_VLConfig(**data))
assert tied.lm_head.weight is tied.model.language_model.embed_tokens.weight
assert model._module.lm_head.weight is not model._module.model.language_model.embed_tokens.weight   # the tiny: untied
```
'''
