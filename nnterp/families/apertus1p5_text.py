"""Apertus 1.5 text (Apertus1p5TextForCausalLM).

Apertus' block: Llama's sequential pre-norm block with attention_layernorm before the attention
(input_layernorm) and feedforward_layernorm before the MLP (post_attention_layernorm), per-head
RMSNorms on queries and keys (self_attn.q_norm, k_norm) before the rotary, and a plain MLP,
mlp.{up_proj, act_fn, down_proj} with xIELU, so mlp_activation and mlp_neurons are the same tensor.
"""

from nnterp.families._llama import tiny
from nnterp.families.apertus import FAMILY as APERTUS

FAMILY = APERTUS.but(
    name="apertus1p5_text",
    summary="Apertus' block (renamed norms, per-head query and key norms, a plain xIELU MLP) in the text model "
            "of Apertus 1.5.",
    # lm_head is output_vocab_size wide where the checkpoint prunes its head (Apertus-v1.5-8B: 131072 of 266752)
    accessors={"vocab_size": lambda c: c.output_vocab_size or c.vocab_size},
    tiny=tiny("Apertus1p5TextConfig"),
)
