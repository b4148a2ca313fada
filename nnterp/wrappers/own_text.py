"""Image-text-to-text models whose language model is an nnterp family of its own kind (Gemma 4, Qwen3.5, LFM2,
Kimi K2.5, MiniCPM-V, ...), one declaration each: where the language model sits, where the image features enter,
the image inputs and a tiny recipe with a one-layer vision tower. Each note is read from transformers' modeling
code."""

from nnterp.family import Checkpoint

from .declarations import QWEN_IMAGE, SIGLIP, _text
from .wrapper import Wrapper

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
        model_types=("gemma4",),
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
        checkpoints=(
            # config.json of google/gemma-4-E2B-it (mirrored in hlky/dinoml_v2
            # agents/plans/transformers/gemma4/_sources/)
            Checkpoint("google/gemma-4-e2b-it", "Gemma-4-E2B-it", {
                "architectures": ["Gemma4ForConditionalGeneration"],
                "audio_config": {
                    "architectures": None, "attention_chunk_size": 12, "attention_context_left": 13,
                    "attention_context_right": 0, "attention_invalid_logits_value": -1000000000.0,
                    "attention_logit_cap": 50.0, "chunk_size_feed_forward": 0, "conv_kernel_size": 5,
                    "dtype": "bfloat16", "gradient_clipping": 10000000000.0, "hidden_act": "silu", "hidden_size": 1024,
                    "is_encoder_decoder": False, "model_type": "gemma4_audio", "num_attention_heads": 8,
                    "num_hidden_layers": 12, "output_proj_dims": 1536, "problem_type": None, "residual_weight": 0.5,
                    "rms_norm_eps": 1e-06, "subsampling_conv_channels": [128, 32], "use_clipped_linears": True,
                },
                "audio_token_id": 258881, "boa_token_id": 256000, "boi_token_id": 255999, "dtype": "bfloat16",
                "eoa_token_id": 258883, "eoa_token_index": 258883, "eoi_token_id": 258882, "image_token_id": 258880,
                "model_type": "gemma4",
                "text_config": {
                    "attention_bias": False, "attention_k_eq_v": False, "dtype": "bfloat16", "enable_moe_block": False,
                    "expert_intermediate_size": None, "final_logit_softcapping": 30.0, "global_head_dim": 512,
                    "head_dim": 256, "hidden_activation": "gelu_pytorch_tanh", "hidden_size": 1536,
                    "hidden_size_per_layer_input": 256, "intermediate_size": 6144,
                    "layer_types": (["sliding_attention"] * 4 + ["full_attention"]) * 7,
                    "max_position_embeddings": 131072, "model_type": "gemma4_text", "num_attention_heads": 8,
                    "num_experts": None, "num_global_key_value_heads": None, "num_hidden_layers": 35,
                    "num_key_value_heads": 1, "num_kv_shared_layers": 20, "rms_norm_eps": 1e-06,
                    "rope_parameters": {
                        "full_attention": {
                            "partial_rotary_factor": 0.25, "rope_theta": 1000000.0, "rope_type": "proportional",
                        },
                        "sliding_attention": {"rope_theta": 10000.0, "rope_type": "default"},
                    },
                    "sliding_window": 512, "tie_word_embeddings": True, "top_k_experts": None,
                    "use_bidirectional_attention": None, "use_double_wide_mlp": True, "vocab_size": 262144,
                    "vocab_size_per_layer_input": 262144,
                },
                "tie_word_embeddings": True, "video_token_id": 258884,
                "vision_config": {
                    "architectures": None, "attention_bias": False, "chunk_size_feed_forward": 0,
                    "default_output_length": 280, "dtype": "bfloat16", "global_head_dim": 64, "head_dim": 64,
                    "hidden_activation": "gelu_pytorch_tanh", "hidden_size": 768, "intermediate_size": 3072,
                    "is_encoder_decoder": False, "max_position_embeddings": 131072, "model_type": "gemma4_vision",
                    "num_attention_heads": 12, "num_hidden_layers": 16, "num_key_value_heads": 12, "patch_size": 16,
                    "pooling_kernel_size": 3, "position_embedding_size": 10240, "problem_type": None,
                    "rms_norm_eps": 1e-06, "rope_parameters": {"rope_theta": 100.0, "rope_type": "default"},
                    "standardize": False, "use_clipped_linears": True,
                },
                "vision_soft_tokens_per_image": 280,
            }),
        ),
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
        checkpoints=(
            # config.json of Qwen/Qwen3.5-27B (copied into ai-dynamo/aiconfigurator
            # aic-core/src/aiconfigurator_core/model_configs/Qwen--Qwen3.5-27B_config.json)
            Checkpoint("Qwen/Qwen3.5-27B", "Qwen3.5-27B", {
                "architectures": ["Qwen3_5ForConditionalGeneration"], "image_token_id": 248056, "model_type": "qwen3_5",
                "text_config": {
                    "attention_bias": False, "attn_output_gate": True, "dtype": "bfloat16",
                    "full_attention_interval": 4, "head_dim": 256, "hidden_act": "silu", "hidden_size": 5120,
                    "intermediate_size": 17408, "layer_types": (["linear_attention"] * 3 + ["full_attention"]) * 16,
                    "linear_conv_kernel_dim": 4, "linear_key_head_dim": 128, "linear_num_key_heads": 16,
                    "linear_num_value_heads": 48, "linear_value_head_dim": 128, "max_position_embeddings": 262144,
                    "mlp_only_layers": [], "model_type": "qwen3_5_text", "mtp_num_hidden_layers": 1,
                    "mtp_use_dedicated_embeddings": False, "num_attention_heads": 24, "num_hidden_layers": 64,
                    "num_key_value_heads": 4, "rms_norm_eps": 1e-06, "vocab_size": 248320, "mamba_ssm_dtype": "float32",
                    "rope_parameters": {
                        "mrope_interleaved": True, "mrope_section": [11, 11, 10], "rope_type": "default",
                        "rope_theta": 10000000, "partial_rotary_factor": 0.25,
                    },
                },
                "tie_word_embeddings": False, "video_token_id": 248057,
                "vision_config": {
                    "deepstack_visual_indexes": [], "depth": 27, "hidden_act": "gelu_pytorch_tanh", "hidden_size": 1152,
                    "in_channels": 3, "intermediate_size": 4304, "model_type": "qwen3_5", "num_heads": 16,
                    "num_position_embeddings": 2304, "out_hidden_size": 5120, "patch_size": 16, "spatial_merge_size": 2,
                    "temporal_patch_size": 2,
                },
                "vision_end_token_id": 248054, "vision_start_token_id": 248053,
            }),
        ),
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
        checkpoints=(
            # config.json of Qwen/Qwen3.5-35B-A3B (copied into ai-dynamo/aiconfigurator
            # aic-core/src/aiconfigurator_core/model_configs/Qwen--Qwen3.5-35B-A3B_config.json)
            Checkpoint("Qwen/Qwen3.5-35B-A3B", "Qwen3.5-35B-A3B", {
                "architectures": ["Qwen3_5MoeForConditionalGeneration"], "image_token_id": 248056,
                "model_type": "qwen3_5_moe",
                "text_config": {
                    "attention_bias": False, "attn_output_gate": True, "dtype": "bfloat16",
                    "full_attention_interval": 4, "head_dim": 256, "hidden_act": "silu", "hidden_size": 2048,
                    "layer_types": (["linear_attention"] * 3 + ["full_attention"]) * 10, "linear_conv_kernel_dim": 4,
                    "linear_key_head_dim": 128, "linear_num_key_heads": 16, "linear_num_value_heads": 32,
                    "linear_value_head_dim": 128, "max_position_embeddings": 262144, "mlp_only_layers": [],
                    "model_type": "qwen3_5_moe_text", "moe_intermediate_size": 512, "mtp_num_hidden_layers": 1,
                    "mtp_use_dedicated_embeddings": False, "num_attention_heads": 16, "num_experts": 256,
                    "num_experts_per_tok": 8, "num_hidden_layers": 40, "num_key_value_heads": 2, "rms_norm_eps": 1e-06,
                    "router_aux_loss_coef": 0.001, "shared_expert_intermediate_size": 512, "vocab_size": 248320,
                    "mamba_ssm_dtype": "float32",
                    "rope_parameters": {
                        "mrope_interleaved": True, "mrope_section": [11, 11, 10], "rope_type": "default",
                        "rope_theta": 10000000, "partial_rotary_factor": 0.25,
                    },
                },
                "tie_word_embeddings": False, "video_token_id": 248057,
                "vision_config": {
                    "deepstack_visual_indexes": [], "depth": 27, "hidden_act": "gelu_pytorch_tanh", "hidden_size": 1152,
                    "in_channels": 3, "intermediate_size": 4304, "model_type": "qwen3_5_moe", "num_heads": 16,
                    "num_position_embeddings": 2304, "out_hidden_size": 2048, "patch_size": 16, "spatial_merge_size": 2,
                    "temporal_patch_size": 2,
                },
                "vision_end_token_id": 248054, "vision_start_token_id": 248053,
            }),
        ),
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
        checkpoints=(
            # config.json of LiquidAI/LFM2-VL-1.6B (mirrored in hlky/dinoml_v2
            # agents/plans/transformers/lfm2_vl/_sources/)
            Checkpoint("LiquidAI/LFM2-VL-1.6B", "LFM2-VL-1.6B", {
                "architectures": ["Lfm2VlForConditionalGeneration"], "do_image_splitting": True, "downsample_factor": 2,
                "dtype": "bfloat16", "encoder_patch_size": 16, "image_token_id": 396, "image_token_index": 396,
                "max_image_tokens": 256, "max_num_patches": 1024, "max_pixels_tolerance": 1.5, "max_tiles": 10,
                "min_image_tokens": 64, "min_tiles": 2, "model_type": "lfm2_vl", "projector_bias": True,
                "projector_hidden_act": "gelu", "projector_hidden_size": 2560,
                "text_config": {
                    "architectures": ["Lfm2ForCausalLM"], "block_auto_adjust_ff_dim": True, "block_dim": 2048,
                    "block_ff_dim": 12288, "block_ffn_dim_multiplier": 1.0, "block_mlp_init_scale": 1.0,
                    "block_multiple_of": 256, "block_norm_eps": 1e-05, "block_out_init_scale": 1.0,
                    "block_use_swiglu": True, "block_use_xavier_init": True, "conv_L_cache": 3, "conv_bias": False,
                    "conv_dim": 2048, "conv_dim_out": 2048, "conv_use_xavier_init": True, "dtype": "bfloat16",
                    "hidden_size": 2048, "intermediate_size": 12288,
                    "layer_types": ["full_attention" if i in (2, 5, 8, 10, 12, 14) else "conv" for i in range(16)],
                    "max_position_embeddings": 128000, "model_type": "lfm2", "norm_eps": 1e-05,
                    "num_attention_heads": 32, "num_heads": 32, "num_hidden_layers": 16, "num_key_value_heads": 8,
                    "rope_theta": 1000000.0, "use_pos_enc": True, "vocab_size": 65536,
                },
                "tile_size": 512, "use_image_special_tokens": True, "use_thumbnail": True,
                "vision_config": {
                    "dtype": "bfloat16", "hidden_act": "gelu_pytorch_tanh", "hidden_size": 1152,
                    "intermediate_size": 4304, "layer_norm_eps": 1e-06, "model_type": "siglip2_vision_model",
                    "num_attention_heads": 16, "num_channels": 3, "num_hidden_layers": 26, "num_patches": 256,
                    "patch_size": 16, "vision_use_head": False,
                },
            }),
        ),
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
        checkpoints=(
            # config.json of nvidia/Kimi-K2.6-NVFP4, NVIDIA's NVFP4 re-upload of these weights, its quantization left
            # out (copied into ai-dynamo/aiconfigurator aic-core/src/aiconfigurator_core/model_configs/
            # nvidia--Kimi-K2.6-NVFP4_config.json)
            Checkpoint("moonshotai/Kimi-K2.6", "Kimi-K2.6", {
                "architectures": ["KimiK25ForConditionalGeneration"], "dtype": "bfloat16", "ignore_index": -100,
                "media_placeholder_token_id": 163605, "model_type": "kimi_k25",
                "text_config": {
                    "architectures": ["DeepseekV3ForCausalLM"], "add_cross_attention": False, "attention_bias": False,
                    "aux_loss_alpha": 0.001, "bad_words_ids": None, "begin_suppress_tokens": None,
                    "chunk_size_feed_forward": 0, "cross_attention_hidden_size": None, "diversity_penalty": 0.0,
                    "do_sample": False, "dtype": "bfloat16", "early_stopping": False, "encoder_no_repeat_ngram_size": 0,
                    "ep_size": 1, "exponential_decay_length_penalty": None, "finetuning_task": None,
                    "first_k_dense_replace": 1, "forced_bos_token_id": None, "forced_eos_token_id": None,
                    "hidden_act": "silu", "hidden_size": 7168, "intermediate_size": 18432, "is_decoder": False,
                    "is_encoder_decoder": False, "kv_lora_rank": 512, "length_penalty": 1.0, "max_length": 20,
                    "max_position_embeddings": 262144, "min_length": 0, "model_type": "deepseek_v3",
                    "moe_intermediate_size": 2048, "moe_layer_freq": 1, "n_group": 1, "n_routed_experts": 384,
                    "n_shared_experts": 1, "no_repeat_ngram_size": 0, "norm_topk_prob": True, "num_attention_heads": 64,
                    "num_beam_groups": 1, "num_beams": 1, "num_experts_per_tok": 8, "num_hidden_layers": 61,
                    "num_key_value_heads": 64, "num_nextn_predict_layers": 0, "num_return_sequences": 1,
                    "output_scores": False, "prefix": None, "pretraining_tp": 1, "problem_type": None,
                    "pruned_heads": {}, "q_lora_rank": 1536, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64,
                    "remove_invalid_values": False, "repetition_penalty": 1.0, "return_dict_in_generate": False,
                    "rms_norm_eps": 1e-05,
                    "rope_scaling": {
                        "beta_fast": 32.0, "beta_slow": 1.0, "factor": 64.0, "mscale": 1.0, "mscale_all_dim": 1.0,
                        "original_max_position_embeddings": 4096, "type": "yarn",
                    },
                    "rope_theta": 50000.0, "routed_scaling_factor": 2.827, "scoring_func": "sigmoid", "seq_aux": True,
                    "suppress_tokens": None, "temperature": 1.0, "tf_legacy_loss": False, "tie_encoder_decoder": False,
                    "tie_word_embeddings": False, "top_k": 50, "top_p": 1.0, "topk_group": 1, "topk_method": "noaux_tc",
                    "typical_p": 1.0, "use_bfloat16": False, "v_head_dim": 128, "vocab_size": 163840,
                },
                "tie_word_embeddings": False, "use_unified_vision_chunk": True,
                "video_placeholder": "<|kimi_k25_video_placeholder|>",
                "vision_config": {
                    "init_pos_emb_height": 64, "init_pos_emb_time": 4, "init_pos_emb_width": 64,
                    "merge_kernel_size": [2, 2], "merge_type": "sd2_tpool", "mm_hidden_size": 1152,
                    "mm_projector_type": "patchmerger", "model_type": "", "patch_size": 14,
                    "pos_emb_type": "divided_fixed", "projector_hidden_act": "gelu", "projector_ln_eps": 1e-05,
                    "text_hidden_size": 7168, "video_attn_type": "spatial_temporal", "vt_hidden_size": 1152,
                    "vt_intermediate_size": 4304, "vt_num_attention_heads": 16, "vt_num_hidden_layers": 27,
                },
            }),
        ),
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
        checkpoints=(Checkpoint("openbmb/MiniCPM-OCR-1.0", "MiniCPM-OCR-1.0"),),
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
        checkpoints=(Checkpoint("openbmb/MiniCPM-V-4.7-1B", "MiniCPM-V-4.7-1B"),),
        tiny={"config_class": "MiniCPMV4_7Config", "overrides": {
            "text_config": _text("qwen3_5_text"), "image_token_id": 299, "video_token_id": 290,
            "image_start_id": 297, "image_end_id": 298, "slice_start_id": 293, "slice_end_id": 292,
            "newline_id": 291, "insert_layer_id": 0, "image_size": 32, "vision_config": MINICPM_VISION},
            "image": {"tokens": 4, "around": (297, 298), "types": "mm_token_type_ids", "pixel_values": _packed(64),
                      "target_sizes": [[8, 8]]}},
    ),
    Wrapper(
        name="gemma4_unified",
        title="Gemma 4 Unified",
        model_types=("gemma4_unified",),
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
        tiny={"config_class": "Gemma4UnifiedConfig", "overrides": {
            "text_config": _text("gemma4_unified_text"), "image_token_id": 299, "boi_token_id": 297,
            "eoi_token_id": 298, "video_token_id": 295, "audio_token_id": 294,
            "vision_config": {"patch_size": 2, "pooling_kernel_size": 2, "mm_embed_dim": 32, "mm_posemb_size": 4,
                              "output_proj_dims": 32}},
            "image": {"tokens": 4, "around": (297, 298), "pixel_values": (1, 4, 48),
                      "image_position_ids": _grid(2, 2)}},
    ),
    Wrapper(
        name="qwen4_exp",
        title="Qwen4-Exp",
        model_types=("qwen4_exp",),
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
        vision=("model.visual",),
        image_inputs=("pixel_values", "image_grid_thw", "mm_token_type_ids"),
        checkpoints=(Checkpoint("Qwen/Qwen4-Exp", "Qwen4-Exp", {
            "architectures": ["Qwen4ExpForConditionalGeneration"], "model_type": "qwen4_exp"}, not_buildable=(
            "its indexed-attention layers need the QSA indexer sizes (indexer_budget, indexer_compress_ratio, ...), "
            "which the config class leaves unset and which are not known offline")),),
        tiny={"config_class": "Qwen4ExpConfig", "overrides": {
            "text_config": _text("qwen4_exp_text"), **QWEN_IDS, "vision_config": QWEN3_VISION},
            "image": QWEN_PLACEHOLDERS},
    ),
    Wrapper(
        name="exaone4_5",
        title="EXAONE 4.5",
        model_types=("exaone4_5",),
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
        tiny={"config_class": "Exaone4_5_Config", "overrides": {
            "text_config": _text("exaone4", model_type="exaone4"), "image_token_id": 299, "video_token_id": 298,
            "vision_config": {"depth": 1, "hidden_size": 32, "out_hidden_size": 64, "intermediate_size": 64,
                              "num_heads": 2, "num_key_value_heads": 1, "patch_size": 4, "window_size": 16,
                              "fullatt_block_indexes": [0]}},
            "image": {**QWEN_IMAGE, "around": (297,)}},
    ),
    Wrapper(
        name="aria",
        title="Aria",
        model_types=("aria",),
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
        tiny={"config_class": "AriaConfig", "overrides": {
            "text_config": _text("aria_text"), "image_token_index": 299, "projector_patch_to_query_dict": {16: 4},
            "vision_config": {**SIGLIP, "model_type": "idefics3_vision"}},
            "image": {"tokens": 4, "pixel_values": (1, 3, 16, 16)}},
    ),
    Wrapper(
        name="apertus1p5",
        title="Apertus 1.5",
        model_types=("apertus1p5",),
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
        loads=("eager",),
        image_inputs=("pixel_values", "image_sizes"),
        checkpoints=(Checkpoint("swiss-ai/Apertus-v1.5-8B", "Apertus-v1.5-8B"),),
        tiny={"config_class": "Apertus1p5Config", "overrides": {
            "text_config": _text("apertus1p5_text"), "image_token_id": 299, "audio_token_id": 298,
            "image_token_offset": 200, "audio_token_offset": 216,
            "vision_config": {"codebook_size": 16, "embed_dim": 8, "latent_channels": 32, "base_channels": 32,
                              "channel_multiplier": [1, 1, 1], "num_res_blocks": 1, "attn_resolutions": [],
                              "resolution": 16},
            "audio_config": {"model_type": "wavtokenizer_encoder", "num_filters": 2, "hidden_size": 8,
                             "codebook_size": 16, "codebook_dim": 8, "num_lstm_layers": 1,
                             "upsampling_ratios": [2, 2], "decoder_hidden_size": 8, "decoder_intermediate_size": 16,
                             "decoder_num_layers": 1, "decoder_attention_num_groups": 1}},
            "image": {"tokens": 16, "pixel_values": (1, 3, 16, 16), "image_sizes": [[16, 16]]}},
    ),
    Wrapper(
        name="cohere_compass",
        title="Cohere Compass",
        model_types=("cohere_compass",),
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
        vision=("model.visual",),
        image_inputs=("pixel_values", "image_grid_thw", "mm_token_type_ids"),
        checkpoints=(Checkpoint("CohereLabs/North-Micro-Vision-Instruct", "North-Micro-Vision-Instruct", {
            "architectures": ["CohereCompassForConditionalGeneration"], "model_type": "cohere_compass"},
            not_buildable=("its sizes are not recorded here, and CohereCompassConfig's defaults do not build (the "
                           "text config's rope_parameters has no entry for its full_attention layers)")),),
        tiny={"config_class": "CohereCompassConfig", "overrides": {
            "text_config": _text("cohere_compass_text"), **QWEN_IDS,
            "vision_config": {**QWEN3_VISION, "deepstack_visual_indexes": [0]}},
            "image": QWEN_PLACEHOLDERS},
    ),
    Wrapper(
        name="hyperclovax_vision_v2",
        title="HyperCLOVA X Vision V2",
        model_types=("hyperclovax_vision_v2",),
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
        tiny={"config_class": "HyperCLOVAXVisionV2Config", "overrides": {
            "text_config": _text("hyperclovax"), "image_token_id": 299, "video_token_id": 298,
            "vision_config": {"model_type": "qwen2_5_vl_vision", "depth": 1, "hidden_size": 32,
                              "out_hidden_size": 48, "intermediate_size": 64, "num_heads": 2, "patch_size": 4,
                              "window_size": 16, "fullatt_block_indexes": [0]}},
            "image": {**QWEN_IMAGE, "around": (297,)}},
    ),
    Wrapper(
        name="inkling2",
        title="Inkling 2",
        model_types=("inkling2",),
        classes=("Inkling2ForConditionalGeneration",),
        text_family="inkling2_text",
        summary="Inkling 2: a native-resolution vision encoder with a patch merger around the Inkling 2 "
                "mixture-of-experts language model (block attention residuals).",
        note="Inkling2ForConditionalGeneration: " + INKLING2_NOTE.replace("{cls}", "Inkling2"),
        image_inputs=("pixel_values", "image_grid_thw"),
        vision=("model.vision_tower",),
        checkpoints=(Checkpoint("thinkingmachines/Inkling-2-Small-MXFP8", "Inkling-2-Small"),),
        tiny={"config_class": "Inkling2Config", "overrides": {
            "text_config": _text("inkling2_text"), "image_token_id": 299, "vision_config": INKLING2_VISION},
            "image": INKLING2_IMAGE},
    ),
    Wrapper(
        name="inkling2_loop",
        title="Inkling 2 Loop",
        model_types=("inkling2_loop",),
        classes=("Inkling2LoopForConditionalGeneration",),
        text_family="inkling2_loop_text",
        summary="Inkling 2 Loop: Inkling 2's vision encoder around the looped-depth Inkling 2 Loop language model.",
        note="Inkling2LoopForConditionalGeneration: " + INKLING2_NOTE.replace("{cls}", "Inkling2Loop").replace(
            "(Inkling2LoopVisionModel", "(Inkling2VisionModel"),
        image_inputs=("pixel_values", "image_grid_thw"),
        vision=("model.vision_tower",),
        checkpoints=(Checkpoint("thinkingmachines/Inkling-2-Mini", "Inkling-2-Mini"),),
        tiny={"config_class": "Inkling2LoopConfig", "overrides": {
            "text_config": _text("inkling2_loop_text"), "image_token_id": 299,
            "vision_config": {**INKLING2_VISION, "model_type": "inkling2_vision"}},
            "image": INKLING2_IMAGE},
    ),
    Wrapper(
        name="inkling_mm_model",
        title="Inkling",
        model_types=("inkling_mm_model",),
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
        tiny={"config_class": "InklingConfig", "overrides": {
            "text_config": _text("inkling_text"), "image_token_id": 299, "audio_token_id": 298,
            # three layers over 2x2-pixel, two-frame patches: plan_out_scales' rows, with no scipy assignment
            "vision_config": {"text_hidden_size": 64, "patch_size": 2, "temporal_patch_size": 2,
                              "num_hidden_layers": 3},
            "audio_config": {"text_hidden_size": 64, "n_mel_bins": 8, "mel_vocab_size": 16}},
            "image": {"tokens": 4, "pixel_values": (4, 2, 2, 2, 3)}},
    ),
    Wrapper(
        name="dots3_note",
        title="dots3.note",
        model_types=("dots3_note",),
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
        tiny={"config_class": "Dots3NoteConfig", "overrides": {
            # the sliding layers' own sizes (swa_*), else Dots3NoteTextConfig gives them the released 64 heads
            "text_config": _text("dots3_note_text", swa_num_attention_heads=4, swa_num_key_value_heads=4,
                                 swa_q_lora_rank=32, swa_kv_lora_rank=32, swa_head_dim=32,
                                 swa_qk_nope_head_dim=16, swa_v_head_dim=16),
            "image_token_id": 299, "video_token_id": 298,
            "audio_token_id": 295,
            "vision_config": {"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 1,
                              "num_attention_heads": 2, "patch_size": 4, "moe_intermediate_size": 32,
                              "mlp_layer_types": ["dense"], "num_local_experts": 2, "adapter_in_dim": 32,
                              "adapter_out_dim": 64, "adapter_merge_size": 2},
            "audio_config": {"hidden_size": 16, "intermediate_size": 32, "num_hidden_layers": 1,
                             "num_attention_heads": 2, "feature_size": 8, "downsample_hidden_size": 16,
                             "adapter_input_size": 16, "adapter_out_dim": 64}},
            "image": {"tokens": 4, "pixel_values": (16, 48), "image_grid_thw": [[1, 4, 4]]}},
    ),
    Wrapper(
        name="minimax_m3_vl",
        title="MiniMax-M3",
        model_types=("minimax_m3_vl",),
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
        checkpoints=(
            # config.json of nvidia/MiniMax-M3-NVFP4, NVIDIA's NVFP4 re-upload of these weights, less its quantization
            # and its text config's num_mtp_modules (one MTP module there, seven in the BF16 release), copied into
            # ai-dynamo/aiconfigurator aic-core/src/aiconfigurator_core/model_configs/
            # nvidia--MiniMax-M3-NVFP4_config.json
            Checkpoint("MiniMaxAI/MiniMax-M3", "MiniMax-M3", {
                "architectures": ["MiniMaxM3SparseForConditionalGeneration"], "model_type": "minimax_m3_vl",
                "text_config": {
                    "architectures": ["MiniMaxM3SparseForCausalLM"], "dtype": "bfloat16", "hidden_size": 6144,
                    "intermediate_size": 3072, "num_hidden_layers": 60, "num_attention_heads": 64,
                    "num_key_value_heads": 4, "head_dim": 128, "vocab_size": 200064, "max_position_embeddings": 1048576,
                    "rms_norm_eps": 1e-06, "use_gemma_norm": True, "attention_output_gate": False,
                    "rope_theta": 5000000, "rotary_dim": 64, "partial_rotary_factor": 0.5, "hidden_act": "swigluoai",
                    "use_qk_norm": True, "tie_word_embeddings": False, "dense_intermediate_size": 12288,
                    "shared_intermediate_size": 3072, "num_local_experts": 128, "num_experts_per_tok": 4,
                    "n_shared_experts": 1, "scoring_func": "sigmoid", "use_routing_bias": True,
                    "moe_layer_freq": [0] * 3 + [1] * 57, "qk_norm_type": "per_head", "swiglu_alpha": 1.702,
                    "swiglu_limit": 7.0, "routed_scaling_factor": 2.0,
                    "sparse_attention_config": {
                        "use_sparse_attention": True, "sparse_index_dim": 128, "sparse_num_index_heads": 4,
                        "sparse_topk_blocks": 16, "sparse_block_size": 128,
                        "sparse_disable_index_value": [0] * 3 + [1] * 57, "sparse_score_type": "max",
                        "sparse_init_block": 0, "sparse_local_block": 1, "sparse_attention_freq": [0] * 3 + [1] * 57,
                    },
                },
                "vision_config": {
                    "hidden_size": 1280, "num_attention_heads": 16, "num_hidden_layers": 32, "intermediate_size": 5120,
                    "patch_size": 14, "image_size": 2016, "projection_dim": 6144, "position_embedding_type": "rope",
                    "rope_mode": "3d", "rope_theta": 10000.0, "hidden_act": "gelu", "initializer_factor": 1.0,
                    "layer_norm_eps": 1e-05, "model_type": "clip_vision_model", "num_channels": 3, "vocab_size": 32000,
                    "img_token_compression_config": {
                        "image_token_compression_method": "patch_merge", "spatial_merge_size": 2,
                        "temporal_patch_size": 2,
                    },
                    "vision_segment_max_frames": 4,
                },
                "img_token_compression_config": {
                    "image_token_compression_method": "patch_merge", "spatial_merge_size": 2, "temporal_patch_size": 2,
                },
                "image_grid_pinpoints": "[(336, 336), (336, 672), (336, 1008), (336, 1344), (336, 1680), (336, 2016), (672, 336), (672, 672), (672, 1008), (672, 1344), (672, 1680), (672, 2016), (1008, 336), (1008, 672), (1008, 1008), (1008, 1344), (1008, 1680), (1008, 2016), (1344, 336), (1344, 672), (1344, 1008), (1344, 1344), (1344, 1680), (1344, 2016), (1680, 336), (1680, 672), (1680, 1008), (1680, 1344), (1680, 1680), (1680, 2016), (2016, 336), (2016, 672), (2016, 1008), (2016, 1344), (2016, 1680), (2016, 2016)]",
                "image_seq_length": 576, "image_token_index": 200025, "video_token_index": 200026,
                "multimodal_projector_bias": True, "num_reward_heads": 0, "process_image_mode": "dynamic_res",
                "projector_hidden_act": "gelu", "vision_feature_layer": -1, "vision_feature_select_strategy": "full",
                "dtype": "bfloat16", "projector_hidden_size": 6144,
            }),
        ),
        tiny={"config_class": "MiniMaxM3VLConfig", "overrides": {
            "text_config": _text("minimax_m3_vl_text"), "image_token_index": 299, "video_token_index": 298,
            "projector_hidden_size": 64,
            "vision_config": {"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 1,
                              "num_attention_heads": 2, "image_size": 16, "patch_size": 4}},
            "image": {**QWEN_IMAGE, "around": (297,)}},
    ),
    Wrapper(
        name="nemotron_h_omni",
        title="Nemotron 3 Nano Omni",
        model_types=("nemotron_h_omni",),
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
        tiny={"config_class": "NemotronH_Omni_Reasoning_V3_Config", "overrides": {
            "text_config": _text("nemotron_h"), "image_token_id": 299, "video_token_id": 298,
            "vision_hidden_size": 32, "projector_hidden_size": 64, "downsample_ratio": 0.5,
            "vision_config": {"hidden_size": 32, "num_hidden_layers": 1, "num_attention_heads": 2,
                              "patch_size": 4, "image_size": 16, "max_img_size": 16, "num_cls_tokens": 1,
                              "num_registers": 0, "model_type": "radio", "video_temporal_patch_size": 2}},
            "image": {"tokens": 4, "pixel_values": (16, 48), "image_grid_hw": [[4, 4]]}},
    ),
)
