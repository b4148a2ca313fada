"""Notes of Idefics3 (Idefics3ForConditionalGeneration) written by hand, added to the derived ones. Read against
transformers' modeling_idefics3.py (Idefics3Model.get_image_features: the dropped all-zero images and the
pixel_attention_mask; Idefics3Connector.pixel_shuffle and Idefics3SimpleMLP; inputs_merger), configuration_idefics3.py
(Idefics3Config and Idefics3VisionConfig defaults), image_processing_idefics3.py (size and max_image_size) and
processing_idefics3.py (image_seq_len, replace_image_token). No released config.json of Idefics3-8B-Llama3 could be
found with a citable copy, so the numbers below are the classes' defaults, said as such; the snippets run on the tiny
Idefics3 (a one-layer SigLIP-style tower on one 16-pixel tile of 4-pixel patches, scale_factor 2: 16 patches, 4 image
positions, a two-block Llama) under an eager load."""

LOAD = "eager"

MORE = r'''
## One image position is a 2 × 2 block of SigLIP patches, concatenated and projected by one linear

The connector has no MLP: `pixel_shuffle` cuts the vision model's grid of patch vectors into `scale_factor × scale_factor` blocks (2 × 2, `Idefics3Config`'s default) and concatenates each block into one vector of 4 × 1152 entries, and `modality_projection` is a single `Linear` without a bias to the language model's width. `Idefics3Processor`'s default `image_seq_len` is 169, the count its docstring derives for 364-pixel tiles in 14-pixel patches: 26 × 26 patches shuffled to 13 × 13 positions. One image position is one 28 × 28-pixel square of a tile, built from the last SigLIP layer after `post_layernorm`; a change to one patch vector moves exactly one position, `(row // 2, column // 2)` in raster order.

```python
from nnterp import tiny
from transformers import Idefics3Config

assert Idefics3Config().scale_factor == 2 and (364 // 14) ** 2 // 2 ** 2 == 169
inputs = tiny.image_call("idefics3")
core = model._module.model
r = model.config.scale_factor
with model.trace(inputs):
    features = model.image_features.save()
with torch.no_grad():
    patches = core.vision_model(pixel_values=inputs["pixel_values"][0]).last_hidden_state
    torch.testing.assert_close(features, core.connector(patches)[0])
    assert core.connector.modality_projection.proj.bias is None
    assert core.connector.modality_projection.proj.in_features == r * r * model.config.vision_config.hidden_size
    grid = int(patches.shape[1] ** 0.5)
    changed = patches.clone()
    changed[0, 3 * grid + 2] += 1.0                         # the patch at row 3, column 2
    moved = (core.connector(changed)[0] - features).abs().amax(-1) > 0
assert moved.nonzero().flatten().tolist() == [(3 // r) * (grid // r) + 2 // r]
```

## A grid whose side is not a multiple of `scale_factor` cannot run, and the class defaults give one

`pixel_shuffle` reshapes the patch grid into `scale_factor`-wide groups and fails when the side is not divisible. `Idefics3VisionConfig`'s own defaults (224-pixel images in 32-pixel patches) give a 7 × 7 grid: a model built from `Idefics3Config()` as is cannot take an image, and its sizes describe no Idefics3 checkpoint. A config must state the vision side it was trained with; a hand-made one must keep `image_size // patch_size` a multiple of `scale_factor`.

```python
from nnterp import tiny
from nnterp.wrappers.declarations import SIGLIP
from transformers import Idefics3VisionConfig

defaults = Idefics3VisionConfig()
assert (defaults.image_size, defaults.patch_size) == (224, 32) and (224 // 32) % 2 == 1

inputs = tiny.image_call("idefics3")
odd = tiny.load("idefics3", attn_implementation="eager",
                vision_config={**SIGLIP, "image_size": 28, "model_type": "idefics3_vision"})   # 7 x 7 patches
try:
    with odd.trace({**inputs, "pixel_values": torch.randn(1, 1, 3, 28, 28)}):
        odd.logits.save()
    raise AssertionError("a 7 x 7 patch grid ran through a 2 x 2 pixel shuffle")
except RuntimeError as error:
    assert "invalid for input of size" in str(error)
```

## `pixel_attention_mask` hides a tile's padding from the vision attention

The processor pads each tile to the batch's largest and returns `pixel_attention_mask`, 1 on real pixels. `get_image_features` turns it into a patch mask (a patch counts if any of its pixels is real), and the vision attention ignores masked patches as keys. With the mask, what the padding holds cannot reach a position built only from real patches; without it, every patch attends to the padding and every position changes with it. A hand-built call with padded tiles must pass the mask.

```python
from nnterp import tiny

inputs = tiny.image_call("idefics3")
padded = torch.ones(1, 1, 16, 16, dtype=torch.long)
padded[..., 8:] = 0                                         # the right half of the tile is padding
other = inputs["pixel_values"].clone()
other[..., 8:] += 1.0                                       # different padding
masked = {**inputs, "pixel_attention_mask": padded}
with model.trace(masked):
    a = model.image_features.save()
with model.trace({**masked, "pixel_values": other}):
    b = model.image_features.save()
with model.trace(inputs):
    c = model.image_features.save()
with model.trace({**inputs, "pixel_values": other}):
    d = model.image_features.save()

left = torch.tensor([0, 2])                                 # the positions of the left half of the 2 x 2 grid
assert torch.equal(a[left], b[left])
assert not torch.allclose(c[left], d[left])
```

## An image is tiles and a global view, each `image_seq_len` `<image>` tokens between text markers

`Idefics3ImageProcessor` resizes an image to a longest edge of 4 × 364 = 1456 pixels by default and cuts it into tiles of at most 364 (`max_image_size`); the whole image, downscaled, is added as a global view. `replace_image_token` writes, for each tile, `<fake_token_around_image><row_i_col_j>` and the tile's 169 `<image>` tokens, a newline after each row of tiles, then `<fake_token_around_image><global-img>`, the global view's 169 tokens and a closing `<fake_token_around_image>`. At those defaults a large square image is 4 × 4 tiles and the global view: 17 × 169 = 2873 image positions. `image_mask` marks the `<image>` tokens only (128257 by `Idefics3Config`'s default); the markers are text tokens, and a tile sees only the tiles before it.

```python
from types import SimpleNamespace
from nnterp import tiny
from transformers import Idefics3Config
from transformers.models.idefics3.image_processing_pil_idefics3 import Idefics3ImageProcessorPil
from transformers.models.idefics3.processing_idefics3 import Idefics3Processor

assert Idefics3ImageProcessorPil.size == {"longest_edge": 4 * 364} and Idefics3ImageProcessorPil.max_image_size == {"longest_edge": 364}
tiles = 4 * 364 // 364
fake = SimpleNamespace(fake_image_token="<fake_token_around_image>", global_image_tag="<global-img>",
                       image_token="<image>", image_seq_len=169)
text = Idefics3Processor.replace_image_token(fake, {"rows": [[tiles]], "cols": [[tiles]]}, 0)
assert text.count("<image>") == (tiles * tiles + 1) * 169 == 2873
assert text.count("<row_") == 16 and text.count("<global-img>") == 1
assert Idefics3Config().image_token_id == 128257

inputs = tiny.image_call("idefics3")
with model.trace(inputs):
    mask = model.image_mask.save()
assert torch.equal(mask[0], inputs["input_ids"][0] == model.config.image_token_id)
```

## An image whose pixels are all zero is taken for padding and dropped

`get_image_features` treats an image whose `pixel_values` are exactly zero everywhere as batch padding (the processor pads every row to the same number of images with zeros) and removes it before the vision model. A zero image is therefore not a "blank image" baseline: in a call with two images, the second all zeros, the vision side returns features for one, and the forward refuses the call ("Image features and image tokens do not match"). A blank baseline must be a real image put through the processor, whose normalization makes black pixels nonzero.

```python
from nnterp import tiny

one = tiny.image_call("idefics3")
per_image = int((one["input_ids"] == model.config.image_token_id).sum())
ids = one["input_ids"]
two_ids = torch.cat([ids[:, :1], ids[:, 1:1 + per_image], ids[:, 1:1 + per_image], ids[:, 1 + per_image:]], 1)
pixels = torch.cat([one["pixel_values"], one["pixel_values"] + 1.0], 1)
call = {"input_ids": two_ids, "attention_mask": torch.ones_like(two_ids), "pixel_values": pixels}
with model.trace(call):
    features = model.image_features.save()
assert features.shape[0] == 2 * per_image

blank = pixels.clone()
blank[:, 1] = 0.0
try:
    with model.trace({**call, "pixel_values": blank}):
        model.logits.save()
    raise AssertionError("a call with an all-zero image ran")
except Exception as error:
    assert "do not match" in str(error)
```

## The image rows enter through `inputs_merger`: the stream starts there as the connector's output

`Idefics3Model.inputs_merger` embeds nothing itself: it takes the embedded ids and the connector's output and places the rows with `masked_scatter` at the `<image>` positions. `image_features` is what `inputs_merger` is handed, and `layers[0].layer_input` at `image_mask` is exactly it, with no norm or scale between the linear and the first block; the placeholder's embedding row never reaches a block, and an edit of `token_embeddings` there changes nothing. Edit the image at `image_features`.

```python
from nnterp import tiny

inputs = tiny.image_call("idefics3")
with model.trace(inputs):
    mask = model.image_mask.save()
    features = model.image_features.save()
    entering = model.layers[0].layer_input.save()
    logits = model.logits.save()
assert torch.equal(entering[mask], features)
with model.trace(inputs):
    model.token_embeddings[mask] = 0
    placeholder_zeroed = model.logits.save()
with model.trace(inputs):
    model.image_features[:] = 0
    image_zeroed = model.logits.save()
assert torch.equal(placeholder_zeroed, logits) and not torch.allclose(image_zeroed, logits)
```
'''
