"""LongCat-Flash (LongcatFlashForCausalLM).

model.{embed_tokens, layers[i].{input_layernorm[0..1], self_attn[0..1], post_attention_layernorm[0..1],
mlps[0..1], mlp.{router.classifier, experts}}, norm} and lm_head, untied. config.num_layers counts the
blocks; config.num_hidden_layers is twice that (it counts the attention sublayers, the cache's layer
indices layer_idx*2 and layer_idx*2+1). Each block holds two pre-norm attention+MLP sublayer pairs and a
shortcut-connected mixture of experts (ScMoE) forked from the first pair:

    h1  = x + self_attn[0](input_layernorm[0](x))
    n   = post_attention_layernorm[0](h1)
    moe = mlp(n)                                    # the shortcut branch, held until the end
    h2  = h1 + mlps[0](n)
    h3  = h2 + self_attn[1](input_layernorm[1](h2))
    out = h3 + mlps[1](post_attention_layernorm[1](h3)) + moe

The standard block has one attention and one MLP. Here self_attn is the first attention, self_attn[0],
the one that reads the block's input; mlp is the MoE, the block's only router. attention_output is
self_attn[0]'s output, what the stream receives at h1, and layer_mid is h1 (post_attention_layernorm[0]'s
input). mlp_norm_output is n, which the MoE and mlps[0] both read (an edit reaches both); mlp_input is the
MoE's argument, the same tensor, served as a copy so that an edit reaches the MoE alone. mlp_output
is the MoE's output, which the stream receives only at the block's last add. Between them the dense second
half (mlps[0], self_attn[1], mlps[1]) adds its own contributions, which no standard value names: they are
read natively (model.layers[i].mlps[0].output, model.layers[i].self_attn[1].output...). So layer_output is
no sum of layer_input and the two contributions; the family declares the block's own arithmetic, which
runs that dense half from the block's modules on layer_input + attention_output (with the causal mask and
the rotary positions of an unpadded call without cache, as check() makes) and adds mlp_output last.

Both attentions are DeepSeek-V3's Multi-head Latent Attention (see _mla) with a q-LoRA and LoRA scaling:
the query heads and the normed key latent are multiplied by sqrt(hidden_size / q_lora_rank) and
sqrt(hidden_size / kv_lora_rank) before the rotary (interleaved pairs, apply_rotary_pos_emb_interleave);
queries, keys and values exist whole only at the kernel (attention_interface). The MoE's router
(LongcatFlashTopkRouter) computes logits = F.linear(x, classifier.weight) in float32 over n_routed_experts
+ zero_expert_num experts, takes their softmax, chooses the top moe_topk of softmax + e_score_correction_bias
and weights each chosen expert by its softmax probability times routed_scaling_factor (no renormalization).
The last zero_expert_num experts are zero-computation experts: nn.Identity, returning their input times
its weight, so a position may spend anything from no FFN expert to moe_topk of them. The experts run in a
Python loop over the experts hit, from slices of the fused gate_up_proj [n_routed_experts +
zero_expert_num, 2·expert_ffn_hidden_size, hidden_size] and down_proj; model.intermediate_size is the
experts' width (expert_ffn_hidden_size), the dense mlps being ffn_hidden_size wide. The checkpoint's
multi-token-prediction layers (model.mtp) are not built by the causal-LM class.
"""

from __future__ import annotations

import sys
import torch

from nnterp.declare.blocks import Block
from nnterp.declare.family import COMMON_SITES, Family, described
from nnterp.declare.routers import MoE, Router, every_block
from nnterp.declare.sites import Argument, Child, Read
from nnterp.families._mla import MLA_ACCESSORS, mla_sites

# --------------------------------------------------------------------------- the block

LAYER_SITES = {
    "attention_norm_output": Read(
        Child("input_layernorm.0"),
        description="The normed stream entering the first attention, self_attn[0] (input_layernorm[0]'s output)"),
    "layer_mid": Read(
        Child("post_attention_layernorm.0", "input"), Argument(0), shared=True,
        description="The residual stream after the first attention's add, x + self_attn[0]'s output: what "
                    "post_attention_layernorm[0] normalizes and mlps[0] is added to"),
    "mlp_norm_output": Read(
        Child("post_attention_layernorm.0"),
        description="The normed stream entering the MoE (post_attention_layernorm[0]'s output), which mlps[0] "
                    "reads too: an edit reaches both"),
    # the MoE and mlps[0] are called with one tensor: the value is a copy, so an edit reaches the MoE alone
    "mlp_input": Read(
        Child("mlp", "input"), Argument(0), snapshot=True,
        description="What the MoE is called with: post_attention_layernorm[0]'s output, which mlps[0] is called "
                    "with too; an edit reaches the MoE alone (edit mlp_norm_output to reach both)"),
}

