"""Mistral 4 (Mistral4ForCausalLM).

The language model of Mistral Small 4: DeepSeek-V3's block and Multi-head Latent Attention (see
_mla; rotary interleaved when rope_interleave), with Llama 4's position-dependent query temperature:
after the rotary the attention multiplies the joined queries by 1 + llama_4_scaling_beta *
log(1 + floor(position / original_max_position_embeddings)), which is 1 before the original context
length, so attention_queries, read at the kernel, are scaled. The first first_k_dense_replace blocks
hold a dense gated MLP; the others a Mistral4MoE of a router gate (Mistral4TopkRouter), experts
(fused gate_up_proj [n_routed_experts, 2·moe_intermediate_size, hidden_size] and down_proj) and
shared_experts on every token. The router computes logits = F.linear(x, weight) and softmaxes
them over all experts (no sigmoid, no correction bias); it keeps the topk_group best of n_group
expert groups (by the sum of each group's two best probabilities), chooses there the top_k, and
weights the chosen experts by their probabilities (normalized over the top_k when norm_topk_prob,
times routed_scaling_factor); the block returns experts(x) + shared_experts(x).
"""

from nnterp.declare.family import Family, described
from nnterp.declare.routers import DEEPSEEK_V3, LOGITS_BEFORE_SOFTMAX
from nnterp.declare.sites import Nowhere
from nnterp.families._mla import MLA_ACCESSORS, QUERIES, mla_sites

MOE = DEEPSEEK_V3.but(
    logits=LOGITS_BEFORE_SOFTMAX,
    weights_description="The chosen experts' softmax probabilities over all experts, normalized over the top_k "
                        "when norm_topk_prob and multiplied by routed_scaling_factor; the shared experts run on every "
                        "token unweighted",
    choices_description="The experts each position is sent to: the top_k probabilities within the topk_group best "
                        "of n_group expert groups (by the sum of each group's two best); read-only",
)

FAMILY = Family(
    name="mistral4",
    summary="Mistral 4: DeepSeek-V3's latent attention with Llama 4's position-dependent query temperature, and a "
            "softmax router with group-limited choice beside a shared expert.",
    tags=("Sequential block", "RMSNorm", "Latent attention (MLA)", "Mixture of experts", "Shared experts"),
    moe=MOE,
    sites={
        **mla_sites(),
        "attention_queries": described(
            "attention_queries", QUERIES + ", then scaled by the position-dependent temperature 1 + beta * "
                                           "log(1 + floor(position / original_max_position_embeddings))"),
        # the temperature comes after the rotary: what entered it is not attention_queries at a turned position
        "attention_queries_unrotated": Nowhere(
            "the attention multiplies the rotated queries by Llama 4's position-dependent temperature before the "
            "kernel, so what entered the rotary is not attention_queries unturned; not served until the contract "
            "checks that scale"),
    },
    accessors=MLA_ACCESSORS,
    tiny={"config_class": "Mistral4Config", "overrides": {
        "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 4,
        "intermediate_size": 128, "moe_intermediate_size": 64, "vocab_size": 300, "n_routed_experts": 4,
        "num_experts_per_tok": 2, "n_group": 2, "topk_group": 1, "first_k_dense_replace": 1, "kv_lora_rank": 32,
        "q_lora_rank": 32, "qk_rope_head_dim": 16, "qk_nope_head_dim": 16, "v_head_dim": 16,
        "pad_token_id": 0, "bos_token_id": 1, "eos_token_id": 2,
        # Mistral4Config's own YaRN rotary (the default rotary ignores partial_rotary_factor), with a temperature
        # that moves from the fourth position on, so the checks see the queries scaled
        "rope_parameters": {"type": "yarn", "rope_theta": 10000.0, "factor": 4.0, "original_max_position_embeddings": 4,
                            "max_position_embeddings": 16, "beta_fast": 32.0, "beta_slow": 1.0, "mscale_all_dim": 1.0,
                            "mscale": 1.0, "llama_4_scaling_beta": 0.5},
        "max_position_embeddings": 16}},
)
