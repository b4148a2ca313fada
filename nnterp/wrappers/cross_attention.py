"""Image-text-to-text models whose image enters by cross-attention blocks between the self-attention blocks
(nnterp.declare.crossattention), not the stream: the image features are those blocks' keys and values, so nothing is merged
at image positions and image_features and image_mask are unavailable, with the reason."""

from nnterp.declare.family import Checkpoint
from nnterp.declare.locations import Child
from nnterp.declare.writeback import Nowhere, Read
from nnterp.families._declared import declared as declared_family
from nnterp.wrappers.stacks.evolla_text import FAMILY as EVOLLA_TEXT
from nnterp.wrappers.stacks.idefics_text import FAMILY as IDEFICS_TEXT
from nnterp.wrappers.wrapper import Wrapper, recipe, tiny_text

#: the image never enters the stream here: the cross-attention blocks read it
CROSS_ATTENDED = ("the image never enters the stream: {model} hands the projected image features to the "
                  "cross-attention blocks as {states}, whose keys and values are made from them (read them there: "
                  "layers[i].self_attn.attention_keys on a cross-attention block)")
#: A tiny Mllama vision tower: two local layers and one global, one 16-pixel tile in 4-pixel patches.
MLLAMA_VISION = {"hidden_size": 32, "num_hidden_layers": 2, "num_global_layers": 1, "attention_heads": 2,
                 "intermediate_size": 64, "vision_output_dim": 64, "image_size": 16, "patch_size": 4,
                 "max_num_tiles": 1, "intermediate_layers_indices": [0], "supported_aspect_ratios": [[1, 1]]}
#: A tiny IDEFICS: four self-attention blocks, a cross-attention block before every second (layers: cross, self,
#: self, cross, self, self), a one-layer CLIP-style vision tower over one 16-pixel image in 4-pixel patches and a
#: one-layer perceiver resampler to 3 latents, so the cross-attention's keys span 3 image positions.
IDEFICS_TINY = {"vocab_size": 300, "hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 4,
                "num_attention_heads": 4, "cross_layer_interval": 2, "use_resampler": True,
                "vision_config": {"embed_dim": 32, "image_size": 16, "patch_size": 4, "intermediate_size": 64,
                                  "num_hidden_layers": 1, "num_attention_heads": 2},
                "perceiver_config": {"use_resampler": True, "resampler_n_latents": 3, "resampler_depth": 1,
                                     "resampler_n_heads": 2, "resampler_head_dim": 8}}


