"""Notes of InternVL 3 (InternVLForConditionalGeneration) written by hand, added to the derived ones. Read against
transformers' modeling_internvl.py (InternVLModel.get_image_features and pixel_shuffle, InternVLMultiModalProjector,
InternVLVisionModel's layernorm under use_mean_pooling, get_placeholder_mask), configuration_internvl.py
(InternVLConfig's defaults, tie_word_embeddings among them), processing_internvl.py (replace_image_token:
<img>, image_seq_length placeholders per tile, </img>), got_ocr2's image_processing_pil_got_ocr2.py
(crop_image_to_patches, get_optimal_tiled_canvas, get_number_of_image_patches) and modeling_rope_utils.py (the
dynamic rotary), with OpenGVLab/InternVL3-1B-hf's released config.json and OpenGVLab/InternVL3-8B-hf's released
preprocessor_config.json (size 448 × 448, min_patches 1, max_patches 12; copied in hlky/dinoml_v2
agents/plans/transformers/internvl/_sources/OpenGVLab__InternVL3-8B-hf--preprocessor_config.json); the snippets
run on the tiny InternVL (a one-layer InternViT on 16-pixel tiles of 4-pixel patches, downsample_ratio 0.5: 16
patches, 4 image positions per tile, a two-block Qwen2) under an eager load."""

LOAD = "eager"

