"""The names researchers come with, as standard paths: TransformerLens's hook names and nnterp 1.x's accessors.

``resolve("blocks.3.hook_resid_post")`` is ``layers[3].layer_output``; ``resolve("layers.3.self_attn.attention_probabilities")``
is the same value by its own path. The cache keys on these paths, ``model.value(name)`` reads and writes through
them, and the error suggestions answer a foreign name with its standard path.

A name is a contract: under TransformerLens's name comes TransformerLens's tensor, as
``HookedTransformer.from_pretrained_no_processing`` computes it (the checkpoint's own weights). Where it is not
nnterp's value as it stands (a layout, a norm's divisor where nnterp keeps the factor, the input before the norm's
gain), the name's ``Convention`` computes it from nnterp's values, and carries a write in TransformerLens's layout
back; a name whose tensor nnterp cannot produce is refused, saying why.

The TransformerLens names are HookedTransformer's (TransformerLens 2.x and 3.x, ``transformer_lens/components``):
every hook of its block, attention, MLP and norms, and the model-level ones; and TransformerBridge's
(TransformerLens 4.x, ``transformer_lens/model_bridge``): the hook_in and hook_out of each bridged component.
"""

from __future__ import annotations

import re

from nnterp.compat.paths import (
    PENDING_HOSTS, SAME_TENSOR, _HOST_PREFIX, Divisor, HeadsSecond, MinusInfinityMask, Name, Normalized, Path,
    PerHeadCopies,
)
from nnterp.declare.errors import NnterpError
from nnterp.declare.vocabulary import BY_NAME, HOSTS, HOST_PATHS, nearest

_LN1 = Normalized(input="layer_input", text="x_c · scale, x = layers.{i}.layer_input (resid_pre), centred under a "
                  "LayerNorm, scale = attention_norm_scale: before the norm's gain and bias")
_LN2 = Normalized(input="layer_mid", parallel_input="layer_input", text="x_c · scale, x = layers.{i}.layer_mid (resid_mid; layer_input on "
                  "a parallel block), centred under a LayerNorm, scale = mlp_norm_scale: before the gain and bias")
_LN_FINAL = Normalized(input="layer_output", last=True, text="x_c · scale, x = layers.{-1}.layer_output, centred under a "
                       "LayerNorm, scale = final_norm_scale: before the gain and bias")

#: from_pretrained's default processing, where it changes what a hook holds
_FOLDED = ("from_pretrained (fold_ln, center_writing_weights) leaves this tensor as it is; the norm's gain and bias "
           "are folded into the next weights, which changes what comes after it")
_CENTRED = ("on a LayerNorm model, from_pretrained's center_writing_weights centres every write to the stream over "
            "d_model, so there this is the value less its mean over hidden_size; from_pretrained_no_processing gives "
            "this tensor")
_VALUE_BIAS = ("from_pretrained's fold_value_biases moves a value bias into the output projection's bias, so there this "
               "lacks b_V; from_pretrained_no_processing gives this tensor")


def _tl(name, value, note="", families=None, parallel=None, convention=SAME_TENSOR, family_values=None,
        source="TransformerLens 3.x", projected=None) -> Name:
    return Name(name, value, note, dict(families or {}), parallel, source, convention, dict(family_values or {}),
                projected)


_Q_IN = PerHeadCopies(heads="num_heads", text="layer_input[:, :, None] repeated over the query heads: [batch pos n_heads d_model]")
_KV_IN = PerHeadCopies(heads="num_kv_heads", text="layer_input[:, :, None] repeated over the key-value heads: "
                       "[batch pos n_key_value_heads d_model]")

