"""A selective-scan (Mamba-style) mixer: its state, its causal convolution and its decays, as the modules hold them."""

from __future__ import annotations

import re

import torch

from nnterp.encyclopedia.notes.derived.reading import _module, _note


def _ssm_mixer(model):
    """(path, module) of the first selective-scan mixer (a module with A_log and a conv1d), or (None, None)."""
    for name, module in _module(model).named_modules():
        if isinstance(getattr(module, "A_log", None), torch.Tensor) and hasattr(module, "conv1d"):
            return name, module
    return None, None


def ssm_note(subject) -> str | None:
    """A Mamba-style mixer: its state, its causal convolution, its decays, as the modules hold them."""
    path, tiny_mixer = _ssm_mixer(subject.tiny)
    if tiny_mixer is None:
        return None
    real_path, mixer = _ssm_mixer(subject.real) if subject.real is not None else (path, tiny_mixer)
    mixer = mixer if mixer is not None else tiny_mixer
    conv = mixer.conv1d
    depthwise = conv.groups == conv.in_channels
    state = getattr(mixer, "ssm_state_size", None)
    width = getattr(mixer, "intermediate_size", None)
    per_channel = mixer.A_log.dim() == 2
    if not per_channel and not (mixer.A_log.dim() == 1 and mixer.A_log.numel() == getattr(mixer, "num_heads", -1)):
        return None  # another layout of the decays (Zamba's): said in section 04
    count = sum(1 for _, m in _module(subject.real or subject.tiny).named_modules() if type(m) is type(mixer))
    layers = (subject.real or subject.tiny).num_layers
    where = "every block" if count == layers else f"{count} of {layers} blocks"
    if per_channel:
        heading = (f"The mixer is a selective scan with a state of {state} per channel over {width} channels, "
                   f"on {where}")
        decay = (f"`A_log` is {tuple(mixer.A_log.shape)}: one decay per channel and state dimension (Mamba 1), "
                 f"and the step size comes from a rank-{getattr(mixer, 'time_step_rank', '?')} projection (`dt_proj`)")
    else:
        heads = getattr(mixer, "num_heads", mixer.A_log.numel())
        heading = f"The mixer is a selective scan of {heads} heads with a state of {state}, on {where}"
        decay = (f"`A_log` holds one decay per head ({mixer.A_log.numel()}, Mamba 2's scalar decay), over "
                 f"{getattr(mixer, 'n_groups', 1)} group(s) of B and C")
    prose = (f"On {subject.named}, `{real_path or path}` ({type(mixer).__name__}) widens the stream to {width} "
             f"channels, runs a causal convolution of kernel {conv.kernel_size[0]} "
             f"{'over each channel alone (depthwise)' if depthwise else 'across channels'}, and scans with a state "
             f"of {state}; {decay}. It has no attention pattern: the interior values of an attention are not served "
             "on its blocks, and what it adds to the stream is its `attention_output`.")
    checks = [f"assert mixer.conv1d.kernel_size == ({tiny_mixer.conv1d.kernel_size[0]},)"]
    if tiny_mixer.conv1d.groups == tiny_mixer.conv1d.in_channels:
        checks.append("assert mixer.conv1d.groups == mixer.conv1d.in_channels   # depthwise: one filter per channel")
    if tiny_mixer.A_log.dim() == 2:
        checks.append("assert mixer.A_log.shape == (mixer.intermediate_size, mixer.ssm_state_size)")
    else:
        checks.append("assert mixer.A_log.shape == (mixer.num_heads,)   # one decay per head")
    checks.append("assert (-mixer.A_log.exp() < 0).all()   # A = -exp(A_log): every state decays")
    for check in checks:  # each as the tiny model holds it
        if not eval(check.split("#")[0].removeprefix("assert "), {"mixer": tiny_mixer, "torch": torch}):
            return None
    indexed = re.sub(r"[.](\d+)(?=[.]|$)", r"[\1]", path)   # backbone.layers.0.mixer -> backbone.layers[0].mixer
    code = [f"mixer = model._module.{indexed}", *checks]
    return _note(heading, prose, code)
