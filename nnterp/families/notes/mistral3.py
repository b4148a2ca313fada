"""Notes of Mistral 3 (Mistral3ForConditionalGeneration: Mistral Small 3.1 and its kin) written by hand, added to the
derived ones. Read against transformers' modeling_mistral3.py (Mistral3Model.get_image_features,
Mistral3MultiModalProjector, Mistral3PatchMerger's unfold), configuration_mistral3.py (Mistral3Config's defaults,
tie_word_embeddings among them), modeling_pixtral.py (PixtralVisionModel.forward: the crop to image_sizes, one
sequence for all images, generate_block_attention_mask, the 2-D rotary), processing_pixtral.py
(replace_image_token: [IMG], [IMG_BREAK], [IMG_END]) and image_processing_pil_pixtral.py
(get_resize_output_image_size), with Mistral-Small-3.1's released preprocessor_config.json (longest_edge 1540,
patch_size 14; copied in hlky/dinoml_v2 agents/plans/transformers/mistral3/mistral-small-3.1-preprocessor-config.json).
No released config.json of Mistral-Small-3.1-24B-Instruct-2503 could be found with a citable copy, so the model's
numbers below are the classes' defaults, said as such; the snippets run on the tiny Mistral 3 (a one-layer Pixtral
on 16-pixel images of 4-pixel patches, merged 2 x 2 into 4 image positions, a two-block Mistral) under an eager
load."""

LOAD = "eager"

