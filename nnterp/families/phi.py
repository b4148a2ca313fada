"""Phi 1 / 1.5 / 2 (PhiForCausalLM).

Llama's containers with a parallel block: one input_layernorm feeds both sublayers and
x + attn + mlp is summed at the end (resid_dropout on each, inert in eval). The final norm is
final_layernorm. There is no post_attention_layernorm.
"""

import torch

from nnterp.declare.blocks import Parallel
from nnterp.declare.engine import module_of
from nnterp.declare.family import Family
from nnterp.declare.vocabulary import EAGER

def _float16_eager_hazard(model):
    if model.attn_implementation == EAGER and module_of(model).dtype == torch.float16:
        return ("Phi in float16 under eager attention can overflow: eager multiplies queries by keys before scaling, "
                "and on phi-2 the product passes float16's 65504 (1.1e6 at block 29 of a short prompt), so every "
                "logit is NaN; load with dtype=torch.bfloat16 or torch.float32, or keep attn_implementation='sdpa'")
    return None


FAMILY = Family(
    name="phi",
    summary="A parallel block, in which one LayerNorm feeds both the attention and the MLP and the block adds "
            "their outputs at once, with a bias on every attention projection and on lm_head, and rotary on "
            "only 32 dimensions of each head.",
    tags=("Parallel block", "Partial rotary", "Biased q, k, v", "LayerNorm"),
    rename={"model.final_layernorm": "norm", "dense": "o_proj", "fc2": "down_proj", "activation_fn": "act_fn"},
    block=Parallel(sum=lambda x, attn, mlp: (attn + mlp) + x),
    hazard=_float16_eager_hazard,
    variants={"qk_layernorm": {"qk_layernorm": True}},
    tiny={"config_class": "PhiConfig", "overrides": {
        "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "intermediate_size": 128,
        "vocab_size": 300}},
)
