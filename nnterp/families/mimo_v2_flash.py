"""MiMo-V2-Flash (MiMoV2FlashForCausalLM).

Llama's names on a block whose attention differs per layer type. Queries and keys have head_dim
(192 on the released model) and values v_head_dim (128): model.qk_head_dim is head_dim and
model.head_dim is v_head_dim. The values are multiplied by attention_value_scale before the kernel,
so attention_values is that scaled tensor. Sliding-window layers hold twice num_key_value_heads
key/value heads and one learned sink logit per head (self.sinks): the eager kernel appends the
sinks as a last key column, subtracts each row's maximum, softmaxes and drops the column, so each
query's probabilities sum to less than one; full-attention layers have no sinks and softmax the
scores minus each row's maximum. The model runs only under eager attention. The MLP slot holds,
per mlp_layer_types, a dense gated MiMoV2FlashMLP of width intermediate_size or a MiMoV2FlashMoE of
a router gate (MiMoV2FlashTopkRouter) and experts (fused gate_up_proj [n_routed_experts,
2·moe_intermediate_size, hidden_size] and down_proj), without shared experts. The router is
DeepSeek-V3's: logits = F.linear(x, weight) in float32, sigmoid scores, group-limited top_k of
scores + e_score_correction_bias, the chosen scores normalized (norm_topk_prob) and multiplied by
routed_scaling_factor.
"""

from nnterp.declare.blocks import Block
from nnterp.declare.family import EAGER_LOADS, Family
from nnterp.declare.routers import DEEPSEEK_V3, SIGMOID_WITH_BIAS
from nnterp.declare.sites import EAGER_ONLY, Argument, Call, Read, sink_scores
from nnterp.families._llama import tiny

SINK_SCORES = sink_scores()
SHIFTED_SCORES = Read(
    Call("F.softmax", "input", inside="attention_interface", eager="eager_attention_forward"), Argument(0),
    condition=EAGER_ONLY,
    description="The attention scores entering the softmax, masked and shifted by each row's maximum (which the "
                "softmax does not see)")


def _scores(context):
    sinks = getattr(context.module, "sinks", None) if context is not None else None
    return SINK_SCORES if sinks is not None else SHIFTED_SCORES


def _block_dims(context):
    """Sliding-window layers hold twice the key/value heads of full-attention ones."""
    return {"num_kv_heads": context.layer.self_attn.k_proj.out_features // context.config.head_dim}


FAMILY = Family(
    name="mimo_v2_flash",
    summary="Xiaomi's MiMo-V2-Flash: sliding-window layers with attention sinks and doubled key/value heads "
            "interleaved with full ones, value heads narrower than query/key heads, and a DeepSeek-V3 router.",
    tags=("Sequential block", "RMSNorm", "Grouped keys/values", "Attention sinks", "Sliding window",
          "Partial rotary", "Mixture of experts"),
    moe=DEEPSEEK_V3.but(weights_description=SIGMOID_WITH_BIAS),
    block=Block(dims=_block_dims),
    sites={
        "attention_scores": _scores,
    },
    accessors={
        "head_dim": lambda c: c.v_head_dim,
        "qk_head_dim": lambda c: c.head_dim,
    },
    loads=EAGER_LOADS,
    tiny=tiny("MiMoV2FlashConfig", moe_intermediate_size=64, head_dim=16, n_routed_experts=4, num_experts_per_tok=2,
              n_group=1, topk_group=1, v_head_dim=8),
)