#: Per block, under ``blocks.{i}.``: every hook of HookedTransformer's TransformerBlock, its attention, MLPs and norms.
TRANSFORMERLENS_BLOCK: dict[str, Name] = {n.name: n for n in (
    _tl("hook_resid_pre", "layer_input", _CENTRED),
    _tl("hook_attn_in", "layer_input", "present under use_attn_in", convention=_Q_IN),
    _tl("hook_q_input", "layer_input", "present under use_split_qkv_input", convention=_Q_IN),
    _tl("hook_k_input", "layer_input", "present under use_split_qkv_input", convention=_KV_IN),
    _tl("hook_v_input", "layer_input", "present under use_split_qkv_input", convention=_KV_IN),
    _tl("ln1.hook_scale", "attention_norm_scale", "", convention=Divisor()),
    _tl("ln1.hook_normalized", "attention_norm_scale", _FOLDED, convention=_LN1),
    _tl("attn.hook_q", "attention_queries_unrotated", "the query projection's output split by head: before any "
        "q norm, clip or scale the attention applies, and before the rotary (hook_rot_q is after it)",
        convention=HeadsSecond(), projected="queries"),
    _tl("attn.hook_k", "attention_keys_unrotated", "the key projection's output split by head: before any k norm, "
        "clip or scale the attention applies, and before the rotary (hook_rot_k is after it); grouped keys keep "
        "their own heads, n_key_value_heads", convention=HeadsSecond(), projected="keys"),
    _tl("attn.hook_v", "attention_values", "the value projection's output split by head; grouped values keep their "
        "own heads, n_key_value_heads; " + _VALUE_BIAS, convention=HeadsSecond(), projected="values"),
    _tl("attn.hook_rot_q", "attention_queries", "present on rotary models",
        {"opt": "OPT's queries are pre-scaled by head_dim ** -0.5 in nnterp (see attn.hook_q)"},
        convention=HeadsSecond(), family_values={"opt": None}),
    _tl("attn.hook_rot_k", "attention_keys", "present on rotary models; grouped keys keep their own heads",
        convention=HeadsSecond()),
    _tl("attn.hook_attn_scores", "attention_scores", "TransformerBridge's tensor (the kernel's mask kept) under "
        "transformerlens=4",
        {"bloom": "BLOOM adds its ALiBi bias as slope · key position (counted along the attention mask), "
                  "TransformerLens as slope · (key position - query position): each row of scores differs by "
                  "slope · query position, and the probabilities (hook_pattern) are the same",
         "gemma2": "both after the attention's logit softcap"}, convention=MinusInfinityMask(),
        family_values={"bloom": None}),
    # TransformerLens 4.x's bridge gives another tensor under this name: BRIDGE_MEANINGS, with transformerlens=4
    _tl("attn.hook_pattern", "attention_probabilities"),
    _tl("attn.hook_z", "attention_premix", "the same layout, [batch pos head_index d_head]; " + _VALUE_BIAS),
    _tl("attn.hook_result", "attention_head_contributions",
        "each head through the output projection, without its bias, [batch pos head_index d_model], present under "
        "use_attn_result"),
    *(_tl(f"attn.{norm}.{hook}", None, f"TransformerLens's {norm} (Qwen3, Gemma 3, OLMo 2 and 3, OLMoE): the {what} "
          f"norm's {'divisor' if hook == 'hook_scale' else 'input before its gain'}, which has no standard value; "
          f"its output is attention_{what}_unrotated where the {what} norm is the last thing before the rotary")
      for norm, what in (("q_norm", "queries"), ("k_norm", "keys")) for hook in ("hook_scale", "hook_normalized")),
    _tl("attn.hook_attn_input", None, "the queries' and keys' input with shortformer positions added: no family "
        "nnterp serves has shortformer positions"),
    _tl("hook_attn_out", "attention_output", _CENTRED,
        {"gemma2": "both after the post-attention norm (TransformerLens's ln1_post); the attention module's own "
                   "output, before that norm, is model.layers[i].self_attn.output"}),
    _tl("ln1_post.hook_normalized", None, "Gemma 2's post-attention norm: its input (the attention module's output) "
        "and its scale have no standard value, so nnterp cannot give it before the gain"),
    _tl("ln1_post.hook_scale", None, "the post-attention norm's scale (Gemma 2) has no standard value"),
    _tl("hook_resid_mid", "layer_mid", _CENTRED,
        {"parallel": "a parallel block (GPT-J, Phi, GPT-NeoX with use_parallel_residual) has no stream between "
                     "its sublayers: TransformerLens has no hook_resid_mid there and layer_mid is unavailable"}),
    _tl("hook_mlp_in", "layer_mid",
        "the stream before ln2 (a copy of resid_mid), present under use_hook_mlp_in; the MLP's own input, after "
        "ln2, is mlp_input", {"parallel": "on a parallel block it is a copy of resid_pre: layer_input"},
        parallel="layer_input"),
    _tl("ln2.hook_scale", "mlp_norm_scale", "", convention=Divisor()),
    _tl("ln2.hook_normalized", "mlp_norm_scale", _FOLDED, convention=_LN2),
    _tl("mlp.hook_pre", "mlp_preactivation", "what the activation function reads: the gate projection on a gated "
        "MLP"),
    _tl("mlp.hook_pre_linear", "mlp_up", "the up projection of a gated MLP"),
    _tl("mlp.hook_mid", "mlp_activation", "present on SoLU models: the activation before SoLU's LayerNorm"),
    _tl("mlp.hook_post", "mlp_neurons", "what the down projection receives: act(gate) * up on a gated MLP"),
    _tl("mlp.ln.hook_scale", None, "SoLU's LayerNorm inside the MLP: no family nnterp serves has one"),
    _tl("mlp.ln.hook_normalized", None, "SoLU's LayerNorm inside the MLP: no family nnterp serves has one"),
    _tl("mlp.hook_expert_weights", None,
        "TransformerLens's is the softmax over every expert, [batch*pos num_experts], before the top-k; nnterp's "
        "router_weights are the chosen experts' weights, [batch seq top_k], another quantity"),
    _tl("mlp.hook_expert_indices", None, "TransformerLens's is [batch*pos top_k] in its own expert order; read "
        "router_choices, [batch seq top_k]"),
    _tl("mlp.hook_gate", None, "a gated MoE expert's gate (under mlp.experts.{e}.): nnterp has no per-expert value"),
    _tl("hook_mlp_out", "mlp_output", _CENTRED,
        {"gemma2": "both after the post-feedforward norm (TransformerLens's ln2_post)"}),
    _tl("ln2_post.hook_normalized", None, "Gemma 2's post-feedforward norm: its input (the MLP's own output) and its "
        "scale have no standard value, so nnterp cannot give it before the gain"),
    _tl("ln2_post.hook_scale", None, "the post-feedforward norm's scale (Gemma 2) has no standard value"),
    _tl("hook_resid_post", "layer_output", _CENTRED),
)}

