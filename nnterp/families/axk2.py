"""A.X K2 (AXK2ForCausalLM).

A DeepSeek-V3.2-style block with a gated latent attention. The queries come from a q-LoRA whose
up-projection q_gate_proj reads the normed and the raw latent side by side and emits, per head,
the query and an output gate; keys and values are MLA's (see _mla: expanded per head from a normed
latent, interleaved rotary on the shared key). A lightning indexer keeps index_topk keys per query,
which under eager and sdpa becomes part of the mask the kernel receives. The kernel's output is
multiplied by sigmoid(gate) (one gate per channel) before o_proj, so attention_head_outputs is
before the gate and attention_premix after it. The MLP slot holds, per mlp_layer_types, a dense
gated MLP or a DeepSeek-V3 mixture (sigmoid router with e_score_correction_bias and optional
groups, fused experts, shared_experts).
"""

from nnterp.families._mla import gated_outputs
from nnterp.families.deepseek_v32 import FAMILY as DEEPSEEK_V32

FAMILY = DEEPSEEK_V32.but(
    name="axk2",
    summary="SK Telecom's A.X K2: latent attention with an output gate from the query path and an indexer's sparse "
            "key choice, and sigmoid-routed experts.",
    tags=("Sequential block", "RMSNorm", "Latent attention (MLA)", "Sparse attention", "Gated attention",
          "Mixture of experts", "Shared experts"),
    sites=gated_outputs("sigmoid(gate), the gate being each head's second part of q_gate_proj's output"),
    tiny=DEEPSEEK_V32.tiny_for("AXK2Config", without=("n_group", "topk_group", "first_k_dense_replace"),
                               gated_norm_rank=8, bos_token_id=1, eos_token_id=2),
)
