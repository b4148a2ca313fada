"""OLMo 2 (Olmo2ForCausalLM).

Llama's module names on a post-norm block with no norm before either sublayer:
h = x + post_attention_layernorm(self_attn(x)), out = h + post_feedforward_layernorm(mlp(h)).
post_attention_layernorm normalizes the attention's output, not the stream the MLP reads; the MLP
reads h unnormed. attention_output and mlp_output are the post-norms' outputs, layer_mid is the
MLP's input, and attention_norm_output and mlp_norm_output do not exist. q_norm and k_norm are
RMSNorms over the whole q_proj and k_proj outputs (all heads at once) before the rotary.
"""

from nnterp.blocks import OLMO2_POSTNORMS
from nnterp.family import Checkpoint, Family

from ._llama import tiny
from ._postnorm_olmo2 import WIDE_QK_NORM

FAMILY = Family(
    name="olmo2",
    model_types=("olmo2",),
    summary="A post-norm block: each sublayer reads the raw stream and its output is normed before the add, with "
            "query and key RMSNorms over the whole projection.",
    tags=("Post-norm block", "RMSNorm", "QK-norm", "Gated MLP"),
    block=OLMO2_POSTNORMS,
    sites={
        "attention_queries": "The queries entering attention:" + WIDE_QK_NORM.format(norm="q_norm"),
        "attention_keys": "The keys entering attention:" + WIDE_QK_NORM.format(norm="k_norm"),
    },
    checkpoints=(
        Checkpoint("allenai/OLMo-2-0425-1B", "OLMo-2-1B", {
            "architectures": ["Olmo2ForCausalLM"], "num_hidden_layers": 16, "hidden_size": 2048,
            "intermediate_size": 8192, "num_attention_heads": 16, "num_key_value_heads": 16, "vocab_size": 100352,
            "max_position_embeddings": 4096, "hidden_act": "silu", "rms_norm_eps": 1e-06,
            "tie_word_embeddings": False, "dtype": "float32",
        }),
        # config.json of allenai/OLMo-2-1124-7B (mirrored in hlky/dinoml_v2
        # agents/plans/transformers/olmo2/_sources/allenai_OLMo-2-1124-7B_config.json)
        Checkpoint("allenai/OLMo-2-1124-7B", "OLMo-2-7B", {
            "architectures": ["Olmo2ForCausalLM"], "attention_bias": False, "hidden_act": "silu", "hidden_size": 4096,
            "intermediate_size": 11008, "max_position_embeddings": 4096, "num_attention_heads": 32,
            "num_hidden_layers": 32, "num_key_value_heads": 32, "rms_norm_eps": 1e-06, "rope_scaling": None,
            "rope_theta": 500000, "tie_word_embeddings": False, "dtype": "float32", "vocab_size": 100352,
        }),
    ),
    tiny=tiny("Olmo2Config", eos_token_id=2),
)