#: Model-level hooks.
TRANSFORMERLENS_MODEL: dict[str, Name] = {n.name: n for n in (
    _tl("hook_tokens", "input_ids", "present under use_hook_tokens"),
    _tl("hook_embed", "token_embeddings", "the token embeddings alone; a model with learned positions adds them "
        "after this (hook_pos_embed); " + _CENTRED,
        {"bloom": "TransformerLens's hook_embed is after BLOOM's embedding LayerNorm (word_embeddings_layernorm): "
                  "the first block's input, layers.0.layer_input",
         "gemma2": "TransformerLens's hook_embed is after Gemma's sqrt(hidden_size) scale: layers.0.layer_input"},
        family_values={"bloom": "layers.0.layer_input", "gemma2": "layers.0.layer_input"}),
    _tl("hook_pos_embed", None, "the learned position embeddings have no standard value; on a family with them "
        "(GPT-2, OPT, GPT-Neo) layers[0].layer_input - token_embeddings is what they add"),
    _tl("embed.ln.hook_scale", None, "BLOOM's embedding LayerNorm (word_embeddings_layernorm): its scale has no "
        "standard value"),
    _tl("embed.ln.hook_normalized", None, "BLOOM's embedding LayerNorm (word_embeddings_layernorm): its scale has no "
        "standard value, so nnterp cannot give its input before the gain"),
    _tl("ln_final.hook_scale", "final_norm_scale", "", convention=Divisor()),
    _tl("ln_final.hook_normalized", "final_norm_scale", _FOLDED, convention=_LN_FINAL),
    _tl("unembed.hook_in", "final_norm_output", "what the unembedding reads; from_pretrained's fold_ln folds the "
        "final norm's gain and bias into the unembedding, so there this is ln_final.hook_normalized",
        {"minicpm3": "MiniCPM3 divides the final norm's output by logits_scaling before lm_head"},
        family_values={"minicpm3": None}),
    _tl("unembed.hook_out", "lm_head_output", "before anything the model does past lm_head (Gemma 2's logit "
        "softcap, applied after unembed in TransformerLens too); from_pretrained's center_unembed subtracts each "
        "position's mean over the vocabulary from it"),
)}


def _bridge(name, value, note="", families=None, convention=SAME_TENSOR, family_values=None, parallel=None,
            projected=None) -> Name:
    return _tl(name, value, note, families, parallel, convention, family_values, "TransformerLens 4.x", projected)


_NOT_GATED = ("gpt2", "gpt_neox", "gpt_neo", "gptj", "opt", "bloom", "phi", "codegen", "falcon", "gpt_bigcode",
              "starcoder2")
_GEMMA2_PRE_NORM = {"gemma2": "on Gemma 2 this is the {what}'s own output, before its post-norm "
                              "({norm}), which has no standard value; the stream receives {norm}.hook_out"}

#: TransformerBridge's names (TransformerLens 4.x, transformer_lens/model_bridge): the hook_in and hook_out of each
#: bridged component, under ``blocks.{i}.``; the bridge also answers HookedTransformer's names above, as aliases.
BRIDGE_BLOCK: dict[str, Name] = {n.name: n for n in (
    _bridge("hook_in", "layer_input", "the block's input, resid_pre"),
    _bridge("hook_out", "layer_output", "the block's output, resid_post"),
    _bridge("ln1.hook_in", "layer_input", "what the attention's norm reads"),
    _bridge("ln1.hook_out", "attention_norm_output", "the norm's output, after its gain and bias"),
    _bridge("attn.hook_in", "attention_norm_output", "what the attention module reads"),
    _bridge("attn.q.hook_in", "attention_norm_output", "what the query projection reads"),
    _bridge("attn.k.hook_in", "attention_norm_output", "what the key projection reads"),
    _bridge("attn.v.hook_in", "attention_norm_output", "what the value projection reads"),
    _bridge("attn.q.hook_out", "attention_queries_unrotated", "the query projection split by head, hook_q",
            convention=HeadsSecond(), projected="queries"),
    _bridge("attn.k.hook_out", "attention_keys_unrotated", "the key projection split by head, hook_k",
            convention=HeadsSecond(), projected="keys"),
    _bridge("attn.v.hook_out", "attention_values", "the value projection split by head, hook_v",
            convention=HeadsSecond(), projected="values"),
    _bridge("attn.o.hook_in", "attention_premix", "what the output projection reads, hook_z"),
    _bridge("attn.o.hook_out", "attention_output", "the output projection's output",
            {"gemma2": _GEMMA2_PRE_NORM["gemma2"].format(what="attention", norm="ln1_post")},
            family_values={"gemma2": None}),
    _bridge("attn.hook_out", "attention_output", "the attention module's output",
            {"gemma2": _GEMMA2_PRE_NORM["gemma2"].format(what="attention", norm="ln1_post"),
             "bloom": "BLOOM's attention module adds the residual itself (dropout_add): its output is the stream after "
                       "the attention, layer_mid"},
            family_values={"gemma2": None, "bloom": "layer_mid"}),
    _bridge("attn.hook_hidden_states", "attention_output", "the attention module's first output, its hidden states",
            {"gemma2": _GEMMA2_PRE_NORM["gemma2"].format(what="attention", norm="ln1_post"),
             "bloom": "BLOOM's attention module adds the residual itself (dropout_add): its output is the stream after "
                       "the attention, layer_mid"},
            family_values={"gemma2": None, "bloom": "layer_mid"}),
    _bridge("attn.hook_cos", None, "the rotary's cosines: nnterp has no standard value of them"),
    _bridge("attn.hook_sin", None, "the rotary's sines: nnterp has no standard value of them"),
    _bridge("ln1_post.hook_in", None, "Gemma 2's post-attention norm's input, the attention module's own output: "
            "no standard value"),
    _bridge("ln1_post.hook_out", "attention_output", "Gemma 2's post-attention norm's output: what the stream "
            "receives"),
    _bridge("ln2.hook_in", "layer_mid", "what the MLP's norm reads", {"parallel": "layer_input on a parallel block"},
            parallel="layer_input"),
    _bridge("ln2.hook_out", "mlp_norm_output", "the norm's output, after its gain and bias"),
    _bridge("mlp.hook_in", "mlp_input", "what the MLP module reads"),
    _bridge("mlp.gate.hook_in", "mlp_input", "what the gate projection reads"),
    _bridge("mlp.gate.hook_out", "mlp_preactivation", "the gate projection's output, hook_pre"),
    _bridge("mlp.in.hook_in", "mlp_input", "what the input projection reads"),
    _bridge("mlp.in.hook_out", "mlp_up", "the up projection (hook_pre_linear) of a gated MLP; an MLP without a gate's "
            "input projection, hook_pre",
            {family: "an MLP without a gate: the input projection's output is what the activation reads, "
                     "mlp_preactivation" for family in _NOT_GATED},
            family_values={family: "mlp_preactivation" for family in _NOT_GATED}),
    _bridge("mlp.out.hook_in", "mlp_neurons", "what the down projection reads, hook_post"),
    _bridge("mlp.out.hook_out", "mlp_output", "the down projection's output",
            {"gemma2": _GEMMA2_PRE_NORM["gemma2"].format(what="MLP", norm="ln2_post")}, family_values={"gemma2": None}),
    _bridge("mlp.hook_out", "mlp_output", "the MLP module's output",
            {"gemma2": _GEMMA2_PRE_NORM["gemma2"].format(what="MLP", norm="ln2_post"),
             "bloom": "BLOOM's MLP module adds the residual itself (dropout_add): its output is the block's, "
                      "layer_output"}, family_values={"gemma2": None, "bloom": "layer_output"}),
    _bridge("ln2_post.hook_in", None, "Gemma 2's post-feedforward norm's input, the MLP's own output: no standard "
            "value"),
    _bridge("ln2_post.hook_out", "mlp_output", "Gemma 2's post-feedforward norm's output: what the stream receives"),
)}

