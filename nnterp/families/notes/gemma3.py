"""Notes of Gemma 3's image-text model (Gemma3ForConditionalGeneration) written by hand, added to the derived ones;
the language stack's own notes are on the gemma3_text page. Read against transformers' modeling_gemma3.py
(Gemma3Model.forward, get_block_sequence_ids_for_mask, create_masks_for_vision_model, Gemma3MultiModalProjector,
Gemma3TextScaledWordEmbedding), configuration_gemma3.py (Gemma3Config's defaults) and processing_gemma3.py
(full_image_sequence, token_type_ids). No released config.json of a Gemma 3 image checkpoint is recorded with its
source, so the numbers below are the classes' defaults, said as such; the snippets run on the tiny Gemma 3 (a
one-layer SigLIP tower on one 16-pixel image of 4-pixel patches, pooled to mm_tokens_per_image 4, a two-block
Gemma 3 text model, one sliding and one full layer) under an eager load, and under sdpa where the note compares. The last notes (from
the gemma3_text page) are measured on Gemma 3 270M, a text-only checkpoint of the same text model: the first of them
says so, and every figure stays labelled as that model's."""

from .gemma3_text import CHECKPOINT, MEASURED, facts, load_checkpoint  # noqa: F401 (the page reads them)

LOAD = "eager"

