"""The standard vocabulary: every value nnterp serves, in one table.

The printout, ``support()``, the errors and the encyclopedia all read this table; nothing
else names a value. A layout is a kind plus named dimensions; each dimension is defined once
in ``DIMENSIONS`` and every layout is checked against it at import.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

#: Every dimension a layout may name, one sentence each.
DIMENSIONS = {
    "batch": "the rows of the call (prompts, invokes and padding included)",
    "seq": "the token positions of the call",
    "query": "the query positions of an attention pattern (the call's positions)",
    "key": "the key positions of an attention pattern (cached or prepended positions included)",
    "hidden_size": "the width of the residual stream (model.hidden_size)",
    "num_heads": "the attention's query heads (model.num_heads)",
    "num_kv_heads": "the key and value heads, fewer than num_heads under grouped attention (model.num_kv_heads)",
    "head_dim": "the width of one value head (model.head_dim)",
    "qk_head_dim": "the width of one query or key head (model.qk_head_dim; differs from head_dim under MLA)",
    "intermediate_size": "the MLP's hidden width (model.intermediate_size)",
    "vocab_size": "the rows of the unembedding (model.vocab_size)",
    "num_experts": "the experts a router chooses among (model.num_experts)",
    "top_k": "the experts each position is sent to (model.num_experts_per_token)",
    "image_positions": "the image positions of the call, every row's in order (model.image_mask.sum())",
    "image_keys": "the image positions a cross-attention block's keys and values span (the image features it reads)",
    "gate_size": "the entries of a block's learned gate: 1, or hidden_size for a gate per channel",
}

#: The hosts a value lives on, and how the printout and support() spell them.
HOSTS = ("model", "layer", "attention", "mlp")
HOST_PATHS = {
    "model": "model",
    "layer": "model.layers[i]",
    "attention": "model.layers[i].self_attn",
    "mlp": "model.layers[i].mlp",
}

#: The attention implementations the loads name: eager computes the softmax in Python, where the pattern is read;
#: sdpa fuses it into one kernel call.
EAGER, SDPA = "eager", "sdpa"


@dataclass(frozen=True)
class Layout:
    """A value's kind and named dimensions, e.g. ``Residual [batch seq hidden_size]``."""

    kind: str
    dims: tuple[str, ...] = ()

    def __str__(self) -> str:
        if not self.dims:
            return self.kind
        return f"{self.kind} [{' '.join(self.dims)}]"


@dataclass(frozen=True)
class ValueSpec:
    """One standard value: its name, host, layout and meaning."""

    name: str
    host: str
    layout: Layout
    description: str
    read_only: bool = False
    #: "core" values exist on every family (served or unavailable with a reason); "moe" values
    #: are listed only on families with a router
    group: str = "core"


def _layout(text: str) -> Layout:
    kind, _, dims = text.partition(" ")
    return Layout(kind, tuple(dims.strip("[]").split()) if dims else ())


RESIDUAL = "Residual [batch seq hidden_size]"
#: the norm scales: norm_output == gain * (x_centred * scale) (+ bias), gain the norm's weight (1 + weight where the
#: family's norm adds one), x_centred the input less its mean under a LayerNorm, the input itself under an RMSNorm
NORM_SCALE = ("The factor the {norm} multiplies its input by (centred first under a LayerNorm) before the gain, "
              "1 / sqrt(mean square + eps) in float32")

