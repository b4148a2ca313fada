"""DeepSeek-V4 (DeepseekV4ForCausalLM).

model.{embed_tokens, layers[i].{attn_hc, input_layernorm, self_attn, ffn_hc,
post_attention_layernorm, mlp}, hc_head, norm} and lm_head. The residual is hc_mult streams
[batch, seq, hc_mult, hidden]: in each block attn_hc computes pre, post and comb weights (a
Sinkhorn-projected mixing matrix, in float32) and the collapsed stream; the attention reads
input_layernorm(collapsed) and the streams become post·attn + comb^T·streams; ffn_hc does the same
around post_attention_layernorm and the MLP. After the last block hc_head collapses the streams
and the final norm and lm_head read the result. The attention is a compressed attention: low-rank
queries (q_a_proj, q_a_norm, q_b_proj, a weightless q_b_norm), one key/value head (kv_proj,
kv_norm), partial rotary, a sliding window plus compressed entries (compressor) as extra keys, an
attention sink (s_aux), and a grouped low-rank output projection (o_a_proj grouped, o_b_proj). The
MLP is a mixture of experts: hash-routed on the first blocks, top-k routed after, with a shared
expert. The model runs eager attention only.
"""

from nnterp.declare.family import COMMON_SITES, EAGER_LOADS, Family, described
from nnterp.declare.routers import unrouted_neurons
from nnterp.declare.sites import Nowhere
from nnterp.families._hyper import contract_note, stream_sites

COMPRESSED = ("a compressed attention: the kernel's keys (one head, K = V) are the sliding window's positions followed "
              "by the compressor's entries, and the softmax runs over them and a sink (s_aux), so no key axis of "
              "positions exists for keys, values, scores or pattern")
GROUPED = ("a grouped low-rank output projection (o_a_proj per group of heads, then o_b_proj) reads the head outputs "
           "after a conjugate rotation of their rope slice; attention_head_outputs is the kernel's output")
_HEADS = COMMON_SITES["attention_head_outputs"]

FAMILY = Family(
    name="deepseek_v4",
    summary="Hyper-connections over hc_mult residual streams, around a compressed sparse attention with sinks and a "
            "mixture of experts (hash-routed on the first blocks).",
    tags=("Hyper-connections", "Multi-stream residual", "Compressed attention", "Attention sinks", "Mixture of experts",
          "RMSNorm"),
    contract_note=contract_note(
        "hc_mult", "the model's values (embeddings, final norm after hc_head, lm_head, logits), and per block "
                   "attention_norm_output, the queries and head outputs at the kernel, attention_output, mlp_norm_output, "
                   "mlp_input and mlp_output on the collapsed stream"),
    sites={
        **stream_sites("hc_mult"),
        **unrouted_neurons(),
        **{name: Nowhere(COMPRESSED) for name in (
            "attention_keys", "attention_values", "attention_scores", "attention_probabilities")},
        "attention_head_outputs": described("attention_head_outputs", "The per-head outputs of the kernel, before the conjugate rotation of their rope slice and "
                                            "the grouped output projection"),
        "attention_premix": Nowhere(GROUPED),
    },
    loads=EAGER_LOADS,
    tiny={"config_class": "DeepseekV4Config", "overrides": {
        "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
        "moe_intermediate_size": 64, "vocab_size": 300, "head_dim": 16, "n_routed_experts": 4,
        "num_experts_per_tok": 2, "q_lora_rank": 32, "o_lora_rank": 32, "index_head_dim": 32, "index_n_heads": 2,
        "index_topk": 4, "layer_types": ["heavily_compressed_attention", "compressed_sparse_attention"],
        "mlp_layer_types": ["hash_moe", "moe"]}},
)
