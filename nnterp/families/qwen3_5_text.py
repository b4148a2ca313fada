"""Qwen3.5, the language model (Qwen3_5ForCausalLM).

The text tower of Qwen3.5, on Qwen3-Next's hybrid block with a dense MLP: gated DeltaNet layers
(linear_attn, aliased self_attn, with separate in_proj_qkv, in_proj_z, in_proj_b and in_proj_a
projections, a causal short convolution, the gated delta rule, a gated RMSNorm and out_proj)
interleaved with gated softmax attention layers (self_attn: q_proj emits each head's query and an
output gate, per-head q_norm/k_norm, partial rotary, the kernel's output multiplied by
sigmoid(gate) before o_proj, so attention_head_outputs is before the gate and attention_premix
after it). RMSNorms compute x·(1 + weight); the MLP is Llama's gated MLP.
"""

from nnterp.families.qwen3_next import FAMILY as QWEN3_NEXT

FAMILY = QWEN3_NEXT.but(
    name="qwen3_5_text",
    summary="The language model of Qwen3.5: gated DeltaNet linear attention interleaved with gated softmax "
            "attention, and a dense gated MLP.",
    tags=("Sequential block", "RMSNorm", "Hybrid mixers", "Linear attention", "Gated attention", "QK-norm",
          "Partial rotary", "Gated MLP"),
    moe=None,  # Llama's gated MLP in every MLP slot
    tiny=QWEN3_NEXT.tiny_for("Qwen3_5TextConfig", without=("moe_intermediate_size", "shared_expert_intermediate_size",
                                                           "num_experts", "num_experts_per_tok")),
)
