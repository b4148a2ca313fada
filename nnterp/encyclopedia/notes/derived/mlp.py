"""The MLP: gated (through two projections or one fused one) or not, and its activation."""

from __future__ import annotations

import torch

from nnterp.encyclopedia.notes.derived.reading import (
    _assert_close_holds, _children, _config_value, _has_bias, _linear_like, _mlp_module, _note, _trace,
)

#: Config keys of the activation, in the order the families use them.
ACTIVATION_KEYS = ("hidden_act", "hidden_activation", "activation_function", "mlp_hidden_act", "activation")


def mlp_note(subject) -> str | None:
    tiny = subject.tiny
    index = subject.standard("mlp_input", "mlp_activation", "mlp_neurons")
    if index is None:
        return None
    mlp = _mlp_module(tiny, index)
    children = _children(mlp)
    real_mlp = _mlp_module(subject.real, index) if subject.real is not None else mlp
    real_children = _children(real_mlp) if real_mlp is not None else children
    # a wrapper's activation is its text config's
    text_config = subject.config.get_text_config() if hasattr(subject.config, "get_text_config") else subject.config
    key, activation = _config_value(text_config, *ACTIVATION_KEYS)
    act_name = next((n for n in ("act_fn", "activation_fn", "act", "activation") if n in real_children), None)
    act_class = type(real_children[act_name]).__name__ if act_name else None
    activation_text = f"`{activation}`" if activation else "its activation"
    if act_class:
        activation_text += f" (`{act_class}`)"
    host = tiny.layers[index].mlp
    try:
        saved = _trace(tiny, {"x": lambda: tiny.layers[index].mlp_input, "act": lambda: host.mlp_activation,
                              "neurons": lambda: host.mlp_neurons})
    except Exception:
        return None
    x, act, neurons = saved["x"], saved["act"], saved["neurons"]
    code = [f"mlp = model.layers[{index}].mlp", "with model.trace(prompt):",
            f"    x = model.layers[{index}].mlp_input.save()", "    act = mlp.mlp_activation.save()",
            "    neurons = mlp.mlp_neurons.save()", ""]
    up = next((n for n in ("up_proj", "c_fc", "fc_in", "w3") if n in children and "gate_proj" in children), None)
    fused = next((n for n in ("gate_up_proj",) if n in children), None)
    sizes = _sizes(real_children)
    if up and _close(act * getattr(host, up)(x), neurons):
        if up == "up_proj" and str(activation) == "silu":
            subject.as_llama("the gated SiLU MLP")
            return None
        subject.differs("mlp", f"gated MLP with `{activation}`")
        heading = f"The MLP is gated: `{act_name or 'act_fn'}(gate_proj(x)) · {up}(x)`, with {activation_text}"
        prose = (f"`mlp_activation` is the activation of `gate_proj` alone; `mlp_neurons`, what `down_proj` "
                 f"receives, is that times `{up}`'s output. On {subject.named}: {sizes}.")
        code.append(f"torch.testing.assert_close(act * mlp.{up}(x), neurons)")
    elif fused and _fused_gate(host, fused, x, act, neurons) is not None:
        order = _fused_gate(host, fused, x, act, neurons)
        subject.differs("mlp", f"gate and up fused in `{fused}`" + ("" if str(activation) == "silu" else f", `{activation}`"))
        heading = f"The MLP is gated through one fused `{fused}`, cut in two halves, with {activation_text}"
        prose = (f"`{fused}` computes the gate and the up projection in one matrix; its output's "
                 f"{'first' if order == 0 else 'second'} half is the gate, whose activation is `mlp_activation`, and "
                 f"the other half multiplies it into `mlp_neurons`. On {subject.named}: {sizes}.")
        gate, other = ("gate, up", "") if order == 0 else ("up, gate", "")
        code += [f"{gate} = mlp.{fused}(x).chunk(2, dim=-1)", "torch.testing.assert_close(act * up, neurons)"]
        del other
    elif torch.equal(act, neurons):
        subject.differs("mlp", f"an ungated MLP with `{activation}`" if activation else "an ungated MLP")
        heading = f"The MLP is not gated: one up projection, {activation_text}, then the down projection"
        prose = (f"`mlp_activation` and `mlp_neurons` are the same tensor's values: what the down projection receives "
                 f"is the activation itself. On {subject.named}: {sizes}.")
        code.append("assert torch.equal(act, neurons)   # no gate: the down projection reads the activation")
    else:
        return None
    if key:
        prose += f" The activation is the config's `{key}`."
    return _note(heading, prose, code)


def _close(a, b) -> bool:
    return _assert_close_holds(a, b)


def _fused_gate(host, fused, x, act, neurons):
    try:
        first, second = getattr(host, fused)(x).chunk(2, dim=-1)
    except Exception:
        return None
    if _close(act * second, neurons):
        return 0
    if _close(act * first, neurons):
        return 1
    return None


def _sizes(children) -> str:
    parts = []
    for name, child in children.items():
        if _linear_like(child):
            out_features, in_features = child.weight.shape
            if type(child).__name__ == "Conv1D":
                in_features, out_features = out_features, in_features
            parts.append(f"`{name}` {in_features} → {out_features}{' with a bias' if _has_bias(child) else ''}")
    return "; ".join(parts) if parts else "its projections"
