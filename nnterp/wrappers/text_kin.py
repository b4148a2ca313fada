"""Image-text-to-text models whose language model is its own text class (Qwen3VLMoeTextModel, Glm4vTextModel, ...)
with no CausalLM of its own, but whose blocks are an nnterp family's: the same modules, the same arithmetic, and
multimodal rotary positions computed outside the blocks. Each is served through that family; one declaration each:
where the language model sits, where the image features enter, the image inputs and a tiny recipe with a one-layer
vision tower. Each note is read from transformers' modeling code."""

from nnterp.declare.sites import WHOLE, Assigned, Call, Read
from nnterp.families._declared import checkpoint_data
from nnterp.wrappers.declarations import MROPE, QWEN_IMAGE, SIGLIP
from nnterp.wrappers.own_text import (
    QWEN3_DEEPSTACK_VISION, QWEN_IDS, QWEN_INPUTS, QWEN_PLACEHOLDERS, QWEN_VISUAL, qwen3_recipe,
)
from nnterp.wrappers.wrapper import IMAGE_ROWS, Wrapper, recipe, tiny_text

#: A one-block GLM-4V vision transformer: 16-pixel images in 4-pixel patches, two frames each, merged 2x2.
GLM4V_VISION = {"depth": 1, "hidden_size": 32, "out_hidden_size": 64, "intermediate_size": 64, "num_heads": 2,
                "patch_size": 4, "image_size": 16}
#: GLM-4V's special ids inside the tiny vocabulary: the image placeholder, its video twin and their brackets.
GLM4V_IDS = {"image_token_id": 299, "video_token_id": 298, "image_start_token_id": 297, "image_end_token_id": 296,
             "video_start_token_id": 295, "video_end_token_id": 294}
GLM4V_PLACEHOLDERS = {**QWEN_IMAGE, "around": (297, 296), "types": "mm_token_type_ids"}
#: A one-layer Whisper-style audio encoder (the Omni thinkers'): built with the model, idle on text and image calls.
OMNI_AUDIO = {"num_mel_bins": 8, "encoder_layers": 1, "encoder_attention_heads": 2, "encoder_ffn_dim": 64,
              "d_model": 32, "output_dim": 64}
#: The Omni thinkers merge audio, then image, then video rows, each by its own inputs_embeds.masked_scatter.
OMNI_IMAGE_MERGE = Call("inputs_embeds.masked_scatter", "input", occurrence=1)
#: GLM's multimodal rotary on half of a 16-wide head: 4 frequencies, split (temporal, height, width).
GLM_MROPE = {**MROPE, "mrope_section": [1, 1, 2], "partial_rotary_factor": 0.5}
#: Qwen3-VL's multimodal rotary: the sections' frequencies interleaved.
INTERLEAVED_MROPE = {**MROPE, "mrope_interleaved": True}


def glm4v_recipe(config_class: str, text_family: str = "glm4") -> dict:
    """The tiny recipe of a wrapper around GLM-4V's vision transformer: GLM4V_VISION, GLM-4V's ids and placeholders,
    the text family's recipe with GLM's multimodal rotary."""
    return recipe(config_class, GLM4V_PLACEHOLDERS, text_config=tiny_text(text_family, rope_parameters=GLM_MROPE),
                  **GLM4V_IDS, vision_config=GLM4V_VISION)


def _molmo2_not_qwen3(config) -> str | None:
    """Why a Molmo 2 language model is not Qwen3's blocks (olmo query and key norms, post-norms), or None."""
    text = config.get_text_config()
    if text.qk_norm_type != "qwen3":
        return (f"qk_norm_type={text.qk_norm_type!r} norms every head's queries (and keys) with one RMSNorm, which "
                "the qwen3 family's per-head norms do not describe; nnterp serves qk_norm_type='qwen3'")
    if text.norm_after:
        return ("norm_after=True normalizes each sublayer's output inside the residual add, which the qwen3 "
                "family's pre-norm blocks do not describe; nnterp serves norm_after=False")
    return None

