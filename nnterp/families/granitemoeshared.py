"""Granite MoE with shared experts (GraniteMoeSharedForCausalLM).

Granite MoE's block (granitemoe: embedding, attention, residual and logits multipliers; the MoE
block named block_sparse_moe, aliased mlp, with a top-k-then-softmax router and fused experts)
plus, when shared_intermediate_size > 0, a shared_mlp on the block itself (GraniteMoeSharedMLP:
input_linear to gate and up halves, activation, output_linear) run on every token beside the
experts: the block computes out = h + residual_multiplier·(block_sparse_moe(x) + shared_mlp(x)).
mlp_output is that whole product, read where shared_mlp returns, so an edit is carried back into
shared_mlp's output (divided by the multiplier, minus the MoE block's output).
"""

from nnterp.families._llama import logits_divided_by_scaling
from nnterp.families._granite_moe import granite_sites
from nnterp.routers import moe_accessors
from nnterp.families.granitemoe import GRANITE_MULTIPLIERS, GRANITE_NEURONS, GRANITE_ROUTER
from nnterp.blocks import GRANITE_BLOCK
from nnterp.family import Family

FAMILY = Family(
    name="granitemoeshared",
    model_types=("granitemoeshared",),
    summary="Granite MoE with a shared MLP beside the experts on every block, both added under Granite's residual "
            "multiplier.",
    tags=("Sequential block", "RMSNorm", "Grouped keys/values", "Multipliers", "Mixture of experts",
          "Shared experts"),
    rename={"block_sparse_moe": "mlp"},
    block=GRANITE_BLOCK,
    sites=granite_sites(GRANITE_ROUTER, GRANITE_NEURONS),
    accessors=moe_accessors("num_local_experts"),
    readout=logits_divided_by_scaling,
    tiny={"config_class": "GraniteMoeSharedConfig", "overrides": {
        "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
        "intermediate_size": 128, "vocab_size": 300, "num_local_experts": 4, "num_experts_per_tok": 2,
        "shared_intermediate_size": 64, **GRANITE_MULTIPLIERS}},
)
