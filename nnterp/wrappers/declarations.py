"""The image-text-to-text models of transformers served through their language model's family, one declaration
each: where the language model sits, where the image features enter, the image inputs and a tiny recipe with a
one-layer vision tower."""

from nnterp.family import Checkpoint, declared_family
from nnterp.readout import IDENTITY
from nnterp.sites import Argument, Call

from .wrapper import Wrapper

#: A tiny SigLIP vision tower: one layer, 16-pixel images in 4-pixel patches.
SIGLIP = {"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 1, "num_attention_heads": 2,
          "image_size": 16, "patch_size": 4, "num_channels": 3}


#: a wrapper whose logits are lm_head's output, whatever its text family's CausalLM applies after it
lm_head_alone = IDENTITY


def _text(family: str, **extra):
    """The text family's own tiny recipe, as the wrapper's text config (special ids inside its vocabulary)."""
    return {"pad_token_id": 0, "bos_token_id": 1, "eos_token_id": 2, **declared_family(family).tiny["overrides"], **extra}


#: A tiny CLIP vision tower (LLaVA's): one layer, 16-pixel images in 4-pixel patches (16 patches and a CLS).
CLIP = {"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 1, "num_attention_heads": 2,
        "image_size": 16, "patch_size": 4, "projection_dim": 32}
#: A tiny Pixtral vision tower (Mistral Small 3's, LightOnOCR's): one layer, 16-pixel images in 4-pixel patches.
PIXTRAL = {"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 1, "num_attention_heads": 2, "head_dim": 16,
           "image_size": 16, "patch_size": 4}
#: A tiny InternViT vision tower (InternVL's, Qianfan-OCR's): one layer, 16-pixel images in 4-pixel patches.
INTERNVIT = {"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 1, "num_attention_heads": 2,
             "image_size": [16, 16], "patch_size": [4, 4]}
#: The rotary sections of Qwen's multimodal rotary (temporal, height, width) for a 16-wide head.
MROPE = {"rope_type": "default", "mrope_section": [2, 3, 3], "rope_theta": 10000.0}
#: One 16-pixel image in 4-pixel patches, two frames per temporal patch: 16 patches of 3*2*4*4 values, merged 2x2
QWEN_IMAGE = {"tokens": 4, "pixel_values": (16, 96), "image_grid_thw": [[1, 4, 4]]}


