"""Muse Glimmer, the language model (MuseGlimmerTextModel).

Gemma 2's sandwich block (input_layernorm and post_attention_layernorm around the attention,
pre_feedforward_layernorm and post_feedforward_layernorm around the gated MLP, each a centred
(1 + weight) RMSNorm), with sliding-window and full layers per layer_types, and its own attention:
one weightless RMSNorm (self_attn.qk_norm) normalizes every query and key head, the queries are
then multiplied by qk_scale_factor, and both are rotated on the layers whose layer_rope_theta is not
0 (the others take no position embeddings). The kernel's output is multiplied by the output gate
sigmoid(gate_proj(x)) before o_proj; the kernel applies no softcap to the scores. embed_tokens is
an embedding whose output is normed by a weightless RMSNorm (embed_norm), with no sqrt(hidden_size)
scale. The logits are lm_head's output times output_multiplier, soft-capped by
final_logit_softcapping.
"""

from nnterp.declare.family import COMMON_SITES, EAGER, SDPA, described
from nnterp.declare.readout import Readout
from nnterp.declare.sites import KERNEL_ARGUMENTS, Argument, Call, Read
from nnterp.wrappers.stacks import like


def _kernel_argument(index: int, what: str, scaled: str = "") -> Read:
    return Read(Call("attention_interface", "input"), Argument(index), condition=KERNEL_ARGUMENTS,
                description=f"The {what} entering attention: normed per head by the weightless qk_norm{scaled}, then "
                            f"rotated on the layers whose layer_rope_theta is not 0")


FAMILY = like(
    "gemma2", __name__,
    summary="Gemma 2's sandwich block with a weightless query and key norm, a scaled query, an output gate on the "
            "heads, layers without rotary, and soft-capped logits scaled by output_multiplier.",
    tags=("Sandwich norms", "RMSNorm (1 + w)", "QK-norm", "Gated attention", "Sliding window", "Logit softcap"),
    sites={
        "token_embeddings": described(
            "token_embeddings", "The embedding module's output: the looked-up rows normed by its weightless "
                                "embed_norm, which the first block receives unscaled"),
        "attention_scores": COMMON_SITES["attention_scores"],
        "attention_queries": _kernel_argument(1, "queries", ", times qk_scale_factor"),
        "attention_keys": _kernel_argument(2, "keys"),
        "attention_head_outputs": "The per-head outputs of the kernel, before the output gate sigmoid(gate_proj(x))",
        "attention_premix": "What o_proj takes: the heads' outputs times the output gate sigmoid(gate_proj(x))",
    },
    readout=Readout(times="output_multiplier", softcap="final_logit_softcapping"),
    loads=(EAGER, SDPA),
)
