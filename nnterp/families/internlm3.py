"""InternLM3 (LlamaForCausalLM under InternLM3Config).

transformers builds InternLM3 as LlamaForCausalLM: its own config class (model_type internlm3,
with qkv_bias and bias mapped onto Llama's attention_bias and mlp_bias) and Llama's modules, block
and kernel call, so every value is read where Llama's is.
"""

from nnterp.family import Checkpoint, Family

from ._llama import tiny

FAMILY = Family(
    name="internlm3",
    model_types=("internlm3",),
    summary="InternLM3's config on Llama's model class: every value where Llama's is.",
    tags=("Sequential block", "RMSNorm", "Grouped keys/values", "Gated MLP"),
    checkpoints=(
        # config.json of internlm/internlm3-8b-instruct ("bias": false, "qkv_bias": false there)
        Checkpoint("internlm/internlm3-8b-instruct", "InternLM3-8B-Instruct", {
            "architectures": ["InternLM3ForCausalLM"], "num_hidden_layers": 48, "hidden_size": 4096,
            "intermediate_size": 10240, "num_attention_heads": 32, "num_key_value_heads": 2, "head_dim": 128,
            "vocab_size": 128512, "max_position_embeddings": 32768, "hidden_act": "silu", "rms_norm_eps": 1e-05,
            "tie_word_embeddings": False,
            "rope_parameters": {"rope_type": "dynamic", "factor": 6.0, "rope_theta": 50000000},
            "dtype": "bfloat16",
        }),
    ),
    tiny=tiny("InternLM3Config", head_dim=16),
)
