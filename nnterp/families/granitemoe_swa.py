"""Granite MoE with sliding windows and sinks (GraniteMoeSWAForCausalLM).

Granite MoE's block (granitemoe: embedding, attention, residual and logits multipliers; the MoE
block named block_sparse_moe, aliased mlp; an optional shared_mlp added beside it, as in
granitemoeshared) with sliding-window layers interleaved with full ones and an attention sink per
head applied after the mixing: the eager kernel softmaxes the scores as usual, mixes the values,
then multiplies each head's output by sigmoid(logsumexp(scores) − sink). attention_head_outputs
is the mix before that factor (so the probabilities and values give it exactly) and
attention_premix, o_proj's input, is after it. The model runs only under eager attention.
"""

from nnterp.families._llama import logits_divided_by_scaling
from nnterp.blocks import GRANITE_BLOCK
from nnterp.family import Family, described
from nnterp.families._granite_moe import granite_sites
from nnterp.routers import moe_accessors
from nnterp.families.granitemoe import GRANITE_MULTIPLIERS, GRANITE_NEURONS, GRANITE_ROUTER
from nnterp.family import COMMON_SITES
from nnterp.sites import EAGER_ONLY, HEADS_AFTER_POSITIONS, Argument, Call, Element, Read

PREMIX = COMMON_SITES["attention_premix"]

FAMILY = Family(
    name="granitemoe_swa",
    model_types=("granitemoe_swa",),
    summary="Granite MoE with sliding-window layers and a per-head sink that scales each head's output by "
            "sigmoid(logsumexp(scores) − sink) after the values are mixed.",
    tags=("Sequential block", "RMSNorm", "Grouped keys/values", "Multipliers", "Attention sinks", "Sliding window",
          "Mixture of experts"),
    rename={"block_sparse_moe": "mlp"},
    block=GRANITE_BLOCK,
    sites={
        "attention_scores": Read(
            Call("F.softmax", "input", inside="attention_interface", eager="eager_attention_forward"), Argument(0),
            condition=EAGER_ONLY),
        "attention_probabilities": Read(
            Call("F.dropout", "output", inside="attention_interface", eager="eager_attention_forward"),
            condition=EAGER_ONLY),
        "attention_head_outputs": Read(
            Call("torch.matmul", "output", inside="attention_interface", eager="eager_attention_forward",
                 occurrence=1),
            Element(0), HEADS_AFTER_POSITIONS, condition=EAGER_ONLY,
            description="The per-head mix of the values, before the sink factor: the kernel then multiplies each "
                        "head's output by sigmoid(logsumexp(scores) − sink)"),
        "attention_premix": described("attention_premix", "Every head's output side by side, as o_proj takes it: the mix times the sink factor "
                                      "sigmoid(logsumexp(scores) − sink)"),
        **granite_sites(GRANITE_ROUTER, GRANITE_NEURONS),
    },
    accessors=moe_accessors("num_local_experts"),
    readout=logits_divided_by_scaling,
    loads=("eager",),
    tiny={"config_class": "GraniteMoeSWAConfig", "overrides": {
        "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
        "intermediate_size": 128, "vocab_size": 300, "num_local_experts": 4, "num_experts_per_tok": 2,
        "layer_types": ["full_attention", "sliding_attention"], **GRANITE_MULTIPLIERS}},
)
