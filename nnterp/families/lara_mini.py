"""Lara Mini (LaraMiniForCausalLM).

Llama's names on a hybrid block with three mixers, per layer_types: gated DeltaNet layers
(linear_attn, aliased self_attn), and softmax attention layers (self_attn: per-head RMSNorm
q_norm/k_norm, rotary) that are either sliding-window or full. Every MLP slot is a mixture of
experts (LaraMiniSparseMoeBlock): a router gate (logits = F.linear(x, weight) in float32, a softmax
over all experts, the top_k probabilities renormalized when norm_topk_prob), fused experts
(gate_up_proj [num_experts, 2·moe_intermediate_size, hidden_size], down_proj) and a shared_expert
added on every token. Embeddings are tied to lm_head.
"""

from nnterp.declare.family import Family
from nnterp.declare.mixers import DELTANET, mixer_interior
from nnterp.declare.routers import LOGITS_BEFORE_SOFTMAX, SOFTMAX_THEN_TOPK_OPTIONAL, MoE, Router, experts_sentence

FAMILY = Family(
    name="lara_mini",
    summary="Gated DeltaNet layers interleaved with sliding-window and full attention layers, and a softmax-routed "
            "mixture of experts beside a shared expert on every block.",
    tags=("Sequential block", "RMSNorm", "Hybrid mixers", "Linear attention", "Sliding window", "QK-norm",
          "Mixture of experts", "Shared experts", "Tied embeddings"),
    rename={"linear_attn": "self_attn"},
    moe=MoE(Router(
        "gate", "F.linear", logits=LOGITS_BEFORE_SOFTMAX + " (computed in float32)",
        weights_description=SOFTMAX_THEN_TOPK_OPTIONAL + "; the shared expert runs on every token unweighted",
    ), experts_sentence()),
    sites={
        **mixer_interior(DELTANET),
    },
    accessors={"intermediate_size": lambda c: c.moe_intermediate_size},
    tiny={"config_class": "LaraMiniConfig", "overrides": {
        "hidden_size": 64, "num_hidden_layers": 3, "num_attention_heads": 4, "num_key_value_heads": 2,
        "moe_intermediate_size": 64, "shared_expert_intermediate_size": 64, "vocab_size": 300, "head_dim": 16,
        "num_experts": 4, "num_experts_per_tok": 2, "linear_key_head_dim": 16, "linear_value_head_dim": 16,
        "linear_num_key_heads": 2, "linear_num_value_heads": 4, "eos_token_id": 2,
        "layer_types": ["linear_attention", "sliding_attention", "full_attention"]}},
)
