"""ERNIE 4.5 VL, the language model (Ernie4_5_VLMoeTextModel).

ERNIE 4.5 MoE's attention and block (its interleaved rotary three-dimensional here: mrope_section splits each
head's frequencies between height, width and time, computed once outside the blocks), with modality-isolated
experts: an MoE block (Ernie4_5_VLMoeMoeBlock, on the blocks mlp_layer_types marks sparse; the others hold a dense
gated MLP) holds two sparse MoE blocks, text_moe and vision_moe, each its own router gate (ERNIE 4.5 MoE's, with
moe_statics) and fused experts (of widths moe_intermediate_size[0] and [1]), and shared_experts of the text width.
The block takes moe_mm_token_type_ids beside the stream: where it marks no position, text_moe routes them all;
otherwise text_moe routes and runs on the unmarked positions' rows, then vision_moe on the marked ones, and the
outputs are written back at their positions. It returns (experts + shared_experts, the router logits): mlp_output
is its first element.
"""

from nnterp.declare.routers import LOGITS_BEFORE_SOFTMAX, MoE, Router, TokenTypeRouters, experts_sentence
from nnterp.declare.sites import Argument, Element, Own, Read
from nnterp.wrappers.stacks import like


def _router(module: str) -> Router:
    return Router(
        module, "F.linear", logits=LOGITS_BEFORE_SOFTMAX + " (computed in float32)",
        weights_description="The chosen experts' softmax probabilities over all experts, renormalized over the top_k "
                            "(the choice adds moe_statics.e_score_correction_bias; the weights do not)",
        choices_description="The experts each position is sent to: the top_k of softmax(logits) + "
                            "e_score_correction_bias; read-only")


FAMILY = like(
    "ernie4_5_moe", __name__,
    summary="ERNIE 4.5 MoE's block with modality-isolated experts: text and image positions go to their own "
            "router and experts (text_moe, vision_moe, by moe_mm_token_type_ids), beside shared experts.",
    tags=("Sequential block", "RMSNorm", "Grouped keys/values", "Mixture of experts", "Shared experts",
          "Multimodal rotary", "Tied embeddings"),
    moe=MoE(
        TokenTypeRouters(_router("text_moe.gate"), _router("vision_moe.gate"),
                         Argument(1, "moe_mm_token_type_ids")),
        experts_sentence("text_moe.experts and vision_moe.experts, each gate_up_proj [moe_num_experts, "
                         "2·moe_intermediate_size[i], hidden_size] and down_proj"),
        num_experts="moe_num_experts", top_k="moe_k",
        is_moe=lambda context: hasattr(context.module, "text_moe"),
        output=Read(Own("output"), Element(0),
                    description="What the MLP adds to the residual stream: the experts' outputs plus the shared "
                                "experts', the first element of what the block returns")),
)
