"""Image-text-to-text models whose language model is its own text class with no CausalLM of its own, whose blocks
differ from every nnterp family's in a module name or a value's site: each served through a language stack declared
as its difference from its parent family (nnterp.wrappers.stacks). One declaration each: where the language model
sits, where the image features enter, the image inputs and a tiny recipe with a one-layer vision tower. Each note is
read from transformers' modeling code."""

from nnterp.families._declared import checkpoint_data
from nnterp.wrappers.declarations import MROPE
from nnterp.wrappers.own_text import QWEN_IDS, QWEN_INPUTS, QWEN_PLACEHOLDERS
from nnterp.wrappers.stacks.cosmos3_edge_text import FAMILY as COSMOS3_EDGE_TEXT
from nnterp.wrappers.stacks.deepseek_ocr2_text import FAMILY as DEEPSEEK_OCR2_TEXT
from nnterp.wrappers.stacks.muse_glimmer_text import FAMILY as MUSE_GLIMMER_TEXT
from nnterp.wrappers.wrapper import Wrapper, recipe, tiny_text

#: DeepSeek-OCR 2's language stack in the tiny shape: DeepSeek-V2's recipe less its latent attention, a dense block
#: then a routed one.
DEEPSEEK_OCR2_TEXT_TINY = {
    "pad_token_id": 0, "bos_token_id": 1, "eos_token_id": 2, "hidden_size": 64, "num_hidden_layers": 2,
    "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 128, "moe_intermediate_size": 64,
    "vocab_size": 300, "n_routed_experts": 4, "num_experts_per_tok": 2, "n_shared_experts": 1,
    "mlp_layer_types": ["dense", "sparse"]}
#: A one-layer SAM encoder over 64-pixel images in 4-pixel patches, its neck and two stride-2 convolutions (16 x 16
#: patches to 4 x 4), then a one-layer Qwen2-style encoder that reads them with its 144 learned queries.
DEEPSEEK_OCR2_VISION = {
    "sam_config": {"hidden_size": 32, "output_channels": 16, "num_hidden_layers": 1, "num_attention_heads": 2,
                   "image_size": 64, "patch_size": 4, "window_size": 4, "global_attn_indexes": [0],
                   "downsample_channels": [16, 32]},
    "encoder_config": {"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 1, "num_attention_heads": 2,
                       "num_key_value_heads": 2}}
#: one global view: the 144 query rows and the view separator
DEEPSEEK_OCR2_IMAGE = {"tokens": 145, "pixel_values": (1, 3, 64, 64)}

#: A one-layer SAM encoder (GOT-OCR 2's) over 64-pixel images in 4-pixel patches, two stride-2 convolutions to 4 x 4
#: patches, then a one-layer CLIP encoder over them (with a class token), its rows beside the SAM rows.
UNLIMITED_OCR_VISION = {
    "sam_config": {"hidden_size": 32, "output_channels": 16, "num_hidden_layers": 1, "num_attention_heads": 2,
                   "image_size": 64, "patch_size": 4, "window_size": 4, "global_attn_indexes": [0],
                   "mlp_dim": 64, "downsample_channels": [16, 32]},
    "encoder_config": {"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 1, "num_attention_heads": 2,
                       "image_size": 16, "patch_size": 4}}
#: one global view: 4 rows of 4 patches, each row ended by the newline row, then the view separator
UNLIMITED_OCR_IMAGE = {"tokens": 21, "pixel_values": (1, 3, 64, 64)}

#: Muse Glimmer's language stack in the tiny shape: a sliding and a full layer, the second without rotary, a
#: logit multiplier and cap that move the logits, and a query scale far from 1.
MUSE_GLIMMER_TEXT_TINY = {
    "pad_token_id": 0, "bos_token_id": 1, "eos_token_id": 2, "hidden_size": 64, "num_hidden_layers": 2,
    "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16, "intermediate_size": 128, "vocab_size": 300,
    "sliding_window": 4, "layer_types": ["sliding_attention", "full_attention"], "layer_rope_theta": [10000.0, 0],
    "final_logit_softcapping": 5.0, "output_multiplier": 0.5, "qk_scale_factor": 2.0}
