"""LLaVA's kin and the other wrappers that place projected image features at placeholder tokens: LLaVA-NeXT (and
its video and OneVision successors), Video-LLaVA, Janus, DeepSeek-VL, GOT-OCR 2, Ovis2, VideoLLaMA 3, Qianfan-OCR,
Fuyu, and the Q-Former wrappers BLIP-2 and InstructBLIP. One declaration each: where the language model sits, where
the image features enter, the image inputs and a tiny recipe with a one-layer vision tower."""

from nnterp.family import Checkpoint
from nnterp.sites import Call

from .declarations import CLIP, INTERNVIT, SIGLIP, _text
from .wrapper import Wrapper

#: A tiny SAM-style vision encoder (GOT-OCR 2's): one windowless global layer over 64-pixel images in 16-pixel patches.
SAM = {"hidden_size": 32, "output_channels": 16, "num_hidden_layers": 1, "num_attention_heads": 2, "image_size": 64,
       "patch_size": 16, "mlp_dim": 64, "window_size": 0, "global_attn_indexes": [0]}

#: A tiny Q-Former (BLIP-2's): one layer cross-attending to the vision tower, four queries.
QFORMER = {"hidden_size": 32, "num_hidden_layers": 1, "num_attention_heads": 2, "intermediate_size": 64,
           "encoder_hidden_size": 32, "vocab_size": 300, "cross_attention_frequency": 1}
#: A tiny BLIP vision model: one layer over 16-pixel images in 4-pixel patches.
BLIP_VISION = {"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 1, "num_attention_heads": 2,
               "image_size": 16, "patch_size": 4}
#: BLIP-2's forward runs the vision model and the Q-Former on every call
Q_FORMER_NEEDS_IMAGE = ("its forward runs the vision model and the Q-Former unconditionally, so every call passes "
                        "pixel_values")

