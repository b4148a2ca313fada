"""The image-text-to-text models of transformers served through their language model's family, one declaration
each: where the language model sits, where the image features enter, the image inputs and a tiny recipe with a
one-layer vision tower."""

from nnterp.declare.family import Checkpoint
from nnterp.declare.readout import IDENTITY
from nnterp.declare.sites import Argument, Call
from nnterp.wrappers.wrapper import Wrapper, recipe, tiny_text

#: A tiny SigLIP vision tower: one layer, 16-pixel images in 4-pixel patches.
SIGLIP = {"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 1, "num_attention_heads": 2,
          "image_size": 16, "patch_size": 4, "num_channels": 3}


#: a wrapper whose logits are lm_head's output, whatever its text family's CausalLM applies after it
lm_head_alone = IDENTITY


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
        tiny=recipe("Gemma3Config", image={"tokens": 4, "around": (297, 298), "pixel_values": (1, 3, 16, 16)},
            text_config=tiny_text("gemma3_text", sliding_window=8), vision_config=SIGLIP, mm_tokens_per_image=4,
            image_token_id=299, boi_token_index=297, eoi_token_index=298),
    ),
    Wrapper(
        name="llava",
        title="LLaVA",
        classes=("LlavaForConditionalGeneration",),
        text_family="llama",
        summary="LLaVA 1.5 and its kin: a CLIP vision tower and a two-layer MLP projector around a Llama (or Vicuna, "
                "Mistral, Qwen2) language model.",
        note="LlavaForConditionalGeneration: model.{vision_tower (CLIP), multi_modal_projector (linear, GELU, linear), "
             "language_model} and lm_head. get_image_features takes the hidden states of vision_feature_layer (-2), "
             "drops the CLS position (vision_feature_select_strategy 'default') and projects them; LlavaModel's "
             "forward places them with inputs_embeds.masked_scatter at the image_token_id placeholders.",
        tiny=recipe("LlavaConfig", image={"tokens": 16, "pixel_values": (1, 3, 16, 16)}, vision_config=CLIP,
            image_token_id=299),
    ),
    Wrapper(
        name="mistral3",
        title="Mistral Small 3",
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
        tiny=recipe("Mistral3Config", image={"tokens": 4, "pixel_values": (1, 3, 16, 16), "image_sizes": [[16, 16]]},
            image_token_id=299, vision_config=PIXTRAL),
    ),
    Wrapper(
        name="paligemma",
        title="PaliGemma",
        first_position=1,
        classes=("PaliGemmaForConditionalGeneration",),
        text_family="gemma",
        summary="PaliGemma: a SigLIP vision tower and a linear projector around a Gemma language model (PaliGemma 2: "
                "Gemma 2).",
        note="PaliGemmaForConditionalGeneration: model.{vision_tower (SigLIP), multi_modal_projector (one linear), "
             "language_model} and lm_head. get_image_features projects SigLIP's last_hidden_state; PaliGemmaModel's "
             "forward places it with inputs_embeds.masked_scatter after embed_tokens' sqrt(hidden_size) scale, so "
             "the image rows enter unscaled. The prefix (image and prompt) attends bidirectionally "
             "when token_type_ids are passed.",
        tiny=recipe("PaliGemmaConfig", image={"tokens": 16, "pixel_values": (1, 3, 16, 16)}, vision_config=SIGLIP,
            projection_dim=64, image_token_id=299),
    ),
    Wrapper(
        name="qwen2_vl",
        title="Qwen2-VL",
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
        tiny=recipe("Qwen2VLConfig", image={**QWEN_IMAGE, "around": (297,), "types": "mm_token_type_ids"},
            text_config=tiny_text("qwen2", rope_parameters=MROPE), image_token_id=299, video_token_id=298,
            vision_start_token_id=297,
            vision_config={"depth": 1, "embed_dim": 32, "hidden_size": 64, "num_heads": 2, "patch_size": 4}),
    ),
    Wrapper(
        name="qwen2_5_vl",
        title="Qwen2.5-VL",
        classes=("Qwen2_5_VLForConditionalGeneration",),
        text_family="qwen2",
        summary="Qwen2.5-VL: Qwen2-VL with a windowed-attention vision transformer (RMSNorm, gated MLP).",
        note="Qwen2_5_VLForConditionalGeneration: model.{visual, language_model (Qwen2_5_VLTextModel)} and lm_head, "
             "as Qwen2-VL: flattened patches with image_grid_thw, the merger's rows placed by "
             "inputs_embeds.masked_scatter, multimodal rotary positions in the language model.",
        vision=("model.visual",),
        image_inputs=("pixel_values", "image_grid_thw", "mm_token_type_ids"),
        tiny=recipe("Qwen2_5_VLConfig", image={**QWEN_IMAGE, "around": (297,), "types": "mm_token_type_ids"},
            text_config=tiny_text("qwen2", rope_parameters=MROPE), image_token_id=299, video_token_id=298,
            vision_start_token_id=297,
            vision_config={"depth": 1, "hidden_size": 32, "out_hidden_size": 64, "intermediate_size": 64,
                           "num_heads": 2, "patch_size": 4, "window_size": 16, "fullatt_block_indexes": [0]}),
    ),
    Wrapper(
        name="qwen3_vl",
        title="Qwen3-VL",
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
        tiny=recipe("Qwen3VLConfig", image={**QWEN_IMAGE, "around": (297,), "types": "mm_token_type_ids"},
            text_config=tiny_text("qwen3", rope_parameters={**MROPE, "mrope_interleaved": True}), image_token_id=299,
            video_token_id=298, vision_start_token_id=297,
            vision_config={"depth": 1, "hidden_size": 32, "out_hidden_size": 64, "intermediate_size": 64,
                           "num_heads": 2, "patch_size": 4, "num_position_embeddings": 16,
                           "deepstack_visual_indexes": [0]}),
    ),
    Wrapper(
        name="vipllava",
        title="ViP-LLaVA",
        classes=("VipLlavaForConditionalGeneration",),
        text_family="llama",
        summary="ViP-LLaVA: LLaVA with a projector over the concatenated hidden states of several CLIP layers.",
        note="VipLlavaForConditionalGeneration: model.{vision_tower (CLIP), multi_modal_projector (layer norm, linear, "
             "GELU, linear over the vision_feature_layers' states side by side), language_model} and lm_head; "
             "VipLlavaModel's forward places the projected features with inputs_embeds.masked_scatter.",
        checkpoints=(Checkpoint("llava-hf/vip-llava-7b-hf", "ViP-LLaVA-7B"),),
        tiny=recipe("VipLlavaConfig", image={"tokens": 16, "pixel_values": (1, 3, 16, 16)}, vision_config=CLIP,
            image_token_id=299, vision_feature_layers=[-2, -1]),
    ),
    Wrapper(
        name="aya_vision",
        title="Aya Vision",
        classes=("AyaVisionForConditionalGeneration",),
        text_family="cohere2",
        summary="Aya Vision: a SigLIP vision tower and a pixel-shuffle SwiGLU projector around a Command R7B "
                "(Cohere 2) language model.",
        note="AyaVisionForConditionalGeneration: model.{vision_tower (SigLIP), multi_modal_projector (pixel shuffle by "
             "downsample_factor, layer norm, SwiGLU), language_model (Cohere2Model)} and lm_head; AyaVisionModel's "
             "forward places the projected features with inputs_embeds.masked_scatter. Unlike Cohere2ForCausalLM, "
             "the wrapper's logits are lm_head's output with no logit_scale applied.",
        readout=lm_head_alone,
        tiny=recipe("AyaVisionConfig", image={"tokens": 4, "pixel_values": (1, 3, 16, 16)}, vision_config=SIGLIP,
            image_token_id=299, downsample_factor=2, alignment_intermediate_size=64),
    ),
    Wrapper(
        name="cohere2_vision",
        title="Command A Vision",
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
        tiny=recipe("Cohere2VisionConfig", image={"tokens": 4, "pixel_values": (1, 3, 16, 16)},
            vision_config={**SIGLIP, "model_type": "siglip_vision_model"}, image_token_id=299, downsample_factor=2,
            alignment_intermediate_size=64),
    ),
    Wrapper(
        name="internvl",
        title="InternVL",
        classes=("InternVLForConditionalGeneration",),
        text_family="qwen2",
        summary="InternVL 3: the InternViT vision tower and a pixel-shuffle MLP projector around a Qwen2.5 language "
                "model.",
        note="InternVLForConditionalGeneration: model.{vision_tower (InternViT), multi_modal_projector (layer norm, "
             "linear, GELU, linear after a pixel shuffle by downsample_ratio), language_model} and lm_head; "
             "InternVLModel's forward places the projected features with inputs_embeds.masked_scatter.",
        tiny=recipe("InternVLConfig", image={"tokens": 4, "pixel_values": (1, 3, 16, 16)}, image_token_id=299,
            downsample_ratio=0.5, vision_config=INTERNVIT),
    ),
    Wrapper(
        name="lighton_ocr",
        title="LightOnOCR",
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
        tiny=recipe("LightOnOcrConfig", image={"tokens": 4, "pixel_values": (1, 3, 16, 16), "image_sizes": [[16, 16]]},
            image_token_id=299, vision_config=PIXTRAL),
    ),
    Wrapper(
        name="idefics2",
        title="Idefics2",
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
        tiny=recipe("Idefics2Config", image={"tokens": 4, "pixel_values": (1, 1, 3, 16, 16)}, vision_config=SIGLIP,
            image_token_id=299,
            perceiver_config={"hidden_size": 64, "resampler_n_latents": 4, "resampler_depth": 1,
                              "resampler_n_heads": 2, "resampler_head_dim": 16, "num_key_value_heads": 1}),
    ),
    Wrapper(
        name="llama4",
        title="Llama 4",
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
        tiny=recipe("Llama4Config", image={"tokens": 4, "around": (297, 298), "pixel_values": (1, 3, 16, 16)},
            image_token_index=299, boi_token_index=297, eoi_token_index=298,
            vision_config={"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 1,
                           "num_attention_heads": 2, "image_size": 16, "patch_size": 4,
                           "projector_input_dim": 64, "projector_output_dim": 64, "vision_output_dim": 64}),
    ),
    Wrapper(
        name="idefics3",
        title="Idefics3",
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
        tiny=recipe("Idefics3Config", image={"tokens": 4, "pixel_values": (1, 1, 3, 16, 16)}, vision_config=SIGLIP,
            scale_factor=2, image_token_id=299),
    ),
    Wrapper(
        name="smolvlm",
        title="SmolVLM",
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
        tiny=recipe("SmolVLMConfig", image={"tokens": 4, "pixel_values": (1, 1, 3, 16, 16)}, vision_config=SIGLIP,
            scale_factor=2, image_token_id=299),
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
    "perception_lm": "its vision tower is timm's Perception Encoder (TimmWrapperModel) and its projector reads "
                     "that tower's timm config (vision_config.model_args['embed_dim']), and timm is not among "
                     "nnterp's dependencies, so no tiny recipe builds here to check it (its language model is "
                     "llama's)",
}
