"""LLaVA's kin and the other wrappers that place projected image features at placeholder tokens: LLaVA-NeXT (and
its video and OneVision successors), Video-LLaVA, Janus, DeepSeek-VL, GOT-OCR 2, Ovis2, VideoLLaMA 3, Qianfan-OCR,
Fuyu, and the Q-Former wrappers BLIP-2 and InstructBLIP. One declaration each: where the language model sits, where
the image features enter, the image inputs and a tiny recipe with a one-layer vision tower."""

from nnterp.declare.family import EAGER_LOADS, Checkpoint
from nnterp.declare.sites import Call
from nnterp.wrappers.declarations import CLIP, INTERNVIT, SIGLIP
from nnterp.wrappers.wrapper import Wrapper, recipe, tiny_text

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

#: GOT-OCR 2.0, whose architecture PP-Chart2Table's config also builds
GOT_OCR2 = Wrapper(
    name="got_ocr2",
    title="GOT-OCR 2.0",
    classes=("GotOcr2ForConditionalGeneration",),
    text_family="qwen2",
    loads=EAGER_LOADS,  # GotOcr2PreTrainedModel declares no SDPA
    summary="GOT-OCR 2.0: a SAM-style vision encoder and a strided-convolution projector around a Qwen2 "
            "language model.",
    note="GotOcr2ForConditionalGeneration: model.{vision_tower (SAM-style encoder and neck), "
         "multi_modal_projector (two stride-2 convolutions, then one linear), language_model (Qwen2Model)} and "
         "lm_head; GotOcr2Model's forward places the projected rows with inputs_embeds.masked_scatter.",
    tiny=recipe("GotOcr2Config", image={"tokens": 1, "pixel_values": (1, 3, 64, 64)}, vision_config=SAM,
        image_token_id=299),
)

