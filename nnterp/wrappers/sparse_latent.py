"""Image-text-to-text models whose language model is DeepSeek Sparse Attention over latent keys and values in a block
no text family has (Mistral Large 4's layers share latents; GLM-5-Next's sit in hyper-connected streams beside Kimi
delta attention): each served through a language stack declared as its difference from GLM-MoE-DSA
(nnterp.wrappers.stacks). One declaration each: where the language model sits, where the image features enter,
the image inputs and a tiny recipe with a one-layer vision tower. Each note is read from transformers' modeling
code."""

from nnterp.families._declared import checkpoint_data
from nnterp.wrappers.declarations import PIXTRAL
from nnterp.wrappers.stacks.glm5_next_text import FAMILY as GLM5_NEXT_TEXT
from nnterp.wrappers.stacks.mistral_large4_text import FAMILY as MISTRAL_LARGE4_TEXT
from nnterp.wrappers.text_kin import GLM4V_IDS
from nnterp.wrappers.wrapper import Wrapper, recipe, tiny_text


def _misread_kv_sources(config) -> str | None:
    """Why a config's kv_source_layers is not what its layers read, or None: the blocks pass one latent per rotary
    kind (shared_kv_states['rope'] or ['nope']), the last one a source layer stored, whatever layer is named."""
    text = config.get_text_config()
    stored = {}
    for index, source in enumerate(text.kv_source_layers):
        rotary = text.no_rope_layers[index]
        if source == index:
            if index in text.kv_source_layers[index + 1:]:
                stored[rotary] = index
        elif stored.get(rotary) != source:
            return (f"layer {index} names layer {source} in kv_source_layers, but its attention reads the latent "
                    f"layer {stored.get(rotary)} last stored for its rotary kind: name that layer, the last earlier "
                    f"source layer with the same no_rope_layers entry")
    return None


#: GLM-5-Next's language stack in the tiny shape: Kimi delta attention, two indexed latent layers (the second reusing
#: the first's choice), Kimi delta attention again; dense, routed, routed, dense MLPs; two streams.
GLM5_NEXT_TEXT_TINY = {
    **{key: value for key, value in tiny_text("glm_moe_dsa").items() if key != "first_k_dense_replace"},
    "num_hidden_layers": 4, "qk_rope_head_dim": 0, "index_kpool": 2, "linear_head_dim": 16,
    "linear_num_heads": 4, "hc_mult": 2, "hc_sinkhorn_iters": 3,
    "layer_types": ["linear_attention", "indexed_attention", "indexed_attention", "linear_attention"],
    "indexer_types": ["full", "full", "shared", "full"], "mlp_layer_types": ["dense", "sparse", "sparse", "dense"]}
#: A one-block GLM-5-Next vision transformer (GLM-OCR's): 16-pixel images in 4-pixel patches, two frames each,
#: merged 2x2 into 4 rows.
GLM5_NEXT_VISION = {"depth": 1, "hidden_size": 32, "out_hidden_size": 64, "intermediate_size": 64, "num_heads": 2,
                    "patch_size": 4, "image_size": 16, "projection_intermediate_size": 64}

#: Mistral Large 4's language stack in the tiny shape: a dense block then routed ones; layer 1 reads layer 0's
#: latent and top-k choice, layer 3 (no rotary, like layer 2) reads layer 2's latent with an indexer of its own.
MISTRAL_LARGE4_TEXT_TINY = {
    **{key: value for key, value in tiny_text("glm_moe_dsa").items() if key != "q_lora_rank"},
    "num_hidden_layers": 4, "no_rope_layers": [1, 1, 0, 0], "kv_source_layers": [0, 0, 2, 2],
    "indexer_types": ["full", "shared", "full", "full"], "final_logit_softcapping": 5.0}

SPARSE_LATENT = (
    Wrapper(
        name="mistral_large4",
        title="Mistral Large 4",
        classes=("MistralLarge4ForConditionalGeneration",),
        text_family=MISTRAL_LARGE4_TEXT,
        summary="Mistral Large 4: a Pixtral vision tower and a patch-merging projector around a GLM-5-style sparse "
                "latent-attention decoder whose layers share latent keys and values, with a learned query scale on "
                "log position and soft-capped logits.",
        note="MistralLarge4ForConditionalGeneration: Mistral Small 3's model.{vision_tower (Pixtral), "
             "multi_modal_projector (RMSNorm, a spatial_merge_size x spatial_merge_size patch merger, linear, GELU, "
             "linear), language_model (MistralLarge4TextModel)} and lm_head, whose logits it soft-caps by the text "
             "config's final_logit_softcapping. Each image keeps its own size (image_sizes, in pixels); "
             "MistralLarge4Model's forward places the projected features with inputs_embeds.masked_scatter. The "
             "checkpoint's multi-token-prediction head (mtp_dspark) is not built.",
        image_inputs=("pixel_values", "image_sizes"),
        checkpoints=checkpoint_data("mistral_large4"),
        refuses=_misread_kv_sources,
        tiny=recipe("MistralLarge4Config", image={"tokens": 4, "pixel_values": (1, 3, 16, 16), "image_sizes": [[16, 16]]},
            text_config=MISTRAL_LARGE4_TEXT_TINY, image_token_id=299, vision_config=PIXTRAL),
    ),
    Wrapper(
        name="glm5_next",
        title="GLM-5-Next",
        classes=("Glm5NextForConditionalGeneration",),
        text_family=GLM5_NEXT_TEXT,
        summary="GLM-5-Next (GLM-5.3-Flash): GLM-OCR's vision transformer and merger around a hyper-connected decoder "
                "of Kimi delta attention and position-free sparse latent attention with a mixture of experts.",
        note="Glm5NextForConditionalGeneration: model.{visual (Glm5NextVisionModel: GLM-OCR's vision transformer, "
             "its merger's SwiGLU clamped), language_model (Glm5NextTextModel)} and lm_head. The image comes as "
             "flattened patches with image_grid_thw; Glm5NextModel's forward places the merger's rows with "
             "inputs_embeds.masked_scatter at image_token_id (videos next, by a second masked_scatter). The language "
             "model takes no rotary positions: its latent attention has none.",
        vision=("model.visual",),
        image_inputs=("pixel_values", "image_grid_thw"),
        checkpoints=checkpoint_data("glm5_next"),
        # 16 flattened patches of 3 x 2 frames x 4 x 4 values, merged 2x2 into 4 rows, between the brackets
        tiny=recipe("Glm5NextConfig",
            image={"tokens": 4, "around": (297, 296), "pixel_values": (16, 96), "image_grid_thw": [[1, 4, 4]]},
            text_config=GLM5_NEXT_TEXT_TINY, **GLM4V_IDS, vision_config=GLM5_NEXT_VISION),
    ),
)
