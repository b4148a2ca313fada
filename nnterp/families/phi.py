"""Phi 1 / 1.5 / 2 (PhiForCausalLM).

Llama's containers with a parallel block: one input_layernorm feeds both sublayers and
x + attn + mlp is summed at the end (resid_dropout on each, inert in eval). The final norm is
final_layernorm. There is no post_attention_layernorm.
"""

import torch

from nnterp.blocks import Parallel
from nnterp.family import Checkpoint, Family

def _float16_eager_hazard(model):
    if model.attn_implementation == "eager" and model._module.dtype == torch.float16:
        return ("Phi in float16 under eager attention can overflow: eager multiplies queries by keys before scaling, "
                "and on phi-2 the product passes float16's 65504 (1.1e6 at block 29 of a short prompt), so every "
                "logit is NaN; load with dtype=torch.bfloat16 or torch.float32, or keep attn_implementation='sdpa'")
    return None


FAMILY = Family(
    name="phi",
    model_types=("phi",),
    summary="A parallel block, in which one LayerNorm feeds both the attention and the MLP and the block adds "
            "their outputs at once, with a bias on every attention projection and on lm_head, and rotary on "
            "only 32 dimensions of each head.",
    tags=("Parallel block", "Partial rotary", "Biased q, k, v", "LayerNorm"),
    rename={"model.final_layernorm": "norm", "dense": "o_proj", "fc2": "down_proj", "activation_fn": "act_fn"},
    block=Parallel(sum=lambda x, attn, mlp: (attn + mlp) + x),
    hazard=_float16_eager_hazard,
    variants={"qk_layernorm": {"qk_layernorm": True}},
    checkpoints=(
        Checkpoint("microsoft/phi-2", "Phi-2", {
            "architectures": ["PhiForCausalLM"], "num_hidden_layers": 32, "hidden_size": 2560,
            "intermediate_size": 10240, "num_attention_heads": 32, "num_key_value_heads": 32, "vocab_size": 51200,
            "max_position_embeddings": 2048, "hidden_act": "gelu_new", "layer_norm_eps": 1e-05,
            "tie_word_embeddings": False, "dtype": "float16", "qk_layernorm": False,
            "partial_rotary_factor": 0.4, "resid_pdrop": 0.1, "embd_pdrop": 0.0,
        }),
        Checkpoint("microsoft/phi-1_5", "Phi-1.5"),
        Checkpoint("microsoft/phi-1", "Phi-1"),
    ),
    tiny={"config_class": "PhiConfig", "overrides": {
        "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "intermediate_size": 128,
        "vocab_size": 300}},
)


#: What the catalogue of transformers' decoder-only families found for this family's model type: [obs] observed
#: on a tiny model, [src] read in the modeling source, [cfg] a config default, [inf] inferred and not verified;
#: caveats say what a standard value meets here. The page lists them under its traps.
TRAPS = {'phi': {'caveats': [],
         'quirks': ['output projection named dense; final norm model.final_layernorm [obs]',
                    'partial rotary 0.5; biases everywhere; optional qk_layernorm [obs]',
                    'lm_head bias [obs]']}}
#: ... and under the structural config switches the family checks as variants
TRAPS_BY_VARIANT = {'phi': {'qk_layernorm': {'caveats': [],
                          'note': 'qk_layernorm=True adds q_layernorm/k_layernorm [obs]',
                          'quirks': ['qk_layernorm=True adds q_layernorm/k_layernorm [obs]',
                                     'partial rotary ([0.5]) [obs cfg]']}}}