WRAPPERS = (
    Wrapper(
        name="gemma3",
        title="Gemma 3",
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
            "text_config": _text("gemma3_text", sliding_window=8),
            "vision_config": SIGLIP, "mm_tokens_per_image": 4, "image_token_id": 299, "boi_token_index": 297,
            "eoi_token_index": 298},
            "image": {"tokens": 4, "around": (297, 298), "pixel_values": (1, 3, 16, 16)}},
    ),
    Wrapper(
        name="llava",
        title="LLaVA",
        model_types=("llava",),
        classes=("LlavaForConditionalGeneration",),
        text_family="llama",
        summary="LLaVA 1.5 and its kin: a CLIP vision tower and a two-layer MLP projector around a Llama (or Vicuna, "
                "Mistral, Qwen2) language model.",
        note="LlavaForConditionalGeneration: model.{vision_tower (CLIP), multi_modal_projector (linear, GELU, linear), "
             "language_model} and lm_head. get_image_features takes the hidden states of vision_feature_layer (-2), "
             "drops the CLS position (vision_feature_select_strategy 'default') and projects them; LlavaModel's "
             "forward places them with inputs_embeds.masked_scatter at the image_token_id placeholders.",
        checkpoints=(
            Checkpoint("llava-hf/llava-1.5-7b-hf", "LLaVA-1.5-7B", {
                "architectures": ["LlavaForConditionalGeneration"], "model_type": "llava", "image_token_index": 32000,
                "projector_hidden_act": "gelu", "vision_feature_layer": -2,
                "vision_feature_select_strategy": "default",
                "text_config": {"model_type": "llama", "num_hidden_layers": 32, "hidden_size": 4096,
                                "intermediate_size": 11008, "num_attention_heads": 32, "num_key_value_heads": 32,
                                "vocab_size": 32064, "max_position_embeddings": 4096, "rms_norm_eps": 1e-05},
                "vision_config": {"model_type": "clip_vision_model", "hidden_size": 1024, "image_size": 336,
                                  "intermediate_size": 4096, "num_attention_heads": 16, "num_hidden_layers": 24,
                                  "patch_size": 14, "projection_dim": 768},
                "dtype": "float16",
            }),
        ),
        tiny={"config_class": "LlavaConfig", "overrides": {
            "text_config": _text("llama"), "vision_config": CLIP, "image_token_id": 299},
            "image": {"tokens": 16, "pixel_values": (1, 3, 16, 16)}},
    ),
    Wrapper(
        name="mistral3",
        title="Mistral Small 3",
        model_types=("mistral3",),
        classes=("Mistral3ForConditionalGeneration",),
        text_family="mistral",
        summary="Mistral Small 3.1 and 3.2: a Pixtral vision tower and a patch-merging projector around a Mistral "
                "language model.",
        note="Mistral3ForConditionalGeneration: model.{vision_tower (Pixtral), multi_modal_projector (RMSNorm, a "
             "spatial_merge_size x spatial_merge_size patch merger, linear, GELU, linear), language_model} and "
             "lm_head. Each image keeps its own size (image_sizes, in pixels); Mistral3Model's forward places the "
             "projected features with inputs_embeds.masked_scatter. Served with a Mistral language model only: "
             "Mistral Small 4's (mistral4: latent attention, routed experts) and Ministral 3's (ministral3: YaRN "
             "rotary, a query temperature) are refused.",
        image_inputs=("pixel_values", "image_sizes"),
        text_types=("mistral",),
        checkpoints=(
            Checkpoint("mistralai/Mistral-Small-3.1-24B-Instruct-2503", "Mistral-Small-3.1-24B-Instruct", {
                "architectures": ["Mistral3ForConditionalGeneration"], "model_type": "mistral3",
                "image_token_index": 10, "spatial_merge_size": 2, "vision_feature_layer": -1,
                "projector_hidden_act": "gelu", "multimodal_projector_bias": False,
                "text_config": {"model_type": "mistral", "num_hidden_layers": 40, "hidden_size": 5120,
                                "intermediate_size": 32768, "num_attention_heads": 32, "num_key_value_heads": 8,
                                "head_dim": 128, "vocab_size": 131072, "max_position_embeddings": 131072,
                                "rope_theta": 1000000000.0, "rms_norm_eps": 1e-05, "sliding_window": None},
                "vision_config": {"model_type": "pixtral", "hidden_size": 1024, "image_size": 1540,
                                  "intermediate_size": 4096, "num_attention_heads": 16, "num_hidden_layers": 24,
                                  "patch_size": 14, "head_dim": 64, "rope_theta": 10000.0},
                "dtype": "bfloat16",
            }),
        ),
        tiny={"config_class": "Mistral3Config", "overrides": {
            "text_config": _text("mistral"), "image_token_id": 299,
            "vision_config": PIXTRAL},
            "image": {"tokens": 4, "pixel_values": (1, 3, 16, 16), "image_sizes": [[16, 16]]}},
    ),
    Wrapper(
        name="paligemma",
        title="PaliGemma",
        first_position=1,
        model_types=("paligemma",),
        classes=("PaliGemmaForConditionalGeneration",),
        text_family="gemma",
        summary="PaliGemma: a SigLIP vision tower and a linear projector around a Gemma language model (PaliGemma 2: "
                "Gemma 2).",
        note="PaliGemmaForConditionalGeneration: model.{vision_tower (SigLIP), multi_modal_projector (one linear), "
             "language_model} and lm_head. get_image_features divides the projected features by sqrt(hidden_size), "
             "so that the embedding's own sqrt(hidden_size) scale leaves them as projected; PaliGemmaModel's forward "
             "places them with inputs_embeds.masked_scatter. The prefix (image and prompt) attends bidirectionally "
             "when token_type_ids are passed.",
        checkpoints=(
            Checkpoint("google/paligemma-3b-pt-224", "PaliGemma-3B-pt-224", {
                "architectures": ["PaliGemmaForConditionalGeneration"], "model_type": "paligemma",
                "image_token_index": 257152, "projection_dim": 2048, "hidden_size": 2048,
                "text_config": {"model_type": "gemma", "num_hidden_layers": 18, "hidden_size": 2048,
                                "intermediate_size": 16384, "num_attention_heads": 8, "num_key_value_heads": 1,
                                "head_dim": 256, "vocab_size": 257216},
                "vision_config": {"model_type": "siglip_vision_model", "hidden_size": 1152, "image_size": 224,
                                  "intermediate_size": 4304, "num_attention_heads": 16, "num_hidden_layers": 27,
                                  "patch_size": 14, "num_image_tokens": 256, "projection_dim": 2048},
                "dtype": "float32",
            }),
        ),
        tiny={"config_class": "PaliGemmaConfig", "overrides": {
            "text_config": _text("gemma"), "vision_config": SIGLIP, "projection_dim": 64, "image_token_id": 299},
            "image": {"tokens": 16, "pixel_values": (1, 3, 16, 16)}},
    ),
    Wrapper(
        name="qwen2_vl",
        title="Qwen2-VL",
        model_types=("qwen2_vl",),
        classes=("Qwen2VLForConditionalGeneration",),
        text_family="qwen2",
        summary="Qwen2-VL: a native-resolution vision transformer with a 2x2 patch merger around Qwen2's decoder "
                "with multimodal rotary positions.",
        note="Qwen2VLForConditionalGeneration: model.{visual (patch embedding, blocks, merger), language_model "
             "(Qwen2VLTextModel)} and lm_head. The image comes as flattened patches (pixel_values [patches, "
             "channels x temporal_patch_size x patch_size^2]) with image_grid_thw; visual.merger folds each 2x2 "
             "patches into one stream row, and Qwen2VLModel's forward places them with inputs_embeds.masked_scatter "
             "(videos next, by a second masked_scatter). The rotary positions are three-dimensional "
             "(temporal, height, width: mrope_section), computed from image_grid_thw.",
        vision=("model.visual",),
        image_inputs=("pixel_values", "image_grid_thw", "mm_token_type_ids"),
        checkpoints=(
            Checkpoint("Qwen/Qwen2-VL-2B-Instruct", "Qwen2-VL-2B-Instruct", {
                "architectures": ["Qwen2VLForConditionalGeneration"], "model_type": "qwen2_vl",
                "image_token_id": 151655, "video_token_id": 151656, "vision_start_token_id": 151652,
                "text_config": {"model_type": "qwen2_vl_text", "num_hidden_layers": 28, "hidden_size": 1536,
                                "intermediate_size": 8960, "num_attention_heads": 12, "num_key_value_heads": 2,
                                "vocab_size": 151936, "max_position_embeddings": 32768, "rms_norm_eps": 1e-06,
                                "rope_theta": 1000000.0, "tie_word_embeddings": True,
                                "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]}},
                "vision_config": {"depth": 32, "embed_dim": 1280, "hidden_size": 1536, "mlp_ratio": 4,
                                  "num_heads": 16, "patch_size": 14, "spatial_merge_size": 2,
                                  "temporal_patch_size": 2},
                "dtype": "bfloat16",
            }),
            Checkpoint("Qwen/Qwen2-VL-7B-Instruct", "Qwen2-VL-7B-Instruct"),
        ),
        tiny={"config_class": "Qwen2VLConfig", "overrides": {
            "text_config": _text("qwen2", rope_parameters=MROPE), "image_token_id": 299, "video_token_id": 298,
            "vision_start_token_id": 297,
            "vision_config": {"depth": 1, "embed_dim": 32, "hidden_size": 64, "num_heads": 2, "patch_size": 4}},
            "image": {**QWEN_IMAGE, "around": (297,), "types": "mm_token_type_ids"}},
    ),
    Wrapper(
        name="qwen2_5_vl",
        title="Qwen2.5-VL",
        model_types=("qwen2_5_vl",),
        classes=("Qwen2_5_VLForConditionalGeneration",),
        text_family="qwen2",
        summary="Qwen2.5-VL: Qwen2-VL with a windowed-attention vision transformer (RMSNorm, gated MLP).",
        note="Qwen2_5_VLForConditionalGeneration: model.{visual, language_model (Qwen2_5_VLTextModel)} and lm_head, "
             "as Qwen2-VL: flattened patches with image_grid_thw, the merger's rows placed by "
             "inputs_embeds.masked_scatter, multimodal rotary positions in the language model.",
        vision=("model.visual",),
        image_inputs=("pixel_values", "image_grid_thw", "mm_token_type_ids"),
        checkpoints=(
            Checkpoint("Qwen/Qwen2.5-VL-7B-Instruct", "Qwen2.5-VL-7B-Instruct", {
                "architectures": ["Qwen2_5_VLForConditionalGeneration"], "model_type": "qwen2_5_vl",
                "image_token_id": 151655, "video_token_id": 151656, "vision_start_token_id": 151652,
                "text_config": {"model_type": "qwen2_5_vl_text", "num_hidden_layers": 28, "hidden_size": 3584,
                                "intermediate_size": 18944, "num_attention_heads": 28, "num_key_value_heads": 4,
                                "vocab_size": 152064, "max_position_embeddings": 128000, "rms_norm_eps": 1e-06,
                                "rope_theta": 1000000.0,
                                "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]}},
                "vision_config": {"depth": 32, "hidden_size": 1280, "out_hidden_size": 3584,
                                  "intermediate_size": 3420, "num_heads": 16, "patch_size": 14, "window_size": 112,
                                  "fullatt_block_indexes": [7, 15, 23, 31], "spatial_merge_size": 2,
                                  "temporal_patch_size": 2},
                "dtype": "bfloat16",
            }),
        ),
        tiny={"config_class": "Qwen2_5_VLConfig", "overrides": {
            "text_config": _text("qwen2", rope_parameters=MROPE), "image_token_id": 299, "video_token_id": 298,
            "vision_start_token_id": 297,
            "vision_config": {"depth": 1, "hidden_size": 32, "out_hidden_size": 64, "intermediate_size": 64,
                              "num_heads": 2, "patch_size": 4, "window_size": 16, "fullatt_block_indexes": [0]}},
            "image": {**QWEN_IMAGE, "around": (297,), "types": "mm_token_type_ids"}},
    ),
    Wrapper(
        name="qwen3_vl",
        title="Qwen3-VL",
        model_types=("qwen3_vl",),
        classes=("Qwen3VLForConditionalGeneration",),
        text_family="qwen3",
        summary="Qwen3-VL: Qwen3's decoder (per-head query and key norms) with interleaved multimodal rotary "
                "positions, fed image features at its input and, by deepstack, after its first blocks.",
        note="Qwen3VLForConditionalGeneration: model.{visual, language_model (Qwen3VLTextModel)} and lm_head. The "
             "merger's rows are placed by inputs_embeds.masked_scatter (image_features); the vision blocks at "
             "deepstack_visual_indexes also give features of their own, which Qwen3VLTextModel's forward adds at "
             "the image positions after each of its first len(deepstack_visual_indexes) blocks: there "
             "layers[i + 1].layer_input is layers[i].layer_output plus those features, the only place the stream "
             "changes between blocks.",
        vision=("model.visual",),
        image_inputs=("pixel_values", "image_grid_thw", "mm_token_type_ids"),
        checkpoints=(
            Checkpoint("Qwen/Qwen3-VL-8B-Instruct", "Qwen3-VL-8B-Instruct", {
                "architectures": ["Qwen3VLForConditionalGeneration"], "model_type": "qwen3_vl",
                "image_token_id": 151655, "video_token_id": 151656, "vision_start_token_id": 151652,
                "text_config": {"model_type": "qwen3_vl_text", "num_hidden_layers": 36, "hidden_size": 4096,
                                "intermediate_size": 12288, "num_attention_heads": 32, "num_key_value_heads": 8,
                                "head_dim": 128, "vocab_size": 151936, "max_position_embeddings": 262144,
                                "rms_norm_eps": 1e-06,
                                "rope_scaling": {"rope_type": "default", "mrope_section": [24, 20, 20],
                                                 "mrope_interleaved": True}, "rope_theta": 5000000},
                "vision_config": {"depth": 27, "hidden_size": 1152, "out_hidden_size": 4096,
                                  "intermediate_size": 4304, "num_heads": 16, "patch_size": 16,
                                  "num_position_embeddings": 2304, "deepstack_visual_indexes": [8, 16, 24],
                                  "spatial_merge_size": 2, "temporal_patch_size": 2},
                "dtype": "bfloat16",
            }),
        ),
        tiny={"config_class": "Qwen3VLConfig", "overrides": {
            "text_config": _text("qwen3", rope_parameters={**MROPE, "mrope_interleaved": True}),
            "image_token_id": 299, "video_token_id": 298, "vision_start_token_id": 297,
            "vision_config": {"depth": 1, "hidden_size": 32, "out_hidden_size": 64, "intermediate_size": 64,
                              "num_heads": 2, "patch_size": 4, "num_position_embeddings": 16,
                              "deepstack_visual_indexes": [0]}},
            "image": {**QWEN_IMAGE, "around": (297,), "types": "mm_token_type_ids"}},
    ),
    Wrapper(
        name="vipllava",
        title="ViP-LLaVA",
        model_types=("vipllava",),
        classes=("VipLlavaForConditionalGeneration",),
        text_family="llama",
        summary="ViP-LLaVA: LLaVA with a projector over the concatenated hidden states of several CLIP layers.",
        note="VipLlavaForConditionalGeneration: model.{vision_tower (CLIP), multi_modal_projector (layer norm, linear, "
             "GELU, linear over the vision_feature_layers' states side by side), language_model} and lm_head; "
             "VipLlavaModel's forward places the projected features with inputs_embeds.masked_scatter.",
        checkpoints=(Checkpoint("llava-hf/vip-llava-7b-hf", "ViP-LLaVA-7B"),),
        tiny={"config_class": "VipLlavaConfig", "overrides": {
            "text_config": _text("llama"), "vision_config": CLIP, "image_token_id": 299,
            "vision_feature_layers": [-2, -1]},
            "image": {"tokens": 16, "pixel_values": (1, 3, 16, 16)}},
    ),
    Wrapper(
        name="aya_vision",
        title="Aya Vision",
        model_types=("aya_vision",),
        classes=("AyaVisionForConditionalGeneration",),
        text_family="cohere2",
        summary="Aya Vision: a SigLIP vision tower and a pixel-shuffle SwiGLU projector around a Command R7B "
                "(Cohere 2) language model.",
        note="AyaVisionForConditionalGeneration: model.{vision_tower (SigLIP), multi_modal_projector (pixel shuffle by "
             "downsample_factor, layer norm, SwiGLU), language_model (Cohere2Model)} and lm_head; AyaVisionModel's "
             "forward places the projected features with inputs_embeds.masked_scatter. Unlike Cohere2ForCausalLM, "
             "the wrapper's logits are lm_head's output with no logit_scale applied.",
        readout=lm_head_alone,
        checkpoints=(Checkpoint("CohereLabs/aya-vision-8b", "Aya-Vision-8B", {
            "architectures": ["AyaVisionForConditionalGeneration"], "model_type": "aya_vision"}, not_buildable=(
            "its sizes are not recorded here, and AyaVisionConfig's defaults do not build (a 1152-wide SigLIP "
            "with 14 heads)")),),
        tiny={"config_class": "AyaVisionConfig", "overrides": {
            "text_config": _text("cohere2"), "vision_config": SIGLIP, "image_token_id": 299,
            "downsample_factor": 2, "alignment_intermediate_size": 64},
            "image": {"tokens": 4, "pixel_values": (1, 3, 16, 16)}},
    ),
    Wrapper(
        name="cohere2_vision",
        title="Command A Vision",
        model_types=("cohere2_vision",),
        classes=("Cohere2VisionForConditionalGeneration",),
        text_family="cohere2",
        summary="Command A Vision: a SigLIP 2 vision tower and a pixel-shuffle SwiGLU projector around a Cohere 2 "
                "language model.",
        note="Cohere2VisionForConditionalGeneration: model.{vision_tower, multi_modal_projector (pixel shuffle by "
             "downsample_factor, SwiGLU), language_model (Cohere2Model)} and lm_head; Cohere2VisionModel's forward "
             "places the projected features with inputs_embeds.masked_scatter. Unlike Cohere2ForCausalLM, the "
             "wrapper's logits are lm_head's output with no logit_scale applied.",
        readout=lm_head_alone,
        checkpoints=(Checkpoint("CohereLabs/command-a-vision-07-2025", "Command-A-Vision"),),
        tiny={"config_class": "Cohere2VisionConfig", "overrides": {
            "text_config": _text("cohere2"), "vision_config": {**SIGLIP, "model_type": "siglip_vision_model"},
            "image_token_id": 299, "downsample_factor": 2, "alignment_intermediate_size": 64},
            "image": {"tokens": 4, "pixel_values": (1, 3, 16, 16)}},
    ),
    Wrapper(
        name="internvl",
        title="InternVL",
        model_types=("internvl",),
        classes=("InternVLForConditionalGeneration",),
        text_family="qwen2",
        summary="InternVL 3: the InternViT vision tower and a pixel-shuffle MLP projector around a Qwen2.5 language "
                "model.",
        note="InternVLForConditionalGeneration: model.{vision_tower (InternViT), multi_modal_projector (layer norm, "
             "linear, GELU, linear after a pixel shuffle by downsample_ratio), language_model} and lm_head; "
             "InternVLModel's forward places the projected features with inputs_embeds.masked_scatter.",
        checkpoints=(
            # config.json of OpenGVLab/InternVL3-1B-hf (mirrored in hlky/dinoml_v2
            # agents/plans/transformers/internvl/_sources/)
            Checkpoint("OpenGVLab/InternVL3-1B-hf", "InternVL3-1B", {
                "architectures": ["InternVLForConditionalGeneration"], "downsample_ratio": 0.5, "image_seq_length": 256,
                "image_token_id": 151667, "model_type": "internvl", "projector_hidden_act": "gelu",
                "text_config": {
                    "architectures": ["Qwen2ForCausalLM"], "hidden_act": "silu", "hidden_size": 896,
                    "intermediate_size": 4864, "max_position_embeddings": 32768, "max_window_layers": 70,
                    "model_type": "qwen2", "num_attention_heads": 14, "num_hidden_layers": 24, "num_key_value_heads": 2,
                    "rms_norm_eps": 1e-06, "rope_scaling": {"factor": 2.0, "rope_type": "dynamic", "type": "dynamic"},
                    "rope_theta": 1000000.0, "sliding_window": None, "dtype": "bfloat16", "use_sliding_window": False,
                    "vocab_size": 151674,
                },
                "dtype": "bfloat16",
                "vision_config": {
                    "architectures": ["InternVisionModel"], "attention_bias": True, "hidden_act": "gelu",
                    "hidden_size": 1024, "image_size": [448, 448], "initializer_factor": 0.1, "intermediate_size": 4096,
                    "layer_norm_eps": 1e-06, "layer_scale_init_value": 0.1, "model_type": "internvl_vision",
                    "norm_type": "layer_norm", "num_attention_heads": 16, "num_channels": 3, "num_hidden_layers": 24,
                    "patch_size": [14, 14], "dtype": "bfloat16", "use_absolute_position_embeddings": True,
                    "use_mask_token": False, "use_mean_pooling": True, "use_qk_norm": False,
                },
                "vision_feature_layer": -1, "vision_feature_select_strategy": "default",
            }),
        ),
        tiny={"config_class": "InternVLConfig", "overrides": {
            "text_config": _text("qwen2"), "image_token_id": 299, "downsample_ratio": 0.5,
            "vision_config": INTERNVIT},
            "image": {"tokens": 4, "pixel_values": (1, 3, 16, 16)}},
    ),
    Wrapper(
        name="lighton_ocr",
        title="LightOnOCR",
        model_types=("lighton_ocr",),
        classes=("LightOnOcrForConditionalGeneration",),
        text_family="qwen3",
        summary="LightOnOCR: a Pixtral vision encoder and a patch-merging projector around a Qwen3 language model.",
        note="LightOnOcrForConditionalGeneration: model.{vision_encoder (Pixtral), vision_projection (RMSNorm, patch "
             "merger, linear, GELU, linear), language_model (Qwen3Model)} and lm_head; each image keeps its size "
             "(image_sizes) and LightOnOcrModel's forward places the projected features with "
             "inputs_embeds.masked_scatter.",
        vision=("model.vision_encoder", "model.vision_projection"),
        image_inputs=("pixel_values", "image_sizes"),
        checkpoints=(Checkpoint("lightonai/LightOnOCR-1B-1025", "LightOnOCR-1B"),),
        tiny={"config_class": "LightOnOcrConfig", "overrides": {
            "text_config": _text("qwen3"), "image_token_id": 299,
            "vision_config": PIXTRAL},
            "image": {"tokens": 4, "pixel_values": (1, 3, 16, 16), "image_sizes": [[16, 16]]}},
    ),
    Wrapper(
        name="idefics2",
        title="Idefics2",
        model_types=("idefics2",),
        classes=("Idefics2ForConditionalGeneration",),
        text_family="mistral",
        summary="Idefics2: a SigLIP vision model and a perceiver resampler around a Mistral language model.",
        note="Idefics2ForConditionalGeneration: model.{vision_model, connector (modality projection, then a perceiver "
             "resampler to resampler_n_latents rows per image), text_model (MistralModel)} and lm_head; "
             "Idefics2Model.inputs_merger places the connector's rows with inputs_embeds.masked_scatter.",
        language_model="model.text_model",
        merge_call=Call("self.inputs_merger", "input"),
        features_argument=Argument(None, "image_hidden_states"),
        vision=("model.vision_model", "model.connector"),
        image_inputs=("pixel_values", "pixel_attention_mask"),
        checkpoints=(Checkpoint("HuggingFaceM4/idefics2-8b", "Idefics2-8B"),),
        tiny={"config_class": "Idefics2Config", "overrides": {
            "text_config": _text("mistral"), "vision_config": SIGLIP, "image_token_id": 299,
            "perceiver_config": {"hidden_size": 64, "resampler_n_latents": 4, "resampler_depth": 1,
                                 "resampler_n_heads": 2, "resampler_head_dim": 16, "num_key_value_heads": 1}},
            "image": {"tokens": 4, "pixel_values": (1, 1, 3, 16, 16)}},
    ),
    Wrapper(
        name="llama4",
        title="Llama 4",
        model_types=("llama4",),
        classes=("Llama4ForConditionalGeneration",),
        text_family="llama4_text",
        summary="Llama 4 (Scout, Maverick): a vision encoder with pixel shuffle and a linear projector around the "
                "Llama 4 mixture-of-experts language model.",
        note="Llama4ForConditionalGeneration: vision_model (patch embedding, encoder, pixel-shuffle adapter), "
             "multi_modal_projector (one linear) and language_model, a whole Llama4ForCausalLM "
             "(language_model.model.{embed_tokens, layers, norm}, language_model.lm_head). The wrapper's own forward "
             "embeds the ids, projects the flattened vision features and places them with "
             "inputs_embeds.masked_scatter, then calls the language model with the merged embeddings.",
        broken="transformers 5.24's Llama4ForConditionalGeneration.forward raises on every call (it builds its "
               "output from outputs.image_outputs, which the language model's MoeCausalLMOutputWithPast has not; "
               "the raise comes after the logits, but capture_outputs pops a return_dict=False argument, so only "
               "setting the model's config.return_dict would skip it); "
               "its language model alone is served by llama4_text: load the checkpoint with "
               "AutoModelForCausalLM.from_pretrained(repo), which builds Llama4ForCausalLM from the text config, and "
               "pass that model",
        language_model="language_model.model",
        lm_head="language_model.lm_head",
        merge="",
        vision=("vision_model", "multi_modal_projector"),
        checkpoints=(
            Checkpoint("meta-llama/Llama-4-Scout-17B-16E-Instruct", "Llama-4-Scout-17B-16E-Instruct", {
                "architectures": ["Llama4ForConditionalGeneration"], "model_type": "llama4",
                "image_token_index": 200092, "boi_token_index": 200080, "eoi_token_index": 200081,
                "text_config": {"model_type": "llama4_text", "num_hidden_layers": 48, "hidden_size": 5120,
                                "intermediate_size": 8192, "intermediate_size_mlp": 16384,
                                "num_attention_heads": 40, "num_key_value_heads": 8, "head_dim": 128,
                                "vocab_size": 202048, "num_local_experts": 16, "num_experts_per_tok": 1,
                                "interleave_moe_layer_step": 1, "attention_chunk_size": 8192,
                                "no_rope_layer_interval": 4, "use_qk_norm": True, "rope_theta": 500000.0},
                "vision_config": {"model_type": "llama4_vision_model", "hidden_size": 1408, "image_size": 336,
                                  "intermediate_size": 5632, "num_attention_heads": 16, "num_hidden_layers": 34,
                                  "patch_size": 14, "pixel_shuffle_ratio": 0.5, "projector_input_dim": 4096,
                                  "projector_output_dim": 4096, "vision_output_dim": 4096},
                "dtype": "bfloat16",
            }),
            Checkpoint("meta-llama/Llama-4-Maverick-17B-128E-Instruct", "Llama-4-Maverick-17B-128E-Instruct"),
        ),
        tiny={"config_class": "Llama4Config", "overrides": {
            "text_config": _text("llama4_text"), "image_token_index": 299, "boi_token_index": 297,
            "eoi_token_index": 298,
            "vision_config": {"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 1,
                              "num_attention_heads": 2, "image_size": 16, "patch_size": 4,
                              "projector_input_dim": 64, "projector_output_dim": 64, "vision_output_dim": 64}},
            "image": {"tokens": 4, "around": (297, 298), "pixel_values": (1, 3, 16, 16)}},
    ),
    Wrapper(
        name="idefics3",
        title="Idefics3",
        model_types=("idefics3",),
        classes=("Idefics3ForConditionalGeneration",),
        text_family="llama",
        summary="Idefics3: a SigLIP vision model and a pixel-shuffle connector around a Llama 3 language model.",
        note="Idefics3ForConditionalGeneration: model.{vision_model, connector (pixel shuffle by scale_factor, then "
             "one linear), text_model} and lm_head. Images come as [batch, images, channels, height, width] (the "
             "processor's tiles); Idefics3Model.inputs_merger places the connector's rows with "
             "inputs_embeds.masked_scatter.",
        language_model="model.text_model",
        # what inputs_merger is handed is what it scatters (its .to() is the identity at the model's dtype)
        merge_call=Call("self.inputs_merger", "input"),
        features_argument=Argument(None, "image_hidden_states"),
        vision=("model.vision_model", "model.connector"),
        image_inputs=("pixel_values", "pixel_attention_mask"),
        checkpoints=(
            Checkpoint("HuggingFaceM4/Idefics3-8B-Llama3", "Idefics3-8B-Llama3", {
                "architectures": ["Idefics3ForConditionalGeneration"], "model_type": "idefics3",
                "image_token_id": 128257, "scale_factor": 2,
                "text_config": {"model_type": "llama", "num_hidden_layers": 32, "hidden_size": 4096,
                                "intermediate_size": 14336, "num_attention_heads": 32, "num_key_value_heads": 8,
                                "vocab_size": 128259, "rope_theta": 500000.0, "rms_norm_eps": 1e-05},
                "vision_config": {"model_type": "idefics3_vision", "hidden_size": 1152, "image_size": 364,
                                  "intermediate_size": 4304, "num_attention_heads": 16, "num_hidden_layers": 27,
                                  "patch_size": 14},
                "dtype": "bfloat16",
            }),
        ),
        tiny={"config_class": "Idefics3Config", "overrides": {
            "text_config": _text("llama"), "vision_config": SIGLIP, "scale_factor": 2, "image_token_id": 299},
            "image": {"tokens": 4, "pixel_values": (1, 1, 3, 16, 16)}},
    ),
    Wrapper(
        name="smolvlm",
        title="SmolVLM",
        model_types=("smolvlm",),
        classes=("SmolVLMForConditionalGeneration",),
        text_family="llama",
        summary="SmolVLM: Idefics3's architecture, small: a SigLIP vision model and a pixel-shuffle connector around "
                "a SmolLM2 language model.",
        note="SmolVLMForConditionalGeneration: model.{vision_model, connector (pixel shuffle, one linear), "
             "text_model} and lm_head; SmolVLMModel's forward places the connector's rows with "
             "inputs_embeds.masked_scatter.",
        language_model="model.text_model",
        vision=("model.vision_model", "model.connector"),
        image_inputs=("pixel_values", "pixel_attention_mask"),
        checkpoints=(
            Checkpoint("HuggingFaceTB/SmolVLM-256M-Instruct", "SmolVLM-256M-Instruct", {
                "architectures": ["SmolVLMForConditionalGeneration"], "model_type": "smolvlm",
                "image_token_id": 49190, "scale_factor": 4,
                "text_config": {"model_type": "llama", "num_hidden_layers": 30, "hidden_size": 576,
                                "intermediate_size": 1536, "num_attention_heads": 9, "num_key_value_heads": 3,
                                "head_dim": 64, "vocab_size": 49280, "rope_theta": 100000, "rms_norm_eps": 1e-05,
                                "max_position_embeddings": 8192, "tie_word_embeddings": True},
                "vision_config": {"model_type": "smolvlm_vision", "hidden_size": 768, "image_size": 512,
                                  "intermediate_size": 3072, "num_attention_heads": 12, "num_hidden_layers": 12,
                                  "patch_size": 16},
                "dtype": "bfloat16",
            }),
            # config.json of HuggingFaceTB/SmolVLM2-2.2B-Instruct (mirrored in hlky/dinoml_v2
            # agents/plans/transformers/smolvlm/_sources/)
            Checkpoint("HuggingFaceTB/SmolVLM2-2.2B-Instruct", "SmolVLM2-2.2B-Instruct", {
                "architectures": ["SmolVLMForConditionalGeneration"], "image_token_id": 49190, "model_type": "smolvlm",
                "scale_factor": 3,
                "text_config": {
                    "architectures": ["VLlama3ForCausalLM"], "_flash_attn_2_enabled": True, "head_dim": 64,
                    "hidden_size": 2048, "intermediate_size": 8192, "max_position_embeddings": 8192,
                    "model_type": "llama", "neftune_noise_alpha": 0.0, "num_hidden_layers": 24,
                    "perceiver_config": {
                        "architectures": None, "_attn_implementation_autoset": False, "add_cross_attention": False,
                        "bad_words_ids": None, "begin_suppress_tokens": None, "chunk_size_feed_forward": 0,
                        "cross_attention_hidden_size": None, "diversity_penalty": 0.0, "do_sample": False,
                        "early_stopping": False, "encoder_no_repeat_ngram_size": 0,
                        "exponential_decay_length_penalty": None, "finetuning_task": None, "forced_bos_token_id": None,
                        "forced_eos_token_id": None, "hidden_act": "silu", "is_decoder": False,
                        "is_encoder_decoder": False, "length_penalty": 1.0, "max_length": 20, "min_length": 0,
                        "model_type": "vllama3", "no_repeat_ngram_size": 0, "num_beam_groups": 1, "num_beams": 1,
                        "num_key_value_heads": 1, "num_return_sequences": 1, "output_scores": False, "prefix": None,
                        "problem_type": None, "pruned_heads": {}, "qk_layer_norms_perceiver": False,
                        "remove_invalid_values": False, "repetition_penalty": 1.0, "resampler_depth": 6,
                        "resampler_head_dim": 96, "resampler_n_heads": 16, "resampler_n_latents": 64,
                        "return_dict_in_generate": False, "suppress_tokens": None, "temperature": 1.0,
                        "tf_legacy_loss": False, "tie_encoder_decoder": False, "tie_word_embeddings": True, "top_k": 50,
                        "top_p": 1.0, "dtype": None, "typical_p": 1.0, "use_bfloat16": False,
                    },
                    "pixel_shuffle_factor": 3, "qk_layer_norms": False, "rms_norm_eps": 1e-05, "rope_theta": 130000,
                    "dtype": "bfloat16",
                    "transformers.js_config": {"kv_cache_dtype": {"fp16": "float16", "q4f16": "float16"}},
                    "use_resampler": False, "vocab_size": 49280,
                },
                "tie_word_embeddings": False, "dtype": "float32", "use_reentrant_checkpointing": False,
                "vision_config": {
                    "image_size": 384, "intermediate_size": 4304, "max_image_size": {"longest_edge": 384},
                    "model_type": "smolvlm_vision", "num_hidden_layers": 27, "patch_size": 14,
                    "size": {"longest_edge": 1920}, "tie_word_embeddings": False, "use_base_siglip": False,
                },
                "vocab_size": 49280,
            }),
        ),
        tiny={"config_class": "SmolVLMConfig", "overrides": {
            "text_config": _text("llama"), "vision_config": SIGLIP, "scale_factor": 2, "image_token_id": 299},
            "image": {"tokens": 4, "pixel_values": (1, 1, 3, 16, 16)}},
    ),
)


#: The image-text-to-text types of transformers not served, each with its reason.
ENCODER_DECODER = "an encoder-decoder: its text side is a decoder that cross-attends to an encoder, not a decoder-only LM"


def _undeclared(family: str) -> str:
    return (f"not declared yet: its language model is {family}'s, served as that family, but this wrapper's vision "
            f"side and merge have no declaration and tiny recipe checked here")


NOT_SERVED = {
    "florence2": ENCODER_DECODER + " (BART)",
    "pix2struct": ENCODER_DECODER,
    "pp_formulanet": ENCODER_DECODER,
    "t5gemma2": ENCODER_DECODER + " (T5Gemma 2)",
    "udop": ENCODER_DECODER + " (T5-style)",
    "vision-encoder-decoder": ENCODER_DECODER + " (any encoder, any cross-attending decoder)",
    "blip": "its text side is a BERT-style decoder that cross-attends to the image, not a decoder-only LM",
    "idefics": "the first Idefics: gated cross-attention blocks to the image inside its own LLaMA variant, which is no "
               "nnterp family; the image never enters the stream",
    "mllama": "the image enters by cross-attention blocks, not the stream: its language model alone "
              "(MllamaForCausalLM) is served as mllama",
    "evolla": "a protein-text model: its inputs are protein sequences and structures, not images and text",
    "pi0": "a robot policy: an action expert decodes actions by flow matching beside the PaliGemma backbone",
    "diffusion_gemma": "a block-diffusion denoiser (DiffusionGemmaForBlockDiffusion): it attends bidirectionally "
                       "within a block and predicts masked tokens, not a causal LM",
    "git": "its text decoder is GIT's own BERT-style transformer over image and text positions, no nnterp family",
    "gemma3n": "its vision tower is timm's MobileNetV5 (TimmWrapperModel), and timm imports torchvision, whose build "
               "for torch 2.13.0 (torchvision 0.28.0) reaches this project only as PyPI's CUDA 13 wheel, which fails "
               "to import beside the CPU torch (operator torchvision::nms does not exist): no tiny recipe builds here "
               "to check it; its language model alone (Gemma3nForCausalLM) is served as gemma3n_text",
    "fast_vlm": "its vision tower is timm's FastViT (TimmWrapperModel, architecture fastvit_mci3) and its projector "
                "reads that tower's convolutional feature map, and timm is not among nnterp's dependencies, so no "
                "tiny recipe builds here to check it (its language model is qwen2's)",
    "glm5_next": "its language model (glm5_next_text) is no nnterp family yet: DeepSeek-V4's hyper-connected "
                 "residual streams (Glm5NextTextHyperConnection) around blocks that are Kimi delta attention "
                 "(linear_attention) or DSA-indexed latent attention by layer_types, with a forget gate, a gated "
                 "norm and a sigmoid router, a combination no family or stack declares",
    "mistral_large4": "its language model (mistral_large4_text) is no nnterp family yet: GLM-MoE-DSA's indexed "
                      "latent attention in which layers reuse another layer's keys and values and top-k indices "
                      "(kv_source_layers, indexer_types 'shared'), so a layer's attention_keys are another "
                      "layer's tensor, with a learned per-head query scale on log position "
                      "(MistralLarge4TextSoftmaxScaling) and layers without rotary (no_rope_layers)",
    "muse_spark": "its language model (muse_spark_text) is no nnterp family yet: each block mixes the residual "
                  "and a sublayer's normed output with learned per-channel gates (MuseSparkResidualGate: "
                  "alpha·residual + beta·output), a block arithmetic no nnterp block kind has, and its routed MLP "
                  "works in a projected width (pre_expert_proj, post_expert_norm on every expert, "
                  "post_expert_proj); its attention is Muse Glimmer's (served as muse_glimmer) with a norm on the "
                  "heads' outputs",
    "perception_lm": "its vision tower is timm's Perception Encoder (TimmWrapperModel) and its projector reads "
                     "that tower's timm config (vision_config.model_args['embed_dim']), and timm is not among "
                     "nnterp's dependencies, so no tiny recipe builds here to check it (its language model is "
                     "llama's)",
    "step3p7": "its language model (step3p5, Step3p7TextModel) is no nnterp family yet: Laguna's blocks with a "
               "sigmoid output gate per head instead of softplus, head counts per layer read from per_layer_config, "
               "SwiGLU MLPs whose gate and up projections are clamped inline (swiglu_limits), MiniMax-M3's router, "
               "and Gemma 3's per-layer-type rotary and optional bidirectional masks",

}
