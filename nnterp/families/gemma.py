"""Gemma (GemmaForCausalLM).

The first generation.

Llama's modules and sequential pre-norm block with three differences in the arithmetic:
embed_tokens (GemmaTextScaledWordEmbedding) multiplies the embeddings by sqrt(hidden_size) inside
its own forward, so token_embeddings, its output, is already scaled; every RMSNorm computes
x * (1 + weight) in float32; and the gated MLP uses GELU-tanh. embed_tokens and lm_head are tied,
and logits are lm_head's output with nothing applied.
"""

from nnterp.family import Checkpoint, Family

from ._llama import tiny

FAMILY = Family(
    name="gemma",
    model_types=("gemma",),
    summary="Llama's block with embeddings scaled by sqrt(hidden_size), RMSNorms that multiply by 1 + weight, "
            "a GELU-tanh gated MLP and a tied head.",
    tags=("Sequential block", "RMSNorm (1 + w)", "Scaled embeddings", "Gated MLP", "Tied embeddings"),
    sites={
        "token_embeddings": "The embedding module's output, already multiplied by sqrt(hidden_size) inside it; "
                            "layers[0].input is this tensor",
    },
    checkpoints=(
        # hidden_act, rope_theta and the token ids as in google/gemma-2b's config.json of its first release
        # (transformers 4.38.0.dev0), copied into an earlier version of kohya-ss/sd-scripts library/lumina_util.py
        Checkpoint("google/gemma-2b", "Gemma-2B", {
            "architectures": ["GemmaForCausalLM"], "num_hidden_layers": 18, "hidden_size": 2048,
            "intermediate_size": 16384, "num_attention_heads": 8, "num_key_value_heads": 1, "head_dim": 256,
            "vocab_size": 256000, "max_position_embeddings": 8192, "hidden_activation": "gelu_pytorch_tanh",
            "rms_norm_eps": 1e-06, "tie_word_embeddings": True, "dtype": "bfloat16", "hidden_act": "gelu",
            "rope_theta": 10000.0, "bos_token_id": 2, "eos_token_id": 1, "pad_token_id": 0,
        }),
        Checkpoint("google/gemma-7b", "Gemma-7B"),
    ),
    tiny=tiny("GemmaConfig", head_dim=16),
)

