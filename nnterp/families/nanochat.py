"""nanochat (NanoChatForCausalLM).

Llama's sequential pre-norm block with weightless RMSNorms and a plain MLP named fc1,
activation_fn (ReLU²) and fc2 (up_proj, act_fn, down_proj), so mlp_activation and mlp_neurons are
the same tensor. The attention normalizes each query and key head (self_attn.q_norm, k_norm, no
weight) after the rotary. The model calls model.norm twice: on the embeddings before the first
block and on the last block's output, so layers[0].input is the normed embeddings and
final_norm_output is read as lm_head's input, the second call's output. The logits are soft-capped:
final_logit_softcapping * tanh(lm_head_output / final_logit_softcapping).
"""

from nnterp.declare.family import Family
from nnterp.declare.readout import SOFTCAPPED
from nnterp.declare.sites import Argument, Child, Read
from nnterp.families._llama import tiny
from nnterp.families._llama_renamed import rotated_then_normed

FAMILY = Family(
    name="nanochat",
    summary="Llama's block with weightless norms, per-head query and key norms after the rotary, a plain ReLU² "
            "MLP, normed embeddings and soft-capped logits.",
    tags=("Sequential block", "RMSNorm (no weight)", "QK-norm", "ReLU² MLP", "Logit softcap"),
    rename={"fc1": "up_proj", "fc2": "down_proj", "activation_fn": "act_fn"},
    sites={
        "token_embeddings": "The embedding module's output; the model normalizes it with model.norm before the "
                            "first block, so layers[0].input is its norm",
        "final_norm_output": Read(
            Child("lm_head", "input"), Argument(0),
            description="The residual stream after the final norm, read as what lm_head takes: model.norm's "
                        "first call of a forward normalizes the embeddings"),
        "attention_queries": rotated_then_normed("q_norm", "queries"),
        "attention_keys": rotated_then_normed("k_norm", "keys"),
    },
    readout=SOFTCAPPED,
    tiny=tiny("NanoChatConfig"),
)