MORE = r'''
## The projector reads InternViT's last layer, unnormalized, without its class token

InternVL3-1B's config sets `vision_feature_layer` -1 and `vision_feature_select_strategy` `"default"`, over a 24-layer InternViT (width 1024) at 448 × 448. With -1, `get_image_features` takes `last_hidden_state`, and because the vision config sets `use_mean_pooling` true, the tower's final `layernorm` is an `nn.Identity`: `last_hidden_state` is the 24th layer's output as it leaves the residual, with no norm after it. `"default"` then drops row 0, the class token. Normalization happens only inside the projector, whose first module is a `LayerNorm` over the concatenated 2 × 2 block (below). A probe of the vision tower's output reads exactly what the projector receives; an SAE on it should expect unnormalized rows.

```python
from nnterp import tiny

facts = released("OpenGVLab/InternVL3-1B-hf")
assert facts["vision_feature_layer"] == -1 and facts["vision_feature_select_strategy"] == "default"
vision = facts["vision_config"]
assert vision["use_mean_pooling"] is True and (vision["num_hidden_layers"], vision["hidden_size"]) == (24, 1024)

inputs = tiny.image_call("internvl")
core = model._module.model
assert model.config.vision_config.use_mean_pooling and isinstance(core.vision_tower.layernorm, torch.nn.Identity)
with torch.no_grad():
    out = core.vision_tower(inputs["pixel_values"], output_hidden_states=True)
assert torch.equal(out.last_hidden_state, out.hidden_states[-1])           # no norm after the last layer
with model.trace(inputs):
    features = model.image_features.save()
rows = out.last_hidden_state[0, 1:]                                         # the class token dropped
with torch.no_grad():
    shuffled = core.pixel_shuffle(rows.reshape(1, 4, 4, -1), scale_factor=0.5).reshape(4, -1)
    torch.testing.assert_close(features, core.multi_modal_projector(shuffled))
    assert not torch.allclose(features, core.multi_modal_projector(
        core.pixel_shuffle(out.last_hidden_state[0, :-1].reshape(1, 4, 4, -1), scale_factor=0.5).reshape(4, -1)))
```

## One image position is a 2 × 2 block of patches, side by side in one 4096-wide vector: 256 per 448-pixel tile

A 448-pixel tile is 32 × 32 patches of 14 pixels. `pixel_shuffle` with `downsample_ratio` 0.5 cuts the grid into 2 × 2 blocks and concatenates each block into one vector of 4 × 1024 = 4096 entries, in the order (2i, 2j), (2i, 2j + 1), (2i + 1, 2j), (2i + 1, 2j + 1): top-left, top-right, bottom-left, bottom-right. The projector is `LayerNorm(4096)`, linear 4096 → 896, GELU, linear 896 → 896, all with a bias. One tile is 16 × 16 = 256 positions, in raster order over the blocks (`image_seq_length` 256 in the released config); one position is a 28 × 28-pixel square, and a change to one patch moves one position only.

```python
from nnterp import tiny

facts = released("OpenGVLab/InternVL3-1B-hf")
side = facts["vision_config"]["image_size"][0] // facts["vision_config"]["patch_size"][0]
assert side == 32 and int(side * facts["downsample_ratio"]) ** 2 == facts["image_seq_length"] == 256
assert 4 * facts["vision_config"]["hidden_size"] == 4096

inputs = tiny.image_call("internvl")
core = model._module.model
with torch.no_grad():
    grid = core.vision_tower(inputs["pixel_values"]).last_hidden_state[0, 1:].view(4, 4, -1)
    blocks = torch.stack([torch.cat([grid[2 * i, 2 * j], grid[2 * i, 2 * j + 1], grid[2 * i + 1, 2 * j],
                                     grid[2 * i + 1, 2 * j + 1]]) for i in range(2) for j in range(2)])
    projected = core.multi_modal_projector(blocks)
    edited = blocks.clone()
    edited[2, grid.shape[-1]:2 * grid.shape[-1]] += 1.0              # patch (2, 1): the third block's second slot
    moved = core.multi_modal_projector(edited)
with model.trace(inputs):
    features = model.image_features.save()
torch.testing.assert_close(features, projected)                            # the block order, stated
assert ((moved - projected).abs().amax(-1) > 0).tolist() == [False, False, True, False]
assert isinstance(core.multi_modal_projector.layer_norm, torch.nn.LayerNorm)
```

## An image is up to 12 tiles and a thumbnail, back to back: a 448 × 672 image is 1792 positions

`InternVLProcessor` tiles every image (`crop_to_patches`): `get_optimal_tiled_canvas` picks a grid of 448-pixel tiles, from 1 to 12 (InternVL3-8B-hf's preprocessor file, the class defaults too), with the aspect ratio nearest the image's, and when there is more than one tile it adds a thumbnail, the whole image resized to 448 × 448. Each view takes 256 positions, and the ids are `<img>`, 256 × views `<IMG_CONTEXT>` placeholders (id 151667, `image_token_id`), `</img>`. A 448 × 448 image is one tile and no thumbnail, 256 positions; a 448 × 672 one (height × width) is a 2-row, 3-column grid and a thumbnail, 7 × 256 = 1792; a 1080 × 1920 frame is 2 rows of 4 tiles and a thumbnail, 9 × 256 = 2304. Nothing in the ids gives the grid: no tile separator, no row marker, so 448 × 672 and 672 × 448 produce the same 1792 placeholders, and the language model learns the layout only from what the tiles contain. `image_mask.sum()` counts placeholders, not images or tiles.

```python
from nnterp import tiny
from transformers.models.got_ocr2.image_processing_pil_got_ocr2 import GotOcr2ImageProcessorPil, get_optimal_tiled_canvas

facts = released("OpenGVLab/InternVL3-1B-hf")
assert facts["image_token_id"] == 151667
tile, per_view = facts["vision_config"]["image_size"][0], facts["image_seq_length"]
processor = GotOcr2ImageProcessorPil()
assert (processor.min_patches, processor.max_patches) == (1, 12)
views = lambda h, w: processor.get_number_of_image_patches(h, w, {"crop_to_patches": True, "patch_size": {"height": tile, "width": tile}})
assert views(448, 448) * per_view == 256 and views(448, 672) * per_view == 1792 and views(1080, 1920) * per_view == 2304
assert get_optimal_tiled_canvas((448, 672), (tile, tile), 1, 12) == (3, 2)          # (columns, rows)
assert get_optimal_tiled_canvas((672, 448), (tile, tile), 1, 12) == (2, 3) and views(672, 448) == views(448, 672)

inputs = tiny.image_call("internvl")
with model.trace(inputs):
    mask = model.image_mask.save()
assert torch.equal(mask[0], inputs["input_ids"][0] == model.config.image_token_id) and int(mask.sum()) == 4
```

## Each tile is encoded alone, and the whole image comes last

The tiles and the thumbnail are a batch to InternViT: its attention never crosses views, so a tile's 256 positions depend on that tile's pixels only. `crop_image_to_patches` appends the thumbnail after the tiles, so in the stream the tiles come first, in raster order of the grid, and the one view of the whole image comes last. Under the language model's causal mask, no tile position ever attends to the thumbnail: a probe at tile positions reads representations built from the tiles before them and the text before the image, never from the global view; only the thumbnail's positions and the text after the image see everything. (LLaVA-NeXT and LLaVA-OneVision put their base view first.)

```python
from nnterp import tiny

one, two = tiny.image_call("internvl", seed=0), tiny.image_call("internvl", seed=1)
token = model.config.image_token_id
text = one["input_ids"][:, one["input_ids"][0] != token]
ids = torch.cat([text[:, :1], torch.full((1, 8), token), text[:, 1:]], 1)        # two views of 4 positions
call = {"input_ids": ids, "attention_mask": torch.ones_like(ids),
        "pixel_values": torch.cat([one["pixel_values"], two["pixel_values"]])}
with model.trace(call):
    features = model.image_features.save()
    stream = model.layers[-1].layer_output.save()
with model.trace({**call, "pixel_values": torch.cat([one["pixel_values"], one["pixel_values"]])}):
    changed = model.image_features.save()
    changed_stream = model.layers[-1].layer_output.save()
assert torch.equal(features[:4], changed[:4]) and not torch.allclose(features[4:], changed[4:])
assert torch.equal(stream[0, :5], changed_stream[0, :5])          # BOS and the first view: untouched
assert not torch.allclose(stream[0, 5:], changed_stream[0, 5:])
```

## At an image position the stream starts as the projector's output

`InternVLModel.forward` embeds every id and overwrites the rows at `image_mask` with the projector's output (`inputs_embeds.masked_scatter`), unscaled and unnormalized, so `layers[0].layer_input` at those rows is `image_features` bit for bit and the embedding of `<IMG_CONTEXT>` never reaches a block. `<img>` and `</img>` are ordinary text tokens outside `image_mask`, whose embeddings do enter. `image_features` is flat, `[positions, 896]`, across every view of every image in the batch in order. Patch image content at `image_features` or at block 0's input, never at `token_embeddings`; the ids must hold exactly as many placeholders as there are rows, or the forward raises "Image features and image tokens do not match".

```python
from nnterp import tiny

inputs = tiny.image_call("internvl")
with model.trace(inputs):
    mask = model.image_mask.save()
    features = model.image_features.save()
    embedded = model.token_embeddings.save()
    entering = model.layers[0].layer_input.save()
    logits = model.logits.save()
assert torch.equal(entering[mask], features) and torch.equal(entering[~mask], embedded[~mask])
with model.trace(inputs):
    model.token_embeddings[mask] = 0
    placeholder_zeroed = model.logits.save()
assert torch.equal(placeholder_zeroed, logits)

extra = torch.cat([inputs["input_ids"][:, :2], inputs["input_ids"][:, 1:]], 1)
try:
    with model.trace({**inputs, "input_ids": extra, "attention_mask": torch.ones_like(extra)}):
        model.logits.save()
    raise AssertionError("five placeholders for four rows ran")
except ValueError as error:
    assert "do not match" in str(error)
```

## The rotary is dynamic NTK: past 32768 positions the angles depend on the longest call before

InternVL3-1B's `text_config` sets `rope_scaling` `{"type": "dynamic", "factor": 2.0}` with `max_position_embeddings` 32768 and base 1e6. A call whose positions stay under 32768 gets Qwen2's ordinary rotary. A call that reaches past it makes the rotary module recompute its frequencies with a larger base, for the whole call, the image at the start included, and keep them: a later call goes back to the plain frequencies only if it is shorter than 32768. So a 35000-position call is rotated one way on a fresh model and another way after a 40000-position call, and a generation that crosses 32768 recomputes the frequencies at every step while its cache keeps keys rotated with the older ones. Many-tile, multi-image prompts reach that length: 12 images of 13 views are 39936 positions.

```python
import math
from transformers import InternVLConfig
from transformers.models.qwen2.modeling_qwen2 import Qwen2RotaryEmbedding

facts = released("OpenGVLab/InternVL3-1B-hf")
assert facts["text_config"]["rope_scaling"]["factor"] == 2.0 and facts["text_config"]["rope_scaling"]["rope_type"] == "dynamic"
text = InternVLConfig(**facts).text_config
assert text.max_position_embeddings == 32768 and text.rope_parameters["rope_theta"] == 1000000.0
head = text.hidden_size // text.num_attention_heads
rotary, probe = Qwen2RotaryEmbedding(text), torch.zeros(1, 1, head)
plain = 1.0 / 1000000.0 ** (torch.arange(0, head, 2).double() / head)
short, _ = rotary(probe, torch.tensor([[0, 10, 100]]))
torch.testing.assert_close(short[0, 1, :head // 2].double(), torch.cos(10 * plain), atol=1e-5, rtol=0)   # float32 angles up to 10

fresh, _ = rotary(probe, torch.tensor([[0, 10, 34999]]))
assert not torch.allclose(fresh[0, 1], short[0, 1])                 # the same position 10, a larger base
rotary(probe, torch.tensor([[0, 10, 39999]]))                         # a longer call in between
after, _ = rotary(probe, torch.tensor([[0, 10, 34999]]))
assert not torch.allclose(fresh[0, 1], after[0, 1])                  # position 10, rotated otherwise
again, _ = rotary(probe, torch.tensor([[0, 10, 100]]))
assert torch.equal(again, short)                                     # a short call resets the frequencies
assert 12 * 13 * 256 == 39936 > 32768
```

## `lm_head` is the embedding matrix, by the class's default

Neither the top level of InternVL3-1B's config nor its `text_config` names `tie_word_embeddings`. `InternVLConfig`'s default is true (Qwen2's text config would say false), so a load ties `lm_head.weight` to `language_model.embed_tokens.weight`: one 151674 × 896 matrix. A logit lens and the embeddings read the same rows, and an edit of one is an edit of the other.

```python
from transformers import InternVLConfig, InternVLForConditionalGeneration

facts = released("OpenGVLab/InternVL3-1B-hf")
assert "tie_word_embeddings" not in facts and "tie_word_embeddings" not in facts["text_config"]
built = InternVLConfig(**facts)
assert built.tie_word_embeddings is True and built.text_config.tie_word_embeddings is False
assert (built.text_config.vocab_size, built.text_config.hidden_size) == (151674, 896)
assert model._module.lm_head.weight is model._module.model.language_model.embed_tokens.weight

data = model.config.to_dict()
data.pop("tie_word_embeddings")
data["text_config"]["tie_word_embeddings"] = False
untold = InternVLForConditionalGeneration(InternVLConfig(**data))  # the file's case: the class decides
assert untold.lm_head.weight is untold.model.language_model.embed_tokens.weight
```
'''
