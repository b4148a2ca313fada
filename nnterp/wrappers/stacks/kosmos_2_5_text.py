"""Kosmos-2.5, the language model (Kosmos2_5TextTransformer, inside Kosmos2_5TextForCausalLM).

Kosmos-2's language stack (text_model.model, text_model.lm_head tied to embed_tokens) without the attention's
sub-LayerNorm: out_proj takes the heads' outputs side by side, as they leave the kernel. The MLP keeps
ffn_layernorm before fc2, so mlp_neurons are read after it. The attention multiplies the queries by
head_dim ** -0.5 itself and calls the kernel with scaling 1.0: attention_queries are already scaled. Past the
scaled embeddings and the sinusoidal positions, the stack adds segment_emb: row 1 at the positions
image_embeds_position_mask marks, row 0 elsewhere (and on a call without the mask).
"""

from nnterp.wrappers.stacks import like
from nnterp.wrappers.stacks.kosmos_2_text import FAMILY as KOSMOS_2_TEXT

FAMILY = like(
    KOSMOS_2_TEXT, __name__,
    model_types=("kosmos_2_5_text_model",),
    summary="Kosmos-2's fairseq-style block with only the MLP's sub-LayerNorm, pre-scaled queries, and a segment "
            "embedding of image and text positions added to the sinusoidal ones.",
    common=("attention_premix",),
    sites={"attention_queries": "The queries entering attention, already multiplied by head_dim ** -0.5 (the "
                                "attention scales them and calls the kernel with scaling 1.0)"},
)
