"""DiffLlama (DiffLlamaForCausalLM).

Llama's modules and sequential pre-norm block; the attention is differential. After the rotary,
the one set of queries and keys goes to the kernel twice: the first call mixes the first half of
the value heads (tiled back to num_kv_heads), the second the second half, with the same softmax
maps. The two outputs are joined along the head width (2 * head_dim), then head j of the first
half of the heads takes away lambda times head j + num_heads / 2: (P_j - lambda * P_{j+H/2}) [V1, V2],
num_heads / 2 differential heads of width 2 * head_dim. lambda = exp(lambda_q1 . lambda_k1) -
exp(lambda_q2 . lambda_k2) + lambda_init (a per-layer constant). Each differential head is RMS-normed
(self_attn.groupnorm, no weight) and multiplied by 1 - lambda_init before o_proj.

attention_queries and attention_keys are read at apply_rotary_pos_emb's output, the tensors both
kernel calls read, so an edit reaches both maps. The kernel interior (attention_values,
attention_scores, attention_probabilities, attention_head_outputs) is read at the first call:
its maps are the ones the second call recomputes from the same queries and keys, and an edit there
reaches the first call only, the first head_dim channels of every differential head.
attention_premix is o_proj's input, the normed differential heads, laid out as num_heads chunks of
head_dim (differential head j is chunks 2j and 2j + 1).
"""

from nnterp.declare.family import Family
from nnterp.declare.sites import Call, Element, Read
from nnterp.families._llama import tiny

FIRST_CALL = ("of the first of the two kernel calls: the second recomputes the same maps from the same queries "
              "and keys, and an edit here reaches the first call only")

FAMILY = Family(
    name="diffllama",
    summary="Llama's block with differential attention: two softmax maps per head pair, one taken away from "
            "the other with a learned lambda, and an RMSNorm per differential head.",
    tags=("Sequential block", "RMSNorm", "Differential attention", "Gated MLP"),
    sites={
        "attention_queries": Read(
            Call("apply_rotary_pos_emb", "output"), Element(0),
            description="The queries after the rotary, the one tensor both kernel calls of the differential "
                        "attention read"),
        "attention_keys": Read(
            Call("apply_rotary_pos_emb", "output"), Element(1),
            description="The keys after the rotary (this call's positions), the one tensor both kernel calls read"),
        "attention_values": "The values of the first kernel call: the first half of the value heads, tiled back to "
                            "num_kv_heads; the second call mixes the second half",
        "attention_scores": f"The attention scores entering the softmax, masked, {FIRST_CALL}",
        "attention_probabilities": f"The softmax maps, one per head, {FIRST_CALL}; differential head j mixes with map j minus "
                                   f"lambda times map j + num_heads / 2",
        "attention_head_outputs": "The first kernel call's per-head outputs: each map times the first half of the values, "
                                  "before the differential combination and groupnorm",
        "attention_premix": "What o_proj takes: the num_heads / 2 differential heads of width 2 * head_dim after "
                            "groupnorm and the factor 1 - lambda_init, as num_heads chunks of head_dim",
    },
    tiny=tiny("DiffLlamaConfig", head_dim=16),
)
