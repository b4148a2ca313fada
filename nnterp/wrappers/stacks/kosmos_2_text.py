"""Kosmos-2, the language model (Kosmos2TextTransformer, inside Kosmos2TextForCausalLM).

text_model.model.{embed_tokens, embed_positions, layers[i].{self_attn_layer_norm, self_attn.{q_proj, k_proj,
v_proj, inner_attn_ln, out_proj}, final_layer_norm, ffn.{fc1, activation_fn, ffn_layernorm, fc2}}, layer_norm} and
text_model.lm_head, tied to embed_tokens. A sequential pre-norm LayerNorm block (h = x + attn(self_attn_layer_norm(x)),
out = h + ffn(final_layer_norm(h))) with Magneto's sub-LayerNorms: the attention normalizes its heads' outputs side
by side with inner_attn_ln before out_proj, and the MLP, ffn, normalizes act(fc1(x)) with ffn_layernorm before
fc2; no gate. attention_premix (out_proj's input) and mlp_neurons (fc2's input) are therefore read after those
sub-norms; attention_head_outputs (the kernel's output) is before inner_attn_ln, and mlp_activation is before
ffn_layernorm. The attention calls the kernel chosen at run time through attention_interface, scaled by
head_dim ** -0.5, with no rotary and every head its own key and value. The embedding is multiplied by
sqrt(embed_dim) (scale_embedding) outside embed_tokens, after the image rows are merged, and fairseq's sinusoidal
positions (offset past pad_token_id, counted over non-pad tokens) are added after it; a left-padded batch of
prompts of different lengths is refused, its 0-based position_ids being no rows of that table.
"""

import math

from nnterp.declare.family import Positions
from nnterp.declare.sites import Child, Read
from nnterp.wrappers.stacks import like


def embed_scale(config) -> float:
    """What the language model multiplies every embedding row by before adding the positions."""
    return math.sqrt(config.embed_dim) if config.scale_embedding else 1.0


#: the embeddings as the stream holds them, before the positions: embed_tokens' output times embed_scale
SCALED_EMBEDDINGS = Read(
    Child("embed_tokens"), scale=embed_scale,
    description="The embeddings as the stream holds them: embed_tokens' output times sqrt(embed_dim) (1 without "
                "scale_embedding); the sinusoidal positions are added after, so layers[0].layer_input is the sum")

#: fairseq's names (Kosmos-2.5's too) onto the standard ones
FAIRSEQ_NAMES = {
    "model.layer_norm": "norm", "self_attn_layer_norm": "input_layernorm", "final_layer_norm":
        "post_attention_layernorm", "out_proj": "o_proj", "ffn": "mlp", "fc1": "up_proj", "fc2": "down_proj",
    "activation_fn": "act_fn",
}

FAMILY = like(
    "llama", __name__,
    model_types=("kosmos_2_text_model",),
    summary="fairseq's pre-norm LayerNorm block with Magneto's sub-LayerNorms before out_proj and fc2, a plain "
            "GELU MLP, scaled embeddings and sinusoidal positions.",
    tags=("Sequential block", "LayerNorm", "Sub-norms", "Plain MLP", "Sinusoidal positions", "Scaled embeddings"),
    rename=FAIRSEQ_NAMES,
    sites={
        "token_embeddings": SCALED_EMBEDDINGS,
        "attention_premix": "What out_proj takes: the heads' outputs side by side after inner_attn_ln, a LayerNorm "
                            "over all heads at once",
        "mlp_neurons": "What fc2 takes: act(fc1(x)) after ffn_layernorm, a LayerNorm over all neurons",
    },
    accessors={"intermediate_size": lambda c: c.ffn_dim},
    positions=Positions(refused=(
        "its sinusoidal positions take position_ids as rows of their table, which start past pad_token_id, and it "
        "counts them from the ids itself, so the 0-based position_ids of a left-padded batch land on the wrong rows")),
)
