"""Image-text-to-text models whose language model is an nnterp family of its own kind (Gemma 4, Qwen3.5, LFM2,
Kimi K2.5, MiniCPM-V, ...), one declaration each: where the language model sits, where the image features enter,
the image inputs and a tiny recipe with a one-layer vision tower. Each note is read from transformers' modeling
code."""

from nnterp.family import Checkpoint

from . import Wrapper
from .declarations import QWEN_IMAGE, SIGLIP, _text

#: A one-block Qwen3-VL-style vision transformer (Qwen3.5's): 4-pixel patches, two frames each, merged 2x2.
QWEN3_VISION = {"depth": 1, "hidden_size": 32, "out_hidden_size": 64, "intermediate_size": 64, "num_heads": 2,
                "patch_size": 4, "num_position_embeddings": 16}
#: Qwen's image placeholders: one 16-pixel image, 4 rows after the merge, after a vision-start token, with the
#: processor's token types (1 at the image positions) the multimodal rotary positions are computed from.
QWEN_PLACEHOLDERS = {**QWEN_IMAGE, "around": (297,), "types": "mm_token_type_ids"}
QWEN_IDS = {"image_token_id": 299, "video_token_id": 298, "vision_start_token_id": 297}


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


OWN_TEXT = (
    Wrapper(
        name="gemma4",
        title="Gemma 4",
        model_types=("gemma4",),
        classes=("Gemma4ForConditionalGeneration",),
        text_family="gemma4_text",
        summary="Gemma 4: a rotary vision encoder over patches with position-pooling, an RMS-normed projection, "
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
        checkpoints=(Checkpoint("google/gemma-4-e2b-it", "Gemma-4-E2B-it"),),
        tiny={"config_class": "Gemma4Config", "overrides": {
            "text_config": _text("gemma4_text"), "image_token_id": 299, "boi_token_id": 297, "eoi_token_id": 298,
            "video_token_id": 295, "audio_token_id": 294,
            "vision_config": {"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 1,
                              "num_attention_heads": 2, "num_key_value_heads": 2, "head_dim": 16,
                              "patch_size": 4, "pooling_kernel_size": 2, "position_embedding_size": 16}},
            "image": {"tokens": 4, "around": (297, 298), "pixel_values": (1, 16, 48),
                      "image_position_ids": _grid(4, 4)}},
    ),
    Wrapper(
        name="qwen3_5",
        title="Qwen3.5",
        model_types=("qwen3_5",),
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
        vision=("model.visual",),
        image_inputs=("pixel_values", "image_grid_thw", "mm_token_type_ids"),
        checkpoints=(Checkpoint("Qwen/Qwen3.5-27B", "Qwen3.5-27B"),),
        tiny={"config_class": "Qwen3_5Config", "overrides": {
            "text_config": _text("qwen3_5_text"), **QWEN_IDS, "vision_config": QWEN3_VISION},
            "image": QWEN_PLACEHOLDERS},
    ),
    Wrapper(
        name="qwen3_5_moe",
        title="Qwen3.5-MoE",
        model_types=("qwen3_5_moe",),
        classes=("Qwen3_5MoeForConditionalGeneration",),
        text_family="qwen3_5_moe_text",
        summary="Qwen3.5-MoE: Qwen3.5's vision transformer and patch merger around its mixture-of-experts hybrid "
                "decoder.",
        note="Qwen3_5MoeForConditionalGeneration: model.{visual, language_model (Qwen3_5MoeTextModel)} and lm_head, "
             "as Qwen3.5: flattened patches with image_grid_thw, the merger's rows placed by "
             "inputs_embeds.masked_scatter, multimodal rotary positions in the language model.",
        vision=("model.visual",),
        image_inputs=("pixel_values", "image_grid_thw", "mm_token_type_ids"),
        checkpoints=(Checkpoint("Qwen/Qwen3.5-35B-A3B", "Qwen3.5-35B-A3B"),),
        tiny={"config_class": "Qwen3_5MoeConfig", "overrides": {
            "text_config": _text("qwen3_5_moe_text"), **QWEN_IDS, "vision_config": QWEN3_VISION},
            "image": QWEN_PLACEHOLDERS},
    ),
    Wrapper(
        name="lfm2_vl",
        title="LFM2-VL",
        model_types=("lfm2_vl",),
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
        checkpoints=(Checkpoint("LiquidAI/LFM2-VL-450M", "LFM2-VL-450M"),),
        tiny={"config_class": "Lfm2VlConfig", "overrides": {
            "text_config": _text("lfm2"), "image_token_id": 299, "downsample_factor": 2,
            "projector_hidden_size": 64,
            "vision_config": {"model_type": "siglip2_vision_model", "hidden_size": 32, "intermediate_size": 64,
                              "num_hidden_layers": 1, "num_attention_heads": 2, "patch_size": 4,
                              "num_patches": 16, "vision_use_head": False}},
            "image": {"tokens": 4, "pixel_values": (1, 16, 48), "spatial_shapes": [[4, 4]],
                      "pixel_attention_mask": [[1] * 16]}},
    ),
    Wrapper(
        name="lfm3_vl",
        title="LFM3-VL",
        model_types=("lfm3_vl",),
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
        tiny={"config_class": "Lfm3VlConfig", "overrides": {
            "text_config": _text("lfm3"), **QWEN_IDS, "projector_hidden_size": 64,
            "vision_config": {"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 1,
                              "num_attention_heads": 2, "num_key_value_heads": 1, "patch_size": 4,
                              "layer_types": ["full_attention"]}},
            "image": {**QWEN_IMAGE, "around": (297,)}},
    ),
    Wrapper(
        name="kimi_k25",
        title="Kimi K2.5",
        model_types=("kimi_k25",),
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
        checkpoints=(Checkpoint("moonshotai/Kimi-K2.5", "Kimi-K2.5"),),
        tiny={"config_class": "Kimi_K25Config", "overrides": {
            "text_config": _text("deepseek_v3"), **QWEN_IDS, "projection_hidden_size": 32,
            "vision_config": {"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 1,
                              "num_attention_heads": 2, "patch_size": 4, "pos_emb_height": 4, "pos_emb_width": 4}},
            "image": {"tokens": 4, "around": (297,), "pixel_values": (16, 3, 4, 4), "image_grid_thw": [[1, 4, 4]]}},
    ),
    Wrapper(
        name="minicpm_ocr",
        title="MiniCPM-OCR",
        model_types=("minicpm_ocr",),
        classes=("MiniCPMOcrForConditionalGeneration",),
        text_family="qwen3_5_text",
        summary="MiniCPM-OCR: a NaViT SigLIP and a 2x2 merger (downsample_mode '4x': no window merger) around a "
                "Qwen3.5 language model.",
        note="MiniCPMOcrForConditionalGeneration: " + MINICPM_NOTE.replace("{cls}", "MiniCPMOcr") + " Its language "
             "model's positions stay one-dimensional.",
        vision=("model.vision_tower", "model.merger"),
        image_inputs=("pixel_values", "target_sizes"),
        checkpoints=(Checkpoint("openbmb/MiniCPM-OCR", "MiniCPM-OCR"),),
        tiny={"config_class": "MiniCPMOcrConfig", "overrides": {
            "text_config": _text("qwen3_5_text"), "image_token_id": 299, "video_token_id": 298,
            "insert_layer_id": 0, "vision_config": MINICPM_VISION},
            "image": {"tokens": 4, "pixel_values": _packed(16), "target_sizes": [[4, 4]]}},
    ),
    Wrapper(
        name="minicpmv4_6",
        title="MiniCPM-V 4.6",
        model_types=("minicpmv4_6",),
        classes=("MiniCPMV4_6ForConditionalGeneration",),
        text_family="qwen3_5_text",
        summary="MiniCPM-V 4.6: a NaViT SigLIP with a window-attention merger inside and a 2x2 merger after it "
                "(16 patches a stream row) around a Qwen3.5 language model.",
        note="MiniCPMV4_6ForConditionalGeneration: " + MINICPM_NOTE.replace("{cls}", "MiniCPMV4_6") + " Its language "
             "model's positions stay one-dimensional.",
        vision=("model.vision_tower", "model.merger"),
        image_inputs=("pixel_values", "target_sizes"),
        checkpoints=(Checkpoint("openbmb/MiniCPM-V-4.6", "MiniCPM-V-4.6"),),
        tiny={"config_class": "MiniCPMV4_6Config", "overrides": {
            "text_config": _text("qwen3_5_text"), "image_token_id": 299, "video_token_id": 298,
            "insert_layer_id": 0, "image_size": 32, "vision_config": MINICPM_VISION},
            "image": {"tokens": 4, "pixel_values": _packed(64), "target_sizes": [[8, 8]]}},
    ),
    Wrapper(
        name="minicpmv4_7",
        title="MiniCPM-V 4.7",
        model_types=("minicpmv4_7",),
        classes=("MiniCPMV4_7ForConditionalGeneration",),
        text_family="qwen3_5_text",
        summary="MiniCPM-V 4.7: MiniCPM-V 4.6's vision side around a Qwen3.5 language model with canvas multimodal "
                "rotary positions.",
        note="MiniCPMV4_7ForConditionalGeneration: " + MINICPM_NOTE.replace("{cls}", "MiniCPMV4_7") + " The rotary "
             "positions are three-dimensional (temporal, height, width) on a canvas laid out from mm_token_type_ids, "
             "target_sizes and the image and slice markers around each crop.",
        vision=("model.vision_tower", "model.merger"),
        image_inputs=("pixel_values", "target_sizes", "mm_token_type_ids"),
        checkpoints=(Checkpoint("openbmb/MiniCPM-V-4.7", "MiniCPM-V-4.7"),),
        tiny={"config_class": "MiniCPMV4_7Config", "overrides": {
            "text_config": _text("qwen3_5_text"), "image_token_id": 299, "video_token_id": 290,
            "image_start_id": 297, "image_end_id": 298, "slice_start_id": 293, "slice_end_id": 292,
            "newline_id": 291, "insert_layer_id": 0, "image_size": 32, "vision_config": MINICPM_VISION},
            "image": {"tokens": 4, "around": (297, 298), "types": "mm_token_type_ids", "pixel_values": _packed(64),
                      "target_sizes": [[8, 8]]}},
    ),
)
