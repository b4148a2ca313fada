"""Image-text-to-text models whose language model shares latent keys and values between layers (Mistral Large 4):
served through a language stack declared as its difference from its parent (nnterp.wrappers.stacks). One
declaration each: where the language model sits, where the image features enter, the image inputs and a tiny
recipe with a one-layer vision tower. Each note is read from transformers' modeling code."""

from nnterp.family import checkpoint_data

from .declarations import PIXTRAL, _text
from .stacks.mistral_large4_text import FAMILY as MISTRAL_LARGE4_TEXT
from .wrapper import Wrapper


def _misread_kv_sources(config) -> str | None:
    """Why a config's kv_source_layers is not what its layers read, or None: the blocks pass one latent per rotary
    kind (shared_kv_states['rope'] or ['nope']), the last one a source layer stored, whatever layer is named."""
    text = config.get_text_config()
    stored = {}
    for index, source in enumerate(text.kv_source_layers):
        rotary = text.no_rope_layers[index]
        if source == index:
            if index in text.kv_source_layers[index + 1:]:
                stored[rotary] = index
        elif stored.get(rotary) != source:
            return (f"layer {index} names layer {source} in kv_source_layers, but its attention reads the latent "
                    f"layer {stored.get(rotary)} last stored for its rotary kind: name that layer, the last earlier "
                    f"source layer with the same no_rope_layers entry")
    return None


#: Mistral Large 4's language stack in the tiny shape: a dense block then routed ones; layer 1 reads layer 0's
#: latent and top-k choice, layer 3 (no rotary, like layer 2) reads layer 2's latent with an indexer of its own.
MISTRAL_LARGE4_TEXT_TINY = {
    **{key: value for key, value in _text("glm_moe_dsa").items() if key != "q_lora_rank"},
    "num_hidden_layers": 4, "no_rope_layers": [1, 1, 0, 0], "kv_source_layers": [0, 0, 2, 2],
    "indexer_types": ["full", "shared", "full", "full"], "final_logit_softcapping": 5.0}

SHARED_LATENT = (
    Wrapper(
        name="mistral_large4",
        title="Mistral Large 4",
        model_types=("mistral_large4",),
        classes=("MistralLarge4ForConditionalGeneration",),
        text_family=MISTRAL_LARGE4_TEXT,
        summary="Mistral Large 4: a Pixtral vision tower and a patch-merging projector around a GLM-5-style sparse "
                "latent-attention decoder whose layers share latent keys and values, with a learned query scale on "
                "log position and soft-capped logits.",
        note="MistralLarge4ForConditionalGeneration: Mistral Small 3's model.{vision_tower (Pixtral), "
             "multi_modal_projector (RMSNorm, a spatial_merge_size x spatial_merge_size patch merger, linear, GELU, "
             "linear), language_model (MistralLarge4TextModel)} and lm_head, whose logits it soft-caps by the text "
             "config's final_logit_softcapping. Each image keeps its own size (image_sizes, in pixels); "
             "MistralLarge4Model's forward places the projected features with inputs_embeds.masked_scatter. The "
             "checkpoint's multi-token-prediction head (mtp_dspark) is not built.",
        image_inputs=("pixel_values", "image_sizes"),
        checkpoints=checkpoint_data("mistral_large4"),
        refuses=_misread_kv_sources,
        tiny={"config_class": "MistralLarge4Config", "overrides": {
            "text_config": MISTRAL_LARGE4_TEXT_TINY, "image_token_id": 299, "vision_config": PIXTRAL},
            "image": {"tokens": 4, "pixel_values": (1, 3, 16, 16), "image_sizes": [[16, 16]]}},
    ),
)
