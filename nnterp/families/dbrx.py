"""DBRX (DbrxForCausalLM).

transformer.{wte, blocks[i].{norm_attn_norm.{norm_1, attn.{Wqkv, out_proj}, norm_2}, ffn.{router.layer,
experts.mlp.{w1, v1, w2}}}, norm_f} and lm_head, untied. A sequential pre-norm block whose first half is one module:
norm_attn_norm computes h = x + attn(norm_1(x)) and returns (h, norm_2(h)), adding the residual inside; the block
then adds ffn(norm_2(h)) to h. self_attn is norm_attn_norm.attn, the attention itself, whose output is what the
attention adds (norm_attn_norm's own output is the stream after the add, and layer_mid is the first element it
returns); norm_1 and norm_2 (LayerNorms without bias) are input_layernorm and post_attention_layernorm on the block.
The attention clamps the fused Wqkv's output to +-clip_qkv, splits it into num_heads queries and kv_n_heads keys and
values (grouped), applies rotate_half rotary to whole heads, and calls the kernel chosen at run time through
attention_interface, scaled by head_dim ** -0.5. The MLP slot ffn is a mixture of experts: router.layer scores every
position over moe_num_experts experts, route_tokens_to_experts takes the softmax, keeps the moe_top_k best and
divides their weights by their p-norm (moe_normalize_expert_weights, 1 by default: they sum to one), and experts
runs each chosen expert's gated MLP (silu(x w1^T) * (x v1^T) @ w2) on the rows routed to it, from slices of fused
weights [moe_num_experts * ffn_hidden_size, d_model]; the weighted sum is mlp_output.
"""


from nnterp.declare.family import Family
from nnterp.declare.routers import MoE, RouterRead, RouterValues, every_block
from nnterp.declare.sites import WHOLE, Call, Element

NEURONS = (
    "a mixture of experts: each position's neurons are those of its top-k experts, computed inside experts.mlp, "
    "which the experts call once per chosen expert on the rows routed to it with slices of the fused weights w1, "
    "v1 and w2 [moe_num_experts * ffn_hidden_size, d_model], so no [batch seq intermediate_size] tensor exists; "
    "the MoE block's output is mlp_output and the routing is router_logits, router_choices and router_weights")


FAMILY = Family(
    name="dbrx",
    summary="Databricks' DBRX: a mixture of 16 fine-grained experts choosing 4, behind an attention wrapped with "
            "its two norms in one module that adds the residual itself, with clipped fused qkv and grouped keys.",
    tags=("Sequential block", "Mixture of experts", "Residual inside modules", "Fused qkv", "Grouped keys/values",
          "LayerNorm"),
    rename={
        "transformer.wte": "embed_tokens", "transformer.blocks": "layers", "transformer.norm_f": "norm",
        "norm_attn_norm.attn": "self_attn", "norm_attn_norm.norm_1": "input_layernorm",
        "norm_attn_norm.norm_2": "post_attention_layernorm", "out_proj": "o_proj", "ffn": "mlp",
    },
    moe=MoE(RouterValues("router", {
        "router_logits": RouterRead(
            Call("self.router"), WHOLE,
            description="The router's score for every expert (router.layer's output), before the softmax over all "
                        "experts"),
        "router_weights": RouterRead(
            Call("self.route_tokens_to_experts"), Element(0),
            description="The chosen experts' softmax probabilities over all experts, divided by their p-norm "
                        "(moe_normalize_expert_weights; 1: renormalized to sum to one)"),
        "router_choices": RouterRead(Call("self.route_tokens_to_experts"), Element(1)),
    }), NEURONS, num_experts="ffn_config.moe_num_experts", top_k="ffn_config.moe_top_k", is_moe=every_block),
    accessors={
        "num_kv_heads": lambda c: c.attn_config.kv_n_heads,
        "intermediate_size": lambda c: c.ffn_config.ffn_hidden_size,
    },
    tiny={"config_class": "DbrxConfig", "overrides": {
        "d_model": 64, "n_layers": 2, "n_heads": 4, "vocab_size": 300,
        "attn_config": {"kv_n_heads": 2, "rope_theta": 10000.0, "clip_qkv": 8.0},
        "ffn_config": {"ffn_hidden_size": 128, "moe_num_experts": 4, "moe_top_k": 2}}},
)