BRIDGE_MODEL: dict[str, Name] = {n.name: n for n in (
    _bridge("embed.hook_in", "input_ids", "the token ids the embedding reads"),
    _bridge("embed.hook_out", "token_embeddings", "the embedding module's output",
            {"gemma2": "the embedding module's output is after Gemma's sqrt(hidden_size) scale: layers.0.layer_input"},
            family_values={"gemma2": "layers.0.layer_input"}),
    _bridge("embed_ln.hook_in", "token_embeddings", "BLOOM's embedding LayerNorm's input: the token embeddings"),
    _bridge("embed_ln.hook_out", "layers.0.layer_input", "BLOOM's embedding LayerNorm's output: the first block's "
            "input"),
    _bridge("embed_ln.hook_scale", None, TRANSFORMERLENS_MODEL["embed.ln.hook_scale"].note),
    _bridge("embed_ln.hook_normalized", None, TRANSFORMERLENS_MODEL["embed.ln.hook_normalized"].note),
    _bridge("pos_embed.hook_in", None, "the position ids: nnterp has no standard value of them"),
    _bridge("pos_embed.hook_out", None, TRANSFORMERLENS_MODEL["hook_pos_embed"].note),
    _bridge("hook_pos_embed", None, TRANSFORMERLENS_MODEL["hook_pos_embed"].note),
    _bridge("rotary_emb.hook_in", None, "the rotary embedding's input: nnterp has no standard value of it"),
    _bridge("rotary_emb.hook_cos", None, "the rotary's cosines: nnterp has no standard value of them"),
    _bridge("rotary_emb.hook_sin", None, "the rotary's sines: nnterp has no standard value of them"),
    _bridge("ln_final.hook_in", "layers.-1.layer_output", "what the final norm reads: the last block's output"),
    _bridge("ln_final.hook_out", "final_norm_output", "the final norm's output, after its gain and bias"),
    _bridge("hook_unembed", "lm_head_output", "the unembedding's output (unembed.hook_out)"),
)}

#: The names TransformerBridge (4.x) answers with another tensor than HookedTransformer (2.x, 3.x), as the bridge
#: gives them: ``resolve(..., transformerlens=4)`` (``model.cache(..., transformerlens=4)``, ``model.value(name,
#: transformerlens=4)``, ``splice(..., transformerlens=4)``) reads these first; by default the names mean 3.x's.
BRIDGE_MEANINGS: dict[str, Name] = {n.name: n for n in (
    _bridge("attn.hook_attn_scores", "attention_scores",
            "the kernel's scores with its mask added (the dtype's minimum at masked entries), as the bridge hooks "
            "the model's own attention; HookedTransformer's (transformerlens=3) fills masked entries with -inf",
            {"opt": "TransformerBridge hooks OPT's scores before the mask is added, whose masked entries (the raw "
                    "query-key products) nnterp has no value of: the scores after the mask are "
                    "layers.{i}.self_attn.attention_scores, and HookedTransformer's name (transformerlens=3) gives "
                    "them with -inf", "gemma2": "after the attention's logit softcap"},
            family_values={"opt": None}),
)}

