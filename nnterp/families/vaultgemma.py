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

from nnterp.declare.family import EAGER_LOADS, Family
from nnterp.declare.readout import SOFTCAPPED
from nnterp.families._llama import tiny

FAMILY = Family(
    name="vaultgemma",
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
    loads=EAGER_LOADS,
    tiny=tiny("VaultGemmaConfig", head_dim=16),
)