# --------------------------------------------------------------------------- the attention
def _attention_sites() -> dict:
    """The attention's sites: the MLA interior of self_attn[0] (family.block.mixers makes it the block's attention)."""
    sites = {name: COMMON_SITES[name] for name in (
        "attention_scores", "attention_probabilities", "attention_head_outputs", "attention_premix")}
    sites.update(mla_sites())
    sites["attention_output"] = described(
        "attention_output", "What the first attention adds to the stream (self_attn[0]'s output, added at h1); the "
                            "second attention's is model.layers[i].self_attn[1].output[0]")
    return sites


# --------------------------------------------------------------------------- the MoE
NEURONS = ("a mixture of experts with zero-computation experts: each position's neurons are those of its chosen FFN "
           "experts, computed in a loop over the experts hit from slices of the fused experts.gate_up_proj and "
           "experts.down_proj on the rows routed to each (a zero expert returns its input), so no [batch seq "
           "intermediate_size] tensor of them exists; the dense mlps[0] and mlps[1] keep theirs natively "
           "(model.layers[i].mlps[0].down_proj.input)")

# every block's shortcut is the mixture
MOE = MoE(
    Router("router", "F.linear",
           logits="The router's score for every expert, FFN experts then zero-computation experts, before the softmax "
                  "(computed in float32)",
           weights_description="The chosen experts' softmax probabilities over all experts, times "
                               "routed_scaling_factor (not renormalized)",
           choices_description="The experts each position is sent to: the top moe_topk of softmax(logits) + "
                               "e_score_correction_bias; indices from n_routed_experts on are zero-computation "
                               "(identity) experts"),
    NEURONS, top_k="moe_topk", is_moe=every_block)
MOE_OUTPUT = described("mlp_output", "What the shortcut MoE adds to the stream, at the block's last add (after the "
                                     "dense second half)")


# --------------------------------------------------------------------------- the block's arithmetic
def _second_attention(layer, normed):
    """self_attn[1] on ``normed`` with the rotary positions and causal mask of an unpadded call without cache."""
    from transformers.masking_utils import create_causal_mask

    attention = layer.self_attn[1]
    config = attention.config
    positions = torch.arange(normed.shape[1], device=normed.device).unsqueeze(0)
    rotary = sys.modules[type(layer).__module__].LongcatFlashRotaryEmbedding(config).to(normed.device)
    # the cache is passed by position: transformers 5.24 renamed the keyword past_key_values to cache
    mask = create_causal_mask(config, normed, None, None, position_ids=positions)
    return attention(normed, position_embeddings=rotary(normed, positions), attention_mask=mask)[0]


def shortcut_arithmetic(config):
    """layer_output from layer_input, attention_output (self_attn[0]'s) and mlp_output (the MoE's), in the block's
    order: the dense second half is run from the block's own modules, the shortcut MoE added last."""
    def block(layer, x, attn, mlp):
        with torch.no_grad():
            h = x + attn
            h = h + layer.mlps[0](layer.post_attention_layernorm[0](h))
            h = h + _second_attention(layer, layer.input_layernorm[1](h))
            return h + layer.mlps[1](layer.post_attention_layernorm[1](h)) + mlp
    return block


FAMILY = Family(
    name="longcat_flash",
    summary="Meituan's LongCat-Flash: two latent-attention+MLP sublayer pairs per block and a shortcut-connected "
            "mixture of experts, forked from the first pair and added at the block's end, with zero-computation "
            "experts.",
    tags=("Shortcut-connected MoE", "Two sublayer pairs per block", "Latent attention (MLA)", "Mixture of experts",
          "Zero-computation experts", "RMSNorm"),
    block=Block("two sublayer pairs and a shortcut MoE", arithmetic=shortcut_arithmetic, mixers=("self_attn.0",)),
    moe=MOE,
    sites={**LAYER_SITES, **_attention_sites(), "mlp_output": MOE_OUTPUT},
    accessors={
        **MLA_ACCESSORS,
        "intermediate_size": lambda c: c.expert_ffn_hidden_size,
        # the zero-computation experts are experts the router scores and chooses
        "num_experts": lambda c: c.n_routed_experts + (c.zero_expert_num or 0),
    },
    tiny={"config_class": "LongcatFlashConfig", "overrides": {
        "hidden_size": 64, "num_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 4,
        "ffn_hidden_size": 128, "expert_ffn_hidden_size": 64, "vocab_size": 300, "head_dim": 16,
        "n_routed_experts": 4, "moe_topk": 2, "kv_lora_rank": 32, "q_lora_rank": 32, "qk_rope_head_dim": 16,
        "qk_nope_head_dim": 16, "v_head_dim": 16}},
)