#: TransformerLens's generations a name can be read in: HookedTransformer (2.x and 3.x share its names and
#: tensors) and TransformerBridge (4.x)
GENERATIONS = {2: "HookedTransformer", 3: "HookedTransformer", 4: "TransformerBridge"}


def generation(transformerlens) -> int:
    """4 for TransformerBridge's meanings, 3 for HookedTransformer's; refused for anything else."""
    if isinstance(transformerlens, bool) or transformerlens not in GENERATIONS:
        raise NnterpError(f"transformerlens={transformerlens!r}: pass 3 for HookedTransformer's names (2.x and 3.x, "
                          f"the default) or 4 for TransformerBridge's (4.x)")
    return 4 if transformerlens == 4 else 3


#: nnterp 1.x's accessors (StandardizedTransformer 1.3), on the model, indexed by layer: ``model.layers_output[3]``.
NNTERP1_LAYERED: dict[str, str] = {
    "layers_input": "layer_input", "layers_output": "layer_output",
    "attentions_input": "attention_norm_output", "attentions_output": "attention_output",
    "mlps_input": "mlp_input", "mlps_output": "mlp_output", "attention_probabilities": "attention_probabilities",
}

#: The rest of nnterp 1.x's API, as it is written now: (1.x, now), for the migration guide.
NNTERP1_API: tuple[tuple[str, str], ...] = (
    ("`model.attentions[i]`, `model.mlps[i]`", "`model.layers[i].self_attn`, `model.layers[i].mlp`"),
    ("`StandardizedTransformer(..., enable_attention_probs=True)`", "`StandardizedTransformer(..., "
     "attn_implementation=\"eager\")` (scores and probabilities need a kernel that computes them)"),
    ("`check_renaming=True` / `False`", "`model.check()`: the conformance contract on this model, when you ask for it"),
    ("`rename_config=RenameConfig(...)`", "a family module (see [families.md](families.md))"),
    ("`model.ln_final`", "`model.norm`"),
    ("`model.token_embeddings`, `model.logits`, `model.next_token_probs`, `model.input_ids`, `model.attention_mask`, "
     "`model.input_size`", "the same names"),
    ("`model.project_on_vocab(h)`", "the same, and it now includes whatever the model does past `lm_head` (Cohere's "
     "logit scale, Gemma 2's softcap)"),
    ("`model.steer(layers, steering_vector, factor, positions)`", "`nnterp.tools.steer(steering_vector, layers, "
     "coefficient=factor, positions=positions)(model)` inside a trace"),
    ("`model.skip_layer(i)`, `model.skip_layers(a, b)`", "`nnterp.tools.skip_blocks([i])(model)`, "
     "`skip_blocks(range(a, b + 1))(model)`"),
    ("`model.get_topk_closest_tokens(h, k)`", "`model.project_on_vocab(h).softmax(-1).topk(k)`"),
    ("`nnterp.interventions.logit_lens(model, prompts)`", "`nnterp.tools.lens_logits(model, prompts)` (the "
     "projections) or `logit_lens(model, prompt)` (tables, targets, a plot)"),
    ("`nnterp.interventions.patchscope_lens(...)`", "`nnterp.tools.patchscope(model, source, target, layers=..., "
     "target_layers=...)`"),
)

#: Words researchers reach for, on the host they mean (TransformerLens's short names, nnterp 1.x's singulars).
WORDS: dict[str, str] = {
    "resid_pre": "layer_input", "resid_mid": "layer_mid", "resid_post": "layer_output",
    "residual": "layer_output", "hidden_states": "layer_output", "output_residual": "layer_output",
    "layer_output": "layer_output", "layers_output": "layer_output", "layers_input": "layer_input",
    "attn_out": "attention_output", "attn_output": "attention_output", "attention_out": "attention_output",
    "attentions_output": "attention_output", "mlp_out": "mlp_output", "mlps_output": "mlp_output",
    "mlps_input": "mlp_input", "mlp_in": "mlp_input",
    "pattern": "attention_probabilities", "attention_pattern": "attention_probabilities",
    "attn_pattern": "attention_probabilities", "attention_patterns": "attention_probabilities",
    "attention_weights": "attention_probabilities", "attn_weights": "attention_probabilities",
    "attention_probs": "attention_probabilities", "attn_probs": "attention_probabilities",
    "attn_scores": "attention_scores", "attention_logits": "attention_scores", "attn_logits": "attention_scores",
    "q": "attention_queries", "k": "attention_keys", "v": "attention_values", "queries": "attention_queries",
    "keys": "attention_keys", "values": "attention_values", "query": "attention_queries", "key": "attention_keys",
    "value": "attention_values", "z": "attention_premix", "head_outputs": "attention_head_outputs",
    "result": "attention_head_contributions",
    "mlp_pre": "mlp_preactivation", "pre": "mlp_preactivation", "mlp_post": "mlp_neurons", "post": "mlp_neurons",
    "neurons": "mlp_neurons", "mlp_acts": "mlp_activation", "activations": "mlp_activation",
    "embed": "token_embeddings", "embeddings": "token_embeddings", "tokens": "input_ids",
    "final_norm": "final_norm_output", "next_token_prob": "next_token_probs", "probs": "next_token_probs",
}

