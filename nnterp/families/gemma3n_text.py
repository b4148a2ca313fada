"""Gemma 3n, text model (Gemma3nForCausalLM).

model.{embed_tokens (scaled by sqrt(hidden_size)), embed_tokens_per_layer, per_layer_model_projection,
per_layer_projection_norm, altup_projections, layers[i], altup_unembed_projections, norm} and
lm_head, tied to the embeddings. The residual is altup_num_inputs streams (AltUp): the model stacks
the embeddings with altup_projections of them into [altup_num_inputs, batch, seq, hidden], every
block reads and returns that stack, and after the last block the streams are brought back with
altup_unembed_projections (magnitude-matched), averaged, normed and projected; the logits are
soft-capped, tanh(logits / 30) * 30. Inside block i: altup.predict mixes the streams; the active
one (altup_active_idx), x, is normed (input_layernorm) and feeds both the attention and laurel, a
low-rank residual; h = (x + post_attention_layernorm(attn) + laurel) / sqrt(2);
out_active = h + post_feedforward_layernorm(mlp(pre_feedforward_layernorm(h))); altup.correct
spreads the active stream's change over all streams, and a per-layer input (a token embedding of
its own, gated by the active stream: per_layer_input_gate, act_fn, per_layer_projection,
post_per_layer_input_norm) is added to every stream but the first. The attention has q_norm,
k_norm and a weightless v_norm, scaling 1.0, sliding and full layers, and the last
num_kv_shared_layers reuse the keys and values of the last earlier layer of their type. The MLP's
gate is sparsified on the first layers (activation_sparsity_pattern: relu(gate - (mean + std *
icdf(sparsity))), before gelu_tanh). No single stream runs through the blocks, so the identity
cannot be stated (see contract_note); the sublayers' values are served on the active stream.
"""


from nnterp.declare.family import COMMON_SITES, Family, described
from nnterp.declare.readout import SOFTCAPPED
from nnterp.declare.sites import Argument, Child, Nowhere, Read, Sibling
from nnterp.families._llama import tiny

_SCORES, _KEYS, _VALUES = (COMMON_SITES[n] for n in ("attention_scores", "attention_keys", "attention_values"))

ALTUP = ("AltUp: the block reads and returns altup_num_inputs streams stacked as [altup_num_inputs, batch, seq, "
         "hidden_size] (read layers[i].input / .output natively); the active stream it computes on is predicted from "
         "all of them, and attention_norm_output is its norm")


def _intermediate(config):
    sizes = config.intermediate_size
    return sizes[0] if isinstance(sizes, (list, tuple)) else sizes


FAMILY = Family(
    name="gemma3n_text",
    model_types=("gemma3n_text", "gemma3n"),
    summary="Gemma 3n's text model: a residual of four AltUp streams, with laurel low-rank residuals, sandwich "
            "norms, per-layer token embeddings, shared keys and values in the last layers, and soft-capped logits.",
    tags=("Multi-stream residual (AltUp)", "Sandwich norms", "Per-layer embeddings", "Laurel", "Sliding window",
          "QK norm", "KV sharing", "Activation sparsity", "Logit softcap", "Tied embeddings"),
    contract_note=(
        "The residual is altup_num_inputs streams ([altup_num_inputs, batch, seq, hidden_size]) that every block "
        "reads and returns, mixed by altup.predict and altup.correct and fed a per-layer embedding, so there is no "
        "[batch seq hidden_size] layer_input or layer_output and no identity to check. Served: the model's values "
        "(embeddings, final norm, lm_head, soft-capped logits), and per block the active stream's sublayers: "
        "attention_norm_output, the attention's interior and post-normed output, layer_mid (after laurel's "
        "average), the MLP's norm, input, neurons and post-normed output."),
    sites={
        "layer_input": Nowhere(ALTUP),
        "layer_output": Nowhere(ALTUP),
        "attention_output": Read(
            Sibling("post_attention_layernorm"),
            description="What the attention adds to the active stream, after post_attention_layernorm; the block adds "
                        "it and laurel's output to the stream and divides the sum by sqrt(2)"),
        "attention_scores": described("attention_scores", "The attention scores entering the softmax, masked: q_norm(q)·k_norm(k), unscaled (scaling "
                                      "1.0)"),
        # one tensor serves its own layer and the layers sharing it: an assignment is copied into it, so it
        # reaches them all as an in-place edit does
        "attention_keys": Read(
            _KEYS.where, _KEYS.element, condition=_KEYS.condition, shared=True,
            description="The keys entering attention, after k_norm; the last num_kv_shared_layers layers receive "
                        "the keys of the last earlier layer of their type, the same tensor, so an edit there reaches "
                        "both"),
        "attention_values": Read(
            _VALUES.where, _VALUES.element, condition=_VALUES.condition, shared=True,
            description="The values entering attention, after the weightless v_norm; shared like the keys on the last "
                        "num_kv_shared_layers layers"),
        "layer_mid": Read(
            Child("pre_feedforward_layernorm", "input"), Argument(0), shared=True,
            description="The active stream after the attention: (x + attention_output + laurel(x_normed)) / sqrt(2)"),
        "mlp_norm_output": Read(Child("pre_feedforward_layernorm")),
        "mlp_activation": "The activation function's output: gelu_tanh of the gate, sparsified first "
                          "on the layers activation_sparsity_pattern names",
        "mlp_output": Read(
            Sibling("post_feedforward_layernorm"),
            description="What the MLP adds to the active stream, after post_feedforward_layernorm"),
    },
    accessors={"intermediate_size": _intermediate},
    readout=SOFTCAPPED,
    tiny=tiny("Gemma3nTextConfig", num_hidden_layers=4, vocab_size_per_layer_input=300, head_dim=16,
              hidden_size_per_layer_input=16, laurel_rank=8,
              layer_types=["sliding_attention", "full_attention", "sliding_attention", "full_attention"],
              num_kv_shared_layers=2, activation_sparsity_pattern=[0.95, 0.95, 0.0, 0.0]),
)
