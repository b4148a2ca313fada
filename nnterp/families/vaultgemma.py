"""VaultGemma (VaultGemmaForCausalLM).

Gemma's arithmetic on Llama's sequential pre-norm block: embed_tokens multiplies the embeddings by
sqrt(hidden_size) inside its forward, RMSNorms compute x * (1 + weight), the gated MLP uses
GELU-tanh, and the pre-MLP norm is named pre_feedforward_layernorm (post_attention_layernorm: it
normalizes the stream after the attention add; there is no post-norm). The kernel scales scores by
query_pre_attn_scalar ** -0.5 and soft-caps them, attn_logit_softcapping * tanh(s / cap), before the
mask; attention_scores are read after the cap and the mask, at the softmax's input. The logits are
soft-capped too, final_logit_softcapping * tanh(lm_head_output / cap). sdpa cannot cap, so
transformers refuses it: the model runs eager (or flash/flex).
"""

from nnterp.family import Checkpoint, Family
from nnterp.readout import SOFTCAPPED

from ._llama import tiny

FAMILY = Family(
    name="vaultgemma",
    model_types=("vaultgemma",),
    summary="Gemma 2's arithmetic on a pre-norm block without post-norms: scaled embeddings, 1 + weight norms, "
            "soft-capped attention scores and logits.",
    tags=("Sequential block", "RMSNorm (1 + w)", "Scaled embeddings", "Attention softcap", "Logit softcap",
          "Sliding window", "Tied embeddings"),
    rename={"pre_feedforward_layernorm": "post_attention_layernorm"},
    sites={
        "token_embeddings": "The embedding module's output, already multiplied by sqrt(hidden_size) inside it",
        "attention_scores": "The attention scores entering the softmax: scaled, soft-capped to "
                            "attn_logit_softcapping * tanh(s / attn_logit_softcapping), then masked",
    },
    readout=SOFTCAPPED,
    loads=("eager",),
    checkpoints=(
        # google/vaultgemma-1b's config.json is gated; its sizes as given in keras-hub's
        # test_convert_vaultgemma_backbone_config (vocab, layers, heads, hidden, intermediate, head_dim,
        # query_pre_attn_scalar, sliding_window), and the rest as tabulated from the open mirrors' config.json
        # (OpenKing/vualtgemma-1b-non-gated, onnx-community/vaultgemma-1b-ONNX) in hlky/dinoml_v2's VaultGemma audit: the
        # same sizes, every layer full attention, no soft-caps, 1024 positions, rope_theta 10000
        Checkpoint("google/vaultgemma-1b", "VaultGemma-1B", {
            "architectures": ["VaultGemmaForCausalLM"], "num_hidden_layers": 26, "hidden_size": 1152,
            "intermediate_size": 6912, "num_attention_heads": 4, "num_key_value_heads": 4, "head_dim": 256,
            "vocab_size": 256000, "max_position_embeddings": 1024, "hidden_activation": "gelu_pytorch_tanh",
            "rms_norm_eps": 1e-06, "attention_bias": False, "query_pre_attn_scalar": 256, "sliding_window": 512,
            "layer_types": ["full_attention"] * 26, "attn_logit_softcapping": None, "final_logit_softcapping": None,
            "pad_token_id": 0, "eos_token_id": 1, "bos_token_id": 2,
            "rope_parameters": {"rope_type": "default", "rope_theta": 10000.0}, "dtype": "bfloat16",
        }),
    ),
    tiny=tiny("VaultGemmaConfig", head_dim=16),
)