MORE = r'''
## Image positions see each other both ways, but only when `token_type_ids` mark them

`Gemma3Model.forward` builds a mask in which the positions of one image attend to each other in both directions, on the sliding and the full layers, from `token_type_ids` (1 at the image's soft tokens, 0 elsewhere), which `Gemma3Processor` returns beside `input_ids`. Text stays causal: the text after an image sees all of it, the text before sees none. A call without `token_type_ids` gets a plain causal mask, the image included, under eager and sdpa alike (the text config's `use_bidirectional_attention` is false by default, so nothing else makes attention two-way): the model then reads its images in a way it was not trained on, and its outputs differ. Pass the processor's `token_type_ids` to every call with an image.

```python
from nnterp import tiny

inputs = tiny.image_call("gemma3")
types = (inputs["input_ids"] == model.config.image_token_id).long()
with model.trace({**inputs, "token_type_ids": types}):
    typed_probs = model.layers[0].self_attn.attention_probabilities.save()
    typed = model.logits.save()
with model.trace(inputs):
    untyped_probs = model.layers[0].self_attn.attention_probabilities.save()
    untyped = model.logits.save()

image = types[0].nonzero().flatten()
among = lambda probs: probs[0][:, image][:, :, image]
assert bool((among(typed_probs) > 0).all())                     # both ways within the image
assert bool((among(untyped_probs).triu(1) == 0).all())          # causal without the types
assert not torch.allclose(typed, untyped)

sdpa = tiny.load("gemma3", attn_implementation="sdpa")
with sdpa.trace(inputs):
    untyped_sdpa = sdpa.logits.save()
torch.testing.assert_close(untyped_sdpa, untyped)               # sdpa is causal too without them
```

## Each image is its own block: an image never sees a later image

`get_block_sequence_ids_for_mask` numbers each run of image positions as its own group; positions attend both ways only within their group. With two images in a prompt, the first image's positions see themselves and everything before them, never the second image, and the second image sees the first only causally, as text does. An image representation at the first image's positions is therefore independent of every later image and of the text between them.

```python
from nnterp import tiny

one = tiny.image_call("gemma3")
ids = one["input_ids"]
image = (ids[0] == model.config.image_token_id).nonzero().flatten()
segment = ids[:, image[0] - 1:image[-1] + 2]                     # <boi>, the soft tokens, <eoi>
text = ids[:, image[-1] + 2:]                                    # the words after <eoi>
two_ids = torch.cat([ids[:, :1], segment, text[:, :2], segment, text[:, 2:]], 1)
types = (two_ids == model.config.image_token_id).long()
call = {"input_ids": two_ids, "attention_mask": torch.ones_like(two_ids), "token_type_ids": types,
        "pixel_values": torch.cat([one["pixel_values"], one["pixel_values"] + 1.0])}
with model.trace(call):
    probs = model.layers[1].self_attn.attention_probabilities.save()  # the full layer

first, second = types[0].nonzero().flatten().split(len(image))
assert bool((probs[0][:, first][:, :, second] == 0).all())          # the first image never sees the second
assert bool((probs[0][:, second][:, :, first] > 0).all())           # the second sees the first, causally
assert bool((probs[0][:, second][:, :, second] > 0).all())          # and itself both ways
```

## The projector average-pools the patch grid to `mm_tokens_per_image`, then RMS-norms and multiplies

`Gemma3MultiModalProjector` takes SigLIP's `last_hidden_state` as a square grid of patches, averages non-overlapping `k × k` blocks (`avg_pool`, with `k` = patches per side / √`mm_tokens_per_image`), normalizes each pooled vector with `mm_soft_emb_norm` (a Gemma RMSNorm, scale `1 + weight`) and multiplies it by `mm_input_projection_weight`, a bare matrix with no bias. At `Gemma3Config`'s default of 256 tokens per image, any grid is pooled to 16 × 16: a 64 × 64 grid in blocks of 4 × 4 patches. One image position is the mean of its block and nothing else: the block structure is exact, not learned.

```python
from nnterp import tiny
from transformers import Gemma3Config

assert Gemma3Config().mm_tokens_per_image == 256 and int(256 ** 0.5) == 16 and 64 // 16 == 4

inputs = tiny.image_call("gemma3")
core = model._module.model
projector = core.multi_modal_projector
with model.trace(inputs):
    features = model.image_features.save()
with torch.no_grad():
    patches = core.vision_tower(pixel_values=inputs["pixel_values"]).last_hidden_state     # [1, 16, width]
    side, k = projector.patches_per_image, projector.kernel_size                            # 4 and 2
    grid = patches[0].view(side, side, -1)
    pooled = grid.view(side // k, k, side // k, k, -1).mean((1, 3)).reshape(-1, grid.shape[-1])
    expected = projector.mm_soft_emb_norm(pooled) @ projector.mm_input_projection_weight
    torch.testing.assert_close(features, expected)
    assert int((side // k) ** 2) == model.config.mm_tokens_per_image
```

## An image is 256 soft tokens between `<start_of_image>` and `<end_of_image>`, and only they are `image_mask`

`Gemma3Processor` replaces each image in the prompt with a blank line, `<start_of_image>`, `image_seq_length` (256 by default) image tokens and `<end_of_image>`, then another blank line. `Gemma3Config`'s defaults give the ids: 255999 and 256000 for the markers, 262144 for the image token, which lies inside the text config's 262208-row embedding (so it is embedded, then overwritten). `image_mask` marks the 256 soft tokens only; the two markers are text tokens with their own embeddings, type 0, outside the image's two-way block: `<start_of_image>` sees no part of the image, and `<end_of_image>` sees all of it, causally.

```python
from nnterp import tiny
from transformers import Gemma3Config

defaults = Gemma3Config()
assert (defaults.boi_token_index, defaults.eoi_token_index, defaults.image_token_index) == (255999, 256000, 262144)
assert defaults.image_token_index < defaults.text_config.vocab_size == 262208

inputs = tiny.image_call("gemma3")
ids = inputs["input_ids"][0]
types = (inputs["input_ids"] == model.config.image_token_id).long()
with model.trace({**inputs, "token_type_ids": types}):
    mask = model.image_mask.save()
    probs = model.layers[1].self_attn.attention_probabilities.save()
image = mask[0].nonzero().flatten()
start, end = int(image[0]) - 1, int(image[-1]) + 1
assert int(ids[start]) == model.config.boi_token_index and int(ids[end]) == model.config.eoi_token_index
assert int(mask.sum()) == model.config.mm_tokens_per_image
assert bool((probs[0][:, start, image] == 0).all()) and bool((probs[0][:, end, image] > 0).all())
```

## At an image position the stream starts as the projector's output, unscaled; text rows carry √hidden_size

Gemma 3's `embed_tokens` multiplies every embedded row by √hidden_size (its `embed_scale`), and `masked_scatter` then overwrites the image positions with the projector's output, which is not multiplied: `layers[0].layer_input` at `image_mask` is `image_features` bit for bit, and every text row is its `embed_tokens.weight` row times the scale. The placeholder's own embedding never reaches a block. Comparing an image row with vocabulary rows (the tied unembedding) needs that factor; a call built from `inputs_embeds` must scale the text rows and leave the image rows as the projector gives them.

```python
from nnterp import tiny

inputs = tiny.image_call("gemma3")
embed = model._module.model.language_model.embed_tokens
with model.trace(inputs):
    mask = model.image_mask.save()
    features = model.image_features.save()
    entering = model.layers[0].layer_input.save()
    logits = model.logits.save()
ids = inputs["input_ids"][0]
assert torch.equal(entering[mask], features)
torch.testing.assert_close(entering[0][~mask[0]], embed.weight[ids[~mask[0]]] * embed.embed_scale)
assert float(embed.embed_scale) == model.config.text_config.hidden_size ** 0.5

with model.trace(inputs):
    model.token_embeddings[mask] = 0
    zeroed = model.logits.save()
assert torch.equal(zeroed, logits)
```

## Positions are ordinary: the image's 256 tokens take 256 rotary positions

Unlike Qwen2-VL, Gemma 3 gives the image no two-dimensional positions: `position_ids` default to `0 … seq − 1` over the whole call, and the soft tokens (256 at the class default) take consecutive rotary positions in raster order of the pooled 16 × 16 grid, like 256 words. Vertical neighbours are 16 positions apart. Both rotaries of the text model (the sliding layers' and the full layers') turn the image's keys by these indices, so distance-dependent effects of the sliding window and the rotary apply to the image in raster order.

```python
from nnterp import tiny

inputs = tiny.image_call("gemma3")
types = (inputs["input_ids"] == model.config.image_token_id).long()
rotary = model._module.model.language_model.rotary_emb
for i, kind in enumerate(model.config.text_config.layer_types):
    attention = model.layers[i].self_attn
    with model.trace({**inputs, "token_type_ids": types}):
        unrotated = attention.attention_keys_unrotated.save()
        keys = attention.attention_keys.save()
    n, d = keys.shape[-2], keys.shape[-1]
    angles = torch.arange(n).float()[:, None] * getattr(rotary, f"{kind}_inv_freq")[None]
    cos, sin = torch.cat((angles, angles), -1).cos(), torch.cat((angles, angles), -1).sin()
    torch.testing.assert_close(keys, unrotated * cos + torch.cat((-unrotated[..., d // 2:], unrotated[..., :d // 2]), -1) * sin)
```
''' + r'''
## The measured notes below are a text-only stand-in's

The checkpoints this page serves (Gemma 3 4B and up, ShieldGemma 2) are too large to ship; nnterp ships Gemma 3 270M, a `Gemma3ForCausalLM` with no vision tower. Its `model` is a `Gemma3TextModel`, the class of this wrapper's `model.language_model`, so the notes marked "measured on Gemma 3 270M (Q4_K_M GGUF, dequantized)" measure that class's blocks, at 270M's sizes (18 blocks of width 640) and with its quantized weights: none of their figures is a 4B's or the family's.

```python
assert type(model._module.model.language_model).__name__ == "Gemma3TextModel"
```

```python checkpoint
assert type(model._module).__name__ == "Gemma3ForCausalLM" and type(model._module.model).__name__ == "Gemma3TextModel"
assert (model.num_layers, model.hidden_size) == (18, 640)
```
''' + MEASURED
