"""Image-text-to-text models whose image enters as VQ token ids: a VQ-VAE turns the image into codebook indices, a
vocabulary map turns those into ids of the text vocabulary, and the language model's own embedding embeds them. The
language stack is a plain decoder; image_features are those embedded image tokens as the wrapper places them at the
image placeholders (image_mask). Each note is read from transformers' modeling code."""

import dataclasses

from nnterp.family import declared_family

from .wrapper import Wrapper

#: A tiny text stack (Llama's tiny recipe) with its special ids inside the vocabulary.
TEXT = {"hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2, "num_attention_heads": 4,
        "num_key_value_heads": 2, "vocab_size": 300, "pad_token_id": 0, "bos_token_id": 1, "eos_token_id": 2}
#: A codebook of 8 image tokens at ids 280 to 287, the image placeholder at 299 and the end-of-row token at 298.
VOCABULARY_MAP = {"<image>": 299, "<|extra_200|>": 298, **{f"<|visual token{i:06d}|>": 280 + i for i in range(8)}}
#: A tiny Emu3 VQ-VAE: two resolutions (a spatial factor of 2), one residual block each, 32 base channels (its group
#: norms take 32 groups), the middle attention at the last resolution's 64 channels, two frames per temporal step.
EMU3_VQ = {"codebook_size": 8, "embed_dim": 4, "latent_channels": 4, "base_channels": 32, "channel_multiplier": [1, 2],
           "num_res_blocks": 1, "attn_resolutions": [], "hidden_size": 64, "num_attention_heads": 1,
           "temporal_downsample_factor": 2}

VQ_TOKENS = (
    Wrapper(
        name="emu3_image_text",
        title="Emu3",
        model_types=("emu3",),
        classes=("Emu3ForConditionalGeneration",),
        text_family="emu3",
        summary="Emu3 (Chat, Gen): a VQ-VAE image tokenizer whose codes become text-vocabulary ids, around Emu3's "
                "Llama-style text decoder.",
        note="Emu3ForConditionalGeneration: model.{text_model (Emu3TextModel), vqmodel (Emu3VQVAE)} and lm_head. "
             "get_image_features encodes the image with the VQ-VAE, maps each code to its text-vocabulary id "
             "(vocabulary_map's '<|visual tokenNNNNNN|>' entries), ends every row of codes with the end-of-line id "
             "('<|extra_200|>') and embeds them with text_model.embed_tokens: (height / vision_spatial_factor) x "
             "(width / vision_spatial_factor + 1) rows per image. Emu3Model's forward places them with "
             "inputs_embeds.masked_scatter at the '<image>' placeholders (config.image_token_id), so image_features "
             "are rows of the embedding matrix, and a researcher reads which image token each position holds as the "
             "row it equals.",
        language_model="model.text_model",
        vision=("model.vqmodel",),
        image_inputs=("pixel_values", "image_sizes"),
        # the Emu3ForConditionalGeneration checkpoints named by the text family, which is Emu3's text decoder
        checkpoints=tuple(dataclasses.replace(
            checkpoint, not_buildable="the config copy leaves out vocabulary_map, which holds the image-token ids "
                                      "Emu3ForConditionalGeneration is built from")
            for checkpoint in declared_family("emu3").checkpoints),
        tiny={"config_class": "Emu3Config", "overrides": {
            "text_config": TEXT, "vq_config": EMU3_VQ, "vocabulary_map": VOCABULARY_MAP},
            # an 8-pixel image: 4 x 4 codes, each row ended by the end-of-line id
            "image": {"tokens": 20, "pixel_values": (1, 3, 8, 8), "image_sizes": [[8, 8]]}},
    ),
)
