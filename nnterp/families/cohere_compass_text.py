"""Cohere Compass text (CohereCompassForCausalLM).

The language half of North Vision.

Command R's parallel block: input_layernorm (bias-free LayerNorm) feeds both sublayers and
out = x + attn + mlp, so there is no layer_mid. Rotary parameters are given per layer type
(rope_parameters keyed by full_attention / sliding_attention), and a layer whose type has none gets
no rotary. The head is tied and the logits are lm_head's output times logit_scale (1 when the config
leaves it unset), which project_on_vocab applies.
"""

from nnterp.declare.family import Family
from nnterp.families._llama import tiny
from nnterp.families._parallel_cohere import COHERE_BLOCK, times_logit_scale

FAMILY = Family(
    name="cohere_compass_text",
    summary="Command R's parallel block with rotary parameters per layer type, as the text model of a "
            "vision-language model.",
    tags=("Parallel block", "LayerNorm (no bias)", "Scaled logits", "Gated MLP", "Tied embeddings"),
    block=COHERE_BLOCK,
    readout=times_logit_scale,
    # the config class's defaults, which its docstring gives as this checkpoint's, with the per-layer-type
    # rotary parameters the model needs to build
    tiny=tiny("CohereCompassTextConfig", eos_token_id=2, logit_scale=0.25,
              rope_parameters={"full_attention": {"rope_type": "default", "rope_theta": 10000.0}}),
)
