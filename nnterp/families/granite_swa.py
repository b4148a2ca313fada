"""Granite SWA (GraniteSWAForCausalLM).

Granite's multipliers (embedding_multiplier, residual_multiplier on each sublayer's contribution,
attention_multiplier as the kernel's scale, logits divided by logits_scaling) on Llama's modules,
with sliding-window layers (config.layer_types), one rotary per rope_theta in model.rotary_embs
(theta 0 is a layer without rotary), and a learned per-head attention sink, self_attn.sinks.

The model has only its own eager kernel (sdpa is refused). The kernel takes the softmax of the
masked scores, mixes the values with it, then multiplies each query's output by
sigmoid(logsumexp(scores) - sink): the sink acts as an extra logit in the softmax's denominator,
applied after the mixing. attention_probabilities are the softmax before that factor (rows sum to
1) and attention_head_outputs the mixed values before it, read at the kernel's matmul; the
factor is applied between them and o_proj.
"""

from nnterp.declare.family import EAGER_LOADS
from nnterp.declare.sites import EAGER_ONLY, HEADS_AFTER_POSITIONS, Argument, Call, Read
from nnterp.families._llama import GRANITE_TINY, tiny
from nnterp.families.granite import FAMILY as GRANITE

FAMILY = GRANITE.but(
    name="granite_swa",
    summary="Granite's multipliers with sliding-window layers and a learned attention sink applied after the "
            "values are mixed.",
    tags=("Sequential block", "RMSNorm", "Grouped keys/values", "Residual multiplier", "Scaled logits",
          "Sliding window", "Attention sink"),
    sites={
        "attention_scores": Read(
            Call("F.softmax", "input", inside="attention_interface", eager="eager_attention_forward"),
            Argument(0), condition=EAGER_ONLY,
            description="The attention scores entering the softmax, masked; the sink's factor is computed from "
                        "them just before, so an edit here changes the pattern, not that factor"),
        "attention_probabilities": Read(
            Call("F.dropout", "output", inside="attention_interface", eager="eager_attention_forward"),
            condition=EAGER_ONLY,
            description="The attention pattern the values are mixed with: the softmax of the scores, before the "
                        "sink's factor sigmoid(logsumexp(scores) - sink), which scales each query's mixed output"),
        "attention_head_outputs": Read(
            Call("torch.matmul", "output", inside="attention_interface", eager="eager_attention_forward",
                 occurrence=1),
            layout=HEADS_AFTER_POSITIONS, condition=EAGER_ONLY,
            description="The per-head outputs: the pattern times the values, before the kernel multiplies each "
                        "query's output by the sink's factor sigmoid(logsumexp(scores) - sink)"),
    },
    loads=EAGER_LOADS,
    tiny=tiny("GraniteSWAConfig", bos_token_id=1, eos_token_id=2, **GRANITE_TINY),
)
