"""Command R7B / Command A (Cohere2ForCausalLM).

Command R's parallel block: input_layernorm (bias-free LayerNorm) feeds both sublayers and
out = x + attn + mlp, so there is no layer_mid. config.layer_types makes three layers of four
sliding-window layers, which are rotated, and the fourth a full-attention layer without rotary
(NoPE); which applies is read per block. The head is tied and the logits are lm_head's output times
logit_scale, which project_on_vocab applies.
"""

from nnterp.declare.family import Family
from nnterp.families._llama import tiny
from nnterp.families._parallel_cohere import COHERE_BLOCK, rotated_on_sliding_layers, times_logit_scale

FAMILY = Family(
    name="cohere2",
    summary="Command R's parallel block with sliding-window layers and unrotated full-attention layers.",
    tags=("Parallel block", "LayerNorm (no bias)", "Sliding window", "NoPE layers", "Scaled logits",
          "Tied embeddings"),
    block=COHERE_BLOCK,
    sites={
        "attention_queries": rotated_on_sliding_layers("queries", 1),
        "attention_keys": rotated_on_sliding_layers("keys", 2),
    },
    readout=times_logit_scale,
    tiny=tiny("Cohere2Config", eos_token_id=2, logit_scale=0.25, layer_types=["sliding_attention", "full_attention"]),
)

