"""Notes of LLaVA-NeXT (LlavaNextForConditionalGeneration) written by hand, added to the derived ones. Read against
transformers' modeling_llava_next.py (LlavaNextModel.get_image_features and pack_image_features,
get_anyres_image_grid_shape, image_size_to_num_patches, unpad_image, image_newline), processing_llava_next.py
(_get_number_of_features) and image_processing_utils.select_best_resolution, with llava-hf/llava-v1.6-mistral-7b-hf's
released config.json; the snippets run on the tiny LLaVA-NeXT (a one-layer CLIP tower on 16-pixel views in 4-pixel
patches, image_grid_pinpoints [[16, 16]]: a base view and one tile, 16 + 16 + 4 = 36 image positions, a two-block
Llama) under an eager load."""

LOAD = "eager"

MORE = r'''
## An image is its base view, then the tiles as one map with a learned newline after each row

`pixel_values` holds, per image, a base view (the whole image resized to 336 × 336) and the tiles of the grid chosen from `image_grid_pinpoints`. Every view goes through CLIP and the projector as in LLaVA: 24 × 24 = 576 rows each. `pack_image_features` then keeps the base view's 576 rows as they are, first, and puts the tiles' rows back into one feature map of `rows × 24` by `columns × 24`, cuts away the positions that cover the processor's padding, and appends `image_newline` after every row of that map. The stream at an image's positions is therefore: 576 positions of the low-resolution whole image, then the high-resolution map in raster order, each row closed by the newline. A patch of the map at (r, c) sits at position 576 + r · (width + 1) + c of the image.

```python
from nnterp import tiny

inputs = tiny.image_call("llava_next")
core = model._module.model
side = model.config.vision_config.image_size // model.config.vision_config.patch_size     # 4
with model.trace(inputs):
    features = model.image_features.save()
with torch.no_grad():
    states = core.vision_tower(inputs["pixel_values"][0], output_hidden_states=True).hidden_states[-2]
    views = core.multi_modal_projector(states[:, 1:])                 # [views, side * side, hidden]
    torch.testing.assert_close(features[:side * side], views[0])      # the base view first, as is
    tile = features[side * side:].view(side, side + 1, -1)            # rows of the map, each + newline
    torch.testing.assert_close(tile[:, :side].reshape(side * side, -1), views[1])
assert all(torch.equal(row, core.image_newline) for row in tile[:, side])
```

## How many positions an image takes depends on its size: 2928 at 672 × 672, 2340 at 480 × 640

`image_grid_pinpoints` in llava-v1.6-mistral-7b-hf's config lists five grids: 336 × 672, 672 × 336, 672 × 672, 1008 × 336, 336 × 1008. `select_best_resolution` picks the one that keeps the most of the image's pixels with the least waste, and the count is 576 (base view) plus the unpadded map plus one newline per map row. A 672 × 672 image: a 2 × 2 grid, a 48 × 48 map, 576 + 2304 + 48 = 2928 positions. A 480 × 640 (height × width) photograph: also 2 × 2, unpadded to 36 × 48, 576 + 1728 + 36 = 2340. A 336 × 336 image: a 1 × 2 grid unpadded to 24 × 24, 1176. The prompt holds exactly that many `<image>` placeholders (id 32000); `image_mask.sum()` is their total.

```python
from nnterp import tiny
from transformers.models.llava_next.modeling_llava_next import get_anyres_image_grid_shape, unpad_image

facts = released("llava-hf/llava-v1.6-mistral-7b-hf")
pinpoints, size = facts["image_grid_pinpoints"], facts["vision_config"]["image_size"]
assert pinpoints == [[336, 672], [672, 336], [672, 672], [1008, 336], [336, 1008]] and size == 336
side = size // facts["vision_config"]["patch_size"]                 # 24
def positions(height, width):
    rows, columns = get_anyres_image_grid_shape((height, width), pinpoints, size)
    kept = unpad_image(torch.empty(1, rows * side, columns * side), (height, width)).shape[1:]
    return side * side + kept[0] * kept[1] + kept[0]
assert (positions(672, 672), positions(480, 640), positions(336, 336)) == (2928, 2340, 1176)

inputs = tiny.image_call("llava_next")
with model.trace(inputs):
    mask = model.image_mask.save()
assert int(mask.sum()) == 36 == 16 + 16 + 4
```

## Each view is encoded alone: a tile never sees the other tiles or the base view

CLIP runs on every view as a separate image (the views are its batch), taking its second-to-last layer (`vision_feature_layer` -2) and dropping the CLS (`"default"`), as LLaVA does. Nothing in the vision tower or the projector mixes views: the features of a tile depend on that tile's pixels only, and the base view is the only place where the whole image is seen at once before the language model. Whatever joins a tile to its neighbours happens in the language model's attention, causally, in the order of the stream.

```python
from nnterp import tiny

facts = released("llava-hf/llava-v1.6-mistral-7b-hf")
assert facts["vision_feature_layer"] == -2 and facts["vision_feature_select_strategy"] == "default"

inputs = tiny.image_call("llava_next")
with model.trace(inputs):
    features = model.image_features.save()
changed = inputs["pixel_values"].clone()
changed[:, 1] += 1.0                                                # the tile only
with model.trace({**inputs, "pixel_values": changed}):
    features_changed = model.image_features.save()
base = 16
assert torch.equal(features_changed[:base], features[:base])      # the base view's rows unchanged
assert not torch.allclose(features_changed[base:], features[base:])
```

## `image_sizes` is the original image's (height, width), and it decides how many positions are kept

The model does not read the image's size from `pixel_values` (every view is 336 × 336): it reads `image_sizes`, the original height and width, chooses the grid from it and unpads the map to the original aspect ratio. The same `pixel_values` with another `image_sizes` give another number of `image_features`, and the forward refuses ids whose placeholder count does not match ("Image features and image tokens do not match"). On the tiny model a 16 × 8 image keeps 2 of the map's 4 columns: 16 + 4 · 2 + 4 = 28 positions instead of 36. Batching images of different sizes by hand needs each one's own size and count.

```python
from nnterp import tiny

inputs = tiny.image_call("llava_next")
narrow = {**inputs, "image_sizes": torch.tensor([[16, 8]])}
try:
    with model.trace(narrow):
        model.logits.save()
    raise AssertionError("a call whose image_sizes do not match its placeholders ran")
except Exception as error:
    assert "do not match" in str(error)

ids = inputs["input_ids"]
image = ids[0] == model.config.image_token_id
keep = torch.ones(ids.shape[1], dtype=torch.bool)
keep[image.nonzero().flatten()[28:]] = False                       # 28 placeholders
fitted = {**narrow, "input_ids": ids[:, keep], "attention_mask": inputs["attention_mask"][:, keep]}
with model.trace(fitted):
    features = model.image_features.save()
assert features.shape[0] == 28
```

## The newline positions carry one learned vector, the same in every image

`image_newline` is a single parameter of the language model's width (`use_image_newline_parameter` true in the released config), placed as it is, with no projection, at the end of every row of every image's map. At block 0 those positions hold the same vector whatever the image: what the stream holds there later is what attention brought in from the patches before it. A probe or a mean over image positions that includes them mixes in a constant; select `image_mask` positions that are not newlines (one in every `width + 1` of the map, none in the base view) to read patches only.

```python
from nnterp import tiny

facts = released("llava-hf/llava-v1.6-mistral-7b-hf")
assert facts["use_image_newline_parameter"] is True

first, second = tiny.image_call("llava_next", seed=0), tiny.image_call("llava_next", seed=1)
entering = []
for call in (first, second):
    with model.trace(call):
        mask = model.image_mask.save()
        x = model.layers[0].layer_input.save()
    entering.append(x[mask])
newlines = torch.tensor([20, 25, 30, 35])                          # 16 + 5k + 4: each map row's end
assert torch.equal(entering[0][newlines], entering[1][newlines])
assert all(torch.equal(row, model._module.model.image_newline) for row in entering[0][newlines])
assert not torch.allclose(entering[0][:16], entering[1][:16])     # the patches differ
```

## The released config gives the MLP width, the grouping, the rotary base and no window; depth and width are `MistralConfig`'s defaults

llava-v1.6-mistral-7b-hf's `text_config` names `mistralai/Mistral-7B-Instruct-v0.2` and gives its MLP width (14336), 8 key and value heads, the rotary base 1000000, the context 32768 and `sliding_window` null; its depth (32 blocks), width (4096) and 32 query heads are `MistralConfig`'s defaults, not in the file. The null window matters: Mistral's class default is a 4096-token window, and this checkpoint sets none, so every layer attends to the whole context. The vocabulary is 32064, with `<image>` at 32000.

```python
from transformers import LlavaNextConfig

facts = released("llava-hf/llava-v1.6-mistral-7b-hf")
text = facts["text_config"]
assert "hidden_size" not in text and "num_hidden_layers" not in text and "num_attention_heads" not in text
assert text["sliding_window"] is None and text["rope_theta"] == 1000000.0
built = LlavaNextConfig(**facts).text_config
assert (built.num_hidden_layers, built.hidden_size, built.num_attention_heads, built.num_key_value_heads) == (32, 4096, 32, 8)
assert built.sliding_window is None and built.intermediate_size == 14336 and built.vocab_size == 32064

from transformers import MistralConfig
assert MistralConfig().sliding_window == 4096
```
'''
