"""Notes of SmolVLM (SmolVLMForConditionalGeneration) written by hand, added to the derived ones. Read against
transformers' modeling_smolvlm.py (SmolVLMModel.get_image_features: the dropped all-zero images, the vision model's
post_layernorm; SmolVLMConnector.pixel_shuffle and SmolVLMSimpleMLP; get_placeholder_mask), processing_smolvlm.py
(_prompt_split_image, _prompt_single_image) and configuration_smolvlm.py, with HuggingFaceTB/SmolVLM2-2.2B-Instruct's
released config.json (the numbers below are its); the snippets run on the tiny SmolVLM (a one-layer SigLIP-style
tower on one 16-pixel image of 4-pixel patches, scale_factor 2: 16 patches, 4 image positions, a two-block Llama)
under an eager load."""

LOAD = "eager"

MORE = r'''
## One image position is a 3 × 3 block of SigLIP patches, concatenated and projected by one linear

The connector has no MLP: `pixel_shuffle` cuts the vision model's grid of patch vectors into `scale_factor × scale_factor` blocks and concatenates each block's vectors into one, and `modality_projection` is a single `Linear` without a bias to the language model's width. SmolVLM2-2.2B's vision side takes 384-pixel tiles in 14-pixel patches, 27 × 27 = 729 patches, and its `scale_factor` 3 makes them 9 × 9 = 81 positions of 9 × 1152 = 10368 entries, projected to 2048. So one image position is one 42 × 42-pixel square, and the patch vectors it is made of are the last SigLIP layer's after `post_layernorm`, no layer chosen. A change to one patch vector moves one image position only; the position is `(row // 3, column // 3)` in the 9 × 9 grid, in raster order.

```python
from nnterp import tiny
from transformers import SmolVLMConfig

facts = released("HuggingFaceTB/SmolVLM2-2.2B-Instruct")
built = SmolVLMConfig(**facts)
side = built.vision_config.image_size // built.vision_config.patch_size
assert (built.vision_config.image_size, built.vision_config.patch_size, facts["scale_factor"]) == (384, 14, 3)
assert side == 27 and (side // 3) ** 2 == 81 and 9 * built.vision_config.hidden_size == 10368
assert built.text_config.hidden_size == 2048

inputs = tiny.image_call("smolvlm")
core = model._module.model
r = model.config.scale_factor
with model.trace(inputs):
    features = model.image_features.save()
with torch.no_grad():
    patches = core.vision_model(pixel_values=inputs["pixel_values"][0]).last_hidden_state
    torch.testing.assert_close(features, core.connector(patches)[0])
    assert core.connector.modality_projection.proj.bias is None
    grid = int(patches.shape[1] ** 0.5)                     # 4 x 4 patches on the tiny model
    changed = patches.clone()
    changed[0, 2 * grid + 3] += 1.0                         # the patch at row 2, column 3
    moved = (core.connector(changed)[0] - features).abs().amax(-1) > 0
assert moved.nonzero().flatten().tolist() == [(2 // r) * (grid // r) + 3 // r]
```

## An image is tiles and a global view, each 81 `<image>` tokens between text markers

The processor splits a large image into 384-pixel tiles and adds the whole image downscaled as a global view; each of them is 81 positions. Between them the prompt holds ordinary text tokens: `<fake_token_around_image>` and `<row_i_col_j>` before each tile, a newline after each row of tiles, `<fake_token_around_image><global-img>` before the global view and `<fake_token_around_image>` after it. `image_mask` marks the `<image>` tokens (id 49190) only; the markers are embedded from the vocabulary like any word, and a logit lens at `<row_1_col_2>` reads a text token. The released `vision_config` of the 2.2B lists `size` {"longest_edge": 1920} and `max_image_size` {"longest_edge": 384}: at those settings a large square image becomes 5 × 5 tiles and the global view, 26 × 81 = 2106 image positions. The language model's positions are ordinary and causal: a tile sees only the tiles before it, and the global view, last, sees them all.

```python
from nnterp import tiny
from transformers.models.smolvlm.processing_smolvlm import _prompt_split_image

facts = released("HuggingFaceTB/SmolVLM2-2.2B-Instruct")
vision = facts["vision_config"]
assert vision["size"] == {"longest_edge": 1920} and vision["max_image_size"] == {"longest_edge": 384}
assert facts["image_token_id"] == 49190
tiles = 1920 // 384
text = _prompt_split_image(81, tiles, tiles, "<fake_token_around_image>", "<image>", "<global-img>")
assert text.count("<image>") == (tiles * tiles + 1) * 81 == 2106
assert text.count("<row_") == 25 and text.count("<global-img>") == 1 and text.count("<fake_token_around_image>") == 27

inputs = tiny.image_call("smolvlm")
with model.trace(inputs):
    mask = model.image_mask.save()
assert torch.equal(mask[0], inputs["input_ids"][0] == model.config.image_token_id)
assert int(mask.sum()) == model._module.model.image_seq_len == 4
```

## An image whose pixels are all zero is taken for padding and dropped

`get_image_features` treats an image whose `pixel_values` are exactly zero everywhere as batch padding (the processor pads every row to the same number of images with zeros) and removes it before the vision model. A zero image is therefore not a "blank image" baseline: in a call with two images, the second all zeros, the vision side returns features for one image, and the forward refuses the call for too few features against the placeholders ("Image features and image tokens do not match"). A blank baseline must be a real image (the processor's normalization of a black image is not zero), or a different value of `pixel_values`.

```python
from nnterp import tiny

one = tiny.image_call("smolvlm")
per_image = int((one["input_ids"] == model.config.image_token_id).sum())
ids = one["input_ids"]
two_ids = torch.cat([ids[:, :1], ids[:, 1:1 + per_image], ids[:, 1:1 + per_image], ids[:, 1 + per_image:]], 1)
pixels = torch.cat([one["pixel_values"], one["pixel_values"] + 1.0], 1)     # [1, 2, 3, 16, 16]
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

## `lm_head` is a matrix of its own: the one `tie_word_embeddings: true` in the file is in dead keys

SmolVLM2-2.2B's config.json sets `tie_word_embeddings` false at the top level and in `vision_config`, gives none in `text_config`, and has `true` only inside the unused `perceiver_config` (see below). `SmolVLMConfig` builds the text config untied, and the model's `lm_head` is its own 49280 × 2048 matrix, separate from `embed_tokens`. A lens that takes `embed_tokens.weight` as the unembedding, as on a tied SmolLM2, reads the wrong matrix; `project_on_vocab` uses `lm_head`.

```python
from transformers import AutoModelForImageTextToText, SmolVLMConfig

facts = released("HuggingFaceTB/SmolVLM2-2.2B-Instruct")
assert facts["tie_word_embeddings"] is False and "tie_word_embeddings" not in facts["text_config"]
assert facts["text_config"]["perceiver_config"]["tie_word_embeddings"] is True
built = SmolVLMConfig(**facts)
assert built.tie_word_embeddings is False and built.text_config.tie_word_embeddings is False
with torch.device("meta"):
    real = AutoModelForImageTextToText.from_config(built)
assert real.lm_head.weight is not real.get_input_embeddings().weight
assert tuple(real.lm_head.weight.shape) == (49280, 2048)
```

## The released text config describes a perceiver resampler that is never built

The 2.2B's `text_config` still holds the keys of its training code's architecture, `VLlama3ForCausalLM`: a `perceiver_config` (64 latents, depth 6), `use_resampler` false, `pixel_shuffle_factor` 3, `qk_layer_norms` false. transformers reads none of them: the language model is a plain `LlamaModel`, and `SmolVLMModel` has a vision model, the pixel-shuffle connector and the text model, nothing else. There is no resampler between the image and the stream, whatever the config file suggests; the shuffle factor the model uses is the top-level `scale_factor`.

```python
from transformers import AutoModelForImageTextToText, SmolVLMConfig

facts = released("HuggingFaceTB/SmolVLM2-2.2B-Instruct")
text = facts["text_config"]
assert text["architectures"] == ["VLlama3ForCausalLM"] and text["use_resampler"] is False
assert text["perceiver_config"]["resampler_n_latents"] == 64 and text["pixel_shuffle_factor"] == facts["scale_factor"] == 3
with torch.device("meta"):
    real = AutoModelForImageTextToText.from_config(SmolVLMConfig(**facts))
assert [name for name, _ in real.model.named_children()] == ["vision_model", "connector", "text_model"]
assert type(real.model.text_model).__name__ == "LlamaModel"
assert not any("resampler" in name or "perceiver" in name for name, _ in real.named_modules())
```

## At an image position the stream starts as the connector's output, unscaled, and the placeholder's embedding is discarded

`SmolVLMModel.forward` embeds every id, the `<image>` placeholders included, and `inputs_embeds.masked_scatter` replaces those rows with the connector's output: `layers[0].layer_input` at `image_mask` is `image_features`, bit for bit, with no norm or scale between the projection and the first block. The placeholder's own embedding row (49190) never reaches a block; an edit of `token_embeddings` there changes nothing, while the text markers around the image are real embeddings and do.

```python
from nnterp import tiny

inputs = tiny.image_call("smolvlm")
with model.trace(inputs):
    mask = model.image_mask.save()
    features = model.image_features.save()
    entering = model.layers[0].layer_input.save()
    logits = model.logits.save()
assert torch.equal(entering[mask], features)
with model.trace(inputs):
    model.token_embeddings[mask] = 0
    zeroed = model.logits.save()
assert torch.equal(zeroed, logits)
```
'''
