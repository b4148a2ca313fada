"""Granite MoE with sliding windows and sinks (GraniteMoeSWAForCausalLM).

Granite MoE's block (granitemoe: embedding, attention, residual and logits multipliers; the MoE
block named block_sparse_moe, aliased mlp; an optional shared_mlp added beside it, as in
granitemoeshared) with sliding-window layers interleaved with full ones and an attention sink per
head applied after the mixing: the eager kernel softmaxes the scores as usual, mixes the values,
then multiplies each head's output by sigmoid(logsumexp(scores) − sink). attention_head_outputs
is the mix before that factor (so the probabilities and values give it exactly) and
attention_premix, o_proj's input, is after it. The model runs only under eager attention.
"""

from nnterp.declare.family import EAGER_LOADS, described
from nnterp.declare.sites import EAGER_ONLY, HEADS_AFTER_POSITIONS, Argument, Call, Element, Read
from nnterp.families.granitemoe import FAMILY as GRANITEMOE

FAMILY = GRANITEMOE.but(
    name="granitemoe_swa",
    summary="Granite MoE with sliding-window layers and a per-head sink that scales each head's output by "
            "sigmoid(logsumexp(scores) − sink) after the values are mixed.",
    tags=("Sequential block", "RMSNorm", "Grouped keys/values", "Multipliers", "Attention sinks", "Sliding window",
          "Mixture of experts"),
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
    },
    loads=EAGER_LOADS,
    tiny={"config_class": "GraniteMoeSWAConfig", "overrides": {
        **GRANITEMOE.tiny["overrides"], "layer_types": ["full_attention", "sliding_attention"]}},
)
