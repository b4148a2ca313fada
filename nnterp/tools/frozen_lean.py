"""What an attribution graph's shared forward (``frozen.replacement_pass`` with ``lean``) runs in place of the
model's own modules, through nnsight's skip (nothing of the modules changed): the norms whose scales the sites
serve, as ``gain · x · scale + bias`` at the clean scale (``frozen_norms``); the MLPs whose outputs the leaves
replace, not run (``_replaced_mlps``); lm_head on the last position alone (``_last_position_head``), found once a
graph (``lean_modules``)."""

from __future__ import annotations

from dataclasses import dataclass

import torch

from nnterp.contract.numerics import UNIT_ROUNDOFF
from nnterp.declare.companions import NormScale, norm_centres, norm_scale
from nnterp.declare.engine import module_of
from nnterp.declare.layouts import SAME
from nnterp.declare.writeback import Read
from nnterp.tools.frozen_gates import FrozenScale, _site_envoy
from nnterp.tools.frozen_mixers import _block_mlp


def _run_frozen(envoy, call: FrozenScale) -> None:
    """Inside a trace: the norm module ``envoy`` not run, its output ``call`` of its input."""
    envoy.skip(call(envoy.input))


def frozen_norms(model, frozen, dtype, width: int) -> dict:
    """The norms whose scales ``frozen`` holds at their sites (("attention", i), ("mlp", i), "final"), each as
    (its envoy, ``FrozenScale`` at the clean scale) where its module returns one tensor of the form ``gain ·
    (x centred or not) · scale + bias`` with the site's scale (``norm_scale``), checked on the module; a norm
    that is not is left out (its scale is written at its site)."""
    found = {}
    for i, layer in enumerate(model.layers):
        mlp_scale = frozen.mlp_scales[i] if frozen.mlp_scales else None
        for key, name, scale in ((("attention", i), "attention_norm_scale", frozen.attention_scales[i]),
                                 (("mlp", i), "mlp_norm_scale", mlp_scale)):
            if scale is not None:
                found[key] = _frozen_norm(layer, name, scale, dtype, width)
    if frozen.final_scale is not None:
        found["final"] = _frozen_norm(model, "final_norm_scale", frozen.final_scale, dtype, width)
    return {key: value for key, value in found.items() if value is not None}


def _frozen_norm(host, name: str, scale, dtype, width: int):
    """(envoy, ``FrozenScale``) of the norm whose scale ``host`` serves as ``name``, or None (see ``frozen_norms``):
    its gain and bias measured on the module (``w`` or ``1 + w`` alike), the form checked on a third input to the
    rounding of ``width`` terms."""
    site, envoy = host._nnterp_site(name), _site_envoy(host, name)
    module = getattr(envoy, "_module", None)
    if not isinstance(site, NormScale) or site.where.key != "output" or module is None:
        return None
    parameter = next(module.parameters(), None)
    dtype = dtype if parameter is None else parameter.dtype
    device = None if parameter is None else parameter.device
    probe = torch.ones(width, device=device)
    probe[1::2] = -1
    probe = (probe - probe.mean())[None]  # zero mean: the same centred or not
    check = torch.linspace(-1.0, 2.0, width, device=device)[None]  # a mean of its own: the centring shows
    with torch.no_grad():
        try:
            outputs = [module(x.to(dtype)) for x in (torch.zeros_like(probe), probe, check)]
        except Exception:  # noqa: BLE001 (a norm that takes more than its input: its scale is written at its site)
            return None
        if not all(isinstance(out, torch.Tensor) and out.shape == (1, width) for out in outputs):
            return None
        bias = outputs[0][0].float()
        gain = (outputs[1][0].float() - bias) / (probe[0] * norm_scale(module, probe.to(dtype))[0])
        call = FrozenScale(scale, gain, bias, norm_centres(module))
        frozen_check = FrozenScale(norm_scale(module, check.to(dtype)), gain, bias, norm_centres(module))
        magnitude = float(outputs[2].float().abs().max())
        if float((frozen_check(check.to(dtype)).float() - outputs[2].float()).abs().max()) > \
                2 * width * UNIT_ROUNDOFF[dtype] * magnitude:
            return None
    return envoy, call


def _replaced_mlps(model, replacement, width: int) -> dict:
    """The blocks whose MLP ``replacement_pass`` does not run, each with the MLP's envoy: where the mlp_output site
    is the MLP module's own output as it is, the module returns one tensor (checked on one zero position), and the
    transcoder reads outside it. (An MLP that is no module of its own, as OPT's fc1/fc2 on the block, or whose
    output is read at a module inside it, as MPT's down_proj, runs.)"""
    found = {}
    for i, layer in enumerate(model.layers):
        mlp, read = _block_mlp(layer), replacement.reads[i]
        if mlp is None or mlp is module_of(layer) or read is None or \
                getattr(read.host, "_module", None) in set(mlp.modules()):
            continue
        site, envoy = layer.mlp._nnterp_site("mlp_output"), _site_envoy(layer.mlp, "mlp_output")
        if getattr(envoy, "_module", None) is not mlp or type(site) is not Read or site.layout is not SAME or \
                site.plus is not None or site.scale is not None or getattr(site.where, "key", None) != "output":
            continue
        parameter = next(mlp.parameters(), None)
        probe = torch.zeros(1, 1, width, dtype=None if parameter is None else parameter.dtype,
                            device=None if parameter is None else parameter.device)
        try:
            with torch.no_grad():
                out = mlp(probe)
        except Exception:  # noqa: BLE001 (an MLP that takes more than the stream runs as it is)
            out = None
        if isinstance(out, torch.Tensor) and out.shape == probe.shape:
            found[i] = envoy
    return found


def _last_position_head(model):
    """lm_head's envoy where its output is the lm_head_output site's as it is and it is a plain Linear: the graph's
    targets read the last position's logits, so ``replacement_pass`` runs it on that position alone."""
    site, envoy = model._nnterp_site("lm_head_output"), _site_envoy(model, "lm_head_output")
    module = getattr(envoy, "_module", None)
    if type(module) is not torch.nn.Linear or type(site) is not Read or site.layout is not SAME or \
            site.plus is not None or site.scale is not None or getattr(site.where, "key", None) != "output":
        return None
    return envoy


@dataclass
class LeanModules:
    """What a lean ``replacement_pass`` skips: ``norms`` (``frozen_norms``), ``mlps`` ({block: envoy},
    ``_replaced_mlps``), ``head`` (``_last_position_head``, or None)."""

    norms: dict
    mlps: dict
    head: object


def lean_modules(model, frozen, replacement, dtype, width: int) -> LeanModules:
    """The modules a lean pass of ``frozen`` with ``replacement`` skips, each found (and its form checked) once."""
    return LeanModules(frozen_norms(model, frozen, dtype, width), _replaced_mlps(model, replacement, width),
                       _last_position_head(model))
