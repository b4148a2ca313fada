"""Notes of PaliGemma (PaliGemmaForConditionalGeneration) written by hand, added to the derived ones. Read against
transformers' modeling_paligemma.py (PaliGemmaModel.get_image_features and forward: the 1-indexed position ids, the
block_sequence_ids built from token_type_ids, masked_scatter), configuration_paligemma.py (PaliGemmaConfig's
__post_init__: use_bidirectional_attention and num_image_tokens), processing_paligemma.py (the image tokens before
BOS, the token types), modeling_gemma.py (the scaled embedding, is_causal) and modeling_siglip.py (post_layernorm,
the head off), with google/paligemma-3b-pt-224's released config.json; the snippets run on the tiny PaliGemma (a
one-layer SigLIP tower on 16-pixel images in 4-pixel patches, 16 image positions, a two-block Gemma) under an eager
load, and under sdpa where the note is about the difference."""

LOAD = "eager"

MORE = r'''
## The prefix attends both ways: the image, BOS, the prompt and its newline see each other

PaliGemma is a prefix-LM. `PaliGemmaProcessor` writes the image's placeholders first, then BOS, the prompt and a newline: that is the prefix, `token_type_ids` 0; a suffix (the answer, in training, and every generated token) has type 1. `PaliGemmaModel.forward` turns the types into `block_sequence_ids` (0 on the prefix, -1 on the suffix), and the mask lets every prefix position attend to every other prefix position, later ones included, while the suffix stays causal and sees the whole prefix. So the stream at an image position is not the image alone: from block 0 on, each patch reads the prompt written after it, and the same image under two prompts gives two different image representations. A probe "of the image" at image positions reads an image already conditioned on the question.

```python
from nnterp import tiny

inputs = tiny.image_call("paligemma")
n = inputs["input_ids"].shape[1]
types = torch.zeros_like(inputs["input_ids"])
types[:, n - 3:] = 1                                        # the last three tokens: a suffix
call = {**inputs, "token_type_ids": types}
with model.trace(call):
    mask = model.image_mask.save()
    probs = model.layers[0].self_attn.attention_probabilities.save()
    image_out = model.layers[-1].layer_output.save()

prefix, suffix = torch.arange(n - 3), torch.arange(n - 3, n)
assert bool((probs[0][:, prefix][:, :, prefix] > 0).all())               # both ways within the prefix
assert bool((probs[0][:, suffix][:, :, prefix] > 0).all())               # the suffix sees the whole prefix
assert bool((probs[0][:, suffix][:, :, suffix].triu(1) == 0).all())      # and itself causally

first_patch = int(mask[0].nonzero()[0])
with model.trace(call):
    model.token_embeddings[:, n - 4] = 0                    # the prompt's last prefix token
    edited = model.layers[-1].layer_output.save()
assert not torch.allclose(edited[0, first_patch], image_out[0, first_patch])   # the image reads the prompt
```

## Without `token_type_ids`, eager attends causally and sdpa both ways, over the whole call

`PaliGemmaConfig` sets the text config's `use_bidirectional_attention` to true, which makes each Gemma attention module non-causal (`is_causal` false), and the mask builder does not read that flag. A call with `token_type_ids` gets the prefix-LM mask under any load. A call without them (`input_ids` and `pixel_values` only, or text alone) gets a causal mask under eager, but under sdpa the mask is skipped as plain causal and the kernel is called with the module's `is_causal`, false: every position attends to every other, the last tokens included, as in no trained configuration. The two loads then compute different models from the same inputs. Always pass the processor's `token_type_ids` (zeros for a prompt without a suffix).

```python
from nnterp import tiny

released_facts = released("google/paligemma-3b-pt-224")
assert "use_bidirectional_attention" not in released_facts["text_config"]
from transformers import PaliGemmaConfig
assert PaliGemmaConfig(**released_facts).text_config.use_bidirectional_attention is True

inputs = tiny.image_call("paligemma")
typed = {**inputs, "token_type_ids": torch.zeros_like(inputs["input_ids"])}
sdpa = tiny.load("paligemma", attn_implementation="sdpa")
with model.trace(inputs):
    eager_untyped = model.logits.save()
with model.trace(typed):
    eager_typed = model.logits.save()
with sdpa.trace(inputs):
    sdpa_untyped = sdpa.logits.save()
with sdpa.trace(typed):
    sdpa_typed = sdpa.logits.save()

torch.testing.assert_close(sdpa_typed, eager_typed)         # with the types, the loads agree
torch.testing.assert_close(sdpa_untyped, eager_typed)       # without them, sdpa is bidirectional
assert not torch.allclose(eager_untyped, eager_typed)       # and eager causal
```

## Positions start at 1: no token has rotary angle 0

`PaliGemmaModel.forward` builds its own `position_ids`, `arange(seq) + 1` ("Paligemma positions are 1-indexed"), and generation adds 1 to the positions it passes. The first token, the first image patch on a processor's call, turns by one step of every rotary frequency, and position p of a trace is rotary position p + 1. A Gemma reimplementation, or a hook that rebuilds keys from `attention_keys_unrotated` with `arange(seq)`, rotates every position by one step too few; `position_ids` passed by hand must count from 1 to match the model's own.

```python
from nnterp import tiny

inputs = tiny.image_call("paligemma")
attention = model.layers[0].self_attn
with model.trace({**inputs, "token_type_ids": torch.zeros_like(inputs["input_ids"])}):
    unrotated = attention.attention_keys_unrotated.save()
    keys = attention.attention_keys.save()

n, d = keys.shape[-2], keys.shape[-1]
inv_freq = model._module.model.language_model.rotary_emb.inv_freq
def rotate(x, positions):
    angles = positions.float()[:, None] * inv_freq[None]
    cos, sin = torch.cat((angles, angles), -1).cos(), torch.cat((angles, angles), -1).sin()
    return x * cos + torch.cat((-x[..., d // 2:], x[..., :d // 2]), -1) * sin

torch.testing.assert_close(keys, rotate(unrotated, torch.arange(n) + 1))
assert not torch.allclose(keys, rotate(unrotated, torch.arange(n)))
```

## The image is SigLIP's last layer after `post_layernorm`, through one linear

`get_image_features` takes SigLIP's `last_hidden_state`: the output of the last of its 27 layers, normalized by `post_layernorm` (the attention-pooling head is off, `vision_use_head` false, and SigLIP has no class token, so no position is dropped). `multi_modal_projector` is a single `Linear` with a bias, 1152 → 2048 (`projection_dim`), and its output is `image_features` as placed: there is no activation and no norm between SigLIP and the first Gemma block. Unlike LLaVA, nothing of the vision tower's compute is discarded, and a probe on the tower's output reads what the language model receives, up to one affine map.

```python
from nnterp import tiny

facts = released("google/paligemma-3b-pt-224")
vision = facts["vision_config"]
assert vision["vision_use_head"] is False and vision["num_hidden_layers"] == 27
assert (vision["hidden_size"], facts["projection_dim"], facts["text_config"]["hidden_size"]) == (1152, 2048, 2048)

inputs = tiny.image_call("paligemma")
tower, projector = model._module.model.vision_tower, model._module.model.multi_modal_projector
with torch.no_grad():
    out = tower(inputs["pixel_values"], output_hidden_states=True)
    last_layer = out.hidden_states[-1]
    torch.testing.assert_close(out.last_hidden_state, tower.post_layernorm(last_layer))
with model.trace(inputs):
    mask = model.image_mask.save()
    features = model.image_features.save()
    entering = model.layers[0].layer_input.save()
with torch.no_grad():
    torch.testing.assert_close(features, projector(out.last_hidden_state)[0])
assert type(projector.linear).__name__ == "Linear" and projector.linear.bias is not None
assert torch.equal(entering[mask], features)
```

## Text rows enter scaled by √2048, image rows as projected

Gemma multiplies its token embeddings by √hidden_size (√2048 ≈ 45.25 on the 3B), inside `embed_tokens`; the image rows replace embedded rows after that, so they are not multiplied. Older transformers versions divided the image features by √hidden_size because the scale was then applied to all of `inputs_embeds`; the stream is the same either way, and `image_features` is the projector's output. Two consequences: a text row of the stream at block 0 is 45 times its row in `embed_tokens.weight` (the tied unembedding), so comparing image rows to vocabulary rows needs that factor; and a call with `inputs_embeds` built from the weight rows must multiply them by `embed_tokens.embed_scale` first, but must not multiply the image rows.

```python
from nnterp import tiny

facts = released("google/paligemma-3b-pt-224")
assert round(facts["text_config"]["hidden_size"] ** 0.5, 2) == 45.25

inputs = tiny.image_call("paligemma")
embed = model._module.model.language_model.embed_tokens
with model.trace(inputs):
    mask = model.image_mask.save()
    features = model.image_features.save()
    entering = model.layers[0].layer_input.save()
ids = inputs["input_ids"][0]
assert float(embed.embed_scale) == model.hidden_size ** 0.5
torch.testing.assert_close(entering[0][~mask[0]], embed.weight[ids[~mask[0]]] * embed.embed_scale)
assert torch.equal(entering[mask], features)                # the image rows: no scale
```

## One image is 256 positions, at an image size the file does not state

Each 224-pixel image is cut into 14-pixel patches, 16 × 16 = 256, and takes 256 `<image>` placeholders (id 257152, inside the 257216-row vocabulary, so it is embedded and then overwritten). paligemma-3b-pt-224's `vision_config` gives `patch_size` 14 but no `image_size`: the 224 is `SiglipVisionConfig`'s default, and `PaliGemmaConfig` computes `num_image_tokens` from it, (224 // 14)² = 256, writing it into the text config. The 448 and 896 checkpoints must state theirs (1024 and 4096 positions); a config edited by hand that drops `image_size` falls back to 224 silently. The text config's `head_dim` (256) is likewise `GemmaConfig`'s default, not in the file. `image_mask.sum()` is 256 per image.

```python
from nnterp import tiny
from transformers import PaliGemmaConfig

facts = released("google/paligemma-3b-pt-224")
assert "image_size" not in facts["vision_config"] and facts["vision_config"]["patch_size"] == 14
built = PaliGemmaConfig(**facts)
assert built.vision_config.image_size == 224 and built.text_config.num_image_tokens == (224 // 14) ** 2 == 256
assert "head_dim" not in facts["text_config"] and built.text_config.head_dim == 256
assert built.image_token_id == 257152 < built.text_config.vocab_size == 257216

inputs = tiny.image_call("paligemma")
with model.trace(inputs):
    mask = model.image_mask.save()
side = model.config.vision_config.image_size // model.config.vision_config.patch_size
assert int(mask.sum()) == side * side == model.config.text_config.num_image_tokens
```
'''
