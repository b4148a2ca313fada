"""RecurrentGemma / Griffin (RecurrentGemmaForCausalLM).

model.{embed_tokens, layers[i].{temporal_pre_norm, temporal_block, channel_pre_norm,
mlp_block.{gate_proj, up_proj, down_proj, act_fn}}, final_norm} and lm_head, tied to the
embeddings. A sequential pre-norm block whose token mixer (temporal_block, standard name
self_attn) is, by config.block_types repeating (recurrent, recurrent, attention), either an RG-LRU
recurrent block (linear_y and linear_x branches, a depthwise conv1d, the real-gated linear
recurrence rg_lru, and linear_out, aliased o_proj) or a local attention (q/k/v/o_proj, multi-query
on the checkpoints, rotary on half of each head, a sliding window of attention_window_size, called
through attention_interface). h = x + temporal_block(temporal_pre_norm(x))[0], then
out = h + mlp_block(channel_pre_norm(h)); the block returns a bare tensor. The MLP is gated
(gelu_tanh(gate_proj) * up_proj) and intermediate_size // 2 wide. The model multiplies the
embeddings by normalizer, sqrt(hidden_size) stored in bfloat16, before block 0; all norms are
RMSNorm with (1 + weight); and logits are soft-capped, tanh(logits / 30) * 30.
"""

from nnterp.declare.family import COMMON_SITES, Family, described
from nnterp.declare.mixers import ATTENTION_INTERIOR
from nnterp.declare.readout import Readout
from nnterp.declare.sites import Argument, Nowhere, Own, Read
from nnterp.families._llama import tiny


RECURRENT = ("an RG-LRU recurrent block: a gated linear recurrence mixes the positions, with no softmax attention, "
             "so there are no queries, keys, heads or pattern")
_NOWHERE = Nowhere(RECURRENT)


def _interior(name):
    """The common site on a local-attention block, unavailable on a recurrent one."""
    attention = COMMON_SITES[name]

    def site(context):
        return _NOWHERE if type(context.module).__name__.endswith("RecurrentBlock") else attention

    return site


FAMILY = Family(
    name="recurrent_gemma",
    summary="Griffin: a sequential pre-norm block whose token mixer is an RG-LRU recurrence on two blocks of "
            "three and a local multi-query attention on the third, with a gated MLP and soft-capped logits.",
    tags=("Hybrid recurrent/attention", "Local attention", "Multi-query", "Partial rotary", "Gated MLP",
          "Logit softcap", "Scaled embeddings", "RMSNorm (1+w)", "Tied embeddings"),
    rename={
        "model.final_norm": "norm", "temporal_pre_norm": "input_layernorm", "temporal_block": "self_attn",
        "channel_pre_norm": "post_attention_layernorm", "mlp_block": "mlp", "linear_out": "o_proj",
    },
    sites={
        "token_embeddings": described("token_embeddings", "The embedding module's output; the model multiplies it by normalizer, sqrt(hidden_size) "
                                      "rounded to bfloat16, and that product is layers[0].input"),
        "layer_input": Read(Own("input"), Argument(0, "activations")),
        **{name: _interior(name) for name in ATTENTION_INTERIOR},
        "attention_output": described("attention_output", "What the token mixer (RG-LRU recurrence or local attention) adds to the "
                                      "residual stream"),
    },
    accessors={"intermediate_size": lambda c: c.intermediate_size // 2},
    readout=Readout(softcap="logits_soft_cap"),
    tiny=tiny("RecurrentGemmaConfig", num_hidden_layers=3),
)
