"""nanochat (NanoChatForCausalLM).

Llama's sequential pre-norm block with weightless RMSNorms and a plain MLP named fc1,
activation_fn (ReLU²) and fc2 (up_proj, act_fn, down_proj), so mlp_activation and mlp_neurons are
the same tensor. The attention normalizes each query and key head (self_attn.q_norm, k_norm, no
weight) after the rotary. The model calls model.norm twice: on the embeddings before the first
block and on the last block's output, so layers[0].input is the normed embeddings and
final_norm_output is read as lm_head's input, the second call's output. The logits are soft-capped:
final_logit_softcapping * tanh(lm_head_output / final_logit_softcapping).
"""

from nnterp.readout import SOFTCAPPED
from nnterp.family import Checkpoint, Family
from nnterp.sites import Argument, Child, Read

from ._llama import tiny
from ._llama_renamed import rotated_then_normed

FAMILY = Family(
    name="nanochat",
    model_types=("nanochat",),
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
    checkpoints=(# config.json of karpathy/nanochat-d32 at revision refs/pr/1 (main has none), partial: the keys listed in
# hlky/dinoml_v2 agents/plans/transformers/nanochat/config_sweep.json, its legacy logits soft cap given as the class's
# final_logit_softcapping; keys not listed keep the class default
Checkpoint("karpathy/nanochat-d32", "nanochat d32", {
    "architectures": ["NanoChatForCausalLM"], "dtype": "bfloat16", "hidden_size": 2048, "intermediate_size": 8192,
    "num_hidden_layers": 32, "num_attention_heads": 16, "num_key_value_heads": 16, "vocab_size": 65536,
    "max_position_embeddings": 2048, "hidden_act": "relu2", "attention_bias": False,
    "rope_parameters": {"rope_theta": 10000.0, "rope_type": "default"}, "tie_word_embeddings": False,
    "final_logit_softcapping": 15.0,
}),),
    tiny=tiny("NanoChatConfig"),
)
