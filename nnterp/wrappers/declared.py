"""The image-text-to-text models of transformers served through their language model's family, one declaration
each: where the language model sits, where the image features enter, the image inputs and a tiny recipe with a
one-layer vision tower."""

from nnterp.family import Checkpoint

from . import Wrapper

#: A tiny SigLIP vision tower: one layer, 16-pixel images in 4-pixel patches.
SIGLIP = {"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 1, "num_attention_heads": 2,
          "image_size": 16, "patch_size": 4, "num_channels": 3}


def _text(**extra):
    """A tiny text config, as the families' recipes size them."""
    return {"hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
            "intermediate_size": 128, "vocab_size": 300, "head_dim": 16, **extra}


WRAPPERS = (
    Wrapper(
        name="gemma3",
        model_types=("gemma3", "shieldgemma2"),
        classes=("Gemma3ForConditionalGeneration",),
        text_family="gemma3_text",
        summary="Gemma 3 (4B and up, ShieldGemma 2): a SigLIP vision tower and an average-pooling projector around "
                "Gemma 3's text model.",
        note="Gemma3ForConditionalGeneration: model.{vision_tower (SigLIP), multi_modal_projector (average pool to "
             "mm_tokens_per_image tokens, RMSNorm, projection), language_model (Gemma3TextModel)} and lm_head. "
             "Gemma3Model's forward embeds the ids (placeholders of an out-of-vocabulary image token as pad), runs "
             "get_image_features and places the projected features with inputs_embeds.masked_scatter; "
             "image positions attend to each other bidirectionally when token_type_ids are passed.",
        checkpoints=(
            Checkpoint("google/gemma-3-4b-it", "Gemma-3-4B-it", {
                "architectures": ["Gemma3ForConditionalGeneration"], "model_type": "gemma3",
                "mm_tokens_per_image": 256, "image_token_index": 262144, "boi_token_index": 255999,
                "eoi_token_index": 256000,
                "text_config": {"model_type": "gemma3_text", "num_hidden_layers": 34, "hidden_size": 2560,
                                "intermediate_size": 10240, "num_attention_heads": 8, "num_key_value_heads": 4,
                                "head_dim": 256, "vocab_size": 262208, "sliding_window": 1024,
                                "query_pre_attn_scalar": 256, "rope_scaling": {"factor": 8.0, "rope_type": "linear"}},
                "vision_config": {"model_type": "siglip_vision_model", "hidden_size": 1152, "image_size": 896,
                                  "intermediate_size": 4304, "num_attention_heads": 16, "num_hidden_layers": 27,
                                  "patch_size": 14, "vision_use_head": False},
                "dtype": "bfloat16",
            }),
            Checkpoint("google/gemma-3-27b-it", "Gemma-3-27B-it"),
        ),
        tiny={"config_class": "Gemma3Config", "overrides": {
            "text_config": _text(layer_types=["sliding_attention", "full_attention"], sliding_window=8),
            "vision_config": SIGLIP, "mm_tokens_per_image": 4, "image_token_id": 299, "boi_token_index": 297,
            "eoi_token_index": 298},
            "image": {"tokens": 4, "around": (297, 298), "pixel_values": (1, 3, 16, 16)}},
    ),
)


#: The image-text-to-text types of transformers not served, each with its reason.
ENCODER_DECODER = "an encoder-decoder: its text side is a decoder that cross-attends to an encoder, not a decoder-only LM"
NOT_SERVED = {
    "florence2": ENCODER_DECODER + " (BART)",
    "pix2struct": ENCODER_DECODER,
    "pp_formulanet": ENCODER_DECODER,
    "t5gemma2": ENCODER_DECODER + " (T5Gemma 2)",
    "udop": ENCODER_DECODER + " (T5-style)",
    "vision-encoder-decoder": ENCODER_DECODER + " (any encoder, any cross-attending decoder)",
}