LLAVA_KIN = (
    Wrapper(
        name="llava_next",
        title="LLaVA-NeXT",
        model_types=("llava_next",),
        classes=("LlavaNextForConditionalGeneration",),
        text_family="llama",
        summary="LLaVA-NeXT (LLaVA 1.6): LLaVA with any-resolution tiling, each image a base view and tiles, with a "
                "learned newline row, around a Llama, Vicuna or Mistral language model.",
        note="LlavaNextForConditionalGeneration: model.{vision_tower (CLIP), multi_modal_projector (linear, GELU, "
             "linear), image_newline, language_model} and lm_head. pixel_values holds each image's base view and "
             "tiles ([images, patches, channels, height, width]) and image_sizes its size; get_image_features "
             "projects the vision_feature_layer's states, and pack_image_features unpads the tiles to the image's "
             "aspect ratio and appends image_newline after each row of patches, so image_features includes the "
             "newline rows. LlavaNextModel's forward places them with inputs_embeds.masked_scatter.",
        image_inputs=("pixel_values", "image_sizes"),
        checkpoints=(Checkpoint("llava-hf/llava-v1.6-mistral-7b-hf", "LLaVA-v1.6-Mistral-7B", {
            "architectures": ["LlavaNextForConditionalGeneration"], "model_type": "llava_next",
            "image_token_index": 32000, "projector_hidden_act": "gelu", "vision_feature_layer": -2,
            "vision_feature_select_strategy": "default", "use_image_newline_parameter": True,
            "image_grid_pinpoints": [[336, 672], [672, 336], [672, 672], [1008, 336], [336, 1008]],
            "text_config": {"model_type": "mistral", "intermediate_size": 14336, "max_position_embeddings": 32768,
                            "num_key_value_heads": 8, "rms_norm_eps": 1e-05, "rope_theta": 1000000.0,
                            "sliding_window": None, "vocab_size": 32064},
            "vision_config": {"model_type": "clip_vision_model", "hidden_size": 1024, "image_size": 336,
                              "intermediate_size": 4096, "num_attention_heads": 16, "num_hidden_layers": 24,
                              "patch_size": 14, "projection_dim": 768, "vocab_size": 32000},
            "vocab_size": 32064, "dtype": "float16",
        }),),
        tiny={"config_class": "LlavaNextConfig", "overrides": {
            "text_config": _text("llama"), "vision_config": CLIP, "image_token_id": 299,
            "image_grid_pinpoints": [[16, 16]]},
            "image": {"tokens": 36, "pixel_values": (1, 2, 3, 16, 16), "image_sizes": [[16, 16]]}},
    ),
    Wrapper(
        name="llava_next_video",
        title="LLaVA-NeXT-Video",
        model_types=("llava_next_video",),
        classes=("LlavaNextVideoForConditionalGeneration",),
        text_family="llama",
        summary="LLaVA-NeXT-Video: LLaVA-NeXT with video frames pooled into the stream beside images.",
        note="LlavaNextVideoForConditionalGeneration: model.{vision_tower (CLIP), vision_resampler (spatial pooling "
             "of each frame's features, by spatial_pool_mode), multi_modal_projector, image_newline, language_model} and lm_head. Images go as in "
             "LLaVA-NeXT (base view and tiles, image_sizes, newline rows); LlavaNextVideoModel's forward places them "
             "with a first inputs_embeds.masked_scatter (image_features) and the pooled video frames "
             "(pixel_values_videos) at video_token_id with a second.",
        vision=("model.vision_tower", "model.vision_resampler", "model.multi_modal_projector"),
        image_inputs=("pixel_values", "image_sizes", "pixel_values_videos"),
        checkpoints=(
            # config.json of llava-hf/LLaVA-NeXT-Video-7B-hf (mirrored in hlky/dinoml_v2
            # agents/plans/transformers/llava_next_video/_sources/)
            Checkpoint("llava-hf/LLaVA-NeXT-Video-7B-hf", "LLaVA-NeXT-Video-7B", {
                "architectures": ["LlavaNextVideoForConditionalGeneration"], "ignore_index": -100,
                "image_grid_pinpoints": [[336, 672], [672, 336], [672, 672], [1008, 336], [336, 1008]],
                "image_token_index": 32001, "model_type": "llava_next_video", "projector_hidden_act": "gelu",
                "spatial_pool_mode": "average", "spatial_pool_out_channels": 1024, "spatial_pool_stride": 2,
                "text_config": {
                    "architectures": ["LlamaForCausalLM"], "rope_scaling": {"factor": 2.5, "type": "linear"},
                    "max_position_embeddings": 4096, "model_type": "llama", "rms_norm_eps": 1e-05, "dtype": "float16",
                    "type": "linear", "vocab_size": 32064,
                },
                "tie_word_embeddings": False, "dtype": "bfloat16", "use_image_newline_parameter": True,
                "video_token_index": 32000,
                "vision_config": {
                    "hidden_size": 1024, "image_size": 336, "intermediate_size": 4096,
                    "model_type": "clip_vision_model", "num_attention_heads": 16, "num_hidden_layers": 24,
                    "patch_size": 14, "projection_dim": 768, "vocab_size": 32000,
                },
                "vision_feature_layer": -2, "vision_feature_select_strategy": "default",
            }),
        ),
        tiny={"config_class": "LlavaNextVideoConfig", "overrides": {
            "text_config": _text("llama"), "vision_config": CLIP, "image_token_id": 299, "video_token_id": 298,
            "image_grid_pinpoints": [[16, 16]]},
            "image": {"tokens": 36, "pixel_values": (1, 2, 3, 16, 16), "image_sizes": [[16, 16]]}},
    ),
    Wrapper(
        name="llava_onevision",
        title="LLaVA-OneVision",
        model_types=("llava_onevision",),
        classes=("LlavaOnevisionForConditionalGeneration",),
        text_family="qwen2",
        summary="LLaVA-OneVision: a SigLIP vision tower and a two-layer MLP projector with any-resolution tiling "
                "around a Qwen2 language model.",
        note="LlavaOnevisionForConditionalGeneration: model.{vision_tower (SigLIP), multi_modal_projector (linear, "
             "GELU, linear), image_newline, language_model (Qwen2Model)} and lm_head. Images come as base view and "
             "tiles with image_sizes; get_image_features keeps every patch (vision_feature_select_strategy 'full'), "
             "unpads the tiles (downsampling them past vision_aspect_ratio's anyres_max limit) and appends "
             "image_newline after each row; LlavaOnevisionModel's forward places them with a first "
             "inputs_embeds.masked_scatter and video frames at video_token_id with a second.",
        image_inputs=("pixel_values", "image_sizes", "pixel_values_videos"),
        checkpoints=(
            # config.json of llava-hf/llava-onevision-qwen2-0.5b-ov-hf (mirrored in hlky/dinoml_v2
            # agents/plans/transformers/llava_onevision/_sources/)
            Checkpoint("llava-hf/llava-onevision-qwen2-0.5b-ov-hf", "LLaVA-OneVision-Qwen2-0.5B-ov", {
                "architectures": ["LlavaOnevisionForConditionalGeneration"], "ignore_index": -100,
                "image_grid_pinpoints": [
                    [384, 384], [384, 768], [384, 1152], [384, 1536], [384, 1920], [384, 2304], [768, 384], [768, 768],
                    [768, 1152], [768, 1536], [768, 1920], [768, 2304], [1152, 384], [1152, 768], [1152, 1152],
                    [1152, 1536], [1152, 1920], [1152, 2304], [1536, 384], [1536, 768], [1536, 1152], [1536, 1536],
                    [1536, 1920], [1536, 2304], [1920, 384], [1920, 768], [1920, 1152], [1920, 1536], [1920, 1920],
                    [1920, 2304], [2304, 384], [2304, 768], [2304, 1152], [2304, 1536], [2304, 1920], [2304, 2304],
                ],
                "image_token_index": 151646, "model_type": "llava_onevision", "projector_hidden_act": "gelu",
                "text_config": {
                    "architectures": ["Qwen2ForCausalLM"], "hidden_size": 896, "intermediate_size": 4864,
                    "max_window_layers": 24, "model_type": "qwen2", "num_attention_heads": 14, "num_hidden_layers": 24,
                    "num_key_value_heads": 2, "rope_theta": 1000000.0, "tie_word_embeddings": True, "dtype": "bfloat16",
                    "vocab_size": 152000,
                },
                "tie_word_embeddings": False, "dtype": "float16", "use_image_newline_parameter": True,
                "video_token_index": 151647, "vision_aspect_ratio": "anyres_max_9",
                "vision_config": {
                    "hidden_size": 1152, "image_size": 384, "intermediate_size": 4304,
                    "model_type": "siglip_vision_model", "num_attention_heads": 16, "num_hidden_layers": 26,
                    "patch_size": 14, "vision_use_head": False,
                },
                "vision_feature_layer": -1, "vision_feature_select_strategy": "full",
            }),
        ),
        tiny={"config_class": "LlavaOnevisionConfig", "overrides": {
            "text_config": _text("qwen2"), "vision_config": SIGLIP, "image_token_id": 299, "video_token_id": 298,
            "image_grid_pinpoints": [[16, 16]]},
            "image": {"tokens": 36, "pixel_values": (1, 2, 3, 16, 16), "image_sizes": [[16, 16]]}},
    ),
    Wrapper(
        name="video_llava",
        title="Video-LLaVA",
        model_types=("video_llava",),
        classes=("VideoLlavaForConditionalGeneration",),
        text_family="llama",
        summary="Video-LLaVA: two CLIP vision towers, one for images and one for video frames, and one shared "
                "projector around a Llama (Vicuna) language model.",
        note="VideoLlavaForConditionalGeneration: model.{image_tower, video_tower (two CLIP vision models), "
             "multi_modal_projector (linear, GELU, linear), language_model} and lm_head. get_image_features runs "
             "image_tower and drops the CLS position (vision_feature_select_strategy 'default'); VideoLlavaModel's "
             "forward places the projected images with a first inputs_embeds.masked_scatter and the video_tower's "
             "frames (pixel_values_videos) at video_token_id with a second.",
        vision=("model.image_tower", "model.video_tower", "model.multi_modal_projector"),
        image_inputs=("pixel_values", "pixel_values_videos"),
        checkpoints=(
            # config.json of LanguageBind/Video-LLaVA-7B-hf (mirrored in hlky/dinoml_v2
            # agents/plans/transformers/video_llava/_sources/)
            Checkpoint("LanguageBind/Video-LLaVA-7B-hf", "Video-LLaVA-7B", {
                "architectures": ["VideoLlavaForConditionalGeneration"], "ignore_index": -100,
                "image_token_index": 32000, "model_type": "video_llava", "projector_hidden_act": "gelu",
                "text_config": {
                    "architectures": ["LlamaForCausalLM"], "max_position_embeddings": 4096, "model_type": "llama",
                    "rms_norm_eps": 1e-05, "dtype": "float16", "vocab_size": 32064,
                },
                "dtype": "bfloat16", "video_token_index": 32001,
                "vision_config": {
                    "hidden_size": 1024, "intermediate_size": 4096, "model_type": "clip_vision_model",
                    "num_attention_heads": 16, "num_hidden_layers": 24, "patch_size": 14, "projection_dim": 768,
                    "vocab_size": 32000,
                },
                "vision_feature_layer": -2, "vision_feature_select_strategy": "default", "vocab_size": 32064,
            }),
        ),
        tiny={"config_class": "VideoLlavaConfig", "overrides": {
            "text_config": _text("llama"), "vision_config": CLIP, "image_token_id": 299, "video_token_id": 298},
            "image": {"tokens": 16, "pixel_values": (1, 3, 16, 16)}},
    ),
    Wrapper(
        name="janus",
        title="Janus",
        model_types=("janus",),
        classes=("JanusForConditionalGeneration",),
        text_family="llama",
        summary="Janus (Janus-Pro): a SigLIP-style vision model and an MLP aligner for understanding, a VQ-VAE for "
                "generation, around a DeepSeek-LLM (Llama) language model.",
        note="JanusForConditionalGeneration: model.{vision_model, aligner (linear, then depth - 1 activations and linears), vqmodel, generation_embeddings, "
             "generation_aligner, generation_head (the image-generation side, unused by a text-generating call), "
             "language_model (LlamaModel)} and lm_head. get_image_features runs vision_model and the aligner; "
             "JanusModel's forward places the aligned rows with inputs_embeds.masked_scatter.",
        vision=("model.vision_model", "model.aligner"),
        checkpoints=(
            # config.json of deepseek-community/Janus-Pro-1B (mirrored in hlky/dinoml_v2
            # agents/plans/transformers/janus/_sources/)
            Checkpoint("deepseek-community/Janus-Pro-1B", "Janus-Pro-1B", {
                "architectures": ["JanusForConditionalGeneration"], "image_token_id": 100581, "model_type": "janus",
                "text_config": {
                    "attention_bias": False, "head_dim": 128, "hidden_act": "silu", "hidden_size": 2048,
                    "intermediate_size": 5632, "max_position_embeddings": 16384, "mlp_bias": False,
                    "model_type": "llama", "num_attention_heads": 16, "num_hidden_layers": 24,
                    "num_key_value_heads": 16, "pretraining_tp": 1, "rms_norm_eps": 1e-06, "rope_scaling": None,
                    "rope_theta": 10000.0, "dtype": "bfloat16", "vocab_size": 102400,
                },
                "dtype": "bfloat16",
                "vision_config": {
                    "attention_bias": True, "depth": 2, "hidden_act": "gelu", "hidden_size": 1024, "image_size": 384,
                    "layer_norm_eps": 1e-06, "mlp_ratio": 4.0, "model_type": "janus_vision_model",
                    "num_attention_heads": 16, "num_channels": 3, "num_hidden_layers": 24, "num_image_tokens": 576,
                    "patch_size": 16, "projection_dim": 2048, "use_qk_norm": False,
                },
                "vq_config": {
                    "base_channels": 128, "channel_multiplier": [1, 1, 2, 2, 4], "depth": 2, "double_latent": False,
                    "embed_dim": 8, "hidden_act": "gelu", "image_token_embed_dim": 2048, "in_channels": 3,
                    "latent_channels": 256, "model_type": "janus_vqgan", "num_embeddings": 16384,
                    "num_hidden_layers": 2, "num_patches": 24, "num_res_blocks": 2, "out_channels": 3,
                    "projection_dim": 2048,
                },
            }),
        ),
        tiny={"config_class": "JanusConfig", "overrides": {
            "text_config": _text("llama"), "image_token_id": 299,
            "vision_config": {"hidden_size": 32, "num_hidden_layers": 1, "num_attention_heads": 2, "image_size": 16,
                              "patch_size": 4, "mlp_ratio": 2.0, "projection_dim": 64, "depth": 2,
                              "num_image_tokens": 16},
            "vq_config": {"embed_dim": 8, "num_embeddings": 32, "latent_channels": 32, "base_channels": 32,
                          "channel_multiplier": [1, 1], "num_res_blocks": 1, "num_patches": 4,
                          "projection_dim": 64, "image_token_embed_dim": 64, "num_hidden_layers": 1}},
            "image": {"tokens": 16, "pixel_values": (1, 3, 16, 16)}},
    ),
    Wrapper(
        name="deepseek_vl",
        title="DeepSeek-VL",
        model_types=("deepseek_vl",),
        classes=("DeepseekVLForConditionalGeneration",),
        text_family="llama",
        summary="DeepSeek-VL: a SigLIP vision model and an MLP aligner around a DeepSeek-LLM (Llama) language model.",
        note="DeepseekVLForConditionalGeneration: model.{vision_model (SigLIP), aligner (linear, GELU, linear), "
             "language_model (LlamaModel)} and lm_head; DeepseekVLModel's forward places the aligned rows with "
             "inputs_embeds.masked_scatter.",
        vision=("model.vision_model", "model.aligner"),
        checkpoints=(
            # config.json of deepseek-community/deepseek-vl-1.3b-chat (mirrored in hlky/dinoml_v2
            # agents/plans/transformers/deepseek_vl/_sources/)
            Checkpoint("deepseek-community/deepseek-vl-1.3b-chat", "DeepSeek-VL-1.3B-chat", {
                "architectures": ["DeepseekVLForConditionalGeneration"], "image_token_id": 100015,
                "model_type": "deepseek_vl",
                "text_config": {
                    "attention_bias": False, "head_dim": 128, "hidden_act": "silu", "hidden_size": 2048,
                    "intermediate_size": 5632, "max_position_embeddings": 16384, "mlp_bias": False,
                    "model_type": "llama", "num_attention_heads": 16, "num_hidden_layers": 24,
                    "num_key_value_heads": 16, "pretraining_tp": 1, "rms_norm_eps": 1e-06, "rope_scaling": None,
                    "rope_theta": 10000.0, "vocab_size": 102400,
                },
                "dtype": "float16",
                "vision_config": {
                    "hidden_act": "gelu", "hidden_size": 1024, "image_size": 384, "intermediate_size": 4096,
                    "layer_norm_eps": 1e-06, "model_type": "siglip_vision_model", "num_attention_heads": 16,
                    "num_channels": 3, "num_hidden_layers": 24, "patch_size": 16, "vision_use_head": False,
                },
            }),
        ),
        tiny={"config_class": "DeepseekVLConfig", "overrides": {
            "text_config": _text("llama"), "vision_config": SIGLIP, "image_token_id": 299},
            "image": {"tokens": 16, "pixel_values": (1, 3, 16, 16)}},
    ),
    Wrapper(
        name="deepseek_vl_hybrid",
        title="DeepSeek-VL (hybrid)",
        model_types=("deepseek_vl_hybrid",),
        classes=("DeepseekVLHybridForConditionalGeneration",),
        text_family="llama",
        summary="DeepSeek-VL 7B: a low-resolution SigLIP and a high-resolution SAM vision encoder, fused by one "
                "aligner, around a DeepSeek-LLM (Llama) language model.",
        note="DeepseekVLHybridForConditionalGeneration: model.{vision_model (SigLIP, pixel_values), "
             "high_res_vision_model (SAM, high_res_pixel_values), high_res_vision_neck, high_res_vision_proj, "
             "aligner (the two encodings projected and concatenated, GELU, linear), language_model (LlamaModel)} "
             "and lm_head; DeepseekVLHybridModel's forward places the aligned rows with "
             "inputs_embeds.masked_scatter.",
        vision=("model.vision_model", "model.high_res_vision_model", "model.aligner"),
        image_inputs=("pixel_values", "high_res_pixel_values"),
        checkpoints=(
            # config.json of deepseek-community/deepseek-vl-7b-chat (mirrored in hlky/dinoml_v2
            # agents/plans/transformers/deepseek_vl/_sources/)
            Checkpoint("deepseek-community/deepseek-vl-7b-chat", "DeepSeek-VL-7B-chat", {
                "architectures": ["DeepseekVLHybridForConditionalGeneration"],
                "high_res_vision_config": {
                    "global_attn_indexes": [2, 5, 8, 11], "hidden_act": "gelu", "hidden_size": 768, "image_size": 1024,
                    "intermediate_size": 3072, "layer_norm_eps": 1e-06, "mlp_dim": 3072, "mlp_ratio": 4.0,
                    "model_type": "sam_vision_model", "num_attention_heads": 12, "num_channels": 3,
                    "num_hidden_layers": 12, "num_pos_feats": 128, "output_channels": 256, "patch_size": 16,
                    "qkv_bias": True, "use_abs_pos": True, "use_rel_pos": True, "window_size": 14,
                },
                "image_token_id": 100015, "model_type": "deepseek_vl_hybrid",
                "text_config": {
                    "attention_bias": False, "head_dim": 128, "hidden_act": "silu", "hidden_size": 4096,
                    "intermediate_size": 11008, "max_position_embeddings": 16384, "mlp_bias": False,
                    "model_type": "llama", "num_attention_heads": 32, "num_hidden_layers": 30,
                    "num_key_value_heads": 32, "pretraining_tp": 1, "rms_norm_eps": 1e-06, "rope_scaling": None,
                    "rope_theta": 10000.0, "vocab_size": 102400,
                },
                "dtype": "float16",
                "vision_config": {
                    "hidden_act": "gelu", "hidden_size": 1024, "image_size": 384, "intermediate_size": 4096,
                    "layer_norm_eps": 1e-06, "model_type": "siglip_vision_model", "num_attention_heads": 16,
                    "num_channels": 3, "num_hidden_layers": 24, "patch_size": 16, "vision_use_head": False,
                },
            }),
        ),
        tiny={"config_class": "DeepseekVLHybridConfig", "overrides": {
            "text_config": _text("llama"), "vision_config": SIGLIP, "image_token_id": 299,
            "high_res_vision_config": {"hidden_size": 32, "output_channels": 16, "num_hidden_layers": 1,
                                       "num_attention_heads": 2, "image_size": 64, "patch_size": 16, "mlp_dim": 64,
                                       "window_size": 0, "global_attn_indexes": [0]}},
            "image": {"tokens": 16, "pixel_values": (1, 3, 16, 16), "high_res_pixel_values": (1, 3, 64, 64)}},
    ),
    Wrapper(
        name="got_ocr2",
        title="GOT-OCR 2.0",
        model_types=("got_ocr2",),
        classes=("GotOcr2ForConditionalGeneration",),
        text_family="qwen2",
        loads=("eager",),  # GotOcr2PreTrainedModel declares no SDPA
        summary="GOT-OCR 2.0: a SAM-style vision encoder and a strided-convolution projector around a Qwen2 "
                "language model.",
        note="GotOcr2ForConditionalGeneration: model.{vision_tower (SAM-style encoder and neck), "
             "multi_modal_projector (two stride-2 convolutions, then one linear), language_model (Qwen2Model)} and "
             "lm_head; GotOcr2Model's forward places the projected rows with inputs_embeds.masked_scatter.",
        checkpoints=(
            # config.json of stepfun-ai/GOT-OCR-2.0-hf (mirrored in hlky/dinoml_v2
            # agents/plans/transformers/pp_chart2table/)
            Checkpoint("stepfun-ai/GOT-OCR-2.0-hf", "GOT-OCR-2.0", {
                "architectures": ["GotOcr2ForConditionalGeneration"], "ignore_index": -100, "image_seq_length": 576,
                "image_token_index": 151859, "model_type": "got_ocr2",
                "text_config": {
                    "hidden_size": 1024, "intermediate_size": 2816, "max_window_layers": 21, "model_type": "qwen2",
                    "num_attention_heads": 16, "num_hidden_layers": 24, "num_key_value_heads": 16,
                    "rope_theta": 1000000.0, "tie_word_embeddings": True, "vocab_size": 151860,
                },
                "dtype": "bfloat16", "vision_config": {"model_type": ""},
            }),
        ),
        tiny={"config_class": "GotOcr2Config", "overrides": {
            "text_config": _text("qwen2"), "vision_config": SAM, "image_token_id": 299},
            "image": {"tokens": 1, "pixel_values": (1, 3, 64, 64)}},
    ),
    Wrapper(
        name="pp_chart2table",
        title="PP-Chart2Table",
        model_types=("pp_chart2table",),
        classes=("GotOcr2ForConditionalGeneration",),
        text_family="qwen2",
        loads=("eager",),
        summary="PP-Chart2Table: GOT-OCR 2.0's architecture (a SAM-style encoder, a convolution projector, a Qwen2 "
                "language model) trained to turn charts into tables.",
        note="PPChart2TableConfig builds GotOcr2ForConditionalGeneration: model.{vision_tower, multi_modal_projector, "
             "language_model (Qwen2Model)} and lm_head, the projected rows placed by GotOcr2Model's "
             "inputs_embeds.masked_scatter.",
        checkpoints=(
            # config.json of PaddlePaddle/PP-Chart2Table_safetensors (mirrored in hlky/dinoml_v2
            # agents/plans/transformers/pp_chart2table/)
            Checkpoint("PaddlePaddle/PP-Chart2Table_safetensors", "PP-Chart2Table", {
                "architectures": ["GotOcr2ForConditionalGeneration"], "model_type": "pp_chart2table",
                "freeze_vision_tower": False, "image_seq_length": 256, "use_im_start_end": True,
                "im_start_token": 151857, "im_end_token": 151858, "image_token_index": 151859, "vocab_size": 151860,
                "max_window_layers": 21, "tie_word_embeddings": True, "dtype": "bfloat16", "use_sliding_window": False,
                "vision_config": {
                    "architectures": ["PPChart2TableVisionModel"], "num_hidden_layers": 12, "hidden_size": 768,
                    "output_channels": 256, "hidden_act": "gelu", "num_channels": 3, "image_size": 1024,
                    "mlp_ratio": 4.0, "mlp_dim": 3072, "layer_norm_eps": 1e-05, "num_attention_heads": 12,
                    "patch_size": 16, "qkv_bias": True, "use_rel_pos": True, "use_abs_pos": True,
                    "global_attn_indexes": [2, 5, 8, 11], "window_size": 14,
                },
                "text_config": {
                    "architectures": ["PPChart2TableTextModel"], "hidden_size": 1024, "hidden_act": "silu",
                    "num_hidden_layers": 24, "num_attention_heads": 16, "num_key_value_heads": 16,
                    "intermediate_size": 2816, "sliding_window": 32768, "rms_norm_eps": 1e-06, "vocab_size": 151860,
                    "max_position_embeddings": 32768,
                    "rope_parameters": {"rope_theta": 1000000.0, "rope_type": "default"},
                },
            }),
        ),
        tiny={"config_class": "PPChart2TableConfig", "overrides": {
            "text_config": _text("qwen2"), "vision_config": SAM, "image_token_id": 299},
            "image": {"tokens": 1, "pixel_values": (1, 3, 64, 64)}},
    ),
    Wrapper(
        name="ovis2",
        title="Ovis2",
        model_types=("ovis2",),
        classes=("Ovis2ForConditionalGeneration",),
        text_family="qwen2",
        summary="Ovis2: an AIMv2 vision tower whose outputs are probabilities over a visual vocabulary, embedded by a "
                "visual embedding table, around a Qwen2 language model.",
        note="Ovis2ForConditionalGeneration: model.{vision_tower (encoder, then a head giving a softmax over "
             "vision_config.vocab_size visual words), visual_embeddings_table (each position's probabilities times "
             "the table), language_model (Qwen2Model)} and lm_head. Ovis2Model's forward places the embedded rows "
             "with inputs_embeds.masked_scatter, then writes the table's last rows at the visual_indicator_token_ids "
             "positions (the processor's image start, end and separator tokens): there layers[0].layer_input is "
             "neither token_embeddings nor image_features.",
        vision=("model.vision_tower", "model.visual_embeddings_table"),
        checkpoints=(
            # config.json of thisisiron/Ovis2-1B-hf (mirrored in hlky/dinoml_v2
            # agents/plans/transformers/ovis2/_sources/)
            Checkpoint("thisisiron/Ovis2-1B-hf", "Ovis2-1B", {
                "architectures": ["Ovis2ForConditionalGeneration"], "dtype": "float32", "hidden_size": 896,
                "image_token_id": 151665, "model_type": "ovis2",
                "text_config": {
                    "architectures": ["Qwen2ForCausalLM"], "add_cross_attention": False,
                    "cross_attention_hidden_size": None, "dtype": "float32", "finetuning_task": None,
                    "hidden_act": "silu", "hidden_size": 896, "intermediate_size": 4864, "is_decoder": False,
                    "layer_types": ["full_attention"] * 24, "max_position_embeddings": 32768, "max_window_layers": 21,
                    "model_type": "qwen2", "num_attention_heads": 14, "num_hidden_layers": 24, "num_key_value_heads": 2,
                    "prefix": None, "pruned_heads": {}, "rms_norm_eps": 1e-06,
                    "rope_parameters": {"rope_theta": 1000000.0, "rope_type": "default"}, "sliding_window": None,
                    "tf_legacy_loss": False, "tie_encoder_decoder": False, "tie_word_embeddings": True,
                    "use_sliding_window": False, "vocab_size": 151936,
                },
                "tie_word_embeddings": True,
                "vision_config": {
                    "add_cross_attention": False,
                    "backbone_config": {
                        "architectures": ["AIMv2Model"], "_attn_implementation_autoset": True,
                        "add_cross_attention": False, "bad_words_ids": None, "begin_suppress_tokens": None,
                        "chunk_size_feed_forward": 0, "cross_attention_hidden_size": None, "diversity_penalty": 0.0,
                        "do_sample": False, "early_stopping": False, "encoder_no_repeat_ngram_size": 0,
                        "exponential_decay_length_penalty": None, "finetuning_task": None, "forced_bos_token_id": None,
                        "forced_eos_token_id": None, "hidden_size": 1024, "image_size": 448, "intermediate_size": 2816,
                        "is_decoder": False, "is_encoder_decoder": False, "length_penalty": 1.0, "max_length": 20,
                        "min_length": 0, "model_type": "aimv2", "no_repeat_ngram_size": 0, "num_attention_heads": 8,
                        "num_beam_groups": 1, "num_beams": 1, "num_channels": 3, "num_hidden_layers": 24,
                        "num_return_sequences": 1, "output_scores": False, "patch_size": 14, "prefix": None,
                        "problem_type": None, "pruned_heads": {}, "qkv_bias": False, "remove_invalid_values": False,
                        "repetition_penalty": 1.0, "return_dict_in_generate": False, "rms_norm_eps": 1e-05,
                        "suppress_tokens": None, "temperature": 1.0, "tf_legacy_loss": False,
                        "tie_encoder_decoder": False, "tie_word_embeddings": True, "top_k": 50, "top_p": 1.0,
                        "dtype": "bfloat16", "typical_p": 1.0, "use_bfloat16": False, "use_bias": False,
                    },
                    "backbone_kwargs": {}, "cross_attention_hidden_size": None, "depths": None, "drop_cls_token": False,
                    "dtype": "float32", "finetuning_task": None, "hidden_act": "silu", "hidden_size": 1024,
                    "hidden_stride": 2, "image_size": 448, "intermediate_size": 2816, "is_decoder": False,
                    "mlp_bias": False, "model_type": "", "num_attention_heads": 8, "num_channels": 3,
                    "num_hidden_layers": 24, "num_visual_indicator_tokens": 5, "patch_size": 14, "prefix": None,
                    "pruned_heads": {}, "qkv_bias": False, "rms_norm_eps": 1e-05, "tau": 1.0, "tf_legacy_loss": False,
                    "tie_encoder_decoder": False, "tie_word_embeddings": True, "tokenize_function": "softmax",
                    "use_indicators": False, "vocab_size": 65536,
                },
                "visual_indicator_token_ids": [151666, 151667, 151668, 151669, 151670], "vocab_size": 151936,
            }),
        ),
        tiny={"config_class": "Ovis2Config", "overrides": {
            # the indicator ids past the tiny tokenizer's (at most 352 tokens), so that no text is overwritten
            "text_config": _text("qwen2", vocab_size=360), "image_token_id": 299,
            "visual_indicator_token_ids": [355, 356, 357, 358, 359], "vocab_size": 360, "hidden_size": 64,
            "vision_config": {"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 1,
                              "num_attention_heads": 2, "image_size": 16, "patch_size": 4, "vocab_size": 32,
                              "hidden_stride": 1}},
            "image": {"tokens": 16, "pixel_values": (1, 3, 16, 16)}},
    ),
    Wrapper(
        name="video_llama_3",
        title="VideoLLaMA 3",
        model_types=("video_llama_3",),
        classes=("VideoLlama3ForConditionalGeneration",),
        text_family="qwen2",
        summary="VideoLLaMA 3: a native-resolution SigLIP vision encoder with 2D rotary positions and an MLP projector "
                "around a Qwen2 language model.",
        note="VideoLlama3ForConditionalGeneration: model.{vision_model (flattened patches with image_grid_thw, its "
             "output resized by bilinear interpolation to 1/image_merge_sizes per side), projector (linear, GELU, "
             "linear), language_model (Qwen2Model)} and lm_head; "
             "VideoLlama3Model's forward places the projected images with a first inputs_embeds.masked_scatter and "
             "video frames (pixel_values_videos, video_grid_thw) at video_token_id with a second.",
        vision=("model.vision_model", "model.projector"),
        image_inputs=("pixel_values", "image_grid_thw", "image_merge_sizes", "pixel_values_videos"),
        checkpoints=(
            # config.json of lkhl/VideoLLaMA3-2B-Image-HF (mirrored in hlky/dinoml_v2
            # agents/plans/transformers/video_llama_3/)
            Checkpoint("lkhl/VideoLLaMA3-2B-Image-HF", "VideoLLaMA3-2B-Image", {
                "architectures": ["VideoLlama3ForConditionalGeneration"], "dtype": "bfloat16", "image_token_id": 151655,
                "model_type": "video_llama_3",
                "text_config": {
                    "architectures": ["Qwen2ForCausalLM"], "dtype": "bfloat16", "hidden_act": "silu",
                    "hidden_size": 1536, "intermediate_size": 8960, "layer_types": ["full_attention"] * 28,
                    "max_position_embeddings": 131072, "max_window_layers": 28, "model_type": "qwen2",
                    "num_attention_heads": 12, "num_hidden_layers": 28, "num_key_value_heads": 2, "rms_norm_eps": 1e-06,
                    "rope_scaling": None, "rope_theta": 1000000.0, "sliding_window": None, "tie_word_embeddings": True,
                    "use_mrope": False, "use_sliding_window": False, "vocab_size": 151936,
                },
                "video_token_id": 151656,
                "vision_config": {
                    "dtype": "bfloat16", "hidden_act": "gelu_pytorch_tanh", "hidden_size": 1152,
                    "intermediate_size": 4304, "layer_norm_eps": 1e-06, "model_type": "video_llama_3_vision",
                    "num_attention_heads": 16, "num_channels": 3, "num_hidden_layers": 27, "patch_size": 14,
                },
            }),
        ),
        tiny={"config_class": "VideoLlama3Config", "overrides": {
            "text_config": _text("qwen2"), "image_token_id": 299, "video_token_id": 298,
            "vision_config": {"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 1,
                              "num_attention_heads": 2, "patch_size": 4}},
            "image": {"tokens": 4, "pixel_values": (16, 48), "image_grid_thw": [[1, 4, 4]],
                      "image_merge_sizes": [2]}},
    ),
    Wrapper(
        name="qianfan_ocr",
        title="Qianfan-OCR",
        model_types=("qianfan_ocr",),
        classes=("QianfanOCRForConditionalGeneration",),
        text_family="qwen3",
        summary="Qianfan-OCR: an InternViT-style vision tower and a pixel-shuffle MLP projector around a Qwen3 "
                "language model.",
        note="QianfanOCRForConditionalGeneration: model.{vision_tower, multi_modal_projector (layer norm, linear, "
             "GELU, linear after a pixel shuffle by downsample_ratio), language_model (Qwen3Model)} and lm_head; "
             "QianfanOCRModel's forward places the projected rows with inputs_embeds.masked_scatter.",
        checkpoints=(Checkpoint("baidu/Qianfan-OCR", "Qianfan-OCR"),),
        tiny={"config_class": "QianfanOCRConfig", "overrides": {
            "text_config": _text("qwen3"), "image_token_id": 299, "downsample_ratio": 0.5,
            "vision_config": INTERNVIT},
            "image": {"tokens": 4, "pixel_values": (1, 3, 16, 16)}},
    ),
    Wrapper(
        name="fuyu",
        title="Fuyu",
        model_types=("fuyu",),
        classes=("FuyuForCausalLM",),
        text_family="persimmon",
        summary="Fuyu: no vision tower, the image's raw patches projected by one linear layer straight into a "
                "Persimmon language model's stream.",
        note="FuyuForCausalLM: model.{vision_embed_tokens (one linear from patch_size^2 x channels pixel values to "
             "hidden_size), language_model (PersimmonModel)} and lm_head. pixel_values are the image's flattened "
             "patches ([batch, patches, patch_size^2 x channels]); FuyuModel's forward projects them and places "
             "them with inputs_embeds.masked_scatter at image_token_id.",
        vision=("model.vision_embed_tokens",),
        checkpoints=(
            # config.json of adept/fuyu-8b (mirrored in hlky/dinoml_v2 agents/plans/transformers/fuyu/_sources/)
            Checkpoint("adept/fuyu-8b", "Fuyu-8B", {
                "architectures": ["FuyuForCausalLM"], "hidden_act": "relu2", "hidden_size": 4096, "image_size": 300,
                "intermediate_size": 16384, "layer_norm_eps": 1e-05, "max_position_embeddings": 16384,
                "model_type": "fuyu", "num_attention_heads": 64, "num_channels": 3, "num_hidden_layers": 36,
                "partial_rotary_factor": 0.5, "patch_size": 30, "qk_layernorm": True, "rope_scaling": None,
                "rope_theta": 25000.0, "text_config": {"model_type": "persimmon"}, "tie_word_embeddings": False,
                "dtype": "bfloat16", "vocab_size": 262144,
            }),
        ),
        tiny={"config_class": "FuyuConfig", "overrides": {
            "text_config": _text("persimmon"), "image_token_id": 299, "patch_size": 4, "image_size": 16},
            "image": {"tokens": 16, "pixel_values": (1, 16, 48)}},
    ),
    Wrapper(
        name="blip-2",
        title="BLIP-2",
        model_types=("blip-2",),
        classes=("Blip2ForConditionalGeneration",),
        text_family="opt",
        text_types=("opt",),
        summary="BLIP-2: a frozen ViT, a Q-Former whose learned queries cross-attend to it, and a linear projection "
                "of the queries into an OPT language model's stream.",
        note="Blip2ForConditionalGeneration: vision_model, query_tokens (num_query_tokens learned queries), qformer "
             "(BERT-style blocks cross-attending to the vision model's states), language_projection (one linear) "
             "and language_model, a whole OPTForCausalLM (language_model.model.decoder.{embed_tokens, layers, "
             "final_layer_norm}, language_model.lm_head). The wrapper's own forward projects the Q-Former's query "
             "outputs and places them with masked_scatter at the image_token_id placeholders (num_query_tokens per "
             "image), then calls the language model with the merged embeddings; OPT adds its learned positions to "
             "them before the first block. Only its OPT checkpoints are decoder-only: the Flan-T5 ones "
             "(use_decoder_only_language_model=False) are encoder-decoders, not served.",
        language_model="language_model.model",
        lm_head="language_model.lm_head",
        merge="",
        merge_call=Call("masked_scatter", "input"),
        added_before_layers="language_model.model.decoder.embed_positions",
        image_required=Q_FORMER_NEEDS_IMAGE,
        vision=("vision_model", "qformer", "language_projection"),
        checkpoints=(Checkpoint("Salesforce/blip2-opt-2.7b", "BLIP-2-OPT-2.7B"),),
        tiny={"config_class": "Blip2Config", "overrides": {
            "text_config": _text("opt"), "vision_config": BLIP_VISION, "qformer_config": QFORMER,
            "num_query_tokens": 4, "image_token_id": 299},
            "image": {"tokens": 4, "pixel_values": (1, 3, 16, 16)}},
    ),
    Wrapper(
        name="instructblip",
        title="InstructBLIP",
        model_types=("instructblip",),
        classes=("InstructBlipForConditionalGeneration",),
        text_family="llama",
        text_types=("llama",),
        summary="InstructBLIP: BLIP-2 with an instruction-aware Q-Former (it reads the prompt too) around a Vicuna "
                "(Llama) language model.",
        note="InstructBlipForConditionalGeneration: vision_model, query_tokens, qformer (its queries attend to the "
             "instruction's own tokens, qformer_input_ids, and cross-attend to the vision model's states), "
             "language_projection and language_model, a whole LlamaForCausalLM (language_model.model.{embed_tokens, "
             "layers, norm}, language_model.lm_head). The wrapper's own forward places the projected queries with "
             "inputs_embeds.masked_scatter at the image_token_id placeholders (num_query_tokens per image). Only its "
             "Vicuna checkpoints are decoder-only: the Flan-T5 ones are encoder-decoders, not served.",
        language_model="language_model.model",
        lm_head="language_model.lm_head",
        merge="",
        image_required=Q_FORMER_NEEDS_IMAGE,
        vision=("vision_model", "qformer", "language_projection"),
        image_inputs=("pixel_values", "qformer_input_ids", "qformer_attention_mask"),
        checkpoints=(
            # config.json of Salesforce/instructblip-vicuna-7b (mirrored in hlky/dinoml_v2
            # agents/plans/transformers/instructblipvideo/)
            Checkpoint("Salesforce/instructblip-vicuna-7b", "InstructBLIP-Vicuna-7B", {
                "architectures": ["InstructBlipForConditionalGeneration"], "image_token_index": 32001,
                "initializer_factor": 1.0, "model_type": "instructblip", "num_query_tokens": 32,
                "qformer_config": {"model_type": "instructblip_qformer", "vocab_size": 30523},
                "text_config": {
                    "architectures": ["LLaMAForCausalLM"], "attention_bias": False, "head_dim": 128,
                    "hidden_act": "silu", "hidden_size": 4096, "intermediate_size": 11008, "max_sequence_length": 2048,
                    "mlp_bias": False, "model_type": "llama", "num_attention_heads": 32, "num_hidden_layers": 32,
                    "num_key_value_heads": 32, "pretraining_tp": 1, "rms_norm_eps": 1e-06, "rope_scaling": None,
                    "rope_theta": 10000.0, "tie_word_embeddings": False, "dtype": "float16", "vocab_size": 32064,
                },
                "tie_word_embeddings": False, "dtype": "float32", "use_decoder_only_language_model": True,
                "video_token_index": 32002, "vision_config": {"model_type": "instructblip_vision_model"},
            }),
        ),
        tiny={"config_class": "InstructBlipConfig", "overrides": {
            "text_config": _text("llama", model_type="llama"), "vision_config": BLIP_VISION, "qformer_config": QFORMER,
            "num_query_tokens": 4, "image_token_id": 299},
            "image": {"tokens": 4, "pixel_values": (1, 3, 16, 16), "qformer_input_ids": [[1, 5, 6]]}},
    ),
    Wrapper(
        name="instructblipvideo",
        title="InstructBLIP (video)",
        model_types=("instructblipvideo",),
        classes=("InstructBlipVideoForConditionalGeneration",),
        text_family="llama",
        text_types=("llama",),
        summary="InstructBLIP for video: InstructBLIP's Q-Former run on each frame, the frames' queries side by "
                "side in a Vicuna (Llama) language model's stream.",
        note="InstructBlipVideoForConditionalGeneration: vision_model, query_tokens, qformer, language_projection "
             "and language_model, a whole LlamaForCausalLM. pixel_values is a video ([batch, frames, channels, "
             "height, width]); get_video_features runs the vision model and the Q-Former on every frame and lays "
             "the frames' projected queries end to end (num_query_tokens x frames rows); the wrapper's own forward "
             "places them with inputs_embeds.masked_scatter at the video_token_id placeholders, so image_mask marks "
             "the video positions.",
        language_model="language_model.model",
        lm_head="language_model.lm_head",
        merge="",
        image_token="video_token_id",
        image_required=Q_FORMER_NEEDS_IMAGE.replace("pixel_values", "pixel_values (the video's frames)"),
        vision=("vision_model", "qformer", "language_projection"),
        image_inputs=("pixel_values", "qformer_input_ids", "qformer_attention_mask"),
        checkpoints=(
            # config.json of Salesforce/instructblip-vicuna-7b (mirrored in hlky/dinoml_v2
            # agents/plans/transformers/instructblipvideo/); its model_type instructblip left out, as
            # InstructBlipVideoConfig takes the same sizes
            Checkpoint("Salesforce/instructblip-vicuna-7b", "InstructBLIP-Vicuna-7B (video)", {
                "architectures": ["InstructBlipForConditionalGeneration"], "image_token_index": 32001,
                "initializer_factor": 1.0, "num_query_tokens": 32,
                "qformer_config": {"model_type": "instructblip_qformer", "vocab_size": 30523},
                "text_config": {
                    "architectures": ["LLaMAForCausalLM"], "attention_bias": False, "head_dim": 128,
                    "hidden_act": "silu", "hidden_size": 4096, "intermediate_size": 11008, "max_sequence_length": 2048,
                    "mlp_bias": False, "model_type": "llama", "num_attention_heads": 32, "num_hidden_layers": 32,
                    "num_key_value_heads": 32, "pretraining_tp": 1, "rms_norm_eps": 1e-06, "rope_scaling": None,
                    "rope_theta": 10000.0, "tie_word_embeddings": False, "dtype": "float16", "vocab_size": 32064,
                },
                "tie_word_embeddings": False, "dtype": "float32", "use_decoder_only_language_model": True,
                "video_token_index": 32002, "vision_config": {"model_type": "instructblip_vision_model"},
            }),
        ),
        tiny={"config_class": "InstructBlipVideoConfig", "overrides": {
            "text_config": _text("llama", model_type="llama"), "vision_config": BLIP_VISION, "qformer_config": QFORMER,
            "num_query_tokens": 4, "video_token_id": 299},
            "image": {"tokens": 8, "pixel_values": (1, 2, 3, 16, 16), "qformer_input_ids": [[1, 5, 6]]}},
    ),
)
