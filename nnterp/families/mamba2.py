"""Mamba-2 (Mamba2ForCausalLM).

backbone.{embeddings, layers[i].{norm, mixer.{in_proj, conv1d, norm, out_proj}}, norm_f} and
lm_head. A pure state-space model: each block is one pre-norm sublayer, out = x + mixer(norm(x)),
a bare tensor, with no attention and no MLP. The mixer (self_attn) projects once to the gate, the
conv input (x, B, C) and one dt per head, runs a depthwise causal conv1d and the chunked SSD scan
over num_heads heads of head_dim (B and C shared by n_groups groups), then a gated RMSNorm
(mixer.norm, normalizing silu(gate)-weighted outputs over groups of heads) and out_proj (o_proj).
The heads are the scan's, not attention heads: there are no queries, keys or pattern, and
attention_premix is not served since the norm before out_proj mixes heads. attention_output is
what the mixer adds, and the identity is layer_input + attention_output == layer_output.
residual_in_fp32 keeps the residual in float32, and the model returns float32 logits. The
block's norm keeps its native name: the mixer's gated norm is also called norm, so the standard
name input_layernorm would bind on both.
"""

from nnterp.declare.blocks import Block
from nnterp.declare.family import EAGER_LOADS, Family
from nnterp.declare.mixers import SSM_ACCESSORS, SSM_RENAME, SSM_SITES, float_logits

FAMILY = Family(
    name="mamba2",
    summary="A pure state-space model with multi-head SSD mixers and a gated RMSNorm before the output "
            "projection: no attention and no MLP.",
    tags=("State-space mixer", "No attention", "No MLP", "RMSNorm"),
    block=Block("ssm"),
    rename=dict(SSM_RENAME),
    sites=dict(SSM_SITES),
    accessors=dict(SSM_ACCESSORS),
    readout=float_logits,
    loads=EAGER_LOADS,
    tiny={"config_class": "Mamba2Config", "overrides": {
        "hidden_size": 64, "num_hidden_layers": 2, "vocab_size": 300, "head_dim": 32, "num_heads": 4,
        "n_groups": 1}},
)
