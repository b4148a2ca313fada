"""Qwen4-Exp, text model (Qwen4ExpForCausalLM).

model.{embed_tokens, layers[i].{attn_hyper_connection, linear_attn or self_attn,
mlp_hyper_connection, mlp}, hyper_connection_mixer} and lm_head. The residual is hc streams
flattened into [batch, seq, hc·hidden]. Each hyper-connection (Qwen4ExpTextGatedResidual) norms
the streams (hc_norm, RMSNorm with 1 + weight per stream), mixes them into the sublayer's input with
silu-gated weights, and adds the sublayer's output back to every stream with 2·sigmoid injection
weights; the decoder layer has no norm of its own. By config.layer_types the token mixer is a
Gated DeltaNet (linear_attn: causal conv, delta-rule recurrence, gated RMSNorm, out_proj) or a
softmax attention (self_attn: q/k/v/o_proj with q_norm and k_norm, a QSA indexer choosing a budget
of compressed keys, through attention_interface). The MLP is a mixture of experts with a gated
shared expert. The model has no final norm: hyper_connection_mixer collapses the streams
(hc_norm and the mix) into what lm_head reads, so project_on_vocab takes the streams, a block's
native output.
"""

from nnterp.declare.engine import module_of
from nnterp.declare.family import COMMON_SITES, Family
from nnterp.declare.mixers import ATTENTION_INTERIOR
from nnterp.declare.readout import Readout
from nnterp.declare.routers import unrouted_neurons
from nnterp.declare.sites import Argument, Child, Nowhere, Read
from nnterp.families._hyper import contract_note, stream_sites

DELTA = ("a Gated DeltaNet: a linear recurrence with a delta-rule state update, with no softmax attention, so there "
         "are no queries, keys, heads or pattern to read as attention")


def _interior(name):
    common, unavailable = COMMON_SITES[name], Nowhere(DELTA)
    return lambda context: unavailable if type(context.module).__name__.endswith("GatedDeltaNet") else common


def _unembed(model, streams):
    """hyper_connection_mixer collapses the streams, then lm_head: the model has no final norm."""
    return model.lm_head(module_of(model.hyper_connection_mixer)(streams))


FAMILY = Family(
    name="qwen4_exp_text",
    model_types=("qwen4_exp_text", "qwen4_exp"),
    summary="Gated hyper-connections over flattened residual streams, around alternating Gated DeltaNet and indexed "
            "softmax attention, with a mixture-of-experts MLP and no final norm.",
    tags=("Hyper-connections", "Multi-stream residual", "Hybrid linear/softmax attention", "Gated DeltaNet",
          "Sparse attention", "QK norm", "Mixture of experts"),
    contract_note=contract_note(
        "hc", "the model's values (embeddings, the collapsed stream lm_head reads, logits), and per block the mixer's "
              "and the MLP's inputs on the collapsed stream, the softmax attention's interior, attention_output and "
              "mlp_output"),
    rename={"linear_attn": "self_attn", "model.hyper_connection_mixer": "hyper_connection_mixer"},
    sites={
        **stream_sites("hc"),
        **unrouted_neurons(),
        **{name: _interior(name) for name in ATTENTION_INTERIOR},
        "final_norm_output": Read(
            Child("hyper_connection_mixer"),
            description="The streams collapsed by hyper_connection_mixer (hc_norm and a learned mix), what lm_head "
                        "reads: the model has no final norm"),
        "attention_norm_output": Read(
            Child("self_attn", "input"), Argument(0),
            description="The stream the hyper-connection hands the mixer: the streams normed by hc_norm and mixed"),
        "mlp_norm_output": Read(
            Child("mlp", "input"), Argument(0),
            description="The stream the hyper-connection hands the MLP: the streams normed by hc_norm and mixed"),
    },
    readout=Readout(unembed=_unembed),
    tiny={"config_class": "Qwen4ExpTextConfig", "overrides": {
        "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
        "moe_intermediate_size": 64, "shared_expert_intermediate_size": 64, "vocab_size": 300, "head_dim": 16,
        "num_experts": 4, "num_experts_per_tok": 2, "linear_key_head_dim": 16, "linear_value_head_dim": 16,
        "linear_num_key_heads": 2, "linear_num_value_heads": 4, "hc_lowrank": 8, "indexer_n_heads": 2,
        "indexer_kv_heads": 1, "indexer_head_dim": 32, "indexer_budget": 8, "indexer_compress_ratio": 4,
        "layer_types": ["linear_attention", "indexed_attention"]}},
)
