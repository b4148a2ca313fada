"""Command R7B / Command A (Cohere2ForCausalLM).

Command R's parallel block: input_layernorm (bias-free LayerNorm) feeds both sublayers and
out = x + attn + mlp, so there is no layer_mid. config.layer_types makes three layers of four
sliding-window layers, which are rotated, and the fourth a full-attention layer without rotary
(NoPE); which applies is read per block. The head is tied and the logits are lm_head's output times
logit_scale, which project_on_vocab applies.
"""

from nnterp.family import Checkpoint, Family

from ._llama import tiny
from ._parallel_cohere import COHERE_BLOCK, rotated_on_sliding_layers, times_logit_scale

FAMILY = Family(
    name="cohere2",
    model_types=("cohere2",),
    summary="Command R's parallel block with sliding-window layers and unrotated full-attention layers.",
    tags=("Parallel block", "LayerNorm (no bias)", "Sliding window", "NoPE layers", "Scaled logits",
          "Tied embeddings"),
    block=COHERE_BLOCK,
    sites={
        "attention_queries": rotated_on_sliding_layers("queries", 1),
        "attention_keys": rotated_on_sliding_layers("keys", 2),
    },
    readout=times_logit_scale,
    checkpoints=(
        Checkpoint("CohereForAI/c4ai-command-r7b-12-2024", "Command R7B", {
            "architectures": ["Cohere2ForCausalLM"], "num_hidden_layers": 32, "hidden_size": 4096,
            "intermediate_size": 14336, "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 128,
            "vocab_size": 256000, "max_position_embeddings": 8192, "hidden_act": "silu", "layer_norm_eps": 1e-05,
            "logit_scale": 0.25, "sliding_window": 4096, "tie_word_embeddings": True, "dtype": "bfloat16",
        }),
    ),
    tiny=tiny("Cohere2Config", eos_token_id=2, logit_scale=0.25, layer_types=["sliding_attention", "full_attention"]),
)

