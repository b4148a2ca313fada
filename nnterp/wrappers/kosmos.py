"""Kosmos-2 and Kosmos-2.5: the image's rows are written into the language model's own embeddings inside its
forward, at the positions image_embeds_position_mask marks (no placeholder token id), before the embedding scale and
the positions. One declaration each, read from transformers' modeling code, served through a language stack of its
own (nnterp.wrappers.stacks)."""

from nnterp.declare.family import Checkpoint
from nnterp.declare.sites import WHOLE, Argument, Call, Child, Derived, Own, Read
from nnterp.wrappers.stacks.kosmos_2_5_text import FAMILY as KOSMOS_2_5_TEXT
from nnterp.wrappers.stacks.kosmos_2_text import FAMILY as KOSMOS_2_TEXT
from nnterp.wrappers.wrapper import Wrapper, recipe

#: the processor's mask of the image rows, given with the call
POSITION_MASK = "image_embeds_position_mask"


def _marked(raw):
    """The positions image_embeds_position_mask marks; none on a call without it."""
    args, kwargs = raw
    mask = kwargs.get(POSITION_MASK)
    ids = Argument(0, "input_ids").get(raw)
    return mask.ne(0) if mask is not None else ids.new_zeros(ids.shape, dtype=bool)


IMAGE_MASK = Derived(
    Read(Own("input"), WHOLE), _marked,
    description=f"{POSITION_MASK} != 0, the call's own mask of the image positions (the processor marks the "
                "latent_query_num rows after the image's start token; no token id says where they are)")

#: one tiny language stack for both: fairseq's shape, the tokenizer's pad id (0), positions counted past it
TEXT = {"embed_dim": 64, "layers": 2, "attention_heads": 4, "ffn_dim": 128, "vocab_size": 300, "pad_token_id": 0,
        "bos_token_id": 0, "eos_token_id": 0, "dropout": 0.0, "attention_dropout": 0.0}
#: the tiny call: 4 image rows (latent_query_num) between two brackets, marked in image_embeds_position_mask
IMAGE = {"tokens": 4, "around": (297, 298), "types": POSITION_MASK}

KOSMOS = (
    Wrapper(
        name="kosmos-2",
        title="Kosmos-2",
        classes=("Kosmos2ForConditionalGeneration",),
        text_family=KOSMOS_2_TEXT,
        summary="Kosmos-2: a CLIP vision transformer whose patches latent queries read by cross-attention, written "
                "into a fairseq-style decoder with Magneto's sub-LayerNorms at image_embeds_position_mask.",
        note="Kosmos2ForConditionalGeneration: vision_model (Kosmos2VisionModel, a CLIP ViT), "
             "image_to_text_projection (dense to the text width, then latent_query_num learned queries "
             "cross-attending to the patches and themselves), text_model (Kosmos2TextForCausalLM: model, the "
             "language stack, and lm_head). The wrapper's forward hands text_model the input_ids, the projected "
             "rows (image_embeds) and image_embeds_position_mask; Kosmos2TextTransformer.forward_embedding writes "
             "the rows into embed_tokens' output at the mask, then multiplies by embed_scale and adds the "
             "positions, so image_features and token_embeddings are served times embed_scale, as the stream holds "
             "them. The forward refuses a call without pixel_values or image_embeds.",
        language_model="text_model.model",
        lm_head="text_model.lm_head",
        merge="",
        merge_call=Call("self.text_model", "input"),
        features_argument=Argument(None, "image_embeds"),
        merged_in_place=Child("text_model.model.embed_tokens"),
        added_before_layers="text_model.model.embed_positions",
        image_required="Kosmos2ForConditionalGeneration.forward raises ValueError without pixel_values or "
                       "image_embeds: every call carries an image",
        vision=("vision_model", "image_to_text_projection"),
        sites={"image_mask": IMAGE_MASK},
        checkpoints=(Checkpoint("microsoft/kosmos-2-patch14-224", "Kosmos-2"),),
        tiny=recipe("Kosmos2Config", image={**IMAGE, "pixel_values": (1, 3, 16, 16)},
            text_config=TEXT, latent_query_num=4, image_token_id=299,
            vision_config={"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 1,
                           "num_attention_heads": 2, "image_size": 16, "patch_size": 4}),
    ),
    Wrapper(
        name="kosmos-2.5",
        title="Kosmos-2.5",
        classes=("Kosmos2_5ForConditionalGeneration",),
        text_family=KOSMOS_2_5_TEXT,
        summary="Kosmos-2.5: a Pix2Struct-style vision encoder over flattened patches whose rows latent queries "
                "read by cross-attention, written into a fairseq-style decoder at image_embeds_position_mask, with "
                "a segment embedding of image and text positions.",
        note="Kosmos2_5ForConditionalGeneration: vision_model (Kosmos2_5VisionModel: flattened patches with their "
             "row and column indices in the first two channels, a Pix2Struct encoder), image_to_text_projection "
             "(dense to the text width, then latent_query_num learned queries cross-attending to the L2-normalized "
             "patches and themselves), text_model (Kosmos2_5TextForCausalLM: model, the language stack, and "
             "lm_head). The wrapper's forward hands text_model the input_ids, the projected rows (image_embeds) "
             "and image_embeds_position_mask; Kosmos2_5TextTransformer.forward clones embed_tokens' output and "
             "writes the rows into the clone at the mask, then multiplies by embed_scale and adds the positions "
             "and segment_emb, so image_features and token_embeddings are served times embed_scale, as the stream "
             "holds them. A text-only call runs the language stack alone.",
        language_model="text_model.model",
        lm_head="text_model.lm_head",
        # the rows as the forward writes them, flat: image_embeds.to(...).view(-1, embed_dim), made only with an image
        merge="text_model.model",
        merge_call=Call("view"),
        features_argument=WHOLE,
        merged_in_place=Call("inputs_embeds.clone", child="text_model.model"),
        added_before_layers="text_model.model.embed_positions",
        vision=("vision_model", "image_to_text_projection"),
        image_inputs=("flattened_patches",),
        sites={"image_mask": IMAGE_MASK},
        checkpoints=(Checkpoint("microsoft/kosmos-2.5", "Kosmos-2.5"),),
        # four 2x2-pixel patches of a 2x2 grid: row and column index, then the 12 pixel values
        tiny=recipe("Kosmos2_5Config",
            image={**IMAGE, "flattened_patches": [[[row, column, *[(row - column + k) / 12 for k in range(12)]]
                                                   for row in (1, 2) for column in (1, 2)]]},
            text_config=TEXT, latent_query_num=4, image_token_id=299,
            vision_config={"hidden_size": 32, "patch_embed_hidden_size": 12, "intermediate_size": 64,
                           "head_dim": 16, "num_hidden_layers": 1, "num_attention_heads": 2, "max_num_patches": 16}),
    ),
)