TEXT_KIN = (
    Wrapper(
        name="qwen3_vl_moe",
        title="Qwen3-VL-MoE",
        classes=("Qwen3VLMoeForConditionalGeneration",),
        text_family="qwen3_moe",
        summary="Qwen3-VL-MoE (30B-A3B, 235B-A22B): Qwen3-VL's vision transformer and deepstack around Qwen3-MoE's "
                "decoder with interleaved multimodal rotary positions.",
        note="Qwen3VLMoeForConditionalGeneration: model.{visual, language_model (Qwen3VLMoeTextModel: Qwen3-MoE's "
             "blocks, a top-k router over fused experts)} and lm_head. The merger's rows are placed by "
             "inputs_embeds.masked_scatter (image_features); the vision blocks at deepstack_visual_indexes give "
             "features of their own, which the language model adds at the image positions after each of its first "
             "len(deepstack_visual_indexes) blocks, as Qwen3-VL's.",
        **QWEN_VISUAL,
        tiny=qwen3_recipe("Qwen3VLMoeConfig", vision_config=QWEN3_DEEPSTACK_VISION,
                          text_config=tiny_text("qwen3_moe", head_dim=16, rope_parameters=INTERLEAVED_MROPE)),
    ),
    Wrapper(
        name="glm4v",
        title="GLM-4.1V",
        classes=("Glm4vForConditionalGeneration",),
        text_family="glm4",
        summary="GLM-4.1V-Thinking: a native-resolution vision transformer with a 2x2 merger around GLM-4's sandwich "
                "decoder with multimodal rotary positions.",
        note="Glm4vForConditionalGeneration: model.{visual (patch embedding, interpolated positions, blocks, a 2x2 "
             "downsampling convolution, merger), language_model (Glm4vTextModel: GLM-4's sandwich blocks)} and "
             "lm_head. The image comes as flattened patches with image_grid_thw; Glm4vModel's forward places the "
             "merger's rows with inputs_embeds.masked_scatter at image_token_id, between image_start_token_id and "
             "image_end_token_id. Rotary positions are three-dimensional (mrope_section), computed from "
             "image_grid_thw and mm_token_type_ids.",
        **QWEN_VISUAL,
        tiny=glm4v_recipe("Glm4vConfig"),
    ),
    Wrapper(
        name="glm46v",
        title="GLM-4.6V",
        model_types=("glm46v", "glmga"),
        classes=("Glm46VForConditionalGeneration",),
        text_family="glm4",
        summary="GLM-4.6V (and GLM-GA): GLM-4.1V's vision transformer and merger around GLM-4's sandwich decoder "
                "with multimodal rotary positions.",
        note="Glm46VForConditionalGeneration: model.{visual (Glm4vVisionModel), language_model (Glm4vTextModel)} and "
             "lm_head, as GLM-4.1V: flattened patches with image_grid_thw, the merger's rows placed by "
             "inputs_embeds.masked_scatter at image_token_id, multimodal rotary positions in the language model.",
        **QWEN_VISUAL,
        tiny=glm4v_recipe("Glm46VConfig"),
    ),
    Wrapper(
        name="glm4v_moe",
        title="GLM-4.5V",
        classes=("Glm4vMoeForConditionalGeneration",),
        text_family="glm4_moe",
        summary="GLM-4.5V: GLM-4.1V's vision transformer and merger around GLM-4.5's mixture-of-experts decoder "
                "with multimodal rotary positions.",
        note="Glm4vMoeForConditionalGeneration: model.{visual, language_model (Glm4vMoeTextModel: GLM-4.5's blocks, "
             "dense for the first first_k_dense_replace, then a sigmoid router with a shared expert)} and lm_head. "
             "The image comes as flattened patches with image_grid_thw; Glm4vMoeModel's forward places the merger's "
             "rows with inputs_embeds.masked_scatter at image_token_id; rotary positions are three-dimensional.",
        **QWEN_VISUAL,
        tiny=glm4v_recipe("Glm4vMoeConfig", "glm4_moe"),
    ),
    Wrapper(
        name="glm_ocr",
        title="GLM-OCR",
        classes=("GlmOcrForConditionalGeneration",),
        text_family="glm4",
        summary="GLM-OCR: a GLM-4V-style vision transformer and merger around a small GLM-4 sandwich decoder with "
                "multimodal rotary positions.",
        note="GlmOcrForConditionalGeneration: model.{visual (GlmOcrVisionModel), language_model (GlmOcrTextModel: "
             "GLM-4's sandwich blocks)} and lm_head, as GLM-4.1V: flattened patches with image_grid_thw, the "
             "merger's rows placed by inputs_embeds.masked_scatter at image_token_id, multimodal rotary positions.",
        **QWEN_VISUAL,
        tiny=glm4v_recipe("GlmOcrConfig"),
    ),
    Wrapper(
        name="paddleocr_vl",
        title="PaddleOCR-VL",
        classes=("PaddleOCRVLForConditionalGeneration",),
        text_family="ernie4_5",
        summary="PaddleOCR-VL: a NaViT-style SigLIP encoder and a 2x2 merging projector around an ERNIE-4.5 decoder "
                "with multimodal rotary positions.",
        note="PaddleOCRVLForConditionalGeneration: model.{visual (PaddleOCRVisionModel), projector (layer norm, each "
             "2x2 patches side by side, linear, GELU, linear), language_model (PaddleOCRTextModel: ERNIE-4.5's "
             "blocks)} and lm_head. The image comes as patches (pixel_values [patches, channels, patch_size, "
             "patch_size]) with image_grid_thw; PaddleOCRVLModel's forward places the projector's rows with "
             "inputs_embeds.masked_scatter at image_token_id.",
        vision=("model.visual", "model.projector"),
        image_inputs=QWEN_INPUTS,
        tiny=recipe("PaddleOCRVLConfig",
            image={"tokens": 4, "pixel_values": (16, 3, 4, 4), "image_grid_thw": [[1, 4, 4]], "around": (297,),
                   "types": "mm_token_type_ids"},
            text_config=tiny_text("ernie4_5", rope_parameters=MROPE), **QWEN_IDS,
            vision_config={"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 1,
                           "num_attention_heads": 2, "image_size": 16, "patch_size": 4}),
    ),
    Wrapper(
        name="cosmos3_omni",
        title="Cosmos 3 Omni",
        classes=("Cosmos3OmniForConditionalGeneration",),
        text_family="qwen3",
        summary="Cosmos 3 Omni: Qwen3-VL's vision transformer and deepstack around Qwen3-VL's text decoder.",
        note="Cosmos3OmniForConditionalGeneration: model.{visual (Qwen3VLVisionModel), language_model "
             "(Qwen3VLTextModel)} and lm_head, as Qwen3-VL: the merger's rows are placed by "
             "inputs_embeds.masked_scatter (image_features), and the deepstack features of the vision blocks at "
             "deepstack_visual_indexes are added at the image positions after the language model's first blocks.",
        **QWEN_VISUAL,
        tiny=qwen3_recipe("Cosmos3OmniConfig", vision_config=QWEN3_DEEPSTACK_VISION,
                          text_config=tiny_text("qwen3", rope_parameters=INTERLEAVED_MROPE)),
    ),
    Wrapper(
        name="qwen2_5_omni_thinker",
        title="Qwen2.5-Omni (thinker)",
        classes=("Qwen2_5OmniThinkerForConditionalGeneration",),
        text_family="qwen2",
        summary="The thinker of Qwen2.5-Omni: an audio encoder and Qwen2.5-VL's vision transformer around Qwen2's "
                "decoder with multimodal rotary positions.",
        note="Qwen2_5OmniThinkerForConditionalGeneration: model.{audio_tower (Qwen2_5OmniAudioEncoder), visual "
             "(Qwen2_5OmniVisionEncoder), language_model (Qwen2_5OmniThinkerTextModel: Qwen2's blocks)} and lm_head. "
             "Qwen2_5OmniThinkerModel's forward places audio rows, then image rows, then video rows, each with its own "
             "inputs_embeds.masked_scatter: image_features are the second's; audio stays native. The talker and the "
             "token-to-wave model of the full Qwen2.5-Omni are not part of the thinker.",
        merge_call=OMNI_IMAGE_MERGE,
        vision=("model.visual", "model.audio_tower"),
        image_inputs=QWEN_INPUTS,
        tiny=recipe("Qwen2_5OmniThinkerConfig", image=QWEN_PLACEHOLDERS,
            text_config=tiny_text("qwen2", rope_parameters=MROPE), audio_config=OMNI_AUDIO, image_token_index=299,
            video_token_index=298, audio_token_index=296, vision_start_token_id=297,
            vision_config={"depth": 1, "hidden_size": 32, "out_hidden_size": 64, "intermediate_size": 64,
                           "num_heads": 2, "patch_size": 4, "window_size": 16, "fullatt_block_indexes": [0]}),
    ),
    Wrapper(
        name="qwen3_omni_moe_thinker",
        title="Qwen3-Omni (thinker)",
        classes=("Qwen3OmniMoeThinkerForConditionalGeneration",),
        text_family="qwen3_moe",
        summary="The thinker of Qwen3-Omni: an audio encoder and Qwen3-VL's vision transformer around Qwen3-MoE's "
                "decoder with interleaved multimodal rotary positions.",
        note="Qwen3OmniMoeThinkerForConditionalGeneration: model.{audio_tower, visual, language_model "
             "(Qwen3OmniMoeThinkerTextModel: Qwen3-MoE's blocks)} and lm_head. The forward places audio rows, then "
             "image rows, then video rows, each with its own inputs_embeds.masked_scatter: image_features are the "
             "second's; the vision blocks' deepstack features are added at the image positions after the language "
             "model's first blocks, as Qwen3-VL's. The talker of the full Qwen3-Omni is not part of the thinker.",
        merge_call=OMNI_IMAGE_MERGE,
        vision=("model.visual", "model.audio_tower"),
        image_inputs=QWEN_INPUTS,
        tiny=recipe("Qwen3OmniMoeThinkerConfig", image=QWEN_PLACEHOLDERS,
            text_config=tiny_text("qwen3_moe", head_dim=16, rope_parameters=INTERLEAVED_MROPE),
            audio_config=OMNI_AUDIO, image_token_id=299, video_token_id=298, audio_token_id=296,
            vision_start_token_id=297, vision_config=QWEN3_DEEPSTACK_VISION),
    ),
    Wrapper(
        name="granite_docling",
        title="Granite Docling",
        classes=("GraniteDoclingForConditionalGeneration",),
        text_family="granite",
        summary="Granite Docling: a SigLIP-style vision model, a pixel-shuffle connector with deepstack features "
                "around a Granite decoder (embedding, attention, residual and logit multipliers).",
        note="GraniteDoclingForConditionalGeneration: model.{vision_model (GraniteDoclingVisionModel: SigLIP-style "
             "layers, then a pixel-shuffle connector by scale_factor, and deepstack mergers of the layers at "
             "deepstack_visual_indexes), text_model (GraniteDoclingTextModel: Granite's blocks)} and lm_head. Images "
             "come as tiles [batch, tiles, channels, height, width] with pixel_attention_mask marking the real ones; "
             "GraniteDoclingModel's forward places the connector's rows with inputs_embeds.masked_scatter at "
             "image_token_id, and the text model multiplies every inputs_embeds row by embedding_multiplier, then "
             "adds deepstack feature i at the image positions after block i, as Qwen3-VL's.",
        language_model="model.text_model",
        vision=("model.vision_model",),
        image_inputs=("pixel_values", "pixel_attention_mask"),
        tiny=recipe("GraniteDoclingConfig",
            image={"tokens": 4, "pixel_values": (1, 1, 3, 16, 16), "pixel_attention_mask": [[True]]},
            image_token_id=299,
            vision_config={**SIGLIP, "out_hidden_size": 64, "scale_factor": 2, "deepstack_visual_indexes": [0]}),
    ),
    Wrapper(
        name="hy_v4_vl",
        title="HY-V4-VL",
        classes=("HYV4VLForConditionalGeneration",),
        text_family="hy_v4",
        summary="HY-V4-VL: a native-resolution vision transformer whose merger ends every row with a newline "
                "embedding, around HY-V4's hyper-connected decoder.",
        note="HYV4VLForConditionalGeneration: model.{vision_tower (HYV4VLVisionModel: flattened patches with "
             "image_grid_thw, blocks, a 2x2 merger that appends image_newline to every merged row), language_model "
             "(HYV4VLTextModel: HY-V4's blocks)} and lm_head. HYV4VLModel's forward places the merger's rows, "
             "newlines included, with inputs_embeds.masked_scatter at image_token_id: (height / 2) x (width / 2 + 1) "
             "rows per image.",
        vision=("model.vision_tower",),
        image_inputs=QWEN_INPUTS,
        tiny=recipe("HYV4VLConfig",
            # one 16-pixel image: 4 x 4 patches merged 2x2, each of the 2 rows ended by a newline
            image={"tokens": 6, "pixel_values": (16, 48), "image_grid_thw": [[1, 4, 4]],
                   "types": "mm_token_type_ids"},
            text_config=tiny_text("hy_v4", rope_parameters=MROPE), image_token_id=299, video_token_id=298,
            vision_config={"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 1,
                           "num_attention_heads": 2, "patch_size": 4, "out_hidden_size": 64}),
    ),
    Wrapper(
        name="hunyuan_vl",
        title="HunyuanOCR",
        classes=("HunYuanVLForConditionalGeneration",),
        text_family="hunyuan_v1_dense",
        summary="HunyuanOCR: a native-resolution vision transformer whose merger frames each image and ends every "
                "row with a newline, around Hunyuan V1 dense's decoder with multimodal rotary positions.",
        note="HunYuanVLForConditionalGeneration: model.{vision_tower (HunYuanVLVisionTransformer: flattened patches "
             "with image_grid_thw, blocks, a perceiver that merges each spatial_merge_size^2 patches and adds a "
             "newline row after every merged row and a begin and an end row around the image), language_model "
             "(HunYuanVLTextModel: Hunyuan V1 dense's blocks, the per-head query and key norms after the rotary)} "
             "and lm_head, tied to the embeddings. HunYuanVLModel's forward places the vision tower's rows, "
             "begin, newlines and end included, with inputs_embeds.masked_scatter at image_token_id: (height / 2) x "
             "(width / 2 + 1) + 2 rows per image. Rotary positions are multimodal (mrope_section's axes, the last "
             "three width, height and image index), computed from image_grid_thw and mm_token_type_ids.",
        vision=("model.vision_tower",),
        image_inputs=QWEN_INPUTS,
        checkpoints=checkpoint_data("hunyuan_vl"),
        tiny=recipe("HunYuanVLConfig",
            # one 16-pixel image: 4 x 4 patches merged 2x2, 2 rows of 2 each ended by a newline, begin and end
            image={"tokens": 8, "pixel_values": (16, 48), "image_grid_thw": [[1, 4, 4]],
                   "types": "mm_token_type_ids"},
            text_config=tiny_text("hunyuan_v1_dense", rope_parameters={
                "rope_type": "default", "rope_theta": 10000.0, "mrope_section": [2, 2, 2, 2]}),
            image_token_id=299, im_start_id=297, im_end_id=296, im_newline_id=295,
            vision_config={"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 1,
                           "num_attention_heads": 2, "patch_size": 4, "out_hidden_size": 64}),
    ),
    Wrapper(
        name="molmo2",
        title="Molmo 2",
        classes=("Molmo2ForConditionalGeneration",),
        text_family="qwen3",
        summary="Molmo 2: a SigLIP-style vision transformer whose patches an attention pool gathers per image row, "
                "added to the placeholders' embeddings of a Qwen3-style decoder.",
        note="Molmo2ForConditionalGeneration: model.{vision_tower (Molmo2VisionModel), multi_modal_projector "
             "(Molmo2Adapter: attention pooling of the patches image_token_pooling names, from the vision layers "
             "vision_feature_layer lists side by side, then a gated MLP to the text width), language_model "
             "(Molmo2TextModel: with qk_norm_type 'qwen3' and norm_after False, Qwen3's blocks; its embedding holds "
             "additional_vocab_size rows past vocab_size for the image tokens)} and lm_head. The image comes as "
             "crops of flattened patches (pixel_values) with image_token_pooling and image_grids; Molmo2Model's "
             "forward adds the pooled rows to the placeholders' own embeddings at image_patch_id and places the sum "
             "with inputs_embeds.masked_scatter, so image_features is that sum; with mm_token_type_ids the image "
             "positions attend to each other both ways. A checkpoint with qk_norm_type 'olmo' (one RMSNorm over "
             "every head's queries, one over the keys) or norm_after (post-norms) has blocks that are not Qwen3's, and is "
             "refused.",
        refuses=_molmo2_not_qwen3,
        vision=("model.vision_tower", "model.multi_modal_projector"),
        image_inputs=("pixel_values", "image_token_pooling", "image_grids", "mm_token_type_ids"),
        image_token="image_patch_id",
        checkpoints=checkpoint_data("molmo2"),
        tiny=recipe("Molmo2Config",
            # one 16-pixel crop of 16 patches, pooled 2x2 into 4 rows between the image brackets
            image={"tokens": 4, "around": (300, 301), "types": "mm_token_type_ids", "pixel_values": (1, 16, 48),
                   "image_token_pooling": [[0, 1, 4, 5], [2, 3, 6, 7], [8, 9, 12, 13], [10, 11, 14, 15]],
                   "image_grids": [[2, 2, 0, 0]]},
            text_config=tiny_text("qwen3", additional_vocab_size=8), image_start_token_id=300, image_end_token_id=301,
            image_patch_id=302, low_res_image_start_token_id=303, frame_start_token_id=304, frame_end_token_id=305,
            vision_config={"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 1,
                           "num_attention_heads": 2, "num_key_value_heads": 2, "head_dim": 16,
                           "image_size": [16, 16], "patch_size": 4},
            adapter_config={"vision_feature_layer": [-1], "hidden_size": 32, "num_attention_heads": 2,
                            "num_key_value_heads": 2, "head_dim": 16, "intermediate_size": 64,
                            "text_hidden_size": 64}),
    ),
)


