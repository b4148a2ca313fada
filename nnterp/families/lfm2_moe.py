"""LFM2-MoE (Lfm2MoeForCausalLM).

LFM2's hybrid (see _lfm: gated short-convolution mixers, aliased self_attn, and attention blocks
with q_layernorm/k_layernorm) whose first num_dense_layers blocks hold the dense w1/w3/w2 MLP and
the others an Lfm2MoeSparseMoeBlock: a router gate (logits = F.linear(x, weight), sigmoid scores;
with use_expert_bias the choice is the top_k of sigmoid + the block's expert_bias, the weights the
chosen sigmoid scores), normalized when norm_topk_prob and multiplied by routed_scaling_factor, and
fused experts (gate_up_proj [num_experts, 2·moe_intermediate_size, hidden_size], down_proj).
"""

from nnterp.declare.family import Family
from nnterp.declare.mixers import SHORT_CONV, mixer_interior
from nnterp.declare.routers import MoE, Router, experts_sentence
from nnterp.families._lfm import LFM_RENAME, SILU
from nnterp.families._llama import tiny

FAMILY = Family(
    name="lfm2_moe",
    summary="Liquid's LFM2-MoE: LFM2's short-convolution and attention blocks with a sigmoid-routed mixture of "
            "experts after the first dense blocks.",
    tags=("Sequential block", "RMSNorm", "Hybrid mixers", "Short convolution", "QK-norm", "Mixture of experts",
          "Tied embeddings"),
    rename=LFM_RENAME,
    moe=MoE(Router(
        "gate", "F.linear", logits="The router's score for every expert, before the sigmoid",
        weights_description="The chosen experts' sigmoid scores (the choice adds expert_bias when use_expert_bias; "
                            "the weights do not), normalized when norm_topk_prob, times routed_scaling_factor",
    ), experts_sentence(), dense={"mlp_activation": SILU}),
    sites={
        **mixer_interior(SHORT_CONV),
    },
    tiny=tiny("Lfm2MoeConfig", moe_intermediate_size=64, num_experts=4, num_experts_per_tok=2, num_dense_layers=1,
              layer_types=["conv", "full_attention"]),
)