LLAVA_KIN = (
    Wrapper(
        name="llava_next",
        title="LLaVA-NeXT",
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
        tiny=recipe("LlavaNextConfig",
            image={"tokens": 36, "pixel_values": (1, 2, 3, 16, 16), "image_sizes": [[16, 16]]}, vision_config=CLIP,
            image_token_id=299, image_grid_pinpoints=[[16, 16]]),
    ),
    Wrapper(
        name="llava_next_video",
        title="LLaVA-NeXT-Video",
        classes=("LlavaNextVideoForConditionalGeneration",),
        text_family="llama",
        summary="LLaVA-NeXT-Video: LLaVA-NeXT with video frames pooled into the stream beside images.",
        note="LlavaNextVideoForConditionalGeneration: model.{vision_tower (CLIP), vision_resampler (spatial pooling "
             "of each frame's features, by spatial_pool_mode), multi_modal_projector, image_newline, language_model} "
             "and lm_head. Images go as in "
             "LLaVA-NeXT (base view and tiles, image_sizes, newline rows); LlavaNextVideoModel's forward places them "
             "with a first inputs_embeds.masked_scatter (image_features) and the pooled video frames "
             "(pixel_values_videos) at video_token_id with a second.",
        vision=("model.vision_tower", "model.vision_resampler", "model.multi_modal_projector"),
        image_inputs=("pixel_values", "image_sizes", "pixel_values_videos"),
        tiny=recipe("LlavaNextVideoConfig",
            image={"tokens": 36, "pixel_values": (1, 2, 3, 16, 16), "image_sizes": [[16, 16]]}, vision_config=CLIP,
            image_token_id=299, video_token_id=298, image_grid_pinpoints=[[16, 16]]),
    ),
    Wrapper(
        name="llava_onevision",
        title="LLaVA-OneVision",
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
        tiny=recipe("LlavaOnevisionConfig",
            image={"tokens": 36, "pixel_values": (1, 2, 3, 16, 16), "image_sizes": [[16, 16]]}, vision_config=SIGLIP,
            image_token_id=299, video_token_id=298, image_grid_pinpoints=[[16, 16]]),
    ),
    Wrapper(
        name="video_llava",
        title="Video-LLaVA",
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
        tiny=recipe("VideoLlavaConfig", image={"tokens": 16, "pixel_values": (1, 3, 16, 16)}, vision_config=CLIP,
            image_token_id=299, video_token_id=298),
    ),
    Wrapper(
        name="janus",
        title="Janus",
        classes=("JanusForConditionalGeneration",),
        text_family="llama",
        summary="Janus (Janus-Pro): a SigLIP-style vision model and an MLP aligner for understanding, a VQ-VAE for "
                "generation, around a DeepSeek-LLM (Llama) language model.",
        note="JanusForConditionalGeneration: model.{vision_model, aligner (linear, then depth - 1 activations and "
             "linears), vqmodel, generation_embeddings, "
             "generation_aligner, generation_head (the image-generation side, unused by a text-generating call), "
             "language_model (LlamaModel)} and lm_head. get_image_features runs vision_model and the aligner; "
             "JanusModel's forward places the aligned rows with inputs_embeds.masked_scatter.",
        vision=("model.vision_model", "model.aligner"),
        tiny=recipe("JanusConfig", image={"tokens": 16, "pixel_values": (1, 3, 16, 16)}, image_token_id=299,
            vision_config={"hidden_size": 32, "num_hidden_layers": 1, "num_attention_heads": 2, "image_size": 16,
                           "patch_size": 4, "mlp_ratio": 2.0, "projection_dim": 64, "depth": 2,
                           "num_image_tokens": 16},
            vq_config={"embed_dim": 8, "num_embeddings": 32, "latent_channels": 32, "base_channels": 32,
                       "channel_multiplier": [1, 1], "num_res_blocks": 1, "num_patches": 4,
                       "projection_dim": 64, "image_token_embed_dim": 64, "num_hidden_layers": 1}),
    ),
    Wrapper(
        name="deepseek_vl",
        title="DeepSeek-VL",
        classes=("DeepseekVLForConditionalGeneration",),
        text_family="llama",
        summary="DeepSeek-VL: a SigLIP vision model and an MLP aligner around a DeepSeek-LLM (Llama) language model.",
        note="DeepseekVLForConditionalGeneration: model.{vision_model (SigLIP), aligner (linear, GELU, linear), "
             "language_model (LlamaModel)} and lm_head; DeepseekVLModel's forward places the aligned rows with "
             "inputs_embeds.masked_scatter.",
        vision=("model.vision_model", "model.aligner"),
        tiny=recipe("DeepseekVLConfig", image={"tokens": 16, "pixel_values": (1, 3, 16, 16)}, vision_config=SIGLIP,
            image_token_id=299),
    ),
    Wrapper(
        name="deepseek_vl_hybrid",
        title="DeepSeek-VL (hybrid)",
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
        tiny=recipe("DeepseekVLHybridConfig",
            image={"tokens": 16, "pixel_values": (1, 3, 16, 16), "high_res_pixel_values": (1, 3, 64, 64)},
            vision_config=SIGLIP, image_token_id=299,
            high_res_vision_config={"hidden_size": 32, "output_channels": 16, "num_hidden_layers": 1,
                                    "num_attention_heads": 2, "image_size": 64, "patch_size": 16, "mlp_dim": 64,
                                    "window_size": 0, "global_attn_indexes": [0]}),
    ),
    GOT_OCR2,
    GOT_OCR2.but(
        name="pp_chart2table",
        title="PP-Chart2Table",
        summary="PP-Chart2Table: GOT-OCR 2.0's architecture (a SAM-style encoder, a convolution projector, a Qwen2 "
                "language model) trained to turn charts into tables.",
        note="PPChart2TableConfig builds GotOcr2ForConditionalGeneration: model.{vision_tower, multi_modal_projector, "
             "language_model (Qwen2Model)} and lm_head, the projected rows placed by GotOcr2Model's "
             "inputs_embeds.masked_scatter.",
        tiny={**GOT_OCR2.tiny, "config_class": "PPChart2TableConfig"}),
    Wrapper(
        name="ovis2",
        title="Ovis2",
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
        tiny=recipe("Ovis2Config", image={"tokens": 16, "pixel_values": (1, 3, 16, 16)},
            # the indicator ids past the tiny tokenizer's (at most 352 tokens), so that no text is overwritten
            text_config=tiny_text("qwen2", vocab_size=360), image_token_id=299,
            visual_indicator_token_ids=[355, 356, 357, 358, 359], vocab_size=360, hidden_size=64,
            vision_config={"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 1,
                           "num_attention_heads": 2, "image_size": 16, "patch_size": 4, "vocab_size": 32,
                           "hidden_stride": 1}),
    ),
    Wrapper(
        name="video_llama_3",
        title="VideoLLaMA 3",
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
        tiny=recipe("VideoLlama3Config",
            image={"tokens": 4, "pixel_values": (16, 48), "image_grid_thw": [[1, 4, 4]],
                   "image_merge_sizes": [2]},
            image_token_id=299, video_token_id=298,
            vision_config={"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 1,
                           "num_attention_heads": 2, "patch_size": 4}),
    ),
    Wrapper(
        name="qianfan_ocr",
        title="Qianfan-OCR",
        classes=("QianfanOCRForConditionalGeneration",),
        text_family="qwen3",
        summary="Qianfan-OCR: an InternViT-style vision tower and a pixel-shuffle MLP projector around a Qwen3 "
                "language model.",
        note="QianfanOCRForConditionalGeneration: model.{vision_tower, multi_modal_projector (layer norm, linear, "
             "GELU, linear after a pixel shuffle by downsample_ratio), language_model (Qwen3Model)} and lm_head; "
             "QianfanOCRModel's forward places the projected rows with inputs_embeds.masked_scatter.",
        checkpoints=(Checkpoint("baidu/Qianfan-OCR", "Qianfan-OCR"),),
        tiny=recipe("QianfanOCRConfig", image={"tokens": 4, "pixel_values": (1, 3, 16, 16)}, image_token_id=299,
            downsample_ratio=0.5, vision_config=INTERNVIT),
    ),
    Wrapper(
        name="fuyu",
        title="Fuyu",
        classes=("FuyuForCausalLM",),
        text_family="persimmon",
        summary="Fuyu: no vision tower, the image's raw patches projected by one linear layer straight into a "
                "Persimmon language model's stream.",
        note="FuyuForCausalLM: model.{vision_embed_tokens (one linear from patch_size^2 x channels pixel values to "
             "hidden_size), language_model (PersimmonModel)} and lm_head. pixel_values are the image's flattened "
             "patches ([batch, patches, patch_size^2 x channels]); FuyuModel's forward projects them and places "
             "them with inputs_embeds.masked_scatter at image_token_id.",
        vision=("model.vision_embed_tokens",),
        tiny=recipe("FuyuConfig", image={"tokens": 16, "pixel_values": (1, 16, 48)}, image_token_id=299, patch_size=4,
            image_size=16),
    ),
    Wrapper(
        name="blip-2",
        title="BLIP-2",
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
        tiny=recipe("Blip2Config", image={"tokens": 4, "pixel_values": (1, 3, 16, 16)}, vision_config=BLIP_VISION,
            qformer_config=QFORMER, num_query_tokens=4, image_token_id=299),
    ),
    Wrapper(
        name="instructblip",
        title="InstructBLIP",
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
        tiny=recipe("InstructBlipConfig",
            image={"tokens": 4, "pixel_values": (1, 3, 16, 16), "qformer_input_ids": [[1, 5, 6]]},
            text_config=tiny_text("llama", model_type="llama"), vision_config=BLIP_VISION, qformer_config=QFORMER,
            num_query_tokens=4, image_token_id=299),
    ),
    Wrapper(
        name="instructblipvideo",
        title="InstructBLIP (video)",
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
        tiny=recipe("InstructBlipVideoConfig",
            image={"tokens": 8, "pixel_values": (1, 2, 3, 16, 16), "qformer_input_ids": [[1, 5, 6]]},
            text_config=tiny_text("llama", model_type="llama"), vision_config=BLIP_VISION, qformer_config=QFORMER,
            num_query_tokens=4, video_token_id=299),
    ),
)