def _injected_blocks(config) -> tuple[int, ...]:
    """The blocks before which Granite 4 Vision adds image features: the language layers of deepstack_layer_map and
    spatial_target_layers (Granite4VisionModel keeps one tensor per block, the later entry where two name one)."""
    return tuple(sorted({layer for _, layer in config.deepstack_layer_map or ()} | set(config.spatial_target_layers or ())))


#: A tiny Granite 4 Vision: a two-layer SigLIP (16-pixel tiles, 4-pixel patches), window Q-Former downsamplers
#: at a rate of 1/2 (a 4x4 patch grid becomes 2x2 rows), one anyres grid point, so a call's image is two tiles
GRANITE4_VISION = {
    "vision_config": {"model_type": "siglip_vision_model", "hidden_size": 64, "intermediate_size": 64,
                      "num_hidden_layers": 2, "num_attention_heads": 2, "image_size": 16, "patch_size": 4},
    "qformer_config": {"num_hidden_layers": 1, "intermediate_size": 64},
    "image_token_index": 299, "image_grid_pinpoints": [[16, 16]], "downsample_rate": "1/2",
    "vision_feature_layer": -1, "vision_feature_select_strategy": "full",
    # features from the vision model's next-to-last layer before block 1, its spatial groups' before block 2
    "deepstack_layer_map": [[-2, 1]], "spatial_vision_layer": -1, "spatial_target_layers": [2]}

