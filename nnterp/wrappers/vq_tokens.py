"""Image-text-to-text models whose image enters as VQ token ids: a VQ-VAE turns the image into codebook indices, a
vocabulary map turns those into ids of the text vocabulary, and the language model's own embedding embeds them. The
language stack is a plain decoder; image_features are those embedded image tokens as the wrapper places them at the
image placeholders (image_mask). Each note is read from transformers' modeling code."""

import dataclasses

from nnterp.declare.readout import Readout
from nnterp.declare.sites import Child, Read
from nnterp.families._declared import declared as declared_family
from nnterp.wrappers.wrapper import Wrapper, recipe

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
        tiny=recipe("Emu3Config",
            # an 8-pixel image: 4 x 4 codes, each row ended by the end-of-line id
            image={"tokens": 20, "pixel_values": (1, 3, 8, 8), "image_sizes": [[8, 8]]}, text_config=TEXT,
            vq_config=EMU3_VQ, vocabulary_map=VOCABULARY_MAP),
    ),
)


def _image_token_columns(config) -> list[int]:
    """The ids of Chameleon's image tokens: vocabulary_map's 'IMGIMG' entries, as its vocabulary mapping lists them."""
    return sorted(i for name, i in (config.vocabulary_map or {}).items() if name.startswith("IMGIMG"))


#: Chameleon's head: lm_head, then the image-token columns written to the float minimum
CHAMELEON_READOUT = Readout(floored=_image_token_columns, floored_what="the image tokens (vocabulary_map's IMGIMG "
                                                                      "entries)")
#: Chameleon's codebook names: 'IMGIMG', the code's decimal digits as the letters A to J, then a closing letter
CHAMELEON_MAP = {"<image>": 299, **{"IMGIMG" + "".join("ABCDEFGHIJ"[int(d)] for d in str(code)) + "Z": 280 + code
                                    for code in range(8)}}
#: A tiny Chameleon VQ-VAE: two resolutions (a spatial factor of 2) on 8-pixel images, one residual block each,
#: 32 base channels (its group norms take 32 groups)
CHAMELEON_VQ = {"embed_dim": 4, "num_embeddings": 8, "latent_channels": 4, "resolution": 8, "base_channels": 32,
                "channel_multiplier": [1, 2], "num_res_blocks": 1, "attn_resolutions": []}

VQ_TOKENS += (
    Wrapper(
        name="chameleon",
        title="Chameleon",
        classes=("ChameleonForConditionalGeneration",),
        text_family="qwen3",
        summary="Chameleon: early fusion by a VQ-GAN image tokenizer whose codes are ids of the text vocabulary, "
                "around a Llama-style decoder with layer-normed query and key heads.",
        note="ChameleonForConditionalGeneration: model (ChameleonModel: embed_tokens, layers, norm, and vqmodel, the "
             "VQ-GAN) and lm_head. get_image_features encodes the image with vqmodel, maps each code to its text "
             "id (vocabulary_map's 'IMGIMG' entries: the code's digits as letters) and embeds them with "
             "embed_tokens; ChameleonModel's forward places them with inputs_embeds.masked_scatter at the '<image>' "
             "placeholders (config.image_token_id), so image_features are rows of the embedding matrix. After "
             "lm_head, ChameleonForConditionalGeneration.forward writes the float minimum in place into every "
             "image-token column of the logits, so that the text head never predicts an image token: logits are "
             "that, and lm_head_output is lm_head's own output, read as a copy before the write. project_on_vocab "
             "applies the same head, so a lens of any block also has those columns at the float minimum; "
             "model.lm_head(x) is lm_head alone.",
        language="Its language model is ChameleonModel's own stack of ChameleonDecoderLayer blocks, Llama's "
                 "sequential pre-norm block with Llama's module names (input_layernorm, self_attn.{q_proj, k_proj, "
                 "v_proj, o_proj}, post_attention_layernorm, mlp.{gate_proj, up_proj, down_proj}) and qwen3's "
                 "values: self_attn.q_norm and k_norm norm every query and key head before the rotary, so "
                 "attention_queries and attention_keys, read at the kernel, are normed, then rotated. Those norms are "
                 "ChameleonLayerNorm, not Qwen3's RMSNorm: a layer norm over each head's head_dim (the mean taken "
                 "out, eps 1e-5) with a weight and a bias per head. A config with swin_norm (the norms after each "
                 "sublayer, ChameleonSwinDecoderLayer) is refused.",
        language_model="model",
        vision=("model.vqmodel",),
        readout=CHAMELEON_READOUT,
        refuses=lambda config: (
            "swin_norm=True builds ChameleonSwinDecoderLayer, whose norms come after each sublayer, inside the "
            "residual add, which the qwen3 family's values do not describe; nnterp serves swin_norm=False"
            if getattr(config, "swin_norm", False) else None),
        sites={"lm_head_output": Read(
            Child("lm_head"), snapshot=True,
            description="lm_head's output, a copy taken as lm_head returns it: the forward then writes the float "
                        "minimum in place into its image-token columns, which logits hold")},
        tiny=recipe("ChameleonConfig",
            # an 8-pixel image: 4 x 4 codes
            image={"tokens": 16, "pixel_values": (1, 3, 8, 8)}, **TEXT, vocabulary_map=CHAMELEON_MAP,
            vq_config=CHAMELEON_VQ),
    ),
)