VALUES: tuple[ValueSpec, ...] = tuple(
    ValueSpec(name, host, _layout(layout), description, read_only)
    for name, host, layout, description, read_only in (
        ("logits", "model", "Logits [batch seq vocab_size]",
         "The logits the model returns, after anything it does past lm_head (a softcap, a scale)", False),
        ("token_embeddings", "model", RESIDUAL,
         "The embedding module's output; layers[0].input is what enters the first block", False),
        ("final_norm_output", "model", RESIDUAL,
         "The residual stream after the final norm, what lm_head reads", False),
        ("final_norm_scale", "model", "NormScale [batch seq]", NORM_SCALE.format(norm="final norm"), False),
        ("lm_head_output", "model", "Logits [batch seq vocab_size]",
         "The head's logits before anything the model does past lm_head (a softcap, a scale)", False),
        ("next_token_probs", "model", "NextTokenProbs [batch vocab_size]",
         "The next-token distribution at the last position; derived, read-only", True),
        ("input_ids", "model", "Tokens [batch seq]", "The token ids the model was called with", False),
        ("attention_mask", "model", "Tokens [batch seq]",
         "The attention mask the model was called with; zeros are padding", False),
        ("input_size", "model", "scalar", "[batch, seq] of the current call; read-only", True),
        ("layer_input", "layer", RESIDUAL, "The residual stream entering the block", False),
        ("attention_norm_output", "layer", RESIDUAL, "The normed stream entering the attention", False),
        ("attention_norm_scale", "layer", "NormScale [batch seq]", NORM_SCALE.format(norm="attention's norm"), False),
        ("layer_mid", "layer", RESIDUAL, "The residual stream after the attention add", False),
        ("mlp_norm_output", "layer", RESIDUAL, "The normed stream entering the MLP", False),
        ("mlp_norm_scale", "layer", "NormScale [batch seq]", NORM_SCALE.format(norm="MLP's norm"), False),
        ("mlp_input", "layer", RESIDUAL, "What the MLP is called with", False),
        ("layer_output", "layer", RESIDUAL,
         "The residual stream leaving the block, a tensor even when the block returns a tuple", False),
        ("attention_queries", "attention", "Queries [batch num_heads seq qk_head_dim]",
         "The queries entering attention", False),
        ("attention_keys", "attention", "Keys [batch num_kv_heads seq qk_head_dim]",
         "The keys entering attention", False),
        ("attention_queries_unrotated", "attention", "Queries [batch num_heads seq qk_head_dim]",
         "The queries entering the rotary embedding, after any query norm; the queries themselves where there is "
         "no rotary", False),
        ("attention_keys_unrotated", "attention", "Keys [batch num_kv_heads seq qk_head_dim]",
         "The keys entering the rotary embedding, after any key norm; the keys themselves where there is no rotary",
         False),
        ("attention_values", "attention", "Values [batch num_kv_heads seq head_dim]",
         "The values entering attention", False),
        ("attention_scores", "attention", "Pattern [batch num_heads query key]",
         "The attention scores entering the softmax, masked", False),
        ("attention_premix", "attention", "HeadOutputs [batch seq num_heads head_dim]",
         "Every head's output side by side, as the output projection takes it", False),
        ("attention_head_contributions", "attention", "HeadContributions [batch seq num_heads hidden_size]",
         "Each head's slot of attention_premix through the output projection; their sum plus the projection's "
         "bias is its output; derived, read-only", True),
        ("attention_output", "attention", RESIDUAL, "What the attention adds to the residual stream", False),
        ("attention_probabilities", "attention", "Pattern [batch num_heads query key]",
         "The attention pattern the values are mixed with", False),
        ("attention_head_outputs", "attention", "HeadOutputs [batch seq num_heads head_dim]",
         "The per-head outputs before the output projection", False),
        ("mlp_preactivation", "mlp", "Neurons [batch seq intermediate_size]",
         "What the activation function reads: the gate projection's output on a gated MLP", False),
        ("mlp_activation", "mlp", "Neurons [batch seq intermediate_size]", "The activation function's output", False),
        ("mlp_up", "mlp", "Neurons [batch seq intermediate_size]",
         "The up projection of a gated MLP, which the activation multiplies: mlp_activation · mlp_up == mlp_neurons",
         False),
        ("mlp_neurons", "mlp", "Neurons [batch seq intermediate_size]",
         "What the down projection receives: act(gate)·up on a gated MLP, the activation itself otherwise", False),
        ("mlp_output", "mlp", RESIDUAL, "What the MLP adds to the residual stream", False),
    )
)

MOE_VALUES: tuple[ValueSpec, ...] = tuple(
    ValueSpec(name, "mlp", _layout(layout), description, read_only, "moe")
    for name, layout, description, read_only in (
        ("router_logits", "RouterLogits [batch seq num_experts]",
         "The router's score for every expert, before the top-k choice", False),
        ("router_choices", "Experts [batch seq top_k]", "The experts each position is sent to; read-only", True),
        ("router_weights", "ExpertWeights [batch seq top_k]",
         "The weights the chosen experts' outputs are mixed with", False),
    )
)

#: Listed on wrappers only (an image-text-to-text model around a language model): where the image enters the stream.
IMAGE_VALUES: tuple[ValueSpec, ...] = tuple(
    ValueSpec(name, "model", _layout(layout), description, read_only, "image")
    for name, layout, description, read_only in (
        ("image_features", "ImageFeatures [image_positions hidden_size]",
         "The projected image features the wrapper places into the stream, one row per image position in order: "
         "layers[0].layer_input at image_mask; read on a call with an image", False),
        ("image_mask", "Mask [batch seq]",
         "True at the image positions (the image placeholder tokens) where the image features replace the "
         "token embeddings; read-only", True),
    )
)

#: Listed on families with cross-attention blocks only: the tanh gates those blocks add their sublayers' outputs through.
GATE_VALUES: tuple[ValueSpec, ...] = tuple(
    ValueSpec(name, host, Layout("Gate", ("gate_size",)), description, True, "gate")
    for name, host, description in (
        ("attention_gate", "attention",
         "The factor a gated block multiplies the attention's output by before adding it (tanh of its learned gate); "
         "read-only: attention_output is the product"),
        ("mlp_gate", "mlp",
         "The factor a gated block multiplies the MLP's output by before adding it (tanh of its learned gate); "
         "read-only: mlp_output is the product"),
    )
)

ALL_VALUES = VALUES + MOE_VALUES + IMAGE_VALUES + GATE_VALUES
BY_NAME: dict[str, ValueSpec] = {spec.name: spec for spec in ALL_VALUES}


