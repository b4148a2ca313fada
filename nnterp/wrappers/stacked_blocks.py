"""Image-text-to-text models whose language stack needed a block kind of its own in the core (nnterp.declare.blocks): each
served through a language stack declared as its difference from its parent (nnterp.wrappers.stacks), with where the
language model sits, where the image features enter, the image inputs and a tiny recipe with a one-layer vision
tower. Each note is read from transformers' modeling code."""

from nnterp.families._declared import checkpoint_data
from nnterp.wrappers.stacked import MOONVIT, MUSE_GLIMMER_TEXT_TINY
from nnterp.wrappers.stacks.muse_spark_text import FAMILY as MUSE_SPARK_TEXT
from nnterp.wrappers.stacks.step3p5_text import FAMILY as STEP3P5_TEXT
from nnterp.wrappers.wrapper import Wrapper, recipe

#: Muse Spark's language stack in the tiny shape: Muse Glimmer's, a dense block then a routed one whose experts run
#: at a width of their own (48, neither hidden_size nor moe_intermediate_size).
MUSE_SPARK_TEXT_TINY = {
    **MUSE_GLIMMER_TEXT_TINY, "mlp_layer_types": ["dense", "sparse"], "moe_hidden_size": 48,
    "moe_intermediate_size": 32, "num_local_experts": 4, "num_experts_per_tok": 2}
#: A two-stage audio tower (its output is scattered onto the text embeddings, so its width is the text's).
MUSE_SPARK_AUDIO = {"hidden_sizes": [8, 16], "patch_sizes": [2, 2], "depths": [1, 1], "num_hidden_layers": 2,
                    "out_hidden_size": 64}

#: Step 3.7's language stack in the tiny shape: a sliding block with half the heads and a partial rotary, a full
#: one with its own rope_theta, a dense MLP clamped by swiglu_limits_shared, then routed blocks, the last one's
#: experts clamped by swiglu_limits.
STEP3P5_TEXT_TINY = {
    "pad_token_id": 0, "bos_token_id": 1, "eos_token_id": 2, "hidden_size": 64, "num_hidden_layers": 3,
    "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16, "intermediate_size": 128, "vocab_size": 300,
    "moe_intermediate_size": 32, "share_expert_dim": 32, "n_routed_experts": 4, "num_experts_per_tok": 2,
    "layer_types": ["sliding_attention", "full_attention", "sliding_attention"], "sliding_window": 4,
    "num_sliding_attention_heads": 2, "mlp_layer_types": ["dense", "sparse", "sparse"],
    "rope_theta": [10000.0, 500000.0, 10000.0], "partial_rotary_factors": [0.5, 1.0, 0.5],
    "swiglu_limits": [0, 0, 0.1], "swiglu_limits_shared": [0.1, 0, 0]}
#: A one-layer vision encoder over 32-pixel images in 4-pixel patches, whose two stride-2 convolutions leave 2 x 2.
STEP3P7_VISION = {"hidden_size": 32, "num_hidden_layers": 1, "num_attention_heads": 2, "image_size": 32,
                  "patch_size": 4, "mlp_ratio": 2.0}


def _bidirectional(config) -> str | None:
    if getattr(config.get_text_config(), "use_bidirectional_attention", False):
        return ("use_bidirectional_attention makes every position attend to later ones too (the full layers over the "
                "whole sequence, the sliding ones within the window both ways), which is no causal LM; nnterp serves "
                "use_bidirectional_attention=False")
    return None


STACKED_BLOCKS = (
    Wrapper(
        name="muse_spark",
        title="Muse Spark",
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
        # as Muse Glimmer's: 16 flattened patches of 3 x 2 frames x 4 x 4 values, merged 2x2 into 4 rows
        tiny=recipe("MuseSparkConfig",
            image={"tokens": 4, "around": (297,), "pixel_values": (16, 96), "image_grid_thw": [[1, 4, 4]]},
            text_config=MUSE_SPARK_TEXT_TINY, image_token_id=299, video_token_id=298, audio_token_id=296,
            out_hidden_size=128, projector_hidden_size=64, vision_config=MOONVIT, audio_config=MUSE_SPARK_AUDIO),
    ),
    Wrapper(
        name="step3p7",
        title="Step 3.7",
        classes=("Step3p7ForConditionalGeneration",),
        text_family=STEP3P5_TEXT,
        summary="Step 3.7: a rotary ViT whose patches two stride-2 convolutions pool, projected into a mixture-of-"
                "experts decoder with a sigmoid gate per attention head and a rotary per layer type.",
        note="Step3p7ForConditionalGeneration: model.{vision_model (Step3p7VisionModel: patch convolution with "
             "interpolated positions, pre_layernorm, encoder layers with 2-D rotary and layer scales, then "
             "downsampler1 and downsampler2, stride-2 convolutions to 4·hidden_size channels), "
             "multi_modal_projector (one linear), language_model (Step3p7TextModel)} and lm_head. The image comes as "
             "pixel_values, with optional local crops (pixel_values_local, num_local_patches) whose rows come first; "
             "Step3p7Model's forward places the projected rows with inputs_embeds.masked_scatter at image_token_id. "
             "A config with use_bidirectional_attention is refused.",
        vision=("model.vision_model", "model.multi_modal_projector"),
        refuses=_bidirectional,
        checkpoints=checkpoint_data("step3p7"),
        tiny=recipe("Step3p7Config", image={"tokens": 4, "pixel_values": (1, 3, 32, 32)},
            text_config=STEP3P5_TEXT_TINY, image_token_id=299, vision_config=STEP3P7_VISION),
    ),
)
