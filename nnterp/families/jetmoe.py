"""JetMoE (JetMoeForCausalLM).

model.{embed_tokens, layers[i].{input_layernorm, self_attention.{kv_proj, experts.{router,
input_linear, output_linear}}, post_attention_layernorm, mlp.{router.layer, input_linear,
output_linear, activation}}, norm} and lm_head, tied to the embeddings. Llama's sequential
pre-norm block with a mixture of experts in both sublayers. The attention (self_attention,
standard name self_attn) is a mixture of attention heads: its own top-k router sends each position
to num_experts_per_tok query experts, each with its own query projection (experts.input_linear)
to num_key_value_heads heads of kv_channels, and its own output projection (experts.output_linear);
kv_proj gives one set of keys and values, which the attention tiles (repeat, not interleave) once
per routed expert before the kernel, called through attention_interface. So the kernel sees
num_attention_heads = num_key_value_heads * num_experts_per_tok query heads and as many key heads,
and model.num_kv_heads counts those tiled heads. The experts' gated outputs are summed and a bias
added: attention_premix is the kernel's per-head output as experts.reduce takes it. The MLP is a
JetMoeMoE: a top-k router (router.layer logits, a softmax over the kept top-k logits) and
per-expert fused weights input_linear [num_experts, 2·intermediate_size, hidden_size] and
output_linear [num_experts, hidden_size, intermediate_size], run on positions sorted by expert
(silu(gate) * up), weighted, summed, plus a bias. The attention returns (output, weights,
router_logits); the block returns a bare tensor.
"""


from nnterp.declare.family import Family, described
from nnterp.declare.routers import EXPERT_HEADS, InRouter, MoE, RouterRead, RouterValues, TopKChoices, every_block
from nnterp.declare.sites import Argument, Call, Element, Nowhere, Read


NEURONS = (
    "a mixture of experts: each position's neurons are those of its top-k experts, computed on positions sorted by "
    "expert with the fused weights input_linear [num_experts, 2·intermediate_size, hidden_size] and output_linear "
    "[num_experts, hidden_size, intermediate_size], so no [batch seq intermediate_size] tensor exists; the block's "
    "output is mlp_output and the routing is router_logits, router_choices and router_weights"
)

ROUTED = {
    "router_logits": RouterRead(
        InRouter("router", "self.layer"), description="The router's score for every expert, before the top-k choice"),
    "router_choices": TopKChoices(
        RouterRead(InRouter("router"), Element(4)), None,
        description="The experts each position is sent to: the top-k of the router's logits, which the router "
                    "returns last; read-only"),
    "router_weights": RouterRead(
        InRouter("router", "torch.softmax"),
        description="The chosen experts' weights: a softmax over the top-k logits"),
}

FAMILY = Family(
    name="jetmoe",
    summary="Llama's block with experts in both sublayers: a mixture of attention heads (routed query and output "
            "projections over shared keys and values) and a top-2 of 8 mixture-of-experts MLP.",
    tags=("Sequential block", "RMSNorm", "Mixture of attention heads", "Mixture of experts", "Tied embeddings"),
    rename={"self_attention": "self_attn"},
    moe=MoE(RouterValues("router", ROUTED), NEURONS, num_experts="num_local_experts", is_moe=every_block),
    sites={
        "attention_keys": "The keys entering attention: kv_proj's num_key_value_heads heads, rotated, tiled once per "
                          "routed query expert",
        "attention_values": "The values entering attention: kv_proj's num_key_value_heads heads tiled once per routed "
                            "query expert",
        "attention_keys_unrotated": Nowhere(
            "the keys enter the rotary as kv_proj's num_key_value_heads heads and are tiled once per routed query "
            "expert only after it, so no tensor before the rotary has the num_kv_heads heads the Keys layout counts"),
        "attention_premix": Read(
            Call("self.experts.reduce", "input"), Argument(0), EXPERT_HEADS,
            description="Every head's output side by side, as the routed experts' output projections take them "
                        "(experts.reduce): num_experts_per_tok experts of num_key_value_heads heads"),
        "attention_output": "What the attention adds to the residual stream: the routed experts' gated output "
                            "projections summed, plus the experts' bias",
        "mlp_output": described("mlp_output", "What the MoE block adds to the residual stream: the chosen experts' outputs weighted by "
                                "router_weights and summed, plus the block's bias"),
    },
    accessors={
        "num_kv_heads": lambda c: c.num_attention_heads,
        "head_dim": lambda c: c.kv_channels, "qk_head_dim": lambda c: c.kv_channels,
    },
    tiny={"config_class": "JetMoeConfig", "overrides": {
        "hidden_size": 64, "num_hidden_layers": 2, "num_key_value_heads": 2, "intermediate_size": 128,
        "vocab_size": 300, "kv_channels": 16, "num_local_experts": 4, "num_experts_per_tok": 2}},
)
