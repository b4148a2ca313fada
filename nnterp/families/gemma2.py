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

from nnterp.declare.blocks import SANDWICH
from nnterp.declare.family import EAGER_LOADS, Family
from nnterp.declare.readout import SOFTCAPPED
from nnterp.families._llama import tiny
from nnterp.families._sandwich_gemma2 import SCALED_EMBEDDINGS, softcapped_scores

FAMILY = Family(
    name="gemma2",
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
    loads=EAGER_LOADS,
    tiny=tiny("Gemma2Config", head_dim=16),
)