#: Values no tensor of the forward holds, computed beside it at a cost the forward does not pay: each head's share of
#: the output through o_proj and each norm's scale. A cache of everything (``model.cache(prompts)``) leaves them out,
#: as TransformerLens's run_with_cache leaves out hook_result; ``values=`` names them (or the TransformerLens names
#: computed from them, hook_scale and hook_normalized) to keep them.
ON_REQUEST = ("attention_head_contributions", "attention_norm_scale", "mlp_norm_scale", "final_norm_scale")


def values_of(host: str, groups=("core",)) -> tuple[ValueSpec, ...]:
    """The standard values a host serves, in table order."""
    return tuple(spec for spec in ALL_VALUES if spec.host == host and spec.group in groups)


#: The order a forward computes the values in, the one order errors, the contract, hazards and the cache
#: follow: the model's inputs and embeddings, then each block's values by host, then the readout. A family
#: whose block computes in another order declares its own ``Block(order=...)`` from this one.
FORWARD_ORDER = {
    # a wrapper's image_mask is read from the call's input_ids, its image_features where it merges them
    "model": ("input_ids", "attention_mask", "input_size", "image_mask", "token_embeddings", "image_features"),
    # a norm's scale is computed from the norm's input and served at its output: before the output is read
    "block": (
        ("layer", "layer_input"), ("layer", "attention_norm_scale"), ("layer", "attention_norm_output"),
        ("attention", "attention_queries_unrotated"), ("attention", "attention_keys_unrotated"),
        ("attention", "attention_queries"), ("attention", "attention_keys"), ("attention", "attention_values"),
        ("attention", "attention_scores"), ("attention", "attention_probabilities"),
        ("attention", "attention_head_outputs"), ("attention", "attention_premix"),
        ("attention", "attention_head_contributions"),
        ("attention", "attention_output"), ("attention", "attention_gate"), ("layer", "layer_mid"), ("layer", "mlp_norm_scale"),
        ("layer", "mlp_norm_output"),
        ("layer", "mlp_input"), ("mlp", "router_logits"), ("mlp", "router_weights"), ("mlp", "router_choices"),
        ("mlp", "mlp_preactivation"), ("mlp", "mlp_activation"), ("mlp", "mlp_up"), ("mlp", "mlp_neurons"),
        ("mlp", "mlp_output"), ("mlp", "mlp_gate"), ("layer", "layer_output"),
    ),
    "readout": ("final_norm_scale", "final_norm_output", "lm_head_output", "logits", "next_token_probs"),
}


def up_first(order):
    """A block order whose MLP calls up_proj before its activation (Beam, Falcon-H1: up_proj(x) * act(...))."""
    order = [item for item in order if item != ("mlp", "mlp_up")]
    at = order.index(("mlp", "mlp_preactivation"))
    return tuple(order[:at] + [("mlp", "mlp_up")] + order[at:])


def forward_order_sentence() -> str:
    """The forward order in words, for the message of an out-of-order read."""
    return ("the inputs and token_embeddings, then block by block layer_input, the attention's values, layer_mid, "
            "the MLP's values and layer_output, then final_norm_output, lm_head_output and logits "
            "(nnterp.FORWARD_ORDER lists every value)")


#: Standard module names, aliased onto the native tree.
MODULE_NAMES = (
    "embed_tokens", "layers", "self_attn", "q_proj", "k_proj", "v_proj", "o_proj", "mlp", "act_fn",
    "up_proj", "gate_proj", "down_proj", "input_layernorm", "post_attention_layernorm", "norm", "lm_head",
)


def markdown_table() -> str:
    """The README's table of the values, from this table: one row per host and layout, in table order
    (``python -m nnterp.declare.vocabulary`` prints it)."""
    rows: dict[tuple[str, str], list[str]] = {}
    for spec in ALL_VALUES:
        name = f"`{spec.name}`" + (" (read-only)" if spec.read_only else "")
        rows.setdefault((HOST_PATHS[spec.host], str(spec.layout)), []).append(name)
    lines = ["| host | values | layout |", "|---|---|---|"]
    lines += [f"| `{host}` | {', '.join(names)} | {layout.replace('|', chr(92) + '|')} |"
              for (host, layout), names in rows.items()]
    return "\n".join(lines) + "\n"


def _check_table() -> None:
    for spec in ALL_VALUES:
        assert spec.host in HOSTS, spec
        unknown = [d for d in spec.layout.dims if d not in DIMENSIONS]
        assert not unknown, f"{spec.name}: unknown dimensions {unknown}"
    assert len(BY_NAME) == len(ALL_VALUES), "a value name is listed twice"
    ordered = [*FORWARD_ORDER["model"], *(name for _, name in FORWARD_ORDER["block"]), *FORWARD_ORDER["readout"]]
    listed = sorted(spec.name for spec in ALL_VALUES)
    assert sorted(ordered) == listed, "FORWARD_ORDER must name every value once"
    assert all(BY_NAME[name].host == host for host, name in FORWARD_ORDER["block"])
    assert set(ON_REQUEST) <= set(BY_NAME)


_check_table()


def nearest(name: str, candidates) -> str | None:
    """The candidate closest to ``name``, if any is close."""
    match = difflib.get_close_matches(name, list(candidates), n=1, cutoff=0.6)
    return match[0] if match else None


if __name__ == "__main__":
    print(markdown_table(), end="")
