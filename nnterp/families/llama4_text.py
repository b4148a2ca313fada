"""Llama 4, the language model (Llama4ForCausalLM).

Llama's module names with an MLP slot named feed_forward (aliased mlp) and three kinds of
attention layer. Layers with rotary (no_rope_layers 1) rotate queries and keys as complex pairs,
then L2-normalize them per head (qk_norm, when use_qk_norm), and attend within chunks of
attention_chunk_size positions (chunked_attention); every fourth layer is NoPE: no rotary, no
norm, full attention, and with attn_temperature_tuning its queries are multiplied by
1 + attn_scale·log(1 + floor((position + 1)/floor_scale)) before the kernel, so
attention_queries are the tuned queries. The layers in moe_layers hold a Llama4TextMoe of a router
(Llama4Router, itself an nn.Linear), experts (Llama4TextExperts, fused gate_up_proj
[num_local_experts, hidden_size, 2·intermediate_size] and down_proj, run as batched matmuls on
every expert) and a shared_expert; the others a dense Llama4TextMLP of width intermediate_size_mlp.
The router takes the top_k logits and hands the experts a dense [tokens, num_experts] map holding
sigmoid of those logits at the chosen experts and zero elsewhere; the MoE block scales each
expert's input (not its output) by that map, runs all experts, sums them onto the shared
expert's output in place and returns (output [tokens, hidden_size], router_logits), element 0
being served as mlp_output in [batch seq hidden_size].
"""

from nnterp.declare.family import Family
from nnterp.declare.routers import InRouter, MoE, RouterRead, RouterValues, ScoresAtChoices
from nnterp.declare.sites import TOKEN_ROWS, Element, Own, Read
from nnterp.families._llama import tiny

MOE_OUTPUT = Read(Own("output"), Element(0), TOKEN_ROWS,
                  description="What the MoE block adds to the residual stream: element 0 of its output, computed on "
                              "the flattened positions [tokens, hidden_size] and served as [batch seq hidden_size]")
ROUTED = {
    "router_logits": RouterRead(
        InRouter("router", "forward"),
        description="The router's score for every expert: the router is an nn.Linear, read at its super().forward "
                    "call"),
    "router_choices": ScoresAtChoices(
        InRouter("router"), Element(0), choices=True,
        description="The experts each position is sent to: the top_k logits, found where the router's dense score "
                    "map is nonzero; read-only"),
    "router_weights": ScoresAtChoices(
        InRouter("router"), Element(0), description="sigmoid of the chosen experts' logits: the entries, at the chosen experts, of the dense "
                              "score map the router returns; the block multiplies each expert's input (not its "
                              "output) by it"),
}

FAMILY = Family(
    name="llama4_text",
    summary="The language model of Llama 4: chunked local attention with rotary and L2 query/key norms, every fourth "
            "layer global NoPE with temperature-tuned queries, and a sigmoid-gated expert beside a shared one.",
    tags=("Sequential block", "RMSNorm", "Grouped keys/values", "NoPE layers", "Chunked attention", "QK-norm",
          "Mixture of experts", "Shared experts"),
    rename={"feed_forward": "mlp", "activation_fn": "act_fn"},
    moe=MoE(RouterValues("router", ROUTED), (
        "a mixture of experts: every expert runs on every position, its input scaled by the router's score (zero "
        "off the chosen experts), as one batched matmul over the fused experts.gate_up_proj [num_local_experts, "
        "hidden_size, 2·intermediate_size] and experts.down_proj, so no [batch seq intermediate_size] tensor of "
        "neurons exists"), num_experts="num_local_experts", output=MOE_OUTPUT),
    accessors={"intermediate_size": lambda c: c.intermediate_size_mlp},
    tiny=tiny("Llama4TextConfig", intermediate_size_mlp=128, head_dim=16, num_local_experts=4,
              layer_types=["chunked_attention", "full_attention"], no_rope_layers=[1, 0]),
    variants={"dense_layer": {"moe_layers": [0]}},
)
