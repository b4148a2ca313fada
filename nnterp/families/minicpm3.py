"""MiniCPM3 (MiniCPM3ForCausalLM).

A dense model with Multi-head Latent Attention (see _mla: q-LoRA queries, keys and values expanded
per head from a normed latent with one shared rotary key) and MiniCPM's depth scaling: the
embeddings are multiplied by scale_emb inside embed_tokens; the block adds each sublayer times
scale_depth/sqrt(num_hidden_layers), h = x + s·attn and out = h + s·mlp, so attention_output and
mlp_output are those products (an edit is carried back divided by s); before lm_head the model
divides the normed stream by logits_scaling = hidden_size/dim_model_base, so final_norm_output is
read where lm_head reads it, after that division.
"""

import math

from nnterp.declare.family import Family
from nnterp.declare.readout import Readout
from nnterp.declare.sites import Argument, Child, Element, Own, Read
from nnterp.families._llama import tiny
from nnterp.families._mla import MLA_ACCESSORS, mla_sites


def _residual_scale(config):
    return config.scale_depth / math.sqrt(config.num_hidden_layers)


FAMILY = Family(
    name="minicpm3",
    summary="MiniCPM3: latent attention in a dense model whose sublayers are scaled by "
            "scale_depth/sqrt(num_hidden_layers) and whose head reads the normed stream divided by hidden_size/256.",
    tags=("Sequential block", "RMSNorm", "Latent attention (MLA)", "Multipliers", "Gated MLP"),
    sites={
        **mla_sites(),
        "attention_output": Read(
            Own("output"), Element(0), scale=_residual_scale,
            description="What the attention adds to the residual stream: its output times "
                        "scale_depth/sqrt(num_hidden_layers)"),
        "mlp_output": Read(
            Own("output"), Element(0), scale=_residual_scale,
            description="What the MLP adds to the residual stream: its output times scale_depth/sqrt(num_hidden_layers)"),
        "final_norm_output": Read(
            Child("lm_head", "input"), Argument(0),
            description="The residual stream after the final norm and the division by logits_scaling "
                        "(hidden_size/dim_model_base): what lm_head reads"),
    },
    accessors=MLA_ACCESSORS,
    readout=Readout(normed_divided_by="logits_scaling"),
    tiny=tiny("MiniCPM3Config", num_key_value_heads=4, head_dim=16, kv_lora_rank=32, q_lora_rank=32,
              qk_rope_head_dim=16, qk_nope_head_dim=16, v_head_dim=8),
)
