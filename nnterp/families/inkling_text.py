"""Inkling, text model (InklingForCausalLM).

model.{embed_tokens (a normed embedding), layers[i].{input_layernorm, self_attn, attn_sconv,
post_attention_layernorm, mlp, mlp_sconv}, norm} and lm_head. A sequential pre-norm block whose
sublayer outputs pass a short causal convolution before the add: h = x +
attn_sconv(self_attn(input_layernorm(x))), out = h + mlp_sconv(mlp(post_attention_layernorm(h))),
a bare tensor; attention_output and mlp_output are the convolutions' outputs. By
config.layer_types the attention is sliding or full; it has no rotary: q_norm and k_norm, short
convolutions on keys and values (k_sconv, v_sconv), and relative logits (rel_logits_proj over
r_proj's states) added to the scores as position_bias inside the kernel. The MLP is a mixture of
experts with shared experts. The model divides the final norm's output by
logits_mup_width_multiplier before lm_head and drops padded vocabulary rows (unpadded_vocab_size).
"""

from nnterp.declare.blocks import Block, attention_dims
from nnterp.declare.family import COMMON_SITES, Family, described
from nnterp.declare.routers import unrouted_neurons
from nnterp.declare.sites import Read, Sibling
from nnterp.families._inkling import HEAD_INPUT, MUP_UNPADDED
from nnterp.families._llama import tiny

_SCORES = COMMON_SITES["attention_scores"]

FAMILY = Family(
    name="inkling_text",
    model_types=("inkling_text", "inkling"),
    summary="A pre-norm block whose attention and MLP outputs pass short causal convolutions before the add, with "
            "relative-logit attention without rotary and a mixture of experts.",
    tags=("Sequential block", "Short convolutions", "Relative position logits", "QK norm", "Sliding window",
          "Mixture of experts", "muP head", "RMSNorm"),
    # sliding blocks have their own heads (swa_num_key_value_heads 16 against 8 on Inkling)
    block=Block(dims=attention_dims),
    sites={
        "final_norm_output": HEAD_INPUT,
        "attention_scores": described("attention_scores", "The attention scores entering the softmax, masked: q·k scaled, plus the relative logits "
                                      "(position_bias)"),
        "attention_output": Read(
            Sibling("attn_sconv"),
            description="What the attention adds to the residual stream: its output after the short convolution "
                        "attn_sconv"),
        "mlp_output": Read(
            Sibling("mlp_sconv"),
            description="What the MLP adds to the residual stream: its output after the short convolution mlp_sconv"),
        **unrouted_neurons(),
    },
    readout=MUP_UNPADDED,
    tiny=tiny("InklingTextConfig", moe_intermediate_size=64, head_dim=16, swa_head_dim=16, n_routed_experts=4,
              num_experts_per_tok=2, swa_num_attention_heads=4, swa_num_key_value_heads=4,
              layer_types=["hybrid_sliding", "hybrid"], mlp_layer_types=["sparse", "sparse"]),
)
