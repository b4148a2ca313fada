"""Qwen3.5-MoE, the language model (Qwen3_5MoeForCausalLM).

The text tower of Qwen3.5-MoE: Qwen3.5's hybrid mixers (gated DeltaNet layers as linear_attn,
aliased self_attn; gated softmax attention layers whose kernel output is multiplied by
sigmoid(gate) before o_proj, so attention_head_outputs is before the gate and attention_premix
after it) with Qwen3-Next's mixture of experts in every MLP slot: a softmax router gate
(logits = F.linear(x, weight), the top_k probabilities renormalized to sum to one), fused experts
(gate_up_proj [num_experts, 2·moe_intermediate_size, hidden_size], down_proj) and a shared_expert
weighted by sigmoid(shared_expert_gate(x)). RMSNorms compute x·(1 + weight).
"""

from nnterp.families.qwen3_next import FAMILY as QWEN3_NEXT

FAMILY = QWEN3_NEXT.but(
    name="qwen3_5_moe_text",
    summary="The language model of Qwen3.5-MoE: gated DeltaNet linear attention interleaved with gated softmax "
            "attention, and a softmax-routed mixture of experts beside a gated shared expert.",
    accessors={"intermediate_size": lambda c: c.moe_intermediate_size},
    tiny=QWEN3_NEXT.tiny_for("Qwen3_5MoeTextConfig", without=("intermediate_size",)),
)
