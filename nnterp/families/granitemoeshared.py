"""Granite MoE with shared experts (GraniteMoeSharedForCausalLM).

Granite MoE's block (granitemoe: embedding, attention, residual and logits multipliers; the MoE
block named block_sparse_moe, aliased mlp, with a top-k-then-softmax router and fused experts)
plus, when shared_intermediate_size > 0, a shared_mlp on the block itself (GraniteMoeSharedMLP:
input_linear to gate and up halves, activation, output_linear) run on every token beside the
experts: the block computes out = h + residual_multiplier·(block_sparse_moe(x) + shared_mlp(x)).
mlp_output is that whole product, read where shared_mlp returns, so an edit is carried back into
shared_mlp's output (divided by the multiplier, minus the MoE block's output).
"""

from nnterp.families.granitemoe import FAMILY as GRANITEMOE

FAMILY = GRANITEMOE.but(
    name="granitemoeshared",
    summary="Granite MoE with a shared MLP beside the experts on every block, both added under Granite's residual "
            "multiplier.",
    tags=("Sequential block", "RMSNorm", "Grouped keys/values", "Multipliers", "Mixture of experts",
          "Shared experts"),
    tiny={"config_class": "GraniteMoeSharedConfig", "overrides": {
        **GRANITEMOE.tiny["overrides"], "shared_intermediate_size": 64}},
)
