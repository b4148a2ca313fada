"""Image-text-to-text models whose language model is an nnterp family of its own kind (Gemma 4, Qwen3.5, LFM2,
Kimi K2.5, MiniCPM-V, ...), one declaration each: where the language model sits, where the image features enter,
the image inputs and a tiny recipe with a one-layer vision tower. Each note is read from transformers' modeling
code."""

from nnterp.declare.family import EAGER_LOADS, Checkpoint
from nnterp.wrappers.declarations import QWEN_IMAGE, SIGLIP
from nnterp.wrappers.wrapper import Wrapper, recipe, tiny_text

#: A one-block Qwen3-VL-style vision transformer (Qwen3.5's): 4-pixel patches, two frames each, merged 2x2.
QWEN3_VISION = {"depth": 1, "hidden_size": 32, "out_hidden_size": 64, "intermediate_size": 64, "num_heads": 2,
                "patch_size": 4, "num_position_embeddings": 16}
#: Qwen3-VL's: the same, with deepstack features from its one block.
QWEN3_DEEPSTACK_VISION = {**QWEN3_VISION, "deepstack_visual_indexes": [0]}
#: Qwen's image placeholders: one 16-pixel image, 4 rows after the merge, after a vision-start token, with the
#: processor's token types (1 at the image positions) the multimodal rotary positions are computed from.
QWEN_PLACEHOLDERS = {**QWEN_IMAGE, "around": (297,), "types": "mm_token_type_ids"}
QWEN_IDS = {"image_token_id": 299, "video_token_id": 298, "vision_start_token_id": 297}
#: Qwen's image inputs: flattened patches, their grid, and the token types the multimodal rotary is computed from.
QWEN_INPUTS = ("pixel_values", "image_grid_thw", "mm_token_type_ids")
#: A Qwen-VL-style vision side as a wrapper declares it: model.visual, with Qwen's image inputs.
QWEN_VISUAL = {"vision": ("model.visual",), "image_inputs": QWEN_INPUTS}


def qwen3_recipe(config_class: str, **overrides) -> dict:
    """The tiny recipe of a wrapper around a Qwen3.5-style vision transformer: QWEN3_VISION, Qwen's ids and
    placeholders, and ``overrides``."""
    return recipe(config_class, QWEN_PLACEHOLDERS, **{**QWEN_IDS, "vision_config": QWEN3_VISION, **overrides})


def _grid(width: int, height: int) -> list:
    """The (x, y) position of each patch of a width x height patch grid, row by row (Gemma 4's image_position_ids)."""
    return [[[x, y] for y in range(height) for x in range(width)]]


#: A one-layer MiniCPM-V SigLIP (NaViT-packed patches, a window-attention merger after insert_layer_id).
MINICPM_VISION = {"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 1, "num_attention_heads": 2,
                  "image_size": 32, "patch_size": 4}
MINICPM_NOTE = (
    "model.{vision_tower ({cls}VisionModel: a NaViT-packed SigLIP whose window-attention vit_merger folds each 2x2 "
    "patches after layer insert_layer_id, unless downsample_mode is '4x'), merger (each 2x2 rows side by side, "
    "layer norm, linear, GELU, linear), language_model (Qwen3_5TextModel)} and lm_head. The image comes packed "
    "(pixel_values [1, 3, patch_size, patches x patch_size]) with its patch grid (target_sizes); {cls}Model's "
    "forward places the merger's rows with inputs_embeds.masked_scatter at image_token_id (videos next, by a second "
    "masked_scatter).")


def _packed(patches: int) -> tuple:
    """A NaViT-packed image of ``patches`` 4-pixel patches side by side."""
    return (1, 3, 4, 4 * patches)


#: A one-layer Inkling 2 vision encoder: 4-pixel patches, each 2x2 of them one stream row.
INKLING2_VISION = {"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 1, "num_attention_heads": 2,
                   "patch_size": 4, "posemb_grid_size": 4, "projection_hidden_dim": 64, "text_hidden_size": 64}
#: One 8-pixel image: 4 stream rows (a 2x2 grid of merged patches), each an 8 x 8 x 3 block of pixels.
INKLING2_IMAGE = {"tokens": 4, "pixel_values": (4, 8, 8, 3), "image_grid_thw": [[1, 2, 2]]}
INKLING2_NOTE = (
    "model.{vision_tower ({cls}VisionModel: patch embedding with a class token and an interpolated position grid, "
    "rotary encoder layers, then a merger folding each spatial_merge_size^2 patches into one row, projected to the "
    "text width), language_model ({cls}TextModel)} and lm_head, whose logits are soft-capped as the text "
    "family's. The image comes as one pixel block per stream row (pixel_values [image tokens, patch_size x "
    "spatial_merge_size, same, channels]) with image_grid_thw counted in stream rows; {cls}Model's forward places "
    "the merger's rows with inputs_embeds.masked_scatter at image_token_id.")


