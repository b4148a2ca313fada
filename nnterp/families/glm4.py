"""GLM-4 (Glm4ForCausalLM).

GLM-4-0414 and its descendants.

GLM's attention (bias on q, k, v; rotary on half of each head) and fused MLP (mlp.gate_up_proj split
in halves, mlp.activation_fn (act_fn) on the gate, down_proj taking act(gate) * up) in a sandwich
block: h = x + post_self_attn_layernorm(self_attn(input_layernorm(x))), then
out = h + post_mlp_layernorm(mlp(post_attention_layernorm(h))). post_attention_layernorm keeps
Llama's meaning (the pre-MLP norm on the stream, so layer_mid and mlp_norm_output are where
Llama's are); attention_output and mlp_output are the post-norms' outputs.
"""

from nnterp.blocks import GLM4_POSTNORMS
from nnterp.family import Checkpoint, Family

from ._llama import tiny

FAMILY = Family(
    name="glm4",
    model_types=("glm4",),
    summary="GLM's attention and fused MLP in a sandwich block, with a post-norm on each sublayer's output.",
    tags=("Sandwich norms", "RMSNorm", "Biased q, k, v", "Partial rotary", "Fused gate/up", "Grouped keys/values"),
    rename={"activation_fn": "act_fn"},
    block=GLM4_POSTNORMS,
    checkpoints=(
        Checkpoint("THUDM/GLM-4-9B-0414", "GLM-4-9B-0414", {
            "architectures": ["Glm4ForCausalLM"], "num_hidden_layers": 40, "hidden_size": 4096,
            "intermediate_size": 13696, "num_attention_heads": 32, "num_key_value_heads": 2, "head_dim": 128,
            "vocab_size": 151552, "max_position_embeddings": 32768, "hidden_act": "silu", "rms_norm_eps": 1e-05,
            "partial_rotary_factor": 0.5, "attention_bias": True, "tie_word_embeddings": False, "dtype": "bfloat16",
        }),
        # text_config of zai-org/GLM-OCR's config.json (mirrored in hlky/dinoml_v2
        # agents/plans/transformers/glm_ocr/_sources/zai-org_GLM-OCR_config.json)
        Checkpoint("zai-org/GLM-OCR", "GLM-OCR", {
            "vocab_size": 59392, "attention_bias": False, "head_dim": 128, "hidden_act": "silu", "hidden_size": 1536,
            "intermediate_size": 4608, "max_position_embeddings": 131072, "num_attention_heads": 16,
            "num_hidden_layers": 16, "num_nextn_predict_layers": 1, "num_key_value_heads": 8, "rms_norm_eps": 1e-05,
            "dtype": "bfloat16",
            "rope_parameters": {
                "rope_type": "default", "mrope_section": [16, 24, 24], "partial_rotary_factor": 1.0,
                "rope_theta": 10000,
            },
            "tie_word_embeddings": False,
        }),
    ),
    tiny=tiny("Glm4Config", head_dim=16, pad_token_id=0),
)

