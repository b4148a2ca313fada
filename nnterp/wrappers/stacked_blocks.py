"""Image-text-to-text models whose language stack needed a block kind of its own in the core (nnterp.blocks): each
served through a language stack declared as its difference from its parent (nnterp.wrappers.stacks), with where the
language model sits, where the image features enter, the image inputs and a tiny recipe with a one-layer vision
tower. Each note is read from transformers' modeling code."""

from nnterp.family import checkpoint_data

from . import Wrapper
from .stacked import MOONVIT, MUSE_GLIMMER_TEXT_TINY
from .stacks.muse_spark_text import FAMILY as MUSE_SPARK_TEXT

#: Muse Spark's language stack in the tiny shape: Muse Glimmer's, a dense block then a routed one whose experts run
#: at a width of their own (48, neither hidden_size nor moe_intermediate_size).
MUSE_SPARK_TEXT_TINY = {
    **MUSE_GLIMMER_TEXT_TINY, "mlp_layer_types": ["dense", "sparse"], "moe_hidden_size": 48,
    "moe_intermediate_size": 32, "num_local_experts": 4, "num_experts_per_tok": 2}
#: A two-stage audio tower (its output is scattered onto the text embeddings, so its width is the text's).
MUSE_SPARK_AUDIO = {"hidden_sizes": [8, 16], "patch_sizes": [2, 2], "depths": [1, 1], "num_hidden_layers": 2,
                    "out_hidden_size": 64}

STACKED_BLOCKS = (
    Wrapper(
        name="muse_spark",
        title="Muse Spark",
        model_types=("muse_spark",),
        classes=("MuseSparkForConditionalGeneration",),
        text_family=MUSE_SPARK_TEXT,
        summary="Muse Spark: Muse Glimmer's MoonViT encoder and adapter, and an audio tower, around a sandwich "
                "decoder whose residual adds are learned per-channel mixes, with a mixture of experts run in a "
                "projected width.",
        note="MuseSparkForConditionalGeneration: model.{vision_tower (MoonViT, as Muse Glimmer's), vision_adapter, "
             "vision_projection, perception_emb_norm, audio_tower (MuseSparkAudioModel: causal convolution stages "
             "over the waveform, projected to the text width), language_model (MuseSparkTextModel)} and lm_head, "
             "whose logits are scaled by output_multiplier and soft-capped as the text family says. "
             "MuseSparkModel's forward embeds the ids with the image, video and audio placeholders as id 0, then "
             "places the normed projection's image rows with inputs_embeds.masked_scatter (videos next, then the "
             "audio tower's rows, each by a masked_scatter of its own).",
        vision=("model.vision_tower", "model.vision_adapter", "model.vision_projection", "model.audio_tower"),
        image_inputs=("pixel_values", "image_grid_thw"),
        checkpoints=checkpoint_data("muse_spark"),
        tiny={"config_class": "MuseSparkConfig", "overrides": {
            "text_config": MUSE_SPARK_TEXT_TINY, "image_token_id": 299, "video_token_id": 298,
            "audio_token_id": 296, "out_hidden_size": 128, "projector_hidden_size": 64, "vision_config": MOONVIT,
            "audio_config": MUSE_SPARK_AUDIO},
            # as Muse Glimmer's: 16 flattened patches of 3 x 2 frames x 4 x 4 values, merged 2x2 into 4 rows
            "image": {"tokens": 4, "around": (297,), "pixel_values": (16, 96), "image_grid_thw": [[1, 4, 4]]}},
    ),
)