OWN_TEXT = (
    Wrapper(
        name="gemma4",
        title="Gemma 4",
        classes=("Gemma4ForConditionalGeneration",),
        text_family="gemma4_text",
        summary="Gemma 4: a rotary vision encoder over patches, pooled by position, and an RMS-normed projection "
                "around Gemma 4's text model (and an optional audio tower).",
        note="Gemma4ForConditionalGeneration: model.{vision_tower (Gemma4VisionModel: patch embedder, encoder, "
             "pooler to pooling_kernel_size^2-patch averages), embed_vision (an RMSNorm without scale, then one "
             "linear), audio_tower and embed_audio where the config has audio, language_model (Gemma4TextModel)} "
             "and lm_head. Images come as flattened patches (pixel_values [batch, patches, 3 x patch_size^2]) with "
             "their (x, y) image_position_ids; Gemma4Model's forward embeds the ids with the multimodal "
             "placeholders as pad (the per-layer inputs see pad there too), then places embed_vision's rows with "
             "inputs_embeds.masked_scatter (videos and audio next, by masked_scatters of their own).",
        vision=("model.vision_tower", "model.embed_vision"),
        image_inputs=("pixel_values", "image_position_ids"),
        tiny=recipe("Gemma4Config",
            image={"tokens": 4, "around": (297, 298), "pixel_values": (1, 16, 48),
                   "image_position_ids": _grid(4, 4)},
            image_token_id=299, boi_token_id=297, eoi_token_id=298, video_token_id=295, audio_token_id=294,
            vision_config={"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 1,
                           "num_attention_heads": 2, "num_key_value_heads": 2, "head_dim": 16,
                           "patch_size": 4, "pooling_kernel_size": 2, "position_embedding_size": 16}),
    ),
    Wrapper(
        name="qwen3_5",
        title="Qwen3.5",
        classes=("Qwen3_5ForConditionalGeneration",),
        text_family="qwen3_5_text",
        summary="Qwen3.5: a Qwen3-VL-style vision transformer with a 2x2 patch merger around Qwen3.5's hybrid "
                "decoder (gated delta-net and gated full attention) with multimodal rotary positions.",
        note="Qwen3_5ForConditionalGeneration: model.{visual (patch embedding, blocks, merger), language_model "
             "(Qwen3_5TextModel)} and lm_head. The image comes as flattened patches with image_grid_thw; "
             "visual.merger folds each 2x2 patches into one stream row, and Qwen3_5Model's forward places them with "
             "inputs_embeds.masked_scatter (videos next, by a second masked_scatter); unlike Qwen3-VL no deepstack "
             "features are added inside the language model. Rotary positions are three-dimensional, computed from "
             "image_grid_thw and mm_token_type_ids.",
        **QWEN_VISUAL,
        tiny=qwen3_recipe("Qwen3_5Config"),
    ),
    Wrapper(
        name="qwen3_5_moe",
        title="Qwen3.5-MoE",
        classes=("Qwen3_5MoeForConditionalGeneration",),
        text_family="qwen3_5_moe_text",
        summary="Qwen3.5-MoE: Qwen3.5's vision transformer and patch merger around its mixture-of-experts hybrid "
                "decoder.",
        note="Qwen3_5MoeForConditionalGeneration: model.{visual, language_model (Qwen3_5MoeTextModel)} and lm_head, "
             "as Qwen3.5: flattened patches with image_grid_thw, the merger's rows placed by "
             "inputs_embeds.masked_scatter, multimodal rotary positions in the language model.",
        **QWEN_VISUAL,
        tiny=qwen3_recipe("Qwen3_5MoeConfig"),
    ),
    Wrapper(
        name="lfm2_vl",
        title="LFM2-VL",
        classes=("Lfm2VlForConditionalGeneration",),
        text_family="lfm2",
        summary="LFM2-VL: a SigLIP 2 NaFlex vision tower and a pixel-unshuffle MLP projector around the LFM2 hybrid "
                "(short convolutions and attention) language model.",
        note="Lfm2VlForConditionalGeneration: model.{vision_tower (Siglip2VisionModel), multi_modal_projector "
             "(pixel unshuffle by downsample_factor, layer norm, linear, GELU, linear), language_model (Lfm2Model)} "
             "and lm_head. Images come as padded patch sequences (pixel_values [images, patches, 3 x "
             "patch_size^2]) with their patch grids (spatial_shapes) and pixel_attention_mask; get_image_features "
             "unshuffles each downsample_factor^2 block of patches into one row, and Lfm2VlModel's forward places "
             "the projected rows with inputs_embeds.masked_scatter.",
        image_inputs=("pixel_values", "spatial_shapes", "pixel_attention_mask"),
        tiny=recipe("Lfm2VlConfig",
            image={"tokens": 4, "pixel_values": (1, 16, 48), "spatial_shapes": [[4, 4]],
                   "pixel_attention_mask": [[1] * 16]},
            image_token_id=299, downsample_factor=2, projector_hidden_size=64,
            vision_config={"model_type": "siglip2_vision_model", "hidden_size": 32, "intermediate_size": 64,
                           "num_hidden_layers": 1, "num_attention_heads": 2, "patch_size": 4,
                           "num_patches": 16, "vision_use_head": False}),
    ),
    Wrapper(
        name="lfm3_vl",
        title="LFM3-VL",
        classes=("Lfm3VlForConditionalGeneration",),
        text_family="lfm3",
        summary="LFM3-VL: a hybrid (short spatial convolutions and attention) native-resolution vision encoder and "
                "a 2x2-merging MLP projector around the LFM3 language model.",
        note="Lfm3VlForConditionalGeneration: model.{vision_tower (Lfm3VlVisionModel: patch embedding, conv and "
             "attention layers), multi_modal_projector (layer norm per patch, each spatial_merge_size^2 patches "
             "side by side, linear, GELU, linear), language_model (Lfm3Model)} and lm_head. The image comes as "
             "flattened patches with image_grid_thw; Lfm3VlModel's forward places the projected rows with "
             "inputs_embeds.masked_scatter (videos next, by a second masked_scatter); the language model's "
             "positions stay one-dimensional.",
        image_inputs=("pixel_values", "image_grid_thw"),
        checkpoints=(Checkpoint("LiquidAI/LFM3-VL-2B", "LFM3-VL-2B"),),
        tiny=recipe("Lfm3VlConfig", image={**QWEN_IMAGE, "around": (297,)}, **QWEN_IDS, projector_hidden_size=64,
            vision_config={"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 1,
                           "num_attention_heads": 2, "num_key_value_heads": 1, "patch_size": 4,
                           "layer_types": ["full_attention"]}),
    ),
    Wrapper(
        name="kimi_k25",
        title="Kimi K2.5",
        classes=("Kimi_K25ForConditionalGeneration",),
        text_family="deepseek_v3",
        summary="Kimi K2.5: the MoonViT native-resolution vision encoder and a 2x2-merging MLP projector around a "
                "DeepSeek-V3 (MLA, mixture-of-experts) language model.",
        note="Kimi_K25ForConditionalGeneration: model.{vision_tower (Kimi_K25VisionModel: per-patch convolution, "
             "interpolated position table, encoder layers, then a merge_kernel_size pooling), mm_projector (layer "
             "norm, each 2x2 patches side by side, linear, GELU, linear), language_model (DeepseekV3Model)} and "
             "lm_head. The image comes as patches (pixel_values [patches, 3, patch_size, patch_size]) with "
             "image_grid_thw; Kimi_K25Model's forward embeds the ids with the image and video placeholders as id "
             "0, then places the projected rows with inputs_embeds.masked_scatter (videos next, by a second "
             "masked_scatter).",
        vision=("model.vision_tower", "model.mm_projector"),
        image_inputs=("pixel_values", "image_grid_thw"),
        tiny=recipe("Kimi_K25Config",
            image={"tokens": 4, "around": (297,), "pixel_values": (16, 3, 4, 4), "image_grid_thw": [[1, 4, 4]]},
            **QWEN_IDS, projection_hidden_size=32,
            vision_config={"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 1,
                           "num_attention_heads": 2, "patch_size": 4, "pos_emb_height": 4, "pos_emb_width": 4}),
    ),
    Wrapper(
        name="minicpm_ocr",
        title="MiniCPM-OCR",
        classes=("MiniCPMOcrForConditionalGeneration",),
        text_family="qwen3_5_text",
        summary="MiniCPM-OCR: a NaViT SigLIP and a 2x2 merger (downsample_mode '4x': no window merger) around a "
                "Qwen3.5 language model.",
        note="MiniCPMOcrForConditionalGeneration: " + MINICPM_NOTE.replace("{cls}", "MiniCPMOcr") + " Its language "
             "model's positions stay one-dimensional.",
        vision=("model.vision_tower", "model.merger"),
        image_inputs=("pixel_values", "target_sizes"),
        checkpoints=(Checkpoint("openbmb/MiniCPM-OCR-1.0", "MiniCPM-OCR-1.0"),),
        tiny=recipe("MiniCPMOcrConfig", image={"tokens": 4, "pixel_values": _packed(16), "target_sizes": [[4, 4]]},
            image_token_id=299, video_token_id=298, insert_layer_id=0, vision_config=MINICPM_VISION),
    ),
    Wrapper(
        name="minicpmv4_6",
        title="MiniCPM-V 4.6",
        classes=("MiniCPMV4_6ForConditionalGeneration",),
        text_family="qwen3_5_text",
        summary="MiniCPM-V 4.6: a NaViT SigLIP with a window-attention merger inside and a 2x2 merger after it "
                "(16 patches a stream row) around a Qwen3.5 language model.",
        note="MiniCPMV4_6ForConditionalGeneration: " + MINICPM_NOTE.replace("{cls}", "MiniCPMV4_6") + " Its language "
             "model's positions stay one-dimensional.",
        vision=("model.vision_tower", "model.merger"),
        image_inputs=("pixel_values", "target_sizes"),
        checkpoints=(Checkpoint("openbmb/MiniCPM-V-4.6", "MiniCPM-V-4.6"),),
        tiny=recipe("MiniCPMV4_6Config", image={"tokens": 4, "pixel_values": _packed(64), "target_sizes": [[8, 8]]},
            image_token_id=299, video_token_id=298, insert_layer_id=0, image_size=32, vision_config=MINICPM_VISION),
    ),
    Wrapper(
        name="minicpmv4_7",
        title="MiniCPM-V 4.7",
        classes=("MiniCPMV4_7ForConditionalGeneration",),
        text_family="qwen3_5_text",
        summary="MiniCPM-V 4.7: MiniCPM-V 4.6's vision side around a Qwen3.5 language model with canvas multimodal "
                "rotary positions.",
        note="MiniCPMV4_7ForConditionalGeneration: " + MINICPM_NOTE.replace("{cls}", "MiniCPMV4_7") + " The rotary "
             "positions are three-dimensional (temporal, height, width) on a canvas laid out from mm_token_type_ids, "
             "target_sizes and the image and slice markers around each crop.",
        vision=("model.vision_tower", "model.merger"),
        image_inputs=("pixel_values", "target_sizes", "mm_token_type_ids"),
        checkpoints=(Checkpoint("openbmb/MiniCPM-V-4.7-1B", "MiniCPM-V-4.7-1B"),),
        tiny=recipe("MiniCPMV4_7Config",
            image={"tokens": 4, "around": (297, 298), "types": "mm_token_type_ids", "pixel_values": _packed(64),
                   "target_sizes": [[8, 8]]},
            image_token_id=299, video_token_id=290, image_start_id=297, image_end_id=298, slice_start_id=293,
            slice_end_id=292, newline_id=291, insert_layer_id=0, image_size=32, vision_config=MINICPM_VISION),
    ),
    Wrapper(
        name="gemma4_unified",
        title="Gemma 4 Unified",
        classes=("Gemma4UnifiedForConditionalGeneration",),
        text_family="gemma4_unified_text",
        summary="Gemma 4 Unified: encoder-free, each merged image patch is embedded (layer norms, a dense "
                "projection, a factorized 2D position table, an RMS-normed projection) straight into the stream of "
                "the Gemma 4 Unified text model.",
        note="Gemma4UnifiedForConditionalGeneration: model.{embed_vision (Gemma4UnifiedVisionEmbedder: LayerNorm, "
             "Linear, LayerNorm, factorized 2D position embedding, LayerNorm, then multimodal_embedder: an RMSNorm "
             "without scale and one linear), embed_audio where the config has audio, language_model} and lm_head; "
             "there is no vision tower. Images come as merged patches (pixel_values [batch, patches, 3 x "
             "model_patch_size^2]) with their (x, y) image_position_ids, one stream row per patch that is not "
             "padding; Gemma4UnifiedModel's forward embeds the ids with the multimodal placeholders as pad, then "
             "places the embedded patches with inputs_embeds.masked_scatter (videos and audio next). With "
             "use_bidirectional_attention 'vision' the image positions attend to each other both ways when "
             "mm_token_type_ids are passed.",
        vision=("model.embed_vision",),
        image_inputs=("pixel_values", "image_position_ids"),
        checkpoints=(Checkpoint("google/gemma-4-12B-it", "Gemma-4-12B-it"),),
        tiny=recipe("Gemma4UnifiedConfig",
            image={"tokens": 4, "around": (297, 298), "pixel_values": (1, 4, 48),
                   "image_position_ids": _grid(2, 2)},
            image_token_id=299, boi_token_id=297, eoi_token_id=298, video_token_id=295, audio_token_id=294,
            vision_config={"patch_size": 2, "pooling_kernel_size": 2, "mm_embed_dim": 32, "mm_posemb_size": 4,
                           "output_proj_dims": 32}),
    ),
    Wrapper(
        name="qwen4_exp",
        title="Qwen4-Exp",
        classes=("Qwen4ExpForConditionalGeneration",),
        text_family="qwen4_exp_text",
        summary="Qwen4-Exp: Qwen3.5's vision transformer and patch merger around the Qwen4-Exp mixture-of-experts "
                "decoder (gated delta-net and indexed attention, hyper-connected residual streams).",
        note="Qwen4ExpForConditionalGeneration: model.{visual (patch embedding, blocks, merger), language_model "
             "(Qwen4ExpTextModel)} and lm_head. The image comes as flattened patches with image_grid_thw; "
             "Qwen4ExpModel's forward places the merger's rows with inputs_embeds.masked_scatter (videos next, by a "
             "second masked_scatter) and passes the ids themselves, image placeholders included, as ple_input_ids "
             "where the text config has per-layer embeddings. The residual is several streams, so there is no one "
             "layers[0].layer_input: the merged embeddings are what the language model takes as inputs_embeds "
             "and expands into its streams. Rotary positions are three-dimensional, computed "
             "from image_grid_thw and mm_token_type_ids.",
        **QWEN_VISUAL,
        tiny=qwen3_recipe("Qwen4ExpConfig"),
    ),
    Wrapper(
        name="exaone4_5",
        title="EXAONE 4.5",
        classes=("Exaone4_5_ForConditionalGeneration",),
        text_family="exaone4",
        summary="EXAONE 4.5: a Qwen2.5-VL-style windowed vision transformer (grouped-query attention, 2D rotary) "
                "with a 2x2 patch merger around an EXAONE 4 language model.",
        note="Exaone4_5_ForConditionalGeneration: model.{visual (Exaone4_5_VisionModel: patch embedding, windowed "
             "and full-attention blocks, merger), language_model (Exaone4Model)} and lm_head. The image comes as "
             "flattened patches with image_grid_thw; Exaone4_5_Model's forward places the merger's rows with "
             "inputs_embeds.masked_scatter (videos next, by a second masked_scatter). Unlike Qwen2.5-VL the "
             "language model's positions stay one-dimensional: the 2D rotary is the vision encoder's only.",
        vision=("model.visual",),
        image_inputs=("pixel_values", "image_grid_thw"),
        checkpoints=(Checkpoint("LGAI-EXAONE/EXAONE-4.5-33B", "EXAONE-4.5-33B"),),
        tiny=recipe("Exaone4_5_Config", image={**QWEN_IMAGE, "around": (297,)},
            text_config=tiny_text("exaone4", model_type="exaone4"), image_token_id=299, video_token_id=298,
            vision_config={"depth": 1, "hidden_size": 32, "out_hidden_size": 64, "intermediate_size": 64,
                           "num_heads": 2, "num_key_value_heads": 1, "patch_size": 4, "window_size": 16,
                           "fullatt_block_indexes": [0]}),
    ),
    Wrapper(
        name="aria",
        title="Aria",
        classes=("AriaForConditionalGeneration",),
        text_family="aria_text",
        summary="Aria: an Idefics3 SigLIP vision tower and a cross-attention projector (learned queries over the "
                "patches) around Aria's mixture-of-experts language model.",
        note="AriaForConditionalGeneration: model.{vision_tower (Idefics3VisionTransformer), multi_modal_projector "
             "(AriaProjector: projector_patch_to_query_dict[patches] learned queries cross-attend to the patches of "
             "vision_feature_layer, layer norm, MLP), language_model (AriaTextModel)} and lm_head; pixel_mask, where "
             "given, masks the padding patches. AriaModel's forward places the projector's rows with "
             "inputs_embeds.masked_scatter.",
        image_token="image_token_index",
        image_inputs=("pixel_values", "pixel_mask"),
        checkpoints=(Checkpoint("rhymes-ai/Aria", "Aria"),),
        tiny=recipe("AriaConfig", image={"tokens": 4, "pixel_values": (1, 3, 16, 16)}, image_token_index=299,
            projector_patch_to_query_dict={16: 4}, vision_config={**SIGLIP, "model_type": "idefics3_vision"}),
    ),
    Wrapper(
        name="apertus1p5",
        title="Apertus 1.5",
        classes=("Apertus1p5ForConditionalGeneration",),
        text_family="apertus1p5_text",
        summary="Apertus 1.5: a VQ image tokenizer (and a WavTokenizer audio encoder) whose codes are embedded by the "
                "Apertus 1.5 text model's own embedding and placed at the image placeholders.",
        note="Apertus1p5ForConditionalGeneration: model.{vision_tokenizer (a convolutional VQ encoder and codebook, "
             "run in float32), audio_tokenizer (WavTokenizer's encoder), language_model (Apertus1p5TextModel)} and "
             "lm_head. Each image is tokenized at its own size (image_sizes) into codebook indices, offset by "
             "image_token_offset into the vocabulary and embedded by the language model's embed_tokens (a second "
             "call of it, after the ids'); Apertus1p5Model's forward places those embeddings with "
             "inputs_embeds.masked_scatter at image_token_id (audio next, by a second masked_scatter). So "
             "image_features are rows of the embedding matrix, chosen by the image's codes. It loads under eager "
             "attention only: transformers refuses sdpa for Apertus1p5VisionTokenizerModel.",
        vision=("model.vision_tokenizer", "model.audio_tokenizer"),
        loads=EAGER_LOADS,
        image_inputs=("pixel_values", "image_sizes"),
        checkpoints=(Checkpoint("swiss-ai/Apertus-v1.5-8B", "Apertus-v1.5-8B"),),
        tiny=recipe("Apertus1p5Config",
            image={"tokens": 16, "pixel_values": (1, 3, 16, 16), "image_sizes": [[16, 16]]}, image_token_id=299,
            audio_token_id=298, image_token_offset=200, audio_token_offset=216,
            vision_config={"codebook_size": 16, "embed_dim": 8, "latent_channels": 32, "base_channels": 32,
                           "channel_multiplier": [1, 1, 1], "num_res_blocks": 1, "attn_resolutions": [],
                           "resolution": 16},
            audio_config={"model_type": "wavtokenizer_encoder", "num_filters": 2, "hidden_size": 8,
                          "codebook_size": 16, "codebook_dim": 8, "num_lstm_layers": 1,
                          "upsampling_ratios": [2, 2], "decoder_hidden_size": 8, "decoder_intermediate_size": 16,
                          "decoder_num_layers": 1, "decoder_attention_num_groups": 1}),
    ),
    Wrapper(
        name="cohere_compass",
        title="Cohere Compass",
        classes=("CohereCompassForConditionalGeneration",),
        text_family="cohere_compass_text",
        summary="Cohere Compass: a Qwen3-VL-style vision transformer (2x2 merger, deepstack features) around a "
                "Command R parallel-block language model with multimodal rotary positions.",
        note="CohereCompassForConditionalGeneration: model.{visual (CohereCompassVisionModel: patch embedding, "
             "blocks, merger, deepstack mergers), language_model (CohereCompassTextModel)} and lm_head, whose logits "
             "are multiplied by logit_scale as Command R's. The image comes as flattened patches with "
             "image_grid_thw; CohereCompassModel's forward places the merger's rows with "
             "inputs_embeds.masked_scatter (image_features), and the vision blocks at deepstack_visual_indexes give "
             "features of their own, which CohereCompassTextModel's forward adds at the image positions after each "
             "of its first len(deepstack_visual_indexes) blocks: there layers[i + 1].layer_input is "
             "layers[i].layer_output plus those features. Rotary positions are three-dimensional, computed from "
             "image_grid_thw and mm_token_type_ids.",
        **QWEN_VISUAL,
        tiny=qwen3_recipe("CohereCompassConfig", vision_config=QWEN3_DEEPSTACK_VISION),
    ),
    Wrapper(
        name="hyperclovax_vision_v2",
        title="HyperCLOVA X Vision V2",
        classes=("HyperCLOVAXVisionV2ForConditionalGeneration",),
        text_family="hyperclovax",
        summary="HyperCLOVA X SEED Vision V2: a Qwen2.5-VL vision transformer and one linear projector around a "
                "HyperCLOVA X language model.",
        note="HyperCLOVAXVisionV2ForConditionalGeneration: model.{vision_model (Qwen2_5_VLVisionModel: windowed "
             "blocks and a 2x2 patch merger), projector (one linear), language_model (HyperCLOVAXModel)} and "
             "lm_head. The image comes as flattened patches with image_grid_thw; HyperCLOVAXVisionV2Model's forward "
             "places the projected rows with inputs_embeds.masked_scatter (videos next, by a second "
             "masked_scatter); the language model's positions stay one-dimensional. HyperCLOVAXModel multiplies "
             "every inputs_embeds row by embedding_multiplier, the image rows too, so image_features, like "
             "token_embeddings, is read as that product: what enters the stream.",
        vision=("model.vision_model", "model.projector"),
        image_inputs=("pixel_values", "image_grid_thw"),
        checkpoints=(Checkpoint("naver-hyperclovax/HyperCLOVAX-SEED-Think-32B", "HyperCLOVAX-SEED-Think-32B"),),
        tiny=recipe("HyperCLOVAXVisionV2Config", image={**QWEN_IMAGE, "around": (297,)}, image_token_id=299,
            video_token_id=298,
            vision_config={"model_type": "qwen2_5_vl_vision", "depth": 1, "hidden_size": 32,
                           "out_hidden_size": 48, "intermediate_size": 64, "num_heads": 2, "patch_size": 4,
                           "window_size": 16, "fullatt_block_indexes": [0]}),
    ),
    Wrapper(
        name="inkling2",
        title="Inkling 2",
        classes=("Inkling2ForConditionalGeneration",),
        text_family="inkling2_text",
        summary="Inkling 2: a native-resolution vision encoder with a patch merger around the Inkling 2 "
                "mixture-of-experts language model (block attention residuals).",
        note="Inkling2ForConditionalGeneration: " + INKLING2_NOTE.replace("{cls}", "Inkling2"),
        image_inputs=("pixel_values", "image_grid_thw"),
        vision=("model.vision_tower",),
        checkpoints=(Checkpoint("thinkingmachines/Inkling-2-Small-MXFP8", "Inkling-2-Small"),),
        tiny=recipe("Inkling2Config", image=INKLING2_IMAGE, image_token_id=299, vision_config=INKLING2_VISION),
    ),
    Wrapper(
        name="inkling2_loop",
        title="Inkling 2 Loop",
        classes=("Inkling2LoopForConditionalGeneration",),
        text_family="inkling2_loop_text",
        summary="Inkling 2 Loop: Inkling 2's vision encoder around the looped-depth Inkling 2 Loop language model.",
        note="Inkling2LoopForConditionalGeneration: " + INKLING2_NOTE.replace("{cls}", "Inkling2Loop").replace(
            "(Inkling2LoopVisionModel", "(Inkling2VisionModel"),
        image_inputs=("pixel_values", "image_grid_thw"),
        vision=("model.vision_tower",),
        checkpoints=(Checkpoint("thinkingmachines/Inkling-2-Mini", "Inkling-2-Mini"),),
        tiny=recipe("Inkling2LoopConfig", image=INKLING2_IMAGE, image_token_id=299,
            vision_config={**INKLING2_VISION, "model_type": "inkling2_vision"}),
    ),
    Wrapper(
        name="inkling_mm_model",
        title="Inkling",
        classes=("InklingForConditionalGeneration",),
        text_family="inkling_text",
        summary="Inkling: an attention-free hierarchical MLP patch encoder (and a dMel audio encoder) whose last "
                "layer projects each patch straight to one stream row of the Inkling language model.",
        note="InklingForConditionalGeneration: model.{vision_tower (InklingVisionModel: linear layers that fold time "
             "and space into depth, from plan_out_scales, then an RMSNorm at the text width), audio_tower "
             "(InklingAudioModel), language_model (InklingTextModel)} and lm_head. Each patch (pixel_values "
             "[patches, temporal_patch_size, patch_size, patch_size, channels]) becomes one stream row; "
             "InklingModel's forward places them with inputs_embeds.masked_scatter at image_token_id (audio next, "
             "by a second masked_scatter).",
        vision=("model.vision_tower", "model.audio_tower"),
        checkpoints=(Checkpoint("thinkingmachines/Inkling", "Inkling"),),
        tiny=recipe("InklingConfig", image={"tokens": 4, "pixel_values": (4, 2, 2, 2, 3)}, image_token_id=299,
            audio_token_id=298,
            # three layers over 2x2-pixel, two-frame patches: plan_out_scales' rows, with no scipy assignment
            vision_config={"text_hidden_size": 64, "patch_size": 2, "temporal_patch_size": 2,
                           "num_hidden_layers": 3},
            audio_config={"text_hidden_size": 64, "n_mel_bins": 8, "mel_vocab_size": 16}),
    ),
    Wrapper(
        name="dots3_note",
        title="dots3.note",
        classes=("Dots3NoteForConditionalGeneration",),
        text_family="dots3_note_text",
        summary="dots3.note: a native-resolution vision transformer (mixture-of-experts MLPs in its upper blocks) "
                "with a 2x2 merger, and an audio encoder, around the dots3.note MLA mixture-of-experts language "
                "model.",
        note="Dots3NoteForConditionalGeneration: model.{vision_tower (Dots3NoteVisionModel: patch embedding, rotary "
             "blocks, RMSNorm, merger folding each adapter_merge_size^2 patches into one row), audio_tower "
             "(Dots3NoteAudioModel), language_model (Dots3NoteTextModel)} and lm_head. The image comes as "
             "flattened patches (pixel_values [patches, 3 x patch_size^2]) with image_grid_thw; Dots3NoteModel's "
             "forward places the merger's rows with inputs_embeds.masked_scatter (videos and audio next, by "
             "masked_scatters of their own); the language model's positions stay one-dimensional.",
        vision=("model.vision_tower", "model.audio_tower"),
        image_inputs=("pixel_values", "image_grid_thw"),
        checkpoints=(Checkpoint("dots-studio/dots3-note-prev", "dots3-note-prev"),),
        tiny=recipe("Dots3NoteConfig", image={"tokens": 4, "pixel_values": (16, 48), "image_grid_thw": [[1, 4, 4]]},
            # the sliding layers' own sizes (swa_*), else Dots3NoteTextConfig gives them the released 64 heads
            text_config=tiny_text("dots3_note_text", swa_num_attention_heads=4, swa_num_key_value_heads=4,
                              swa_q_lora_rank=32, swa_kv_lora_rank=32, swa_head_dim=32,
                              swa_qk_nope_head_dim=16, swa_v_head_dim=16),
            image_token_id=299, video_token_id=298, audio_token_id=295,
            vision_config={"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 1,
                           "num_attention_heads": 2, "patch_size": 4, "moe_intermediate_size": 32,
                           "mlp_layer_types": ["dense"], "num_local_experts": 2, "adapter_in_dim": 32,
                           "adapter_out_dim": 64, "adapter_merge_size": 2},
            audio_config={"hidden_size": 16, "intermediate_size": 32, "num_hidden_layers": 1,
                          "num_attention_heads": 2, "feature_size": 8, "downsample_hidden_size": 16,
                          "adapter_input_size": 16, "adapter_out_dim": 64}),
    ),
    Wrapper(
        name="minimax_m3_vl",
        title="MiniMax-M3",
        classes=("MiniMaxM3SparseForConditionalGeneration",),
        text_family="minimax_m3_vl_text",
        summary="MiniMax-M3: a native-resolution vision transformer (partial 3D rotary) and a two-stage MLP "
                "projector (per patch, then each 2x2 patches merged) around the MiniMax-M3 sparse mixture-of-experts "
                "language model.",
        note="MiniMaxM3SparseForConditionalGeneration: model.{vision_tower (MiniMaxM3VLVisionModel), "
             "multi_modal_projector (linear, GELU, linear per patch, then each spatial_merge_size^2 patches side by "
             "side through linear, GELU, linear), language_model (MiniMaxM3VLTextModel)} and lm_head. The image "
             "comes as flattened patches (pixel_values [patches, 3 x temporal_patch_size x patch_size^2]) with "
             "image_grid_thw; MiniMaxM3VLModel's forward places the projector's rows with "
             "inputs_embeds.masked_scatter at image_token_index (videos next, by a second masked_scatter); the "
             "language model's positions stay one-dimensional.",
        image_token="image_token_index",
        image_inputs=("pixel_values", "image_grid_thw"),
        tiny=recipe("MiniMaxM3VLConfig", image={**QWEN_IMAGE, "around": (297,)}, image_token_index=299,
            video_token_index=298, projector_hidden_size=64,
            vision_config={"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 1,
                           "num_attention_heads": 2, "image_size": 16, "patch_size": 4}),
    ),
    Wrapper(
        name="nemotron_h_omni",
        title="Nemotron 3 Nano Omni",
        classes=("NemotronH_Omni_Reasoning_V3",),
        text_family="nemotron_h",
        summary="Nemotron 3 Nano Omni: a RADIO vision encoder with pixel shuffle and an MLP projector (and a "
                "Parakeet audio encoder) around a whole Nemotron-H hybrid Mamba-attention causal LM.",
        note="NemotronH_Omni_Reasoning_V3: vision_model (RADIO), vision_final_layernorm where the language model "
             "has MTP layers, multi_modal_projector (RMSNorm, linear, activation, linear after a pixel shuffle by "
             "downsample_ratio), audio_tower and embed_audio where the config has audio, and language_model, a whole "
             "NemotronHForCausalLM (language_model.model, language_model.lm_head). The image comes as flattened "
             "patches with image_grid_hw; the wrapper's own forward embeds the ids, places the projected rows with "
             "inputs_embeds.masked_scatter (videos and audio next) and calls the language model with the merged "
             "embeddings, returning its logits.",
        language_model="language_model.model",
        lm_head="language_model.lm_head",
        merge="",
        vision=("vision_model", "multi_modal_projector"),
        image_inputs=("pixel_values", "image_grid_hw"),
        checkpoints=(Checkpoint("nvidia/Nemotron-3-Nano-Omni-30B-A3B-Reasoning-BF16",
                                "Nemotron-3-Nano-Omni-30B-A3B-Reasoning"),),
        tiny=recipe("NemotronH_Omni_Reasoning_V3_Config",
            image={"tokens": 4, "pixel_values": (16, 48), "image_grid_hw": [[4, 4]]}, image_token_id=299,
            video_token_id=298, vision_hidden_size=32, projector_hidden_size=64, downsample_ratio=0.5,
            vision_config={"hidden_size": 32, "num_hidden_layers": 1, "num_attention_heads": 2,
                           "patch_size": 4, "image_size": 16, "max_img_size": 16, "num_cls_tokens": 1,
                           "num_registers": 0, "model_type": "radio", "video_temporal_patch_size": 2}),
    ),
)
