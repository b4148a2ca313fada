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
        Checkpoint("google/gemma-2b", "Gemma-2B", {
            "architectures": ["GemmaForCausalLM"], "num_hidden_layers": 18, "hidden_size": 2048,
            "intermediate_size": 16384, "num_attention_heads": 8, "num_key_value_heads": 1, "head_dim": 256,
            "vocab_size": 256000, "max_position_embeddings": 8192, "hidden_activation": "gelu_pytorch_tanh",
            "rms_norm_eps": 1e-06, "tie_word_embeddings": True, "dtype": "bfloat16",
        }),
        Checkpoint("google/gemma-7b", "Gemma-7B"),
    ),
    tiny=tiny("GemmaConfig", head_dim=16),
)


#: What the catalogue of transformers' decoder-only families found for this family's model type: [obs] observed
#: on a tiny model, [src] read in the modeling source, [cfg] a config default, [inf] inferred and not verified;
#: caveats say what a standard value meets here. The page lists them under its traps.
TRAPS = {'gemma': {'caveats': [],
           'quirks': ['embeddings scaled by sqrt(hidden) inside GemmaTextScaledWordEmbedding [src]',
                      'RMSNorm computes x*(1+weight) [src]',
                      'GELU-tanh gated MLP; tied lm_head [obs]']}}