#: Module names researchers reach for (TransformerLens's, nnterp 1.x's), as the standard module names, by host.
MODULE_WORDS: dict[str, dict[str, str]] = {
    "model": {"ln_final": "norm", "unembed": "lm_head", "embed": "embed_tokens", "blocks": "layers",
              "final_layernorm": "norm", "wte": "embed_tokens"},
    "layer": {"attn": "self_attn", "ln1": "input_layernorm", "ln2": "post_attention_layernorm",
              "attention": "self_attn", "feed_forward": "mlp", "ffn": "mlp"},
    "attention": {"W_O": "o_proj", "out_proj": "o_proj"},
    "mlp": {"W_out": "down_proj", "W_in": "up_proj", "W_gate": "gate_proj"},
}


# --------------------------------------------------------------------------- resolution
class UnknownPath(KeyError):
    """A name that is neither a standard path nor a name this table knows; the message offers the nearest."""

    def __str__(self) -> str:
        return self.args[0]


_STANDARD = re.compile(r"^(?:model\.)?layers[.\[](-?\d+)\]?\.(?:(self_attn|mlp)\.)?(\w+)$")
_BLOCK = re.compile(r"^blocks\.(-?\d+)\.(.+)$")


def resolve(name: str, num_layers: int | None = None, block_kind: str | None = None,
            family: str | None = None, transformerlens: int = 3) -> Path:
    """The standard path ``name`` denotes: a standard path (``layers.3.layer_output``, ``model.layers[3].mlp.mlp_output``,
    ``logits``), a TransformerLens hook name (``blocks.3.hook_resid_post``) or a model-level one (``hook_embed``).

    ``num_layers`` turns a negative block index into a count from the end; ``block_kind`` ("parallel") picks a
    TransformerLens name's value on a parallel block, ``family`` its value on a family where it means another
    one; ``transformerlens`` the generation whose tensor a TransformerLens name means where they differ (3:
    HookedTransformer's, 4: TransformerBridge's, ``BRIDGE_MEANINGS``). A TransformerLens name's ``Path.via``
    carries the name, whose ``convention`` gives TransformerLens's tensor.
    A name nnterp has no value for raises ``UnknownPath`` with the reason; a value not yet in the vocabulary
    resolves (``Path.in_vocabulary`` says so)."""
    text = name.strip()
    bridge = generation(transformerlens) == 4
    match = _BLOCK.match(text)
    if match:
        index, rest = int(match.group(1)), match.group(2)
        rest = re.sub(r"^mlp\.experts\.\d+\.", "mlp.experts.", rest)
        entry = (BRIDGE_MEANINGS.get(rest) if bridge else None) or TRANSFORMERLENS_BLOCK.get(rest) \
            or BRIDGE_BLOCK.get(rest)
        if entry is None and rest.startswith("mlp.experts."):
            raise UnknownPath(f"{name!r} is a TransformerLens hook of one expert: nnterp has no per-expert value")
        if entry is None:
            raise UnknownPath(_unknown(name, [f"blocks.{index}.{n}" for n in [*TRANSFORMERLENS_BLOCK, *BRIDGE_BLOCK]]))
        return _entry_path(entry, _index(index, num_layers), num_layers, block_kind, family)
    entry = TRANSFORMERLENS_MODEL.get(text) or BRIDGE_MODEL.get(text)
    if entry is not None:
        return _entry_path(entry, None, num_layers, block_kind, family)
    match = _STANDARD.match(text)
    if match:
        index, host_part, value = int(match.group(1)), match.group(2), match.group(3)
        _check_host(name, value, host_part)
        return Path(value, _index(index, num_layers))
    value = text[len("model."):] if text.startswith("model.") else text
    if value in BY_NAME and BY_NAME[value].host == "model" or PENDING_HOSTS.get(value) == "model":
        return Path(value)
    raise UnknownPath(_unknown(name, _all_paths()))


def _entry_path(entry: Name, layer, num_layers, block_kind, family) -> Path:
    if family in entry.family_values:
        there = entry.family_values[family]
        if there is None:
            raise UnknownPath(f"{entry.name!r} on {family}: {entry.families[family]}")
        if "." not in there:  # a value of the same block
            return Path(there, layer, entry)
        path = resolve(there, num_layers)
        return Path(path.value, path.layer, entry)
    value = _for_block(entry, block_kind)
    if "." in value:  # a model-level name of a block's value (the last block's output)
        path = resolve(value, num_layers)
        return Path(path.value, path.layer, entry)
    return Path(value, layer, entry)


def _for_block(entry: Name, block_kind: str | None) -> str:
    if entry.value is None:
        raise UnknownPath(f"{entry.name!r} has no standard value: {entry.note}")
    return entry.parallel if block_kind == "parallel" and entry.parallel else entry.value


def _index(index: int, num_layers: int | None) -> int:
    if num_layers is not None:
        if not -num_layers <= index < num_layers:
            raise UnknownPath(f"block {index} does not exist: the model has {num_layers} blocks (0 to {num_layers - 1})")
        return index % num_layers
    return index


def _check_host(name: str, value: str, host_part: str | None) -> None:
    spec_host = BY_NAME[value].host if value in BY_NAME else PENDING_HOSTS.get(value)
    if spec_host is None or spec_host == "model":
        raise UnknownPath(_unknown(name, _all_paths()))
    wanted = {None: "layer", "self_attn": "attention", "mlp": "mlp"}[host_part]
    if spec_host != wanted:
        where = Path(value, 0).key.replace("layers.0.", "layers.{i}.")
        raise UnknownPath(f"{name!r}: {value} is served on {where.rsplit('.', 1)[0]}, so its path is {where}")


