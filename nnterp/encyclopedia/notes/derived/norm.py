"""The block's norm: its form, tried on the tiny model (RMSNorm, ``x · (1 + w)``, LayerNorm...), and its eps."""

from __future__ import annotations

import torch

from nnterp.encyclopedia.notes.derived.block import _child_of
from nnterp.encyclopedia.notes.derived.reading import _assert_close_holds, _eps, _list, _module, _note, _num, _trace


def norm_note(subject) -> str | None:
    tiny = subject.tiny
    first = subject.first()
    norm_std = _child_of(first.get("attention_norm_output"))
    if norm_std is None or first.get("layer_input") is None or first["layer_input"].status != "served":
        return None
    native = subject.native(norm_std)
    block = tiny.layers[0]
    tiny_norm = _module(getattr(block, native, None)) if hasattr(block, native) else None
    if tiny_norm is None:
        return None
    real_norm = getattr(_module(subject.real.layers[0]), native, None) if subject.real is not None else tiny_norm
    real_norm = real_norm if real_norm is not None else tiny_norm
    try:
        saved = _trace(tiny, {"x": lambda: block.layer_input, "h": lambda: block.attention_norm_output})
    except Exception:
        return None
    x, h = saved["x"], saved["h"]
    eps = _eps(tiny_norm)
    weight = getattr(tiny_norm, "weight", None)
    bias = getattr(tiny_norm, "bias", None)
    if eps is None or not isinstance(weight, torch.Tensor) or x.shape != h.shape:
        return None
    forms = []
    rms = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps)
    centred = x - x.mean(-1, keepdim=True)
    if isinstance(bias, torch.Tensor):
        forms.append(("a LayerNorm with a bias: (x - mean) / std · weight + bias",
                      "torch.nn.functional.layer_norm(x, x.shape[-1:], norm.weight, norm.bias, {eps})",
                      lambda: torch.nn.functional.layer_norm(x, x.shape[-1:], weight, bias, eps)))
    forms += [
        ("an RMSNorm: x / rms(x) · weight", "x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + {eps}) * norm.weight",
         lambda: rms * weight),
        ("an RMSNorm with an offset weight: x / rms(x) · (1 + weight)",
         "x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + {eps}) * (1 + norm.weight)", lambda: rms * (1 + weight)),
        ("a LayerNorm without a bias: (x - mean) / std · weight",
         "torch.nn.functional.layer_norm(x, x.shape[-1:], norm.weight, None, {eps})",
         lambda: torch.nn.functional.layer_norm(x, x.shape[-1:], weight, None, eps)),
        ("a mean-centred norm without a bias: (x - mean) / std · weight",
         "(x - x.mean(-1, keepdim=True)) * torch.rsqrt((x - x.mean(-1, keepdim=True)).pow(2).mean(-1, keepdim=True) "
         "+ {eps}) * norm.weight",
         lambda: centred * torch.rsqrt(centred.pow(2).mean(-1, keepdim=True) + eps) * weight),
    ]
    for words, expression, compute in forms:
        try:
            again = compute()
        except Exception:
            continue
        if again.shape == h.shape and _assert_close_holds(again, h):
            break
    else:
        return None
    real_eps = _eps(real_norm)
    if words.startswith("an RMSNorm: "):  # Llama's
        subject.as_llama("RMSNorm before each sublayer")
        return None
    subject.differs("norms", words.split(":")[0])
    stated = subject.stated("rms_norm_eps", "layer_norm_eps", "layer_norm_epsilon", "norm_eps", "norm_epsilon",
                            "rms_norm_epsilon")
    stated = stated if stated is not None and real_eps is not None and float(stated.value) == float(real_eps) else None
    heading = f"`{native}` is {words.split(':')[0]}, eps {_num(real_eps if real_eps is not None else eps)}"
    norms = sorted({type(m).__name__ for name, m in _module(subject.real or tiny).named_modules()
                    if "norm" in type(m).__name__.lower()})
    prose = (f"`{native}` ({type(real_norm).__name__}) computes {words.split(': ', 1)[-1]}, with eps "
             f"{_num(real_eps if real_eps is not None else eps)} "
             + (stated.on if stated is not None else f"on {subject.named} as built here") + "; the model's norm "
             f"classes are {_list(norms)}.")
    if "(1 + weight)" in words:
        prose += " A weight of zero is the identity scale, so the stored weights sit around 0, not 1."
    code = [f"norm = model.layers[0].{native}", "with model.trace(prompt):",
            "    x = model.layers[0].layer_input.save()", "    h = model.layers[0].attention_norm_output.save()", "",
            f"torch.testing.assert_close({expression.format(eps=_num(eps) if eps >= 1e-3 else repr(eps))}, h)",
            *(stated.check() if stated is not None else [])]
    return _note(heading, prose, code)
