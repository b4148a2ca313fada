"""Notes of Aya Vision (AyaVisionForConditionalGeneration) written by hand, added to the derived ones. Read against
transformers' modeling_aya_vision.py (AyaVisionModel.get_image_features, AyaVisionMultiModalProjector: pixel_shuffle,
the LayerNorm and the SwiGLU split; AyaVisionForConditionalGeneration.forward's logits), configuration_aya_vision.py
(AyaVisionConfig's defaults, tie_word_embeddings among them), processing_aya_vision.py (replace_image_token: the
tile markers and 169 <|IMG_PATCH|> per tile), got_ocr2's image_processing_pil_got_ocr2.py (the tiling) and
modeling_cohere2.py (sliding and full layers, logit_scale), with CohereLabs/aya-vision-8b's released config.json;
the snippets run on the tiny Aya Vision (a one-layer SigLIP on 16-pixel images of 4-pixel patches, downsample 2: 16
patches, 4 image positions, a two-block Cohere 2: one sliding, one full layer) under an eager load."""

LOAD = "eager"

MORE = r'''
## The projector is a pixel shuffle, a LayerNorm and a SwiGLU whose second half is the gate

aya-vision-8b's `downsample_factor` 2 concatenates each 2 × 2 square of SigLIP patches into one vector of 4 × 1152 = 4608 entries, in the order top-left, top-right, bottom-left, bottom-right. `AyaVisionMultiModalProjector` normalizes it (`LayerNorm(4608)`, `adapter_layer_norm_eps` 1e-6), maps it with `linear_1` to `alignment_intermediate_size` 28672, splits that in two halves and computes `silu(second half) · first half`: the gate is the second half, 14336 wide, and `linear_2` (14336 → 4096) brings it to the language model. The file's `projector_hidden_act` ("gelu") is not used by the projector, whose activation is fixed to SiLU. A reading of `linear_1`'s rows as [gate | up], Llama's order, swaps the two.

```python
from nnterp import tiny

facts = released("CohereLabs/aya-vision-8b")
assert (facts["downsample_factor"], facts["alignment_intermediate_size"], facts["adapter_layer_norm_eps"]) == (2, 28672, 1e-06)
assert facts["projector_hidden_act"] == "gelu" and facts["vision_config"]["hidden_size"] * 4 == 4608

inputs = tiny.image_call("aya_vision")
core = model._module.model
projector = core.multi_modal_projector
with model.trace(inputs):
    features = model.image_features.save()
with torch.no_grad():
    grid = core.vision_tower(inputs["pixel_values"], output_hidden_states=True).hidden_states[-1][0].view(4, 4, -1)
    blocks = torch.stack([torch.cat([grid[2 * i, 2 * j], grid[2 * i, 2 * j + 1], grid[2 * i + 1, 2 * j],
                                     grid[2 * i + 1, 2 * j + 1]]) for i in range(2) for j in range(2)])
    first, second = projector.linear_1(projector.layernorm(blocks)).chunk(2, -1)
    torch.testing.assert_close(features.reshape(4, -1), projector.linear_2(torch.nn.functional.silu(second) * first))
    assert not torch.allclose(features.reshape(4, -1), projector.linear_2(torch.nn.functional.silu(first) * second))
probe = torch.linspace(-3, 3, 7)
assert torch.equal(projector.act(probe), torch.nn.functional.silu(probe))   # SiLU, whatever the file's act
```

## The language model reads SigLIP's last layer, every patch, before `post_layernorm`

The released config sets `vision_feature_layer` -1 and `vision_feature_select_strategy` `"full"` over a 27-layer SigLIP (width 1152) at 364 pixels with `vision_use_head` false. `get_image_features` takes `hidden_states[-1]`, the 27th layer's output as the encoder returns it, and keeps every row: SigLIP has no class token. `post_layernorm` normalizes only `last_hidden_state`, which the model never reads, so the pixel shuffle receives unnormalized rows, and the projector's LayerNorm is the first norm after the tower. A probe trained on the vision tower's `last_hidden_state` reads a copy the language model never receives.

```python
from nnterp import tiny

facts = released("CohereLabs/aya-vision-8b")
assert facts["vision_feature_layer"] == -1 and facts["vision_feature_select_strategy"] == "full"
vision = facts["vision_config"]
assert (vision["num_hidden_layers"], vision["image_size"], vision["vision_use_head"]) == (27, 364, False)

inputs = tiny.image_call("aya_vision")
core = model._module.model
with model.trace(inputs):
    features = model.image_features.save()
with torch.no_grad():
    out = core.vision_tower(inputs["pixel_values"], output_hidden_states=True)
    assert not torch.equal(out.hidden_states[-1], out.last_hidden_state)
    torch.testing.assert_close(features.reshape(4, -1), core.multi_modal_projector(out.hidden_states[-1]).reshape(4, -1))
    assert not torch.allclose(features.reshape(4, -1), core.multi_modal_projector(out.last_hidden_state).reshape(4, -1))
```

## One 364-pixel tile is 169 positions; an image is up to 12 tiles and a global view, each behind a text marker

SigLIP cuts a 364-pixel tile into 26 × 26 patches of 14, and the 2 × 2 shuffle makes 13 × 13 = 169 image positions. The processor tiles every image (`crop_to_patches`, at most `max_splits_per_img` 12 tiles, the grid whose aspect ratio is nearest the image's) and adds a global view, the whole image at 364 × 364, after the tiles when there is more than one. The ids are `<|START_OF_IMG|>`, then per tile the text `TILE_1`, `TILE_2`, … and 169 `<|IMG_PATCH|>` (id 255036, `image_token_index`), then `TILE_GLOBAL` and 169 more, and `<|END_OF_IMG|>`. A 364 × 364 image is one view, 169 positions; a 728 × 728 one is 4 tiles and the global view, 845; the most is 13 × 169 = 2197. `image_mask` marks `<|IMG_PATCH|>` only: the markers are text tokens between the views.

```python
from nnterp import tiny
from transformers import AyaVisionConfig
from transformers.models.got_ocr2.image_processing_pil_got_ocr2 import GotOcr2ImageProcessorPil

facts = released("CohereLabs/aya-vision-8b")
vision = facts["vision_config"]
per_view = (vision["image_size"] // vision["patch_size"] // facts["downsample_factor"]) ** 2
assert per_view == 169 and AyaVisionConfig(**facts).image_token_id == facts["image_token_index"] == 255036
tile = vision["image_size"]
views = lambda h, w: GotOcr2ImageProcessorPil().get_number_of_image_patches(
    h, w, {"crop_to_patches": True, "max_patches": facts["max_splits_per_img"], "patch_size": {"height": tile, "width": tile}})
assert views(364, 364) * per_view == 169 and views(728, 728) * per_view == 845
assert (facts["max_splits_per_img"] + 1) * per_view == 2197

inputs = tiny.image_call("aya_vision")
with model.trace(inputs):
    mask = model.image_mask.save()
    features = model.image_features.save()
    entering = model.layers[0].layer_input.save()
assert torch.equal(mask[0], inputs["input_ids"][0] == model.config.image_token_id) and int(mask.sum()) == 4
assert torch.equal(entering[mask], features.reshape(-1, model.hidden_size))
```

## The logits are `lm_head`'s output: the released `logit_scale` 0.25 is not applied

Command R7B (Cohere 2) multiplies its head's output by `logit_scale`, and aya-vision-8b's text config keeps `logit_scale` 0.25. `AyaVisionForConditionalGeneration.forward` computes `logits = lm_head(hidden_states)` and never reads it: the wrapper's logits are four times what `Cohere2ForCausalLM` would return for the same last hidden state, and its softmax is sharper than the text model's. nnterp's `logits` is that output, and `project_on_vocab` applies no scale for this wrapper either, so a lens agrees with the model's own last layer.

```python
from nnterp import tiny

facts = released("CohereLabs/aya-vision-8b")
assert facts["text_config"]["logit_scale"] == 0.25
assert model.config.text_config.logit_scale == 0.25                  # the tiny's Cohere 2 keeps it too

inputs = tiny.image_call("aya_vision")
with model.trace(inputs):
    final = model.final_norm_output.save()
    logits = model.logits.save()
    lens = model.project_on_vocab(model.layers[-1].layer_output).save()
with torch.no_grad():
    assert torch.equal(logits, model._module.lm_head(final))
    assert not torch.allclose(logits, model._module.lm_head(final) * 0.25)
torch.testing.assert_close(lens, logits)
```

## Sliding layers cut the image off once the text is 4096 tokens past it

The language model is Cohere 2: `sliding_window` 4096 and `sliding_window_pattern` 4, so blocks 3, 7, 11, … attend over the whole sequence and the other three of every four only over the last 4096 positions. An image of up to 2197 positions fits in one window, but a token more than 4096 positions after an image position does not see it in 24 of the 32 blocks: in a long conversation the image reaches later text only through the eight full layers. Within one image (at most 2197 positions) every image position sees all of the image before it in both kinds of block.

```python
from nnterp import tiny
from transformers import AyaVisionConfig

facts = released("CohereLabs/aya-vision-8b")
text = facts["text_config"]
assert (text["sliding_window"], text["sliding_window_pattern"], text["num_hidden_layers"]) == (4096, 4, 32)
kinds = AyaVisionConfig(**facts).text_config.layer_types
assert [i for i, kind in enumerate(kinds) if kind == "full_attention"] == list(range(3, 32, 4))

narrow = tiny.load("aya_vision", attn_implementation="eager")
narrow.config.text_config.sliding_window = 3                         # a window shorter than the prompt
assert narrow.config.text_config.layer_types == ["sliding_attention", "full_attention"]
inputs = tiny.image_call("aya_vision")
with narrow.trace(inputs):
    mask = narrow.image_mask.save()
    sliding = narrow.layers[0].self_attn.attention_probabilities.save()
    full = narrow.layers[1].self_attn.attention_probabilities.save()
image = mask[0].nonzero().flatten()
assert bool((sliding[0][:, -1, image] == 0).all())                   # the last token: the image out of reach
assert bool((full[0][:, -1, image] > 0).all())
```

## `lm_head` is the embedding matrix, by the class's default

aya-vision-8b's config names no `tie_word_embeddings`, at the top or in `text_config`. `AyaVisionConfig`'s default is true, so a load ties `lm_head.weight` to `language_model.embed_tokens.weight`: one 256000 × 4096 matrix. The logit lens and the embeddings read the same rows; an edit of one is an edit of the other.

```python
from transformers import AyaVisionConfig, AyaVisionForConditionalGeneration

facts = released("CohereLabs/aya-vision-8b")
assert "tie_word_embeddings" not in facts and "tie_word_embeddings" not in facts["text_config"]
built = AyaVisionConfig(**facts)
assert built.tie_word_embeddings is True and (built.text_config.vocab_size, built.text_config.hidden_size) == (256000, 4096)
assert model._module.lm_head.weight is model._module.model.language_model.embed_tokens.weight

data = model.config.to_dict()
data["tie_word_embeddings"] = False
untied = AyaVisionForConditionalGeneration(AyaVisionConfig(**data))
assert untied.lm_head.weight is not untied.model.language_model.embed_tokens.weight
```
'''
