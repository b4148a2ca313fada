"""Phi-3 (Phi3ForCausalLM).

Phi-3 and Phi-4 mini.

Llama's sequential pre-norm block with fused projections: self_attn.qkv_proj computes queries, keys
and values in one Linear (split by slicing; there are no q_proj, k_proj or v_proj modules) and
mlp.gate_up_proj computes gate and up in one, split in halves, with mlp.activation_fn (act_fn) on
the gate and down_proj taking act(gate) * up. mlp_activation is act_fn's output, act(gate);
mlp_neurons is down_proj's input. resid_attn_dropout and resid_mlp_dropout wrap each contribution
before the add (inert in eval). The attention passes config.sliding_window to the kernel.
"""

from nnterp.declare.family import Family
from nnterp.families._llama import tiny

FAMILY = Family(
    name="phi3",
    summary="Llama's block with a fused qkv_proj and a fused gate_up_proj.",
    tags=("Sequential block", "RMSNorm", "Fused q, k, v", "Fused gate/up", "Grouped keys/values"),
    rename={"activation_fn": "act_fn"},
    tiny=tiny("Phi3Config", pad_token_id=0, eos_token_id=2),
)