def _all_paths() -> list[str]:
    paths = [f"layers.{{i}}.{_HOST_PREFIX[spec.host]}{spec.name}" if spec.host != "model" else spec.name
             for spec in BY_NAME.values()]
    return (paths + [f"blocks.{{i}}.{n}" for n in [*TRANSFORMERLENS_BLOCK, *BRIDGE_BLOCK]]
            + [*TRANSFORMERLENS_MODEL, *BRIDGE_MODEL])


def _unknown(name: str, candidates) -> str:
    index = re.search(r"\.(-?\d+)\.", name)
    generic = re.sub(r"\.-?\d+\.", ".{i}.", name)
    guess = nearest(generic, candidates)
    if guess and index:
        guess = guess.replace("{i}", index.group(1))
    hint = f"; did you mean {guess!r}?" if guess else ""
    return (f"{name!r} is neither a standard path (layers.3.layer_output, logits) nor a TransformerLens hook name "
            f"(blocks.3.hook_resid_post){hint}")


def block_hook(name: str) -> Name | None:
    """A block's TransformerLens hook named without its block (``hook_resid_post``, ``attn.hook_pattern``, or
    ``hook_pattern`` where only one hook has that last part); None where ``name`` is no such hook."""
    entry = TRANSFORMERLENS_BLOCK.get(name)
    if entry is not None or not name.startswith("hook_"):
        return entry
    found = [e for key, e in TRANSFORMERLENS_BLOCK.items() if key.rsplit(".", 1)[-1] == name]
    if len(found) > 1:
        spelled = ", ".join(e.name for e in found)
        raise UnknownPath(f"{name!r} names several TransformerLens hooks of a block ({spelled}): name one of them")
    return found[0] if found else None


def suggestion(name: str, host: str, layer: int | None = None, block_kind: str | None = None) -> Path | None:
    """The standard value a foreign word means when written on ``host`` (``layers[0].resid_post`` is
    ``layers[0].layer_output``; ``model.layers_output`` is ``layers[i].layer_output``), or None."""
    value = (NNTERP1_LAYERED.get(name) if host == "model" else None) or WORDS.get(name)
    if value is None:
        hook = name if name.startswith("hook_") else f"hook_{name}"
        for table in (TRANSFORMERLENS_BLOCK, TRANSFORMERLENS_MODEL):
            for key, entry in table.items():
                if entry.value is not None and not isinstance(entry.convention, Normalized) and (
                        key == name or key.rsplit(".", 1)[-1] == hook):
                    value = _for_block(entry, block_kind)
                    break
            if value is not None:
                break
    if value is None:
        return None
    target = BY_NAME[value].host if value in BY_NAME else PENDING_HOSTS[value]
    if target == "model":
        return Path(value)
    return Path(value, "i" if layer is None else layer)


def advice(error) -> str | None:
    """An ``UnknownName``'s message where the name is one this table knows: a standard value asked of another host
    (with its path), or a foreign word (with the standard path it means); None for any other name."""
    elsewhere = _elsewhere(error)
    if elsewhere is not None:
        return elsewhere
    meant = _meant(error)
    return None if meant is None else f"{error.head}; {meant}"


def _elsewhere(error) -> str | None:
    """For a standard value asked of another host than its own (``layers[0].attention_output``): its path."""
    spec = BY_NAME.get(error.name)
    if error.host is None or spec is None or spec.host == error.host:
        return None
    layer = None if spec.host == "model" else ("i" if error.layer is None else error.layer)
    return (f"{error.path} has no {error.name!r}: it is a value of {HOST_PATHS[spec.host]}; did you mean "
            f"{Path(error.name, layer).attribute}?")


def _meant(error) -> str | None:
    """``did you mean model.layers[0].layer_output?`` for a name that ``nnterp.compat.names`` knows, else None."""
    if error.host is None:
        return None
    module = MODULE_WORDS.get(error.host, {}).get(error.name)
    if module is not None and module in error.candidates:
        return f"did you mean the module {error.path}.{module}?"
    path = suggestion(error.name, error.host, error.layer, error.block_kind)
    if path is None:
        return None
    if not path.in_vocabulary:
        return f"it means {path}, which this version of nnterp does not serve yet"
    return f"did you mean {path}?"


def returns(entry: Name, model_level: bool) -> str:
    """What a name returns, in words: the standard path, and how TransformerLens's tensor is computed from it."""
    if entry.value is None:
        return "refused: " + entry.note
    if "." in entry.value:
        return entry.value.replace("-1", "{-1}")
    path = entry.value if model_level and Path(entry.value).host == "model" else \
        Path(entry.value, 0).key.replace("layers.0.", "layers.{i}.")
    if entry.convention.same:
        return path
    if isinstance(entry.convention, Normalized):
        return entry.convention.text
    return f"{path}, as {entry.convention.said(entry.value)}"


