"""Notes of Llama 3.2 Vision (MllamaForConditionalGeneration) written by hand, added to the derived ones. Read against
transformers' modeling_mllama.py (MllamaModel.forward and _prepare_cross_attention_mask, MllamaTextModel.forward's
skip of the cross-attention layers, MllamaCrossAttentionDecoderLayer, MllamaTextCrossAttention, MllamaVisionModel's
class token and tiles); the snippets run on the tiny Llama 3.2 Vision (three blocks, the middle one cross-attention,
one image of one tile) under an eager load."""

LOAD = "eager"

MORE = r'''
## The image never enters the stream: the blocks' input is the token embeddings, image or not

`MllamaModel`'s forward embeds `input_ids` as they are, the `<|image|>` placeholder included, and merges nothing into them: the projected vision features go to the language model as `cross_attention_states`, which only the cross-attention blocks read, as their keys and values. So `layers[0].layer_input` is `token_embeddings` on a call with an image too, and `image_features` and `image_mask` are unavailable, with the reason. What the image changes in the stream is what the cross-attention blocks add.

```python
from nnterp import tiny

inputs = tiny.image_call("mllama_vision")
with model.trace(inputs):
    embedded = model.token_embeddings.save()
    entering = model.layers[0].layer_input.save()
assert torch.equal(entering, embedded)
assert model.serves("image_features") is not None and model.serves("image_mask") is not None
```

## A text-only call skips the cross-attention blocks: the stream goes from the block before to the block after

`MllamaTextModel.forward` runs a block listed in `cross_attention_layers` only when `cross_attention_states` are passed (or its keys and values are cached). On text the block is skipped, so the block before it hands its output straight to the block after, and every value of the skipped block is unavailable on that call: a read says the call skips it, and a cache of text prompts leaves it out with that sentence.

```python
cross = model.config.get_text_config().cross_attention_layers
assert cross == [1] and type(model.layers[1]._module).__name__ == "MllamaCrossAttentionDecoderLayer"
with model.trace(prompt):
    before = model.layers[0].layer_output.save()
    after = model.layers[2].layer_input.save()
assert torch.equal(before, after)
assert "the call skips this block" in model.cache(prompt).left_out["layers.1.self_attn.attention_keys"]
```

## Each sublayer is added through a tanh gate, zero at initialisation

`MllamaCrossAttentionDecoderLayer` adds `tanh(cross_attn_attn_gate)` times the cross-attention's output, then `tanh(cross_attn_mlp_gate)` times the MLP's. Both gates are one learned number each, created as zeros: a freshly initialised block adds nothing, whatever the image. `attention_gate` and `mlp_gate` serve the two tanh values (read-only); `attention_output` and `mlp_output` are the products, what the stream receives, so the identity holds with the gates inside. An edit of a contribution is carried back divided by its gate, which a gate at zero refuses.

```python
from nnterp import tiny

inputs = tiny.image_call("mllama_vision")
layer = model.layers[1]
with model.trace(inputs):
    x = layer.layer_input.save()
    own = layer.self_attn.output[0].save()
    gate = layer.self_attn.attention_gate.save()
    attention = layer.self_attn.attention_output.save()
    mlp = layer.mlp.mlp_output.save()
    out = layer.layer_output.save()
torch.testing.assert_close(gate, torch.tanh(layer._module.cross_attn_attn_gate))
from transformers.models.mllama.modeling_mllama import MllamaCrossAttentionDecoderLayer

made = MllamaCrossAttentionDecoderLayer(model.config.get_text_config(), 1)
assert made.cross_attn_attn_gate.shape == made.cross_attn_mlp_gate.shape == (1,)
assert not made.cross_attn_attn_gate.any() and not made.cross_attn_mlp_gate.any()
torch.testing.assert_close(attention, gate * own)
torch.testing.assert_close(x + attention + mlp, out)
```

## The cross-attention's queries come from the stream, its keys and values from the image's positions

`MllamaTextCrossAttention` makes its queries from the normed stream (`q_proj`, then `q_norm` per head) and its keys and values from `cross_attention_states` (`k_proj` then `k_norm`, and `v_proj`), with no rotary on either. The keys therefore span the image's positions, not the call's: every tile of every image gives the vision model's patches plus its class token, in order. The pattern is `[batch num_heads seq image_keys]`.

```python
from nnterp import tiny

inputs = tiny.image_call("mllama_vision")
layer = model.layers[1]
with model.trace(inputs):
    states = model.model.multi_modal_projector.output.save()
    queries = layer.self_attn.attention_queries.save()
    keys = layer.self_attn.attention_keys.save()
    pattern = layer.self_attn.attention_probabilities.save()
vision = model.config.vision_config
per_tile = (vision.image_size // vision.patch_size) ** 2 + 1
assert keys.shape[2] == states.shape[-2] == per_tile * vision.max_num_tiles
assert queries.shape[2] == pattern.shape[2] == inputs["input_ids"].shape[1] and pattern.shape[3] == keys.shape[2]
attention = layer.self_attn._module
made = attention.k_norm(attention.k_proj(states).view(1, keys.shape[2], -1, attention.head_dim).transpose(1, 2))
torch.testing.assert_close(keys, made)
```

## The text before the first image gets no MLP from the block, but still gets its cross-attention

`_prepare_cross_attention_mask` turns `cross_attention_mask` (which rows attend which image's tiles; the processor's marks every row from the first `<|image|>` on) into the blocks' additive mask and `full_text_row_masked_out_mask`, which is zero on a row attending no image. The block multiplies its MLP's output by that row mask, so `mlp_output` is zero there and `layer_output` is `layer_mid`. The attention is not masked by row: the additive mask of such a row is multiplied by zero too, so the row attends every image position, and `attention_output` there is not zero.

```python
from nnterp import tiny

inputs = tiny.image_call("mllama_vision")
layer = model.layers[1]
first = int((inputs["cross_attention_mask"][0, :, 0, 0] == 1).nonzero()[0])
with model.trace(inputs):
    attention = layer.self_attn.attention_output.save()
    mlp = layer.mlp.mlp_output.save()
    pattern = layer.self_attn.attention_probabilities.save()
assert first > 0
assert not mlp[:, :first].any() and mlp[:, first:].any()
assert attention[:, :first].any()
assert (pattern[:, :, :first] > 0).all()
```

## Zeroing the gates removes the image from the model

With both gates at zero every cross-attention block leaves the stream as it found it, so the logits of a call with an image are the text-only call's: the image reaches the logits through the gates alone. The released checkpoints' gates are trained away from zero; the snippet sets a tiny model's own, which `nnterp` never does to a user's model.

```python
from nnterp import tiny

inputs = tiny.image_call("mllama_vision")
fresh = tiny.load("mllama_vision")
with torch.no_grad():
    for name in ("cross_attn_attn_gate", "cross_attn_mlp_gate"):
        getattr(fresh.layers[1]._module, name).zero_()
ids = {"input_ids": inputs["input_ids"], "attention_mask": inputs["attention_mask"]}
with fresh.trace(inputs):
    with_image = fresh.logits.save()
with fresh.trace(ids):
    text_only = fresh.logits.save()
torch.testing.assert_close(with_image, text_only)
```
'''
