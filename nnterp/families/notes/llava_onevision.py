"""Notes of LLaVA-OneVision (LlavaOnevisionForConditionalGeneration) written by hand, added to the derived ones. Read
against transformers' modeling_llava_onevision.py (LlavaOnevisionModel.get_image_features, pack_image_features and
its anyres_max interpolation, get_video_features and apply_pooling, image_newline, image_size_to_num_patches),
configuration_llava_onevision.py (LlavaOnevisionConfig's defaults and its tie_word_embeddings workaround),
processing_llava_onevision.py (replace_image_token, _get_number_of_features, replace_video_token) and
modeling_siglip.py (post_layernorm on last_hidden_state only), with llava-hf/llava-onevision-qwen2-0.5b-ov-hf's
released config.json; the snippets run on the tiny LLaVA-OneVision (a one-layer SigLIP tower on 16-pixel views in
4-pixel patches, image_grid_pinpoints [[16, 16]]: a base view and one tile, 16 + 16 + 4 = 36 image positions, a
two-block Qwen2) under an eager load."""

LOAD = "eager"

MORE = r'''
## The language model reads SigLIP's last layer, every patch, before `post_layernorm`

llava-onevision-qwen2-0.5b-ov-hf sets `vision_feature_layer` -1 and `vision_feature_select_strategy` `"full"`, with a SigLIP tower of 26 layers at 384 pixels and `vision_use_head` false. `get_image_features` takes `hidden_states[-1]`, the 26th layer's output as the encoder returns it, and keeps every row: SigLIP has no class token, so nothing is dropped. `post_layernorm` normalizes only `last_hidden_state`, which the model never reads: the rows the projector (linear 1152 → 896, GELU, linear 896 → 896, both with a bias) receives are the encoder's, unnormalized. A probe or an SAE trained on `vision_tower`'s `last_hidden_state` reads a normalized copy the language model never receives.

```python
from nnterp import tiny

facts = released("llava-hf/llava-onevision-qwen2-0.5b-ov-hf")
assert facts["vision_feature_layer"] == -1 and facts["vision_feature_select_strategy"] == "full"
vision = facts["vision_config"]
assert (vision["num_hidden_layers"], vision["image_size"], vision["vision_use_head"]) == (26, 384, False)

inputs = tiny.image_call("llava_onevision")
core = model._module.model
side = model.config.vision_config.image_size // model.config.vision_config.patch_size
with model.trace(inputs):
    features = model.image_features.save()
with torch.no_grad():
    out = core.vision_tower(inputs["pixel_values"][0], output_hidden_states=True)
    base = features[:side * side]                                  # the base view's rows
    torch.testing.assert_close(base, core.multi_modal_projector(out.hidden_states[-1][0]))
    assert not torch.allclose(base, core.multi_modal_projector(out.last_hidden_state[0]))   # post_layernorm'd
```

## One 384 × 384 image is 1485 positions: a base view, its tile, and a newline after each tile row

For a prompt with one image, the processor sends it twice at least: a base view (the whole image resized to 384 × 384) and the tiles of the grid that `select_best_resolution` picks from the 36 `image_grid_pinpoints` (multiples of 384 up to 2304 per side). SigLIP cuts a 384-pixel view into 14-pixel patches, 27 × 27 = 729 rows (the last 6 pixels of each side are not covered). `pack_image_features` puts the base view's 729 rows first, unchanged, then the tiles as one feature map, unpadded to the image's aspect ratio, with the learned `image_newline` after every row of the map; the base view gets no newline. A 384 × 384 image: one tile, 729 + 27 × 27 + 27 = 1485 positions; 768 × 768: four tiles, 729 + 54 × 54 + 54 = 3699. The prompt holds that many `<image>` placeholders (id 151646), and `image_mask.sum()` counts them, the newline rows included.

```python
import types
from nnterp import tiny
from transformers import LlavaOnevisionConfig
from transformers.models.llava_onevision.modeling_llava_onevision import LlavaOnevisionModel, image_size_to_num_patches

facts = released("llava-hf/llava-onevision-qwen2-0.5b-ov-hf")
config = LlavaOnevisionConfig(**facts)
assert len(facts["image_grid_pinpoints"]) == 36 and max(max(p) for p in facts["image_grid_pinpoints"]) == 2304
assert config.image_token_id == facts["image_token_index"] == 151646
side = config.vision_config.image_size // config.vision_config.patch_size                # 27
def positions(height, width):                                      # the model's own packing, at the released config
    views = image_size_to_num_patches((height, width), config.image_grid_pinpoints, config.vision_config.image_size)
    packed = LlavaOnevisionModel.pack_image_features(types.SimpleNamespace(config=config),
        [torch.zeros(views, side * side, 1)], torch.tensor([[height, width]]), torch.ones(1), config.vision_aspect_ratio)
    return views, packed[0][0].shape[0]
assert side == 27 and positions(384, 384) == (2, 1485) and positions(768, 768) == (5, 3699)

inputs = tiny.image_call("llava_onevision")
side = model.config.vision_config.image_size // model.config.vision_config.patch_size    # 4
with model.trace(inputs):
    mask = model.image_mask.save()
    features = model.image_features.save()
assert int(mask.sum()) == features.shape[0] == side * side + side * side + side == 36
tile = features[side * side:].view(side, side + 1, -1)             # the map's rows, each closed by the newline
assert all(torch.equal(row, model._module.model.image_newline) for row in tile[:, side])
```

## Past nine tiles' worth of area the map is shrunk: its rows are no longer patches

`vision_aspect_ratio` is `"anyres_max_9"`: when the unpadded map is larger than 9 × 729 positions by more than a factor 1.1² in area, `pack_image_features` resizes it bilinearly (`interpolate`, no antialiasing) to its side divided by that ratio. A 1152 × 1152 image (3 × 3 tiles, an 81 × 81 map) is kept whole; a 1536 × 1536 image's 108 × 108 map and a 2304 × 2304 image's 162 × 162 map both come out 81 × 81, so every square image from 1152 pixels up takes 729 + 81 × 81 + 81 = 7371 positions, and a 1080 × 1920 frame 7269. On such an image the high-resolution positions are weighted mixes of neighbouring patches, not the projection of one patch: a position cannot be traced back to one 14-pixel square, and the 36 views SigLIP encodes for a 2304-pixel image are averaged two by two.

```python
import types
from transformers import LlavaOnevisionConfig
from transformers.models.llava_onevision.modeling_llava_onevision import LlavaOnevisionModel, image_size_to_num_patches

facts = released("llava-hf/llava-onevision-qwen2-0.5b-ov-hf")
config = LlavaOnevisionConfig(**facts)
assert config.vision_aspect_ratio == facts["vision_aspect_ratio"] == "anyres_max_9"
host, side = types.SimpleNamespace(config=config), 27
def pack(height, width, features=None):
    views = image_size_to_num_patches((height, width), config.image_grid_pinpoints, 384)
    if features is None:
        features = torch.randn(views, side * side, 1, generator=torch.Generator().manual_seed(0))
    packed = LlavaOnevisionModel.pack_image_features(host, [features], torch.tensor([[height, width]]), torch.ones(1),
                                                     config.vision_aspect_ratio)
    return views, features, packed[0][0]
assert [pack(s, s)[2].shape[0] for s in (1152, 1536, 2304)] == [7371, 7371, 7371]
assert pack(1080, 1920)[2].shape[0] == 7269

views, features, packed = pack(2304, 2304)
assert views == 37                                                  # base view + 6 x 6 tiles
grid = features[1:].view(6, 6, side, side, 1).permute(4, 0, 2, 1, 3).reshape(1, 162, 162)
shrunk = torch.nn.functional.interpolate(grid[None], [81, 81], mode="bilinear")[0]
rows = packed[side * side:].view(81, 82)                           # 81 rows, each + the newline
torch.testing.assert_close(rows[:, :81], shrunk[0])
assert not any(torch.equal(rows[0, 0], value) for value in grid.flatten()[:400])   # not any one patch
```

## With two images in one prompt, each is its base view alone: 730 positions

`batch_num_images` (the image processor returns it) says how many images each prompt holds. Only a prompt with exactly one image is tiled; in a prompt with two or more, `get_image_features` keeps each image's base view only and `pack_image_features` appends one `image_newline` after its 729 rows: 730 positions per image whatever its size, and the processor writes 730 placeholders. Multi-image prompts therefore see every image at 384 pixels, while the same image alone is seen at up to 2304. A call that drops `batch_num_images` treats every image as a single-image prompt and fails on the placeholder count.

```python
from nnterp import tiny

one, two = tiny.image_call("llava_onevision", seed=0), tiny.image_call("llava_onevision", seed=1)
token, core = model.config.image_token_id, model._module.model
per_image = 4 * 4 + 1                                               # the tiny base view, then one newline
ids = torch.cat([one["input_ids"][:, :1], torch.full((1, 2 * per_image), token), one["input_ids"][:, -4:]], 1)
call = {"input_ids": ids, "attention_mask": torch.ones_like(ids),
        "pixel_values": torch.cat([one["pixel_values"], two["pixel_values"]]),
        "image_sizes": torch.tensor([[16, 16], [16, 16]]), "batch_num_images": torch.tensor([2])}
with model.trace(call):
    features = model.image_features.save()
    mask = model.image_mask.save()
assert int(mask.sum()) == features.shape[0] == 2 * per_image
assert torch.equal(features[per_image - 1], core.image_newline) and torch.equal(features[-1], core.image_newline)
with torch.no_grad():
    states = core.vision_tower(two["pixel_values"][0, :1], output_hidden_states=True).hidden_states[-1]
    torch.testing.assert_close(features[per_image:-1], core.multi_modal_projector(states[0]))   # base view only

try:
    with model.trace({name: value for name, value in call.items() if name != "batch_num_images"}):
        model.logits.save()
    raise AssertionError("two images without batch_num_images ran")
except Exception as error:
    assert "do not match" in str(error)
```

## A video frame is 196 positions, pooled from 27 × 27, and one newline closes the whole video

`get_video_features` runs each frame through SigLIP and the projector like a base view, then `apply_pooling` resizes each frame's 27 × 27 map bilinearly to ⌈27 / 2⌉ = 14 per side: 196 positions per frame, no newline between frames, and a single `image_newline` after the last frame. The placeholders are `<video>` (id 151647), a second `masked_scatter` puts the frames there, and `image_mask` does not mark them. A video position is an interpolation of about four patches of one frame; time has no position of its own beyond the order of the frames in the sequence.

```python
import math

facts = released("llava-hf/llava-onevision-qwen2-0.5b-ov-hf")
side = facts["vision_config"]["image_size"] // facts["vision_config"]["patch_size"]
assert math.ceil(side / 2) ** 2 == 196 and facts["video_token_index"] == 151647

core = model._module.model
frames = torch.randn(1, 3, 3, 16, 16, generator=torch.Generator().manual_seed(0))
tiny_side = model.config.vision_config.image_size // model.config.vision_config.patch_size   # 4
with torch.no_grad():
    video = core.get_video_features(frames).pooler_output[0]
    states = core.vision_tower(frames[0], output_hidden_states=True).hidden_states[-1]
    grid = core.multi_modal_projector(states).view(3, tiny_side, tiny_side, -1).permute(0, 3, 1, 2)
    pooled = torch.nn.functional.interpolate(grid, [2, 2], mode="bilinear").permute(0, 2, 3, 1).reshape(12, -1)
assert video.shape[0] == 3 * 2 * 2 + 1
torch.testing.assert_close(video[:-1], pooled)
assert torch.equal(video[-1], core.image_newline)
```

## `lm_head` is the embedding matrix, though the file says `tie_word_embeddings: false`

The released config has `tie_word_embeddings` false at the top and true in `text_config` (Qwen2-0.5B's own). `LlavaOnevisionConfig.__post_init__` replaces a false top-level flag by the text config's true, so the model built from this file ties `lm_head.weight` to `language_model.embed_tokens.weight`: one 152000 × 896 matrix. A logit lens and an embedding lookup read the same rows, and an edit of `lm_head` is an edit of the embeddings. Reading `config.json`'s top level for the tie finds the wrong answer.

```python
from transformers import LlavaOnevisionConfig, LlavaOnevisionForConditionalGeneration

facts = released("llava-hf/llava-onevision-qwen2-0.5b-ov-hf")
assert facts["tie_word_embeddings"] is False and facts["text_config"]["tie_word_embeddings"] is True
built = LlavaOnevisionConfig(**facts)
assert built.tie_word_embeddings is True and built.text_config.hidden_size == 896 and built.text_config.vocab_size == 152000

def loaded(text_tie):                                               # the tiny sizes, with the file's two flags
    data = model.config.to_dict()
    data["tie_word_embeddings"], data["text_config"]["tie_word_embeddings"] = False, text_tie
    built = LlavaOnevisionForConditionalGeneration(LlavaOnevisionConfig(**data))
    return built.lm_head.weight is built.model.language_model.embed_tokens.weight
assert loaded(True) and not loaded(False)
```

## The image takes ordinary rotary positions, newline rows included

The language model is Qwen2 with one-dimensional rotary positions over the whole sequence: the 1485 positions of a 384 × 384 image are 1485 consecutive indices, the text after it sits 1485 further on, and each newline row takes an index like a patch. Patch (r, c) of the one-tile map sits 729 + 28r + c after the image's first position, so vertical neighbours are 28 indices apart, and the base view's patch of the same region is hundreds of indices earlier. Attention is causal over all of it: the base view is computed without the tile, the tile sees the base view, and only the text after the image sees the whole.

```python
from nnterp import tiny

inputs = tiny.image_call("llava_onevision")
attention = model.layers[0].self_attn
with model.trace(inputs):
    mask = model.image_mask.save()
    unrotated = attention.attention_keys_unrotated.save()
    keys = attention.attention_keys.save()
    probs = attention.attention_probabilities.save()
n, d = keys.shape[-2], keys.shape[-1]
angles = torch.arange(n).float()[:, None] * model._module.model.language_model.rotary_emb.inv_freq[None]
cos, sin = torch.cat((angles, angles), -1).cos(), torch.cat((angles, angles), -1).sin()
torch.testing.assert_close(keys, unrotated * cos + torch.cat((-unrotated[..., d // 2:], unrotated[..., :d // 2]), -1) * sin)
image = mask[0].nonzero().flatten()
assert int(image[-1]) - int(image[0]) + 1 == 36                    # consecutive indices, newlines included
assert bool((probs[0][:, image[0], image[1:]] == 0).all())          # the first patch sees nothing after it
```
'''
