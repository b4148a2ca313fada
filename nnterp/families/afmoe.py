"""AFMoE (AfmoeForCausalLM).

Arcee's Trinity models.

Gemma 2's sandwich of four norms with other names for the MLP's: input_layernorm -> self_attn ->
post_attention_layernorm (a post-norm on the attention's output) -> add; pre_mlp_layernorm -> mlp ->
post_mlp_layernorm -> add. attention_output and mlp_output are the post-norms' outputs; layer_mid
is pre_mlp_layernorm's input. With mup_enabled the model multiplies the embeddings by
sqrt(hidden_size) before the first block (token_embeddings is then the product).

The attention normalizes query and key heads (q_norm, k_norm); only the sliding-window (local)
layers are rotated, the full-attention layers carry no position. The kernel's output is gated,
out * sigmoid(self_attn.gate_proj(x)), before o_proj: attention_head_outputs is before the gate,
attention_premix after it. The first num_dense_layers blocks have a dense gated MLP; the others an
AfmoeSparseMoeBlock: a router (AfmoeTokenChoiceRouter: on the positions flattened to
[tokens, hidden_size], logits from its Linear router.gate, sigmoid scores, the top_k of
scores + expert_bias, weights the chosen scores normalized over the top_k and times route_scale),
fused experts, and shared_experts, a gated MLP on every position added to the routed output.
"""

from nnterp.declare.blocks import PostNorms
from nnterp.declare.family import Family, HostContext
from nnterp.declare.routers import LOGITS_BEFORE_SIGMOID, MoE, Router, experts_sentence
from nnterp.declare.sites import KERNEL_ARGUMENTS, Argument, Call, Child, Read
from nnterp.families._llama import tiny

_EMBEDDINGS = Read(Child("embed_tokens"))
_SCALED_EMBEDDINGS = Read(
    Child("embed_tokens"), scale=lambda config: config.hidden_size ** 0.5,
    description="The embeddings as the first block receives them: embed_tokens' output times sqrt(hidden_size) "
                "(mup_enabled)")


def _token_embeddings(context: HostContext):
    return _SCALED_EMBEDDINGS if getattr(context.config, "mup_enabled", False) else _EMBEDDINGS


def _kernel_argument(index: int, what: str) -> Read:
    return Read(Call("attention_interface", "input"), Argument(index), condition=KERNEL_ARGUMENTS,
                description=f"The {what} entering attention: normed per head, then rotated on the local "
                            f"(sliding-window) layers; the full-attention layers are not rotated")


FAMILY = Family(
    name="afmoe",
    summary="A sandwich block with gated attention heads, rotary on the local layers only, and a sigmoid-routed "
            "mixture of experts with a shared expert after the first dense blocks.",
    tags=("Sandwich norms", "RMSNorm", "QK-norm", "Gated attention", "Sliding window", "Mixture of experts",
          "Shared expert"),
    block=PostNorms("post_attention_layernorm", "post_mlp_layernorm", pre_mlp="pre_mlp_layernorm"),
    moe=MoE(
        Router("router", logits_module="router.gate", logits=LOGITS_BEFORE_SIGMOID,
               weights_description="The chosen experts' sigmoid scores (the choice adds expert_bias, the "
                                   "weights do not), normalized over the top_k and times route_scale"),
        experts_sentence("experts.gate_up_proj [num_experts, 2·moe_intermediate_size, hidden_size] and "
                         "experts.down_proj [num_experts, hidden_size, moe_intermediate_size], plus "
                         "shared_experts, a gated MLP on every position")),
    sites={
        "token_embeddings": _token_embeddings,
        "attention_queries": _kernel_argument(1, "queries"),
        "attention_keys": _kernel_argument(2, "keys"),
        "attention_head_outputs": "The per-head outputs of the kernel, before the output gate sigmoid(gate_proj(x))",
        "attention_premix": "What o_proj takes: the heads' outputs times the output gate sigmoid(gate_proj(x))",
    },
    tiny=tiny("AfmoeConfig", head_dim=16, moe_intermediate_size=64, num_experts=4, num_experts_per_tok=2,
              num_dense_layers=1, layer_types=["sliding_attention", "full_attention"]),
)
