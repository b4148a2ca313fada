"""Notes of LLaVA (LlavaForConditionalGeneration) written by hand, added to the derived ones. Read against
transformers' modeling_llava.py (LlavaModel.get_image_features, get_placeholder_mask and forward's masked_scatter,
LlavaMultiModalProjector), configuration_llava.py (LlavaConfig's defaults and its legacy image_token_index) and
modeling_clip.py (CLIPVisionTransformer: pre_layrnorm, the encoder's hidden states, post_layernorm on the pooled
CLS only), with llava-hf/llava-1.5-7b-hf's released config.json; the snippets run on the tiny LLaVA (a one-layer
CLIP tower on 16-pixel images in 4-pixel patches, 16 image positions, a two-block Llama) under an eager load."""

LOAD = "eager"

MORE = r'''
## The language model reads CLIP's second-to-last layer, without its CLS position

`get_image_features` runs the whole CLIP tower with its hidden states, takes `hidden_states[vision_feature_layer]` and, under `vision_feature_select_strategy` `"default"`, drops position 0, CLIP's class token; only the patch rows go through the projector. llava-1.5-7b-hf's config sets -2 and `"default"`: of CLIP ViT-L/14-336's 24 layers, the image the language model sees is the output of the 23rd (`hidden_states` holds the embeddings after `pre_layrnorm`, then one entry per layer). The 24th layer still runs on every call and its output is thrown away, and `post_layernorm` only ever normalizes the pooled CLS: neither reaches the stream. A probe or an SAE trained on `vision_tower`'s `last_hidden_state` reads a layer the language model never receives. A config with `"full"` keeps the CLS row, one more image position.

```python
from nnterp import tiny

facts = released("llava-hf/llava-1.5-7b-hf")
assert facts["vision_feature_layer"] == -2 and facts["vision_feature_select_strategy"] == "default"
assert facts["vision_config"]["num_hidden_layers"] == 24

inputs = tiny.image_call("llava")
tower, projector = model._module.model.vision_tower, model._module.model.multi_modal_projector
with torch.no_grad():
    states = tower(inputs["pixel_values"], output_hidden_states=True).hidden_states
with model.trace(inputs):
    features = model.image_features.save()

assert len(states) == tower.config.num_hidden_layers + 1       # the embeddings, then one per layer
with torch.no_grad():
    torch.testing.assert_close(features, projector(states[-2][0, 1:]))      # CLS dropped, second-to-last
    assert not torch.allclose(features, projector(states[-1][0, 1:]))       # not the last layer
```

## One image is 576 positions at 336 pixels, and the ids must hold exactly that many placeholders

CLIP ViT-L/14-336 cuts the 336-pixel square into 14-pixel patches, 24 × 24 = 576, plus the CLS that `"default"` drops: one image is 576 rows of `image_features` and 576 `<image>` placeholders (id 32000, `image_token_index` in the released config, read as `image_token_id`) in `input_ids`, expanded by the processor from the one `<image>` of the prompt. They sit where the prompt put the image, in raster order: row 0 of the patch grid first, left to right. `image_mask` is `input_ids == 32000`, so `image_mask.sum()` counts image positions, not images. The forward checks the count: ids with one placeholder too few or too many raise "Image features and image tokens do not match", so a prompt built by hand must repeat the token 576 times.

```python
from nnterp import tiny
from transformers import LlavaConfig

facts = released("llava-hf/llava-1.5-7b-hf")
vision = facts["vision_config"]
assert vision["image_size"] // vision["patch_size"] == 24 and (336 // 14) ** 2 == 576
assert facts["image_token_index"] == LlavaConfig(**facts).image_token_id == 32000

inputs = tiny.image_call("llava")
side = model.config.vision_config.image_size // model.config.vision_config.patch_size
with model.trace(inputs):
    mask = model.image_mask.save()
    features = model.image_features.save()
assert int(mask.sum()) == side * side == features.shape[0] == 16
assert torch.equal(mask[0], inputs["input_ids"][0] == model.config.image_token_id)

keep = torch.ones(inputs["input_ids"].shape[1], dtype=torch.bool)
keep[int(mask[0].nonzero()[0])] = False                     # one placeholder fewer
short = {**inputs, "input_ids": inputs["input_ids"][:, keep], "attention_mask": inputs["attention_mask"][:, keep]}
try:
    with model.trace(short):
        model.logits.save()
    raise AssertionError("a call with too few placeholders ran")
except Exception as error:
    assert "do not match" in str(error)
```

## At an image position the stream starts as the projector's output: the placeholder's embedding is discarded

`LlavaModel.forward` embeds every id, the 576 `<image>` ids included, then `inputs_embeds.masked_scatter` overwrites those rows with the projector's output: linear (1024 → 4096), exact GELU, linear (4096 → 4096), both with a bias. Nothing normalizes or scales the rows between the projector and the first block, so `layers[0].layer_input` at `image_mask` is `image_features`, bit for bit, and `token_embeddings` at those positions (the embedding row of id 32000) never reaches a block: an edit there changes nothing, while an edit of `image_features` changes the image the model sees. Patch image content at `image_features` (or at `layers[i].layer_input` from block 0 on), never at `token_embeddings`.

```python
from nnterp import tiny

inputs = tiny.image_call("llava")
with model.trace(inputs):
    mask = model.image_mask.save()
    projected = model.multi_modal_projector.output.save()
    features = model.image_features.save()
    entering = model.layers[0].layer_input.save()
    logits = model.logits.save()
assert torch.equal(entering[mask], projected.reshape(-1, model.hidden_size))
assert torch.equal(features, entering[mask])

with model.trace(inputs):
    model.token_embeddings[mask] = 0
    placeholder_zeroed = model.logits.save()
with model.trace(inputs):
    model.image_features[:] = 0
    image_zeroed = model.logits.save()
assert torch.equal(placeholder_zeroed, logits)
assert not torch.allclose(image_zeroed, logits)
```

## The image takes ordinary rotary positions: the text after one image sits 576 positions further on

The language model is Llama with one-dimensional rotary positions, `0, 1, 2, …` over the whole sequence, image rows included: the 576 patches of llava-1.5 take positions like 576 tokens, and the first text token after an image placed right after BOS is at position 577. The rotary knows nothing of rows and columns: patch (r, c) is at position 1 + 24r + c, so vertical neighbours are 24 positions apart and the last patch of a row is next to the first of the row below. Relative-position effects measured on text (the decay of attention with distance) apply to the image in raster order; Qwen2-VL's multimodal rotary, by contrast, gives each patch a row and a column.

```python
from nnterp import tiny

inputs = tiny.image_call("llava")
attention = model.layers[0].self_attn
with model.trace(inputs):
    mask = model.image_mask.save()
    unrotated = attention.attention_keys_unrotated.save()
    keys = attention.attention_keys.save()

n, d = keys.shape[-2], keys.shape[-1]
inv_freq = model._module.model.language_model.rotary_emb.inv_freq
angles = torch.arange(n).float()[:, None] * inv_freq[None]           # the sequence index, image or not
cos, sin = torch.cat((angles, angles), -1).cos(), torch.cat((angles, angles), -1).sin()
torch.testing.assert_close(keys, unrotated * cos + torch.cat((-unrotated[..., d // 2:], unrotated[..., :d // 2]), -1) * sin)
assert int(mask[0].nonzero()[-1]) + 1 == 1 + int(mask.sum())         # the first text token after the image
```

## Attention over the image is causal: a patch sees only the patches before it in raster order

The language model's mask is Llama's causal mask, with nothing for the image: patch k attends to BOS, to patches 0 … k and to nothing after. The first patch (the image's top-left corner) is computed in every block without any other part of the image, and only positions after the last patch, the text, see the whole image. A probe at image positions therefore reads a representation that grows with the raster order; a probe of "the image" reads the text after it. (PaliGemma and Gemma 3 let image positions attend to each other both ways; LLaVA does not.)

```python
from nnterp import tiny

inputs = tiny.image_call("llava")
with model.trace(inputs):
    mask = model.image_mask.save()
    probs = model.layers[0].self_attn.attention_probabilities.save()
    first = model.layers[-1].layer_output.save()
image = mask[0].nonzero().flatten()
among = probs[0][:, image][:, :, image]                       # heads, image query, image key
before = torch.ones(len(image), len(image)).tril().bool()      # key at or before the query
assert bool((among[:, ~before] == 0).all()) and bool((among[:, before] > 0).all())

with model.trace(inputs):
    model.image_features[-1] = 0                               # the last patch, bottom right
    edited = model.layers[-1].layer_output.save()
assert torch.equal(edited[0, :image[-1]], first[0, :image[-1]])       # every position before it unchanged
assert not torch.allclose(edited[0, image[-1] + 1:], first[0, image[-1] + 1:])
```

## `image_features` is flat: one row per image position, across the batch, in order

`image_features` has the layout `[image_positions, hidden_size]`, not `[batch, 576, hidden_size]`: `masked_scatter` fills the `True` entries of the mask in memory order, so batch row 0's placeholders take the first rows, then row 1's. With one image per prompt, rows `576·b … 576·b + 575` are prompt b's image, and they sit at `image_mask[b]`. Indexing `image_features[b]` on a batch reads one patch of the first image, not the b-th image.

```python
from nnterp import tiny

one = tiny.image_call("llava", seed=0)
two = tiny.image_call("llava", seed=1)
batch = {name: torch.cat([one[name], two[name]]) for name in one}
with model.trace(batch):
    mask = model.image_mask.save()
    features = model.image_features.save()
    entering = model.layers[0].layer_input.save()
with model.trace(two):
    alone = model.image_features.save()

per_image = int(mask[0].sum())
assert features.shape == (2 * per_image, model.hidden_size)
assert torch.equal(features[per_image:], alone)               # the second prompt's image: the second block of rows
assert torch.equal(entering[1][mask[1]], features[per_image:])
```

## The released config names five keys of the language model: its sizes are LlamaConfig's defaults

llava-1.5-7b-hf's `text_config` gives only `max_position_embeddings` (4096), `rms_norm_eps`, `vocab_size` (32064), the dtype and the model type (it names `lmsys/vicuna-7b-v1.5` as its source). Its 32 blocks, width 4096, MLP width 11008 and 32 heads, none of them in the file, are `LlamaConfig`'s defaults, filled in when `LlavaConfig` builds the text config; `num_key_value_heads` follows the heads, so keys and values are not grouped. Reading `config.json` for the depth finds nothing. The vocabulary is 32064: Llama's 32000, then `<image>` at 32000 and the pad token at 32001 (`pad_token_id` in the config); `lm_head` is a separate matrix (`tie_word_embeddings` false).

```python
from transformers import LlavaConfig

facts = released("llava-hf/llava-1.5-7b-hf")
text = facts["text_config"]
assert sorted(text) == ["architectures", "dtype", "max_position_embeddings", "model_type", "rms_norm_eps", "vocab_size"]
built = LlavaConfig(**facts).text_config
assert (built.num_hidden_layers, built.hidden_size, built.intermediate_size) == (32, 4096, 11008)
assert built.num_attention_heads == built.num_key_value_heads == 32
assert built.vocab_size == 32064 and facts["tie_word_embeddings"] is False
assert LlavaConfig(**facts).image_token_id == 32000 < built.vocab_size
```
'''
