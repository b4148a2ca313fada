"""ERNIE 4.5 VL: an image-text-to-text model whose language model routes text and image positions to separate
experts (nnterp.declare.routers.TokenTypeRouters), served through a language stack of its own (nnterp.wrappers.stacks).
Its note is read from transformers' modeling code."""

from nnterp.declare.family import Checkpoint
from nnterp.wrappers.stacks.ernie4_5_vl_moe_text import FAMILY as ERNIE4_5_VL_MOE_TEXT
from nnterp.wrappers.wrapper import Wrapper, recipe

#: the tiny language stack: a dense block then an MoE one, four experts of each kind (text ones twice as wide), one
#: shared expert, and an mrope_section whose height and width parts are equal, as the rotary interleaves them
TEXT = {"pad_token_id": 0, "bos_token_id": 1, "eos_token_id": 2, "hidden_size": 64, "num_hidden_layers": 2,
        "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 128,
        "moe_intermediate_size": [64, 32], "vocab_size": 300, "moe_num_experts": 4, "moe_k": 2,
        "moe_num_shared_experts": 1,
        "rope_parameters": {"rope_type": "default", "rope_theta": 10000.0, "mrope_section": [3, 3, 2]}}
#: the special ids inside the tiny vocabulary
IDS = {"image_token_id": 299, "image_start_token_id": 297, "image_end_token_id": 298, "video_token_id": 296,
       "video_start_token_id": 295, "video_end_token_id": 294}

ERNIE_VL = (
    Wrapper(
        name="ernie4_5_vl_moe",
        title="ERNIE 4.5 VL",
        classes=("Ernie4_5_VLMoeForConditionalGeneration",),
        text_family=ERNIE4_5_VL_MOE_TEXT,
        summary="ERNIE 4.5 VL: a rotary vision transformer and a variable-resolution resampler around ERNIE 4.5's "
                "mixture-of-experts decoder, whose text and image positions have experts and routers of their own.",
        note="Ernie4_5_VLMoeForConditionalGeneration: model.{vision_tower (Ernie4_5_VLMoeVisionTransformerPretrained"
             "Model: patch embedding, rotary blocks, a layer norm), resampler_model (each 2x2 patches side by side "
             "through an MLP, frames merged by temporal_merge_size, a linear to the text width, an RMSNorm), "
             "language_model (Ernie4_5_VLMoeTextModel)} and lm_head. The image comes as flattened patches with "
             "image_grid_thw; Ernie4_5_VLMoeModel's forward places the resampler's rows with "
             "inputs_embeds.masked_scatter at image_token_id (videos next, by a second masked_scatter), computes "
             "three-dimensional rotary positions from mm_token_type_ids, and hands the blocks "
             "moe_mm_token_type_ids, which the processor sets at the image positions and their brackets: those go "
             "to vision_moe, the others to text_moe. A call without moe_mm_token_type_ids routes every position "
             "through text_moe, as the tiny image call the contract runs does; on a call with it, the router values "
             "are served where vision_moe's router computes them, and an edit of a text position's row is refused "
             "(its experts ran first).",
        vision=("model.vision_tower", "model.resampler_model"),
        image_inputs=("pixel_values", "image_grid_thw", "mm_token_type_ids", "moe_mm_token_type_ids"),
        checkpoints=(Checkpoint("baidu/ERNIE-4.5-VL-28B-A3B-PT", "ERNIE-4.5-VL-28B-A3B"),),
        # one 16-pixel image: 16 patches of 3 x 4 x 4 values, 4 rows after the 2x2 merge, between its brackets
        tiny=recipe("Ernie4_5_VLMoeConfig",
            image={"tokens": 4, "around": (297, 298), "types": "mm_token_type_ids", "pixel_values": (16, 48),
                   "image_grid_thw": [[1, 4, 4]]},
            text_config=TEXT, **IDS,
            vision_config={"depth": 1, "hidden_size": 32, "num_heads": 2, "patch_size": 4, "intermediate_size": 64}),
    ),
)
