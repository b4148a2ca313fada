"""HY-V4 (HYV4ForCausalLM).

model.{embed_tokens, layers[i].{attn_hc, input_layernorm, self_attn, ffn_hc,
post_attention_layernorm, mlp}, hc_head, norm} and lm_head. The residual is hc_mult streams
[batch, seq, hc_mult, hidden]: attn_hc collapses them into the attention's input and returns post
weights, and the streams become residual + post·attn (in float32); ffn_hc does the same around
post_attention_layernorm and the MLP. After the last block hc_head collapses the streams, then the
final norm and lm_head. The attention is Multi-head Latent Attention (q_a_proj, q_a_layernorm,
q_b_proj; kv_a_proj_with_mqa, kv_a_layernorm, kv_b_proj; queries and keys of qk_nope_head_dim +
qk_rope_head_dim, values of v_head_dim) with a sparse indexer choosing the keys each query sees, an
attention sink (s_aux) and a sigmoid output gate (gate_proj) before o_proj. The MLP is dense on the
first blocks (mlp_layer_types) and a mixture of experts with a shared expert after. The block
returns (hidden_states, topk_indices). The model runs eager attention only.
"""

from nnterp.declare.family import COMMON_SITES, EAGER_LOADS, Family, described
from nnterp.declare.routers import unrouted_neurons
from nnterp.declare.sites import Nowhere, Read
from nnterp.families._hyper import contract_note, stream_sites
from nnterp.families._llama import tiny

SPARSE = ("a sparse attention with a sink: the indexer picks the keys each query sees and the softmax runs over them "
          "and a learned sink (s_aux), so the scores and pattern are not a softmax over positions of their own")
_HEADS = COMMON_SITES["attention_head_outputs"]


def _copied(name, description):
    """A kernel argument that is a view of a split (autograd refuses in-place edits of those): served as a copy,
    with an edit carried back to the kernel's argument."""
    common = COMMON_SITES[name]
    return Read(common.where, common.element, condition=common.condition, snapshot=True, description=description)

FAMILY = Family(
    name="hy_v4",
    summary="Hyper-connections over hc_mult residual streams, around a sparse latent attention with an indexer, "
            "sinks and an output gate, and dense then mixture-of-experts MLPs.",
    tags=("Hyper-connections", "Multi-stream residual", "MLA", "Sparse attention", "Attention sinks", "Output gate",
          "Mixture of experts", "RMSNorm"),
    contract_note=contract_note(
        "hc_mult", "the model's values (embeddings, final norm after hc_head, lm_head, logits), and per block "
                   "attention_norm_output, the queries, keys, values and head outputs at the kernel, the gated "
                   "attention_premix, attention_output, mlp_norm_output, mlp_input, mlp_output and a dense MLP's "
                   "neurons on the collapsed stream"),
    sites={
        **stream_sites("hc_mult"),
        **unrouted_neurons(is_moe=lambda context: not hasattr(context.module, "down_proj")),
        "attention_queries": _copied(
            "attention_queries", "The queries entering attention: the latent query's nope part and rotated rope part"),
        "attention_keys": _copied(
            "attention_keys", "The keys entering attention: kv_b_proj's nope part and the shared rotated rope key, "
                              "one per head"),
        "attention_values": _copied("attention_values", "The values entering attention, from kv_b_proj"),
        "attention_scores": Nowhere(SPARSE),
        "attention_probabilities": Nowhere(SPARSE),
        "attention_premix": described("attention_premix", "Every head's gated output side by side, as o_proj takes it: the kernel's output times "
                                      "sigmoid(gate_proj(x))"),
        "attention_head_outputs": described("attention_head_outputs", "The per-head outputs of the kernel, before the sigmoid output gate and o_proj"),
    },
    accessors={
        "num_kv_heads": lambda c: c.num_attention_heads,
        "qk_head_dim": lambda c: c.qk_nope_head_dim + c.qk_rope_head_dim,
        "head_dim": lambda c: c.v_head_dim,
    },
    loads=EAGER_LOADS,
    tiny=tiny("HYV4Config", num_key_value_heads=4, moe_intermediate_size=64, head_dim=16, n_routed_experts=4,
              num_experts_per_tok=2, n_group=1, topk_group=1, kv_lora_rank=32, q_lora_rank=32, qk_rope_head_dim=16,
              qk_nope_head_dim=16, v_head_dim=16, index_head_dim=32, index_n_heads=2, index_topk=4, pad_token_id=0,
              bos_token_id=1, eos_token_id=2, indexer_types=["full", "shared"],
              layer_types=["indexed_attention", "indexed_attention"], mlp_layer_types=["dense", "sparse"]),
)
