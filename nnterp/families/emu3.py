"""Emu3 (Emu3ForCausalLM).

The text decoder of the Emu3 vision-language model.

Llama's modules on Emu3TextModel: model.{embed_tokens, layers[i].{input_layernorm, self_attn,
post_attention_layernorm, mlp, dropout}, norm} and lm_head. The block is Llama's with one dropout
module applied to both sublayer outputs before each add (inert in eval): attention_output and
mlp_output are the sublayers' own outputs. The vocabulary holds the text tokens and the VQ-VAE's
image tokens; a checkpoint's config is Emu3Config, whose text_config builds this model
(model_type emu3_text_model once built).
"""

from nnterp.declare.family import Family
from nnterp.families._llama import TINY

FAMILY = Family(
    name="emu3",
    model_types=("emu3", "emu3_text_model"),
    summary="The text decoder of a vision-language model: Llama's block with a dropout on each sublayer's "
            "output and image tokens in the vocabulary.",
    tags=("Sequential block", "RMSNorm", "Grouped keys/values", "Gated MLP"),
    # the composite Emu3Config builds the text model; the top-level vocab_size sizes the tiny tokenizer
    tiny={"config_class": "Emu3Config", "overrides": {
        "text_config": {**TINY, "pad_token_id": 0, "bos_token_id": 1, "eos_token_id": 2},
        "vocab_size": TINY["vocab_size"]}},
)
