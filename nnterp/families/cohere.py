"""Command R (CohereForCausalLM).

Llama's module names on a parallel block: input_layernorm (a LayerNorm without bias, CohereLayerNorm)
is the only norm, its output feeds both the attention and the MLP, and out = x + attn + mlp, so there
is no layer_mid. The rotary pairs interleaved dimensions (2i, 2i+1). With use_qk_norm (Command R+),
each query and key head gets its own LayerNorm (self_attn.q_norm, k_norm) before the rotary. The
head is tied to the embeddings and the logits are lm_head's output times logit_scale (0.0625 on
Command R), which project_on_vocab applies.
"""

from nnterp.declare.family import Family
from nnterp.families._llama import tiny
from nnterp.families._parallel_cohere import COHERE_BLOCK, times_logit_scale

FAMILY = Family(
    name="cohere",
    summary="A parallel block with one bias-free LayerNorm, interleaved rotary, optional per-head query and key "
            "norms, and logits times logit_scale.",
    tags=("Parallel block", "LayerNorm (no bias)", "Scaled logits", "Gated MLP", "Tied embeddings"),
    block=COHERE_BLOCK,
    sites={
        "attention_queries": "The queries entering attention: normed per head by q_norm where use_qk_norm is set, "
                             "then rotated (interleaved pairs)",
        "attention_keys": "The keys entering attention: normed per head by k_norm where use_qk_norm is set, "
                          "then rotated (interleaved pairs)",
    },
    readout=times_logit_scale,
    variants={"qk_norm": {"use_qk_norm": True}},
    # logit_scale far from 1, so the readout check tells a scaled logit from lm_head's
    tiny=tiny("CohereConfig", eos_token_id=2, logit_scale=0.25),
)
