"""Gemma 2 (Gemma2ForCausalLM).

model.{embed_tokens, layers[i].{input_layernorm, self_attn, post_attention_layernorm,
pre_feedforward_layernorm, mlp, post_feedforward_layernorm}, norm} and lm_head. A sandwich block:
h = x + post_attention_layernorm(self_attn(input_layernorm(x))), then
out = h + post_feedforward_layernorm(mlp(pre_feedforward_layernorm(h))). post_attention_layernorm is
a post-norm on the attention's output, not Llama's pre-MLP norm; attention_output and mlp_output
are the post-norms' outputs, layer_mid is pre_feedforward_layernorm's input. RMSNorms compute
x * (1 + weight); embed_tokens multiplies by sqrt(hidden_size) inside its forward. Layers alternate
sliding-window and full attention. The kernel scales by query_pre_attn_scalar ** -0.5 and soft-caps
the scores (attn_logit_softcapping * tanh(s / cap)) before the mask, so attention_scores are capped;
sdpa cannot cap and transformers refuses it. The logits are soft-capped too:
final_logit_softcapping * tanh(lm_head_output / cap), which project_on_vocab applies.
"""

from nnterp.blocks import SANDWICH
from nnterp.family import Checkpoint, Family
from nnterp.readout import SOFTCAPPED

from ._llama import tiny
from ._sandwich_gemma2 import SCALED_EMBEDDINGS, softcapped_scores

FAMILY = Family(
    name="gemma2",
    model_types=("gemma2",),
    summary="A sandwich block, with a norm before and after each sublayer, soft-capped attention scores and "
            "logits, and alternating sliding-window layers.",
    tags=("Sandwich norms", "RMSNorm (1 + w)", "Scaled embeddings", "Attention softcap", "Logit softcap",
          "Sliding window", "Tied embeddings"),
    block=SANDWICH,
    sites={
        "token_embeddings": SCALED_EMBEDDINGS,
        "attention_scores": softcapped_scores(),
    },
    readout=SOFTCAPPED,
    loads=("eager",),
    checkpoints=(
        # config.json of google/gemma-2-2b (transformers 4.44.2), copied with its _name_or_path in kohya-ss/sd-scripts
        # library/lumina_util.py (GEMMA2_CONFIG); tie_word_embeddings is not in that copy (the class default)
        Checkpoint("google/gemma-2-2b", "Gemma-2-2B", {
            "architectures": ["Gemma2ForCausalLM"], "num_hidden_layers": 26, "hidden_size": 2304,
            "intermediate_size": 9216, "num_attention_heads": 8, "num_key_value_heads": 4, "head_dim": 256,
            "vocab_size": 256000, "max_position_embeddings": 8192, "hidden_activation": "gelu_pytorch_tanh",
            "rms_norm_eps": 1e-06, "query_pre_attn_scalar": 256, "sliding_window": 4096,
            "attn_logit_softcapping": 50.0, "final_logit_softcapping": 30.0, "tie_word_embeddings": True,
            "dtype": "float32",
        }),
        # config.json of unsloth/gemma-2-9b, a re-upload of google/gemma-2-9b's weights (mirrored in hlky/dinoml_v2
        # agents/plans/transformers/gemma2/_sources/unsloth/gemma-2-9b.config.json)
        Checkpoint("google/gemma-2-9b", "Gemma-2-9B", {
            "architectures": ["Gemma2ForCausalLM"], "attention_bias": False, "attn_logit_softcapping": 50.0,
            "cache_implementation": "hybrid", "final_logit_softcapping": 30.0, "head_dim": 256,
            "hidden_act": "gelu_pytorch_tanh", "hidden_activation": "gelu_pytorch_tanh", "hidden_size": 3584,
            "intermediate_size": 14336, "layer_types": ["sliding_attention", "full_attention"] * 21,
            "max_position_embeddings": 8192, "num_attention_heads": 16, "num_hidden_layers": 42,
            "num_key_value_heads": 8, "query_pre_attn_scalar": 256, "rms_norm_eps": 1e-06, "rope_theta": 10000.0,
            "sliding_window": 4096, "sliding_window_size": 4096, "dtype": "bfloat16", "vocab_size": 256000,
        }),
        # config.json of unsloth/gemma-2-27b-it, a re-upload of google/gemma-2-27b-it's weights (mirrored in
        # hlky/dinoml_v2 agents/plans/transformers/gemma2/_sources/unsloth__gemma-2-27b-it.config.json)
        Checkpoint("google/gemma-2-27b-it", "Gemma-2-27B-IT", {
            "architectures": ["Gemma2ForCausalLM"], "attention_bias": False, "attn_logit_softcapping": 50.0,
            "cache_implementation": "hybrid", "final_logit_softcapping": 30.0, "head_dim": 128,
            "hidden_act": "gelu_pytorch_tanh", "hidden_activation": "gelu_pytorch_tanh", "hidden_size": 4608,
            "intermediate_size": 36864, "max_position_embeddings": 8192, "num_attention_heads": 32,
            "num_hidden_layers": 46, "num_key_value_heads": 16, "query_pre_attn_scalar": 144, "rms_norm_eps": 1e-06,
            "rope_theta": 10000.0, "sliding_window": 4096, "sliding_window_size": 4096, "dtype": "bfloat16",
            "vocab_size": 256000, "bos_token_id": 2, "eos_token_id": 1, "pad_token_id": 0,
        }),
    ),
    tiny=tiny("Gemma2Config", head_dim=16),
)

