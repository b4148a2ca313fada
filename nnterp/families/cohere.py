"""Command R (CohereForCausalLM).

Llama's module names on a parallel block: input_layernorm (a LayerNorm without bias, CohereLayerNorm)
is the only norm, its output feeds both the attention and the MLP, and out = x + attn + mlp, so there
is no layer_mid. The rotary pairs interleaved dimensions (2i, 2i+1). With use_qk_norm (Command R+),
each query and key head gets its own LayerNorm (self_attn.q_norm, k_norm) before the rotary. The
head is tied to the embeddings and the logits are lm_head's output times logit_scale (0.0625 on
Command R), which project_on_vocab applies.
"""

from nnterp.family import Checkpoint, Family

from ._llama import tiny
from ._parallel_cohere import COHERE_BLOCK, times_logit_scale

FAMILY = Family(
    name="cohere",
    model_types=("cohere",),
    summary="A parallel block with one bias-free LayerNorm, interleaved rotary, optional per-head query and key "
            "norms, and logits times logit_scale.",
    tags=("Parallel block", "LayerNorm (no bias)", "Scaled logits", "Gated MLP", "Tied embeddings"),
    block=COHERE_BLOCK,
    sites={
        "attention_queries": "The queries entering attention: normed per head by q_norm where use_qk_norm is set, "
                             "then rotated (interleaved pairs)",
        "attention_keys": "The keys entering attention: normed per head by k_norm where use_qk_norm is set, "
                          "then rotated (interleaved pairs)",
    },
    readout=times_logit_scale,
    variants={"qk_norm": {"use_qk_norm": True}},
    checkpoints=(
        Checkpoint("CohereForAI/c4ai-command-r-v01", "Command R (35B)", {
            "architectures": ["CohereForCausalLM"], "num_hidden_layers": 40, "hidden_size": 8192,
            "intermediate_size": 22528, "num_attention_heads": 64, "num_key_value_heads": 64, "vocab_size": 256000,
            "max_position_embeddings": 8192, "hidden_act": "silu", "layer_norm_eps": 1e-05, "logit_scale": 0.0625,
            "use_qk_norm": False, "tie_word_embeddings": True, "dtype": "float16",
        }),
        # config.json of a GPTQ 4-bit re-upload of CohereForAI/c4ai-command-r-plus (its _name_or_path says so: an
        # exact mirror of the same weights, quantization_config dropped), in hlky/dinoml_v2
        # agents/plans/transformers/cohere/_sources/mirror_command_r_plus_gptq_config.json
        Checkpoint("CohereForAI/c4ai-command-r-plus", "Command R+ (qk-norm)", {
            "architectures": ["CohereForCausalLM"], "attention_bias": False, "hidden_act": "silu",
            "hidden_size": 12288, "intermediate_size": 33792, "layer_norm_eps": 1e-05,
            "logit_scale": 0.8333333333333334, "max_position_embeddings": 8192, "model_max_length": 131072,
            "num_attention_heads": 96, "num_hidden_layers": 64, "num_key_value_heads": 8, "rope_theta": 75000000.0,
            "dtype": "float16", "use_qk_norm": True, "vocab_size": 256000,
        }),
    ),
    # logit_scale far from 1, so the readout check tells a scaled logit from lm_head's
    tiny=tiny("CohereConfig", eos_token_id=2, logit_scale=0.25),
)
