"""Apertus 1.5 text (Apertus1p5TextForCausalLM).

Apertus' block: Llama's sequential pre-norm block with attention_layernorm before the attention
(input_layernorm) and feedforward_layernorm before the MLP (post_attention_layernorm), per-head
RMSNorms on queries and keys (self_attn.q_norm, k_norm) before the rotary, and a plain MLP,
mlp.{up_proj, act_fn, down_proj} with xIELU, so mlp_activation and mlp_neurons are the same tensor.
"""

from nnterp.family import Checkpoint, Family

from ._llama import tiny
from ._llama_renamed import normed_then_rotated

FAMILY = Family(
    name="apertus1p5_text",
    model_types=("apertus1p5_text",),
    summary="Apertus' block (renamed norms, per-head query and key norms, a plain xIELU MLP) in the text model "
            "of Apertus 1.5.",
    tags=("Sequential block", "RMSNorm", "QK-norm", "Grouped keys/values", "xIELU MLP"),
    rename={"attention_layernorm": "input_layernorm", "feedforward_layernorm": "post_attention_layernorm"},
    sites={
        "attention_queries": normed_then_rotated("q_norm", "queries", 1),
        "attention_keys": normed_then_rotated("k_norm", "keys", 2),
    },
    checkpoints=(Checkpoint("swiss-ai/Apertus-v1.5-8B", "Apertus-v1.5-8B"),),
    tiny=tiny("Apertus1p5TextConfig"),
)