TEXT_KIN += (
    Wrapper(
        name="granite4_vision",
        title="Granite 4 Vision",
        classes=("Granite4VisionForConditionalGeneration",),
        text_family="granite",
        summary="Granite 4 Vision: a SigLIP vision tower whose layers feed window Q-Former downsamplers, added at the "
                "image positions before chosen blocks of a Granite language model (deepstack), not at its input.",
        note="Granite4VisionForConditionalGeneration: model.{vision_tower (SigLIP), layerwise_projectors and "
             "spatial_projectors (window Q-Former downsamplers), image_newline, language_model "
             "(Granite4VisionTextModel)} and lm_head, whose logits are divided by text_config.logits_scaling. The "
             "image never enters at the input: Granite4VisionModel's forward zeroes the placeholders' embeddings "
             "(inputs_embeds.masked_fill at image_token_index) and hands the language model deepstack_features, one "
             "tensor of rows per block: the vision layers of deepstack_layer_map, each through its own projector, "
             "go before the language blocks the map names, and spatial_vision_layer's four offset groups before "
             "the blocks of spatial_target_layers (where two entries name one block, the later one is kept). "
             "Granite4VisionTextModel's forward adds each at the image positions before its block "
             "(hidden_states.masked_scatter): there layers[k].layer_input is layers[k - 1].layer_output plus those "
             "rows, the only place the stream changes between blocks. image_features are the rows added before "
             "the first of those blocks; image_mask marks the positions every injection adds to.",
        language="Its language model is Granite4VisionTextModel, Granite's: the granite family's blocks, values and "
                 "multipliers (embedding_multiplier on the merged embeddings, residual_multiplier on each sublayer's "
                 "contribution, attention_multiplier as the softmax scale, logits_scaling on the logits).",
        image_token="image_token_index",
        merge="model.language_model",
        injected=_injected_blocks,
        vision=("model.vision_tower", "model.layerwise_projectors", "model.spatial_projectors"),
        image_inputs=("pixel_values", "image_sizes"),
        # the first assignment of features in the language model's loop: the rows added before the first such block
        sites={"image_features": Read(
            Assigned("features", child="model.language_model"), WHOLE, IMAGE_ROWS, description=(
                "The image rows Granite4VisionTextModel adds at the image positions before the first block "
                "deepstack_layer_map or spatial_target_layers names (a projector's output, packed per image)"))},
        # the checkpoint Granite4VisionConfig's docstring names (transformers' configuration_granite4_vision.py, as
        # published on GitHub; 5.24's names a LLaVA-NeXT checkpoint instead)
        tiny=recipe("Granite4VisionConfig",
            # two tiles of 2x2 rows each: the base tile's 4, the grid tile's 2 rows of 2 and a newline each
            image={"tokens": 10, "pixel_values": (1, 2, 3, 16, 16), "image_sizes": [[16, 16]]},
            # an attention_multiplier unlike head_dim ** -0.5 (GRANITE_TINY's 0.25 is 16 ** -0.5), so the page tells
            text_config=tiny_text("granite", num_hidden_layers=3, model_type="granite4_vision_text",
                              attention_multiplier=0.2),
            **GRANITE4_VISION),
    ),
)