#: A one-layer MoonViT (Kimi K2.5's) over 16-pixel images in 4-pixel patches, merged 2x2.
MOONVIT = {"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 1, "num_attention_heads": 2,
           "patch_size": 4, "pos_emb_height": 4, "pos_emb_width": 4}

STACKED = (
    Wrapper(
        name="cosmos3_edge",
        title="Cosmos 3 Edge",
        classes=("Cosmos3EdgeForConditionalGeneration",),
        text_family=COSMOS3_EDGE_TEXT,
        summary="Cosmos 3 Edge: a packed SigLIP 2 vision tower and a 2x2 patch merger around a Llama-style decoder "
                "with a ReLU-squared two-projection MLP and multimodal rotary positions.",
        note="Cosmos3EdgeForConditionalGeneration: model.{visual (Cosmos3EdgeVisionModel: packed SigLIP 2 patches "
             "with learned positions interpolated per image, encoder, post_layernorm), projector (each 2x2 patches "
             "side by side: layer norm, linear, GELU, linear), language_model (Cosmos3EdgeTextModel)} and lm_head. "
             "The image comes as flattened patches with image_grid_thw; Cosmos3EdgeModel's forward (Qwen2-VL's) "
             "places the projector's rows with inputs_embeds.masked_scatter at image_token_id (videos next, by a "
             "second masked_scatter). Rotary positions are three-dimensional (mrope_section), computed from "
             "image_grid_thw and mm_token_type_ids.",
        vision=("model.visual", "model.projector"),
        image_inputs=QWEN_INPUTS,
        checkpoints=checkpoint_data("cosmos3_edge"),
        tiny=recipe("Cosmos3EdgeConfig",
            # one frame per patch (temporal_patch_size 1): 16 patches of 3*4*4 values
            image={**QWEN_PLACEHOLDERS, "pixel_values": (16, 48)},
            text_config={**tiny_text("llama"), "hidden_act": "relu2", "rope_parameters": MROPE}, **QWEN_IDS,
            projector_hidden_size=64,
            vision_config={"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 1,
                           "num_attention_heads": 2, "patch_size": 4, "num_patches": 16}),
    ),
    Wrapper(
        name="deepseek_ocr2",
        title="DeepSeek-OCR 2",
        classes=("DeepseekOcr2ForConditionalGeneration",),
        text_family=DEEPSEEK_OCR2_TEXT,
        summary="DeepSeek-OCR 2: a SAM encoder whose downsampled patches a Qwen2-style encoder reads with learned "
                "queries, projected into DeepSeek-V2's mixture-of-experts decoder with multi-head attention.",
        note="DeepseekOcr2ForConditionalGeneration: model.{vision_tower (DeepseekOcr2VisionModel: sam_encoder, a SAM "
             "ViT with its neck and two stride-2 convolutions; vision_encoder, a Qwen2-style encoder over those "
             "patches and 144 learned queries, or 256 past 144 patches, whose query rows it returns), "
             "multi_modal_projector (one linear), view_separator (a learned row), language_model "
             "(DeepseekOcr2TextModel)} and lm_head. The image comes as a global view (pixel_values) and optional "
             "local crops (pixel_values_local, num_local_patches); DeepseekOcr2Model's forward projects the query "
             "rows, puts the crops' rows first and the view separator last, and places them with "
             "inputs_embeds.masked_scatter at image_token_id: the separator is an image position too.",
        vision=("model.vision_tower", "model.multi_modal_projector"),
        checkpoints=checkpoint_data("deepseek_ocr2"),
        tiny=recipe("DeepseekOcr2Config", image=DEEPSEEK_OCR2_IMAGE, text_config=DEEPSEEK_OCR2_TEXT_TINY,
            image_token_id=299, vision_config=DEEPSEEK_OCR2_VISION),
    ),
    Wrapper(
        name="unlimited_ocr",
        title="Unlimited-OCR",
        classes=("UnlimitedOcrForConditionalGeneration",),
        text_family=DEEPSEEK_OCR2_TEXT,
        summary="Unlimited-OCR: a SAM encoder and a CLIP encoder over its patches, projected with a newline per row "
                "into DeepSeek-OCR 2's mixture-of-experts decoder, whose attention sees a sliding window and the "
                "whole prompt.",
        note="UnlimitedOcrForConditionalGeneration: model.{vision_tower (UnlimitedOcrVisionModel: sam_encoder, GOT-OCR "
             "2's SAM ViT with two stride-2 convolutions; vision_encoder, a CLIP encoder over those patches, its rows "
             "less the class token beside the SAM rows), multi_modal_projector (one linear), image_newline and "
             "view_separator (learned rows), language_model (UnlimitedOcrTextModel: DeepSeek-OCR 2's blocks)} and "
             "lm_head. UnlimitedOcrModel's forward projects the patches, ends every row of them with image_newline, "
             "puts local crops' rows (pixel_values_local, patches_grid) first and view_separator last, and places "
             "them with inputs_embeds.masked_scatter at image_token_id. Its reference sliding attention lets each "
             "position see the last sliding_window positions and every position of the prompt the cache was "
             "prefilled with: within one call, every earlier position.",
        vision=("model.vision_tower", "model.multi_modal_projector"),
        checkpoints=checkpoint_data("unlimited_ocr"),
        tiny=recipe("UnlimitedOcrConfig", image=UNLIMITED_OCR_IMAGE,
            # as many key/value heads as query heads: UnlimitedOcrTextAttention's eager kernel repeats none
            text_config={**DEEPSEEK_OCR2_TEXT_TINY, "num_key_value_heads": 4, "sliding_window": 4}, image_token_id=299,
            vision_config=UNLIMITED_OCR_VISION),
    ),
    Wrapper(
        name="muse_glimmer",
        title="Muse Glimmer",
        classes=("MuseGlimmerForConditionalGeneration",),
        text_family=MUSE_GLIMMER_TEXT,
        summary="Muse Glimmer: a MoonViT native-resolution vision encoder, an MLP adapter and a normed projection "
                "around a Gemma 2-style sandwich decoder with gated, query-scaled attention.",
        note="MuseGlimmerForConditionalGeneration: model.{vision_tower (MoonViT, Kimi K2.5's: per-patch "
             "convolution, interpolated positions, encoder layers, a merge_kernel_size pooling), vision_adapter "
             "(fc1, activation, fc2, activation), vision_projection (a linear to the text width), "
             "perception_emb_norm (a weightless RMSNorm), language_model (MuseGlimmerTextModel)} and lm_head, whose "
             "logits are scaled and soft-capped as the text family says. The image comes as patches (pixel_values "
             "[patches, 3, patch_size, patch_size]) with image_grid_thw; MuseGlimmerModel's forward embeds the ids "
             "with the image and video placeholders as id 0, then places the normed projection's rows with "
             "inputs_embeds.masked_scatter (videos next, by a second masked_scatter).",
        vision=("model.vision_tower", "model.vision_adapter", "model.vision_projection"),
        image_inputs=("pixel_values", "image_grid_thw"),
        checkpoints=checkpoint_data("muse_glimmer"),
        tiny=recipe("MuseGlimmerConfig",
            # 16 flattened patches of 3 x 2 frames x 4 x 4 values, merged 2x2 into 4 rows
            image={"tokens": 4, "around": (297,), "pixel_values": (16, 96), "image_grid_thw": [[1, 4, 4]]},
            text_config=MUSE_GLIMMER_TEXT_TINY, image_token_id=299, video_token_id=298, out_hidden_size=128,
            projector_hidden_size=64, vision_config=MOONVIT),
    ),
)