MORE = r'''
## The projector normalizes each patch, then merges 2 × 2 patches channel by channel

`Mistral3MultiModalProjector` takes Pixtral's last layer (`vision_feature_layer` -1, `Mistral3Config`'s default; Pixtral has no norm after its last layer), applies an RMSNorm to every patch (its epsilon is the text config's `rms_norm_eps`), and then `Mistral3PatchMerger` cuts the image's patch grid into 2 × 2 squares with `unfold`. `unfold` orders the 4 × 1024 entries channel-major: entry 4c + k is channel c of the square's k-th patch (top-left, top-right, bottom-left, bottom-right), not the four patches side by side as InternVL and Qwen2-VL concatenate them. `merging_layer` (Linear 4096 → 1024, no bias) takes that vector back to the vision width, and `linear_1`, GELU and `linear_2` (no bias by the class default, `multimodal_projector_bias` false) map it into the language model. A weight of `merging_layer` read as four 1024-column blocks per patch mixes the patches up.

```python
from nnterp import tiny
from transformers import Mistral3Config

assert Mistral3Config().vision_feature_layer == -1 and Mistral3Config().multimodal_projector_bias is False
inputs = tiny.image_call("mistral3")
core = model._module.model
projector = core.multi_modal_projector
with model.trace(inputs):
    features = model.image_features.save()
with torch.no_grad():
    out = core.vision_tower(inputs["pixel_values"], image_sizes=inputs["image_sizes"], output_hidden_states=True)
    assert torch.equal(out.hidden_states[-1], out.last_hidden_state)          # no norm after the last layer
    grid = projector.norm(out.last_hidden_state[0]).view(4, 4, -1)
    squares = [(grid[2 * i, 2 * j], grid[2 * i, 2 * j + 1], grid[2 * i + 1, 2 * j], grid[2 * i + 1, 2 * j + 1])
               for i in range(2) for j in range(2)]
    interleaved = torch.stack([torch.stack(square, -1).reshape(-1) for square in squares])   # 4c + k
    side_by_side = torch.stack([torch.cat(square) for square in squares])
    head = lambda merged: projector.linear_2(projector.act(projector.linear_1(projector.patch_merger.merging_layer(merged))))
    torch.testing.assert_close(features, head(interleaved))
    assert not torch.allclose(features, head(side_by_side))
assert projector.norm.variance_epsilon == model.config.text_config.rms_norm_eps
```

## An image is rows of `[IMG]`, each closed by `[IMG_BREAK]`, the last by `[IMG_END]`

The processor writes, for each row of image positions, that many `[IMG]` placeholders (`image_token_index` 10 by the class default) and one `[IMG_BREAK]`, and replaces the last break by `[IMG_END]`. `image_mask` marks the `[IMG]` ids only; the break and end tokens are text, whose embeddings enter the stream between the rows. With the 1540-pixel `longest_edge` of Mistral-Small-3.1's preprocessor file, a 1540 × 1540 image is 55 rows of 55: 3025 image positions and 55 markers, 3080 in all. In the language model's one-dimensional rotary, vertical neighbours are one row plus its marker apart (56 positions at that size), and a probe over `image_mask` leaves the 55 marker positions out.

```python
import numpy as np
from nnterp import tiny
from transformers import Mistral3Config
from transformers.models.pixtral.image_processing_pil_pixtral import get_resize_output_image_size

config = Mistral3Config()
assert config.image_token_id == 10
step = config.vision_config.patch_size * config.spatial_merge_size                    # 28 pixels per position
height, width = get_resize_output_image_size(np.zeros((1540, 1540, 3)), size=(1540, 1540), patch_size=(step, step))
rows, columns = height // step, width // step
layout = (["[IMG]"] * columns + ["[IMG_BREAK]"]) * rows                               # replace_image_token's
layout[-1] = "[IMG_END]"
assert (rows, columns, layout.count("[IMG]"), len(layout)) == (55, 55, 3025, 3080)

inputs = tiny.image_call("mistral3")
with model.trace(inputs):
    mask = model.image_mask.save()
    features = model.image_features.save()
    entering = model.layers[0].layer_input.save()
    embedded = model.token_embeddings.save()
assert torch.equal(mask[0], inputs["input_ids"][0] == model.config.image_token_id)
assert torch.equal(entering[mask], features) and torch.equal(entering[~mask], embedded[~mask])
```

## The image keeps its shape: sides rounded up to multiples of 28, no tiles

There is no fixed resolution and no tiling. The image processor scales an image down only if a side exceeds `longest_edge` (1540 in Mistral-Small-3.1's preprocessor file), then rounds each side up to a multiple of 28 pixels (patch 14 × merge 2), and the image takes (height / 28) · (width / 28) positions. A 1000 × 1000 image becomes 1008 × 1008, 36 × 36 = 1296 positions; a 480 × 640 photograph 504 × 644, 18 × 23 = 414; a 3000 × 1000 scan 1540 × 532, 55 × 19 = 1045. The rounding stretches the image slightly, by up to 27 pixels per side.

```python
import numpy as np
from transformers.models.pixtral.image_processing_pil_pixtral import get_resize_output_image_size

def positions(height, width, longest=1540, step=28):
    h, w = get_resize_output_image_size(np.zeros((height, width, 3)), size=(longest, longest), patch_size=(step, step))
    assert h % step == 0 and w % step == 0 and max(h, w) <= longest
    return (h, w), (h // step) * (w // step)
assert positions(1000, 1000) == ((1008, 1008), 1296)
assert positions(480, 640) == ((504, 644), 414)
assert positions(3000, 1000) == ((1540, 532), 1045)
```

## Every image of a call is one Pixtral sequence, cut to its size, attended in its own block

`pixel_values` is padded to the largest image of the batch; `PixtralVisionModel` cuts each image's patch grid back to `image_sizes` (the padding never enters the tower), concatenates the images into one sequence and attends with a block-diagonal mask (`generate_block_attention_mask`): no patch sees another image. Each patch's position in the tower is its (row, column) in its own image, through a 2-D rotary, and nothing else. `image_sizes` is therefore part of the input, not metadata: a wrong size crops another grid.

```python
from nnterp import tiny

core = model._module.model
one, two = tiny.image_call("mistral3", seed=0), tiny.image_call("mistral3", seed=1)
sizes = torch.tensor([[16, 16], [8, 16]])                             # the second image: the top half only
pixels = torch.cat([one["pixel_values"], two["pixel_values"]])
with torch.no_grad():
    both = core.get_image_features(pixels, sizes, vision_feature_layer=-1).pooler_output
    other = pixels.clone()
    other[1] = torch.randn(3, 16, 16, generator=torch.Generator().manual_seed(5))
    changed = core.get_image_features(other, sizes, vision_feature_layer=-1).pooler_output
    padded = pixels.clone()
    padded[1, :, 8:] = 0                                              # below the second image's size
    unpadded = core.get_image_features(padded, sizes, vision_feature_layer=-1).pooler_output
assert [part.shape[0] for part in both] == [4, 2]                      # 2 x 2 and 1 x 2 positions
assert torch.equal(both[0], changed[0]) and not torch.allclose(both[1], changed[1])
assert torch.equal(both[1], unpadded[1])
assert not any("position" in name for name, _ in core.vision_tower.named_parameters())   # rotary only, no table
```

## `Mistral3Config` ties `lm_head` to the embeddings unless the file says otherwise

`Mistral3Config`'s `tie_word_embeddings` defaults to true, while its text config (`MistralConfig`) defaults to false, and the model ties by the top-level flag. A config.json that names no top-level `tie_word_embeddings` therefore loads with `lm_head.weight` and `embed_tokens.weight` as one matrix; whether a checkpoint's file sets the flag decides whether a logit lens reads the embedding rows. Read `model.config.tie_word_embeddings`, or compare the two weights, before assuming either.

```python
from transformers import Mistral3Config, Mistral3ForConditionalGeneration

assert Mistral3Config().tie_word_embeddings is True and Mistral3Config().text_config.tie_word_embeddings is False
assert model._module.lm_head.weight is model._module.model.language_model.embed_tokens.weight

data = model.config.to_dict()
data["tie_word_embeddings"] = False
untied = Mistral3ForConditionalGeneration(Mistral3Config(**data))
assert untied.lm_head.weight is not untied.model.language_model.embed_tokens.weight
data.pop("tie_word_embeddings")
unnamed = Mistral3ForConditionalGeneration(Mistral3Config(**data))
assert unnamed.lm_head.weight is unnamed.model.language_model.embed_tokens.weight
```

## The language model's rotary counts the break tokens: rows sit a row and a marker apart

The text stack is Mistral with one-dimensional rotary positions over the whole sequence, `[IMG_BREAK]` markers included, and causal attention. Image position (r, c) of an image of `w` columns starting at index s sits at s + r(w + 1) + c: vertical neighbours are w + 1 indices apart, horizontal ones 1, and the first row is computed without any later row. Nothing in the language model knows rows and columns except through these indices and the break tokens; the 2-D rotary stays inside Pixtral.

```python
from nnterp import tiny

inputs = tiny.image_call("mistral3")
token, columns = model.config.image_token_id, 2
text = inputs["input_ids"][:, inputs["input_ids"][0] != token]
row = torch.tensor([[token] * columns + [7]])                          # 7 stands for [IMG_BREAK]
ids = torch.cat([text[:, :1], row, row, text[:, 1:]], 1)
call = {**inputs, "input_ids": ids, "attention_mask": torch.ones_like(ids)}
attention = model.layers[0].self_attn
with model.trace(call):
    mask = model.image_mask.save()
    unrotated = attention.attention_keys_unrotated.save()
    keys = attention.attention_keys.save()
    probs = attention.attention_probabilities.save()
image = mask[0].nonzero().flatten()
assert image.tolist() == [1, 2, 4, 5]                                  # (r, c) at 1 + r (w + 1) + c
n, d = keys.shape[-2], keys.shape[-1]
angles = torch.arange(n).float()[:, None] * model._module.model.language_model.rotary_emb.inv_freq[None]
cos, sin = torch.cat((angles, angles), -1).cos(), torch.cat((angles, angles), -1).sin()
torch.testing.assert_close(keys, unrotated * cos + torch.cat((-unrotated[..., d // 2:], unrotated[..., :d // 2]), -1) * sin)
assert bool((probs[0][:, image[1], image[2]] == 0).all())              # the first row never sees the second
```
'''