def rows(tables=None):
    """Every TransformerLens name with what it returns and how it differs, for the docs and ``support()``:
    (TransformerLens name, what it returns, note, {family or block kind: how it differs there}). ``tables`` picks
    (model table, block table) pairs: HookedTransformer's by default."""
    for model_table, block_table in tables or [(TRANSFORMERLENS_MODEL, TRANSFORMERLENS_BLOCK)]:
        for entry in model_table.values():
            yield entry.name, returns(entry, True), entry.note, entry.families
        for entry in block_table.values():
            yield f"blocks.{{i}}.{entry.name}", returns(entry, False), entry.note, entry.families


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _notes(entry: Name) -> str:
    said = [entry.note] if entry.note and entry.value is not None else []
    said += [f"{'on a ' + where + ' block' if where == 'parallel' else 'on ' + where}: {how}"
             for where, how in entry.families.items()]
    return _cell("; ".join(said))


def markdown(section: str) -> str:
    """A table of the migration guide, from these tables: ``"transformerlens3"`` (HookedTransformer's names),
    ``"transformerlens4"`` (TransformerBridge's own names), ``"nnterp1"`` (nnterp 1.x's API)."""
    if section == "nnterp1":
        lines = ["| nnterp 1.x | now |", "|---|---|"]
        lines += [f"| `model.{old}[i]` | `{Path(new, 'i').attribute.replace('[i]', '[i]')}` |"
                  for old, new in NNTERP1_LAYERED.items()]
        lines += [f"| {_cell(old)} | {_cell(new)} |" for old, new in NNTERP1_API]
        return "\n".join(lines)
    tables = {"transformerlens3": (TRANSFORMERLENS_MODEL, TRANSFORMERLENS_BLOCK),
              "transformerlens4": (BRIDGE_MODEL, BRIDGE_BLOCK)}[section]
    generation = "3.x" if section == "transformerlens3" else "4.x bridge"
    lines = [f"| TransformerLens {generation} name | what nnterp returns under it | notes |", "|---|---|---|"]
    for model_table, block_table in [tables]:
        if section == "transformerlens4":  # the names whose tensor is the bridge's own under transformerlens=4
            block_table = {**block_table, **{f"{n} (transformerlens=4)": e for n, e in BRIDGE_MEANINGS.items()}}
        for prefix, table in (("", model_table), ("blocks.{i}.", block_table)):
            for key, entry in table.items():
                named = f"`{prefix}{entry.name}`" + (" (`transformerlens=4`)" if key != entry.name else "")
                lines.append(f"| {named} | {_cell(returns(entry, not prefix))} | {_notes(entry)} |")
    return "\n".join(lines)


#: the generated tables of docs/migrating.md sit between these markers
GENERATED = "<!-- generated from nnterp.compat.names: python -m nnterp.compat.names docs/migrating.md ({section}) -->"
GENERATED_END = "<!-- end of the generated table -->"


def regenerate(text: str) -> str:
    """``text`` with each generated table replaced by the table these names make now."""
    for section in ("transformerlens3", "transformerlens4", "nnterp1"):
        start = GENERATED.format(section=section)
        if start not in text:
            continue
        head, rest = text.split(start, 1)
        _, tail = rest.split(GENERATED_END, 1)
        text = f"{head}{start}\n{markdown(section)}\n{GENERATED_END}{tail}"
    return text


def transformerlens_names(value: str, bridge: bool = False) -> list[str]:
    """The TransformerLens names of a standard value, in TransformerLens's layout and convention where it has its
    own (``layer_output`` -> ``["blocks.{i}.hook_resid_post"]``; ``attention_norm_scale`` -> ``ln1.hook_scale``,
    its divisor); not the names computed from it with other values (hook_normalized) or copied per head.
    ``bridge``: TransformerBridge's names too."""
    tables = [(TRANSFORMERLENS_BLOCK, TRANSFORMERLENS_MODEL)] + ([(BRIDGE_BLOCK, BRIDGE_MODEL)] if bridge else [])

    def its(entry):
        return entry.value == value and not isinstance(entry.convention, (Normalized, PerHeadCopies))

    found = []
    for block, model in tables:
        found += [f"blocks.{{i}}.{n}" for n, e in block.items() if its(e)] + [n for n, e in model.items() if its(e)]
    return found


def _check_table() -> None:
    for entry in [*TRANSFORMERLENS_BLOCK.values(), *TRANSFORMERLENS_MODEL.values(), *BRIDGE_BLOCK.values(),
                  *BRIDGE_MODEL.values(), *BRIDGE_MEANINGS.values()]:
        assert entry.value is None or entry.value in BY_NAME or entry.value in PENDING_HOSTS or "." in entry.value, entry
        assert entry.value is not None or entry.note, entry
    assert all(entry.host != "model" for entry in [*TRANSFORMERLENS_BLOCK.values(), *BRIDGE_BLOCK.values()]
               if entry.value), "block hooks"
    for entry in [*TRANSFORMERLENS_BLOCK.values(), *TRANSFORMERLENS_MODEL.values(), *BRIDGE_MEANINGS.values()]:
        assert all(family in entry.families for family in entry.family_values), entry
    assert set(BRIDGE_MEANINGS) <= set(TRANSFORMERLENS_BLOCK), "a bridge meaning of a name HookedTransformer has"
    assert all(v in BY_NAME or v in PENDING_HOSTS for v in [*WORDS.values(), *NNTERP1_LAYERED.values()])
    assert set(_HOST_PREFIX) == set(HOSTS)


_check_table()


if __name__ == "__main__":  # python -m nnterp.compat.names docs/migrating.md: rewrite its generated tables
    import sys
    from pathlib import Path as _File

    for page in sys.argv[1:]:
        _File(page).write_text(regenerate(_File(page).read_text()))