#: A tiny Evolla: four blocks, an adapter in every second (layers: self, self, adapter, self, self, adapter), a
#: one-layer SaProt protein encoder and a one-layer resampler to 3 latents, so the adapters' keys span 3 positions;
#: the encoder's heads are narrower than the text's (8 against 16), so that its rotary is not the text's.
EVOLLA_TINY = {"vocab_size": 300, "hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 4,
               "num_attention_heads": 4, "num_key_value_heads": 2, "aligner_num_add_layers": 2,
               "resampler_depth": 1, "resampler_dim_head": 8, "resampler_heads": 2, "resampler_num_latents": 3,
               "bos_token_id": 1, "eos_token_id": 2,
               "protein_encoder_config": {"vocab_size": 446, "hidden_size": 32, "num_hidden_layers": 1,
                                          "num_attention_heads": 4, "intermediate_size": 64}}


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
    Wrapper(
        name="idefics",
        title="IDEFICS",
        classes=("IdeficsForVisionText2Text",),
        text_family=IDEFICS_TEXT,
        summary="IDEFICS (9B, 80B), Flamingo's recipe: a CLIP vision transformer and a perceiver resampler whose "
                "latents Llama's blocks read through tanh-gated cross-attention blocks, a second module list run "
                "before every cross_layer_interval-th block.",
        note="IdeficsForVisionText2Text: model (IdeficsModel: embed_tokens, vision_model (a CLIP-style vision "
             "transformer), perceiver_resampler (under use_resampler: learned latents cross-attending to the "
             "patches), layers, gated_cross_attn_layers, norm) and lm_head. IdeficsModel.forward turns pixel_values "
             "[batch, images, channels, height, width] into image_hidden_states [batch, images x latents (or "
             "patches), vision width], which every cross-attention block's keys and values are made from, and "
             "image_attention_mask [batch, seq, images] into those blocks' mask and cross_attention_gate, which "
             "zeroes the cross-attention's output on the rows that attend no image (the processor's mask: each row "
             "attends the last <image> token at or before it). The <image> placeholder stays a token in the "
             "stream. The forward refuses a call without one of pixel_values, image_encoder_embeddings or "
             "perceiver_embeddings, and reads image_attention_mask: every call carries an image.",
        language_model="model",
        image_inputs=("pixel_values", "image_encoder_embeddings", "perceiver_embeddings"),
        vision=("model.vision_model", "model.perceiver_resampler"),
        sites=_cross_attended("IdeficsModel", "image_hidden_states"),
        image_required="IdeficsModel.forward raises ValueError unless exactly one of pixel_values, "
                       "image_encoder_embeddings or perceiver_embeddings is given, and reads image_attention_mask: "
                       "every call carries an image",
        checkpoints=(Checkpoint("HuggingFaceM4/idefics-9b", "IDEFICS 9B"),
                     Checkpoint("HuggingFaceM4/idefics-9b-instruct", "IDEFICS 9B Instruct"),
                     Checkpoint("HuggingFaceM4/idefics-80b", "IDEFICS 80B"),
                     Checkpoint("HuggingFaceM4/idefics-80b-instruct", "IDEFICS 80B Instruct")),
        # one image, its <image> token (id 299 here: a tokenizer token, no config field) between two
        # <fake_token_around_image> (298), every row from the <image> token on attending it
        tiny=recipe("IdeficsConfig",
            image={"tokens": 1, "token": 299, "around": (298, 298), "pixel_values": (1, 1, 3, 16, 16),
                   "rows": ("image_attention_mask", 1)},
            **IDEFICS_TINY),
    ),
    Wrapper(
        name="evolla",
        title="Evolla",
        classes=("EvollaForProteinText2Text",),
        text_family=EVOLLA_TEXT,
        summary="Evolla (10B), a protein-language model: a SaProt protein encoder and a perceiver resampler whose "
                "latents Llama 3's blocks read through protein adapters, a tanh-gated cross-attention and "
                "feed-forward that every few blocks call last.",
        note="EvollaForProteinText2Text: model (EvollaModel: embed_tokens, protein_encoder (SaProt, an ESM-style "
             "encoder over the protein's structure-aware tokens, then a perceiver resampler, the sequence "
             "compressor, to resampler_num_latents latents), layers, norm) and lm_head. EvollaModel.forward runs the "
             "protein encoder where protein_input_ids and protein_attention_mask are both given and hands its "
             "latents to every block as protein_kv_states, which the block passes to its adapter; the adapter's "
             "keys and values are made from them. The protein never enters the stream: the text's tokens carry no "
             "placeholder for it. structure_feats and msa_feats, which the forward also takes, reach no key: "
             "EvollaDecoderLayer builds its adapters with the protein encoder's width alone.",
        language_model="model",
        image_inputs=("protein_input_ids", "protein_attention_mask"),
        vision=("model.protein_encoder",),
        sites={**_cross_attended("EvollaModel", "protein_kv_states"), "image_features": Nowhere(
            "no image enters the stream: EvollaModel hands the protein encoder's latents to every adapter as "
            "protein_kv_states, whose keys and values are made from them (read them there: "
            "layers[i].self_attn.attention_keys on an adapter block)"), "image_mask": Nowhere(
            "no image enters the stream, and the text carries no placeholder for the protein: the adapters read "
            "its latents as protein_kv_states")},
        checkpoints=(Checkpoint("westlake/Evolla-10B-hf", "Evolla 10B"),),
        # one protein of five structure-aware tokens; the text carries no placeholder for it
        tiny=recipe("EvollaConfig",
            image={"tokens": 0, "token": 0, "protein_input_ids": [[0, 5, 6, 7, 2]],
                   "protein_attention_mask": [[1, 1, 1, 1, 1]]},
            **EVOLLA_TINY),
    ),
)
