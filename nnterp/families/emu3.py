"""Emu3 (Emu3ForCausalLM).

The text decoder of the Emu3 vision-language model.

Llama's modules on Emu3TextModel: model.{embed_tokens, layers[i].{input_layernorm, self_attn,
post_attention_layernorm, mlp, dropout}, norm} and lm_head. The block is Llama's with one dropout
module applied to both sublayer outputs before each add (inert in eval): attention_output and
mlp_output are the sublayers' own outputs. The vocabulary holds the text tokens and the VQ-VAE's
image tokens; a checkpoint's config is Emu3Config, whose text_config builds this model
(model_type emu3_text_model once built).
"""

from nnterp.family import Checkpoint, Family

from ._llama import TINY

FAMILY = Family(
    name="emu3",
    model_types=("emu3", "emu3_text_model"),
    summary="The text decoder of a vision-language model: Llama's block with a dropout on each sublayer's "
            "output and image tokens in the vocabulary.",
    tags=("Sequential block", "RMSNorm", "Grouped keys/values", "Gated MLP"),
    checkpoints=(
        # config.json of BAAI/Emu3-Gen-hf, its text_config and vq_config as snapshotted in hlky/dinoml_v2's emu3
        # plans (the vocabulary_map is not reproduced there, so it is left out)
        Checkpoint("BAAI/Emu3-Gen-hf", "Emu3-Gen", {
            "architectures": ["Emu3ForConditionalGeneration"],
            "text_config": {
                "num_hidden_layers": 32, "hidden_size": 4096, "intermediate_size": 14336, "num_attention_heads": 32,
                "num_key_value_heads": 8, "vocab_size": 184622, "max_position_embeddings": 9216, "hidden_act": "silu",
                "rms_norm_eps": 1e-05, "attention_dropout": 0.1,
                "rope_parameters": {"rope_type": "default", "rope_theta": 1000000.0}},
            "vq_config": {
                "codebook_size": 32768, "embed_dim": 4, "latent_channels": 4, "double_latent": False, "in_channels": 3,
                "out_channels": 3, "temporal_downsample_factor": 4, "base_channels": 256,
                "channel_multiplier": [1, 2, 2, 4], "num_res_blocks": 2, "attn_resolutions": [3], "hidden_size": 1024,
                "num_attention_heads": 1, "attention_dropout": 0.0},
            "dtype": "float32",
        }),
    ),
    # the composite Emu3Config builds the text model; the top-level vocab_size sizes the tiny tokenizer
    tiny={"config_class": "Emu3Config", "overrides": {
        "text_config": {**TINY, "pad_token_id": 0, "bos_token_id": 1, "eos_token_id": 2},
        "vocab_size": TINY["vocab_size"]}},
)
