"""BitNet b1.58 (BitNetForCausalLM).

Llama's modules and sequential pre-norm block with one more RMSNorm inside each sublayer: the
attention normalizes its heads' concatenated output with self_attn.attn_sub_norm before o_proj,
and the MLP normalizes act(gate_proj(x)) * up_proj(x) with mlp.ffn_sub_norm before down_proj. The
activation is ReLU². attention_premix, o_proj's input, and mlp_neurons, down_proj's input, are
therefore read after those sub-norms; attention_head_outputs (the kernel's output) is before
attn_sub_norm.
"""

from nnterp.declare.family import Family
from nnterp.families._llama import tiny

FAMILY = Family(
    name="bitnet",
    summary="Llama's block with an extra RMSNorm before each sublayer's output projection and a ReLU² gated MLP.",
    tags=("Sequential block", "RMSNorm", "Sub-norms", "Grouped keys/values", "ReLU² MLP"),
    sites={
        "attention_premix": "What o_proj takes: the heads' outputs side by side after attn_sub_norm, an RMSNorm over "
                            "all heads at once",
        "mlp_neurons": "What down_proj takes: act(gate)·up after ffn_sub_norm, an RMSNorm over all neurons",
    },
    tiny=tiny("BitNetConfig", bos_token_id=1, eos_token_id=2),
)
