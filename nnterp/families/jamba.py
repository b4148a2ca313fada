"""Jamba (JambaForCausalLM).

A Mamba hybrid with two block classes: JambaMambaDecoderLayer, whose token mixer is a Mamba mixer
(mamba, aliased self_attn, with RMSNorms on its dt, B and C), and, every attn_layer_period blocks
from attn_layer_offset, JambaAttentionDecoderLayer with Llama's attention and no positional
encoding at all (self_attn). Every expert_layer_period blocks from expert_layer_offset the MLP slot
(feed_forward, aliased mlp) is a JambaSparseMoeBlock: a router (logits = F.linear(x, weight), a
float32 softmax over all experts, the top_k probabilities kept as they are, not renormalized) and
fused experts (gate_up_proj [num_experts, 2·intermediate_size, hidden_size], down_proj); the other
blocks hold a dense gated MLP. The block is sequential pre-norm: input_layernorm -> mixer -> add;
pre_ff_layernorm (aliased post_attention_layernorm) -> feed_forward -> add. The final norm is
final_layernorm.
"""

from nnterp.declare.family import Family
from nnterp.declare.mixers import JAMBA_RENAME, MAMBA, mixer_interior
from nnterp.declare.routers import LOGITS_BEFORE_SOFTMAX, MoE, Router, experts_sentence
from nnterp.families._llama import tiny

FAMILY = Family(
    name="jamba",
    summary="AI21's Jamba: Mamba mixers with one position-free attention block in eight, and a softmax-routed "
            "mixture of experts on every other block.",
    tags=("Sequential block", "RMSNorm", "Hybrid mixers", "State-space (Mamba)", "NoPE layers", "Mixture of experts"),
    rename=JAMBA_RENAME,
    moe=MoE(Router(
        "router", "F.linear", logits=LOGITS_BEFORE_SOFTMAX,
        weights_description="The chosen experts' softmax probabilities over all experts, not renormalized over "
                            "the top_k",
    ), experts_sentence(
        "experts.gate_up_proj [num_experts, 2·intermediate_size, hidden_size] and experts.down_proj "
        "[num_experts, hidden_size, intermediate_size]")),
    sites={
        **mixer_interior(MAMBA),
    },
    tiny=tiny("JambaConfig", num_experts=4, num_experts_per_tok=2, mamba_d_state=16, attn_layer_period=2,
              attn_layer_offset=1, expert_layer_period=2, expert_layer_offset=1),
)
