"""Image-text-to-text models whose image enters by cross-attention blocks between the self-attention blocks
(nnterp.crossattention), not the stream: the image features are those blocks' keys and values, so nothing is merged
at image positions and image_features and image_mask are unavailable, with the reason."""

from nnterp.family import Checkpoint, declared_family
from nnterp.locations import Child
from nnterp.writeback import Nowhere, Read

from .wrapper import Wrapper, recipe, tiny_text

#: the image never enters the stream here: the cross-attention blocks read it
CROSS_ATTENDED = ("the image never enters the stream: {model} hands the projected image features to the "
                  "cross-attention blocks as {states}, whose keys and values are made from them (read them there: "
                  "layers[i].self_attn.attention_keys on a cross-attention block)")
#: A tiny Mllama vision tower: two local layers and one global, one 16-pixel tile in 4-pixel patches.
MLLAMA_VISION = {"hidden_size": 32, "num_hidden_layers": 2, "num_global_layers": 1, "attention_heads": 2,
                 "intermediate_size": 64, "vision_output_dim": 64, "image_size": 16, "patch_size": 4,
                 "max_num_tiles": 1, "intermediate_layers_indices": [0], "supported_aspect_ratios": [[1, 1]]}


def _cross_attended(model: str, states: str) -> dict:
    said = CROSS_ATTENDED.format(model=model, states=states)
    return {"image_features": Nowhere(said), "image_mask": Nowhere(
        said + "; the image placeholder tokens stay token embeddings in the stream"),
        "token_embeddings": Read(Child("embed_tokens"), description=(
            "The embedding module's output, the image placeholders' own embeddings included: nothing is merged "
            "into it, so layers[0].layer_input is this"))}


def _around_text_facts(family: str, architecture: str) -> tuple[Checkpoint, ...]:
    """The text family's checkpoints as the wrapper's: the same repositories, whose config.json facts the text
    family records as its text_config (partial: the vision side's keys are not recorded)."""
    return tuple(
        Checkpoint(c.repo, c.label.replace(" (text model)", ""), {
            "architectures": [architecture], "model_type": family,
            "text_config": {k: v for k, v in c.facts().items() if k != "architectures"}} if c.config else {},
            source=c.source, partial=True)
        for c in declared_family(family).checkpoints)


CROSS_ATTENTION = (
    Wrapper(
        name="mllama_vision",
        title="Llama 3.2 Vision",
        model_types=("mllama",),
        classes=("MllamaForConditionalGeneration",),
        text_family="mllama",
        summary="Llama 3.2 Vision (11B, 90B): Mllama's tiled vision encoder and a linear projector whose features "
                "Llama 3's text model reads through tanh-gated cross-attention blocks every fifth block.",
        note="MllamaForConditionalGeneration: model.{vision_model (MllamaVisionModel: a local and a global encoder "
             "over the image's tiles), multi_modal_projector (linear), language_model (MllamaTextModel)} and "
             "lm_head. MllamaModel's forward projects the vision features to cross_attention_states [batch, "
             "images x tiles x patches, hidden_size] and turns cross_attention_mask [batch, seq, images, tiles] into "
             "the cross-attention blocks' mask and full_text_row_masked_out_mask, which zeroes those blocks' MLP on "
             "the rows that attend no image (the text before the first <|image|>). The image placeholder "
             "<|image|> stays a token in the stream. A call without pixel_values skips every cross-attention "
             "block.",
        image_inputs=("pixel_values", "aspect_ratio_ids", "aspect_ratio_mask", "cross_attention_mask"),
        image_token="image_token_index",
        vision=("model.vision_model", "model.multi_modal_projector"),
        sites=_cross_attended("MllamaModel", "cross_attention_states"),
        checkpoints=_around_text_facts("mllama", "MllamaForConditionalGeneration"),
        # one image of one tile; the processor's cross_attention_mask: every row from the image's on attends it
        tiny=recipe("MllamaConfig",
            image={"tokens": 1, "pixel_values": (1, 1, 1, 3, 16, 16), "aspect_ratio_ids": [[1]],
                   "aspect_ratio_mask": [[[1]]], "rows": ("cross_attention_mask", 1, 1)},
            text_config=tiny_text("mllama")["text_config"], vision_config=MLLAMA_VISION, image_token_index=299),
    ),
)
