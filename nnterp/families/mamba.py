"""Mamba (MambaForCausalLM).

backbone.{embeddings, layers[i].{norm, mixer.{in_proj, conv1d, x_proj, dt_proj, out_proj}}, norm_f}
and lm_head, tied to the embeddings. A pure state-space model: each block is one pre-norm
sublayer, out = x + mixer(norm(x)), returned as a bare tensor; there is no attention and no MLP.
The mixer (standard name self_attn) projects to an input branch and a gate, runs a depthwise
causal conv1d and the selective scan (input-dependent dt, B and C from x_proj and dt_proj), gates
the scan with silu(gate) and projects back with out_proj (o_proj). attention_output is what the
mixer adds; its interior has no queries, keys or pattern, and the block has no MLP, so the
identity is layer_input + attention_output == layer_output. residual_in_fp32 (true on the
checkpoints) keeps the residual in float32: under a half-precision load layer_output is float32.
The head runs in the weights' dtype and the model returns float32 logits.
"""

from nnterp.declare.blocks import Block
from nnterp.declare.family import EAGER_LOADS, Family
from nnterp.declare.mixers import BLOCK_NORM_RENAME, SSM_ACCESSORS, SSM_RENAME, SSM_SITES, float_logits

FAMILY = Family(
    name="mamba",
    summary="A pure state-space model: each block is a pre-norm selective-scan mixer added to the stream, with "
            "no attention and no MLP.",
    tags=("State-space mixer", "No attention", "No MLP", "RMSNorm", "Tied embeddings"),
    block=Block("ssm"),
    rename={**BLOCK_NORM_RENAME, **SSM_RENAME},
    sites=dict(SSM_SITES),
    accessors=dict(SSM_ACCESSORS),
    readout=float_logits,
    loads=EAGER_LOADS,
    tiny={"config_class": "MambaConfig", "overrides": {"hidden_size": 64, "num_hidden_layers": 2, "vocab_size": 300}},
)

