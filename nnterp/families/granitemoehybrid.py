"""Granite 4.0 hybrid (GraniteMoeHybridForCausalLM).

Granite's multipliers on a Mamba-2 hybrid. Each block's token mixer is either a Mamba-2 mixer
(mamba, aliased self_attn) or Granite's attention (self_attn; no rotary when
position_embedding_type is None, scores scaled by attention_multiplier); the block adds it times
residual_multiplier. Its MLP slot is a block_sparse_moe (aliased mlp; a router whose top_k logits
are softmaxed among themselves, fused experts) plus a shared_mlp on the block itself run on every
token: out = h + residual_multiplier·(block_sparse_moe(x) + shared_mlp(x)), served as mlp_output
where shared_mlp returns (an edit is carried back into shared_mlp's output). The embeddings are
multiplied by embedding_multiplier before the first block and the logits divided by
logits_scaling. On the Mamba-2 blocks the module keeps self_attn = None, which nnsight's rename will
not alias over: the family names mamba as its mixer, and the library binds it as those blocks'
self_attn, leaving the module's own attribute None.
"""

from nnterp.declare.blocks import Multiplied
from nnterp.declare.mixers import MAMBA2, mixer_interior
from nnterp.families.granitemoe import FAMILY as GRANITEMOE

FAMILY = GRANITEMOE.but(
    name="granitemoehybrid",
    summary="IBM's Granite 4.0: Mamba-2 mixers with attention on a few blocks, a mixture of experts beside a shared "
            "MLP, and Granite's multipliers.",
    tags=("Sequential block", "RMSNorm", "Hybrid mixers", "State-space (Mamba-2)", "Multipliers",
          "Mixture of experts", "Shared experts"),
    block=Multiplied(mixers=("mamba",)),
    # attention_output is the block's product on every block, the Mamba mixer's included
    sites={name: site for name, site in mixer_interior(MAMBA2).items() if name != "attention_output"},
    tiny={"config_class": "GraniteMoeHybridConfig", "overrides": {
        **GRANITEMOE.tiny["overrides"], "shared_intermediate_size": 64, "mamba_n_heads": 4, "mamba_d_state": 16,
        "mamba_n_groups": 1, "layer_types": ["linear_attention", "full_attention"]}},
)
