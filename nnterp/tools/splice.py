"""SAEs spliced into a residual value: ``splice(model, sae, at=...)``.

The SAE is duck typed: anything with ``encode(x) -> latents`` and ``decode(latents) -> x_hat`` (SAELens's
``SAE`` objects as they are), ``at`` a standard path (``"layers[3].layer_output"``), a TransformerLens
hook name of a residual the model holds (``"blocks.3.hook_resid_post"``, ``"blocks.3.ln2.hook_out"``; names.resolve
reads it, and refuses one whose TransformerLens tensor the model does not hold), or left out to take the SAE's own ``cfg.hook_name`` (``cfg.metadata.hook_name`` on SAELens 6).
Inside a trace, ``spliced.latents`` reads the residual there, encodes it and hands the latents out as a value
of the trace: read them, save them, edit them in place or assign them (``spliced.latents = new``). When the
forward moves on, the residual becomes ``decode(latents) + error``, where ``error = x - decode(encode(x))`` is
kept by default, so unedited latents leave the logits as they were (bit for bit: an unedited read hands the
model its own tensor back). ``keep_error=False`` replaces the residual by the reconstruction alone.

A local SAE works without SAELens: ``LocalSAE(W_enc, b_enc, W_dec, b_dec)`` (ReLU latents).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import partial
from typing import Any

import torch

from .. import tracing
from ..sites import SAME, Read, _version, drop_pending, swap, value_at, written_back
from ._common import ToolError

RESIDUAL_VALUES = ("layer_input", "layer_mid", "layer_output", "attention_norm_output", "mlp_norm_output",
                   "mlp_input")
MODEL_RESIDUALS = ("token_embeddings", "final_norm_output")


class LocalSAE(torch.nn.Module):
    """A sparse autoencoder of ReLU latents: ``encode(x) = relu((x - b_dec) @ W_enc + b_enc)``,
    ``decode(z) = z @ W_dec + b_dec``; ``cfg.hook_name`` names where it reads, as SAELens's do."""

    def __init__(self, W_enc, b_enc, W_dec, b_dec, hook_name: str | None = None) -> None:
        super().__init__()
        self.W_enc, self.b_enc = torch.nn.Parameter(W_enc), torch.nn.Parameter(b_enc)
        self.W_dec, self.b_dec = torch.nn.Parameter(W_dec), torch.nn.Parameter(b_dec)
        self.cfg = type("Cfg", (), {"hook_name": hook_name, "d_in": W_enc.shape[0], "d_sae": W_enc.shape[1]})()

    @classmethod
    def random(cls, d_in: int, d_sae: int, hook_name: str | None = None, seed: int = 0) -> "LocalSAE":
        generator = torch.Generator().manual_seed(seed)
        W_enc = torch.randn(d_in, d_sae, generator=generator) / d_in ** 0.5
        return cls(W_enc, torch.zeros(d_sae), W_enc.T.clone(), torch.zeros(d_in), hook_name)

    @classmethod
    def identity(cls, d_in: int, hook_name: str | None = None) -> "LocalSAE":
        """2·d_in latents, relu(x) and relu(-x): decode(encode(x)) == x exactly."""
        eye = torch.eye(d_in)
        return cls(torch.cat([eye, -eye], 1), torch.zeros(2 * d_in), torch.cat([eye, -eye], 0), torch.zeros(d_in),
                   hook_name)

    def encode(self, x):
        return torch.relu((x - self.b_dec) @ self.W_enc + self.b_enc)

    def decode(self, z):
        return z @ self.W_dec + self.b_dec


def resolve_at(model, at: str) -> tuple[Any, str, str]:
    """(host envoy, value name, standard path) for a standard path or a TransformerLens hook name (``nnterp.names``:
    a name whose TransformerLens tensor is not one the model holds, such as hook_normalized before the gain, is
    refused)."""
    from .. import names

    text = at.strip()
    if text.startswith("model."):
        text = text[len("model."):]
    if re.fullmatch(r"blocks\.-?\d+\..+", text) or text in names.TRANSFORMERLENS_MODEL or text in names.BRIDGE_MODEL:
        kind = model.family.block.kind(model._nnterp_state.config)
        try:
            path = names.resolve(text, model.num_layers, kind, model.family.name)
        except names.UnknownPath as unknown:
            raise ToolError(f"cannot splice at {at!r}: {unknown}") from None
        if not path.convention.same:
            raise ToolError(f"cannot splice at {at!r}: TransformerLens's tensor there is "
                            f"{path.convention.said(path.value)}, not a tensor the model holds; splice "
                            f"at a residual value the model holds, such as the norm's output or layer_input")
        text = path.value if path.layer is None else f"layers[{path.layer}].{path.value}"
    found = re.fullmatch(r"layers\[(\d+)\]\.(\w+)", text)
    if found and found.group(2) in RESIDUAL_VALUES:
        index = int(found.group(1))
        if index >= model.num_layers:
            raise ToolError(f"{at!r} names block {index}; the model has {model.num_layers} (0..{model.num_layers - 1})")
        return model.layers[index], found.group(2), f"model.layers[{index}].{found.group(2)}"
    if text in MODEL_RESIDUALS:
        return model, text, f"model.{text}"
    raise ToolError(f"cannot splice at {at!r}: name a residual value, a standard path such as "
                    f"'layers[3].layer_output' or a TransformerLens name such as 'blocks.3.hook_resid_post'")


@dataclass
class _SpliceContext:
    host: Any
    model: Any
    error: Any = None


class Splice:
    """An SAE spliced at one residual value; ``latents`` inside a trace is its value of that trace."""

    def __init__(self, model, sae, at: str | None = None, keep_error: bool = True) -> None:
        for method in ("encode", "decode"):
            if not callable(getattr(sae, method, None)):
                raise ToolError(f"an SAE to splice needs {method}(); {type(sae).__name__} has none")
        at = at or _hook_name(sae)
        if not at:
            raise ToolError("say where to splice the SAE: at='layers[3].layer_output' (its cfg.hook_name is unset)")
        self.model, self.sae, self.keep_error = model, sae, keep_error
        self.host_of, self.name, self.path = resolve_at(model, at)
        why = model.serves(self.name, getattr(self.host_of, "_nnterp_host", None) == "layer" and
                           int(self.host_of.path.rsplit(".", 1)[-1]) or None)
        if why is not None:
            raise ToolError(f"cannot splice at {self.path}: {why}")
        site = self.host_of._nnterp_site(self.name)
        if not isinstance(site, Read) or site.layout is not SAME or site.plus or site.scale or site.snapshot:
            raise ToolError(f"cannot splice at {self.path}: it is read at {site.describe(self.host_of._module)}, "
                            "not at a module's own tensor; splice at layer_output or layer_input")
        self.site = site

    def __repr__(self) -> str:
        return f"Splice({type(self.sae).__name__} at {self.path}, keep_error={self.keep_error})"

    # the latents as a value of the trace: presented at the residual's location, carried back on moving on
    def _present(self, context, raw):
        x = self.site.element.get(raw)
        latents = self.sae.encode(x)
        context.error = x - self.sae.decode(latents) if self.keep_error else None
        latents._nnterp_version = latents._version
        return latents

    def _carry_back(self, context, latents, raw):
        if self.keep_error and _version(latents) == getattr(latents, "_nnterp_version", None):
            return raw  # not edited: the model's own tensor, bit for bit
        return self.site.element.put(raw, self._residual(context, latents, self.site.element.get(raw)))

    def _residual(self, context, latents, like):
        reconstruction = self.sae.decode(latents)
        value = reconstruction + context.error if context.error is not None else reconstruction
        return value.to(like.dtype)

    @property
    def latents(self):
        """The SAE's latents at the residual, inside a trace (read, save, edit in place, or assign)."""
        if tracing.CAPTURING[0]:  # read out of order: what a capture kept as the forward passed the residual
            kept = tracing.captured(self, "latents", f"{self.path}.latents")
            if kept is not tracing.NOTHING:
                return kept
        location = self.site._location(self.host_of)
        context = _SpliceContext(self.host_of, self.model)

        def present(raw):
            latents = self._present(context, raw)
            latents._nnterp_splice_context = context  # its error term, for an assignment right after
            return latents

        return written_back(location, self, present, partial(self._carry_back, context))

    @latents.setter
    def latents(self, value) -> None:
        location = self.site._location(self.host_of)
        pending = drop_pending(location, self)
        raw = value_at(location)
        if pending is not None:
            context = pending._nnterp_splice_context  # read just before: its error term
        else:
            context = _SpliceContext(self.host_of, self.model)
            self._present(context, raw)
        native = self.site.element.get(raw)
        swap(location, self.site.element.put(raw, self._residual(context, value, native)))


def _hook_name(sae) -> str | None:
    """Where an SAE says it reads: cfg.hook_name, or cfg.metadata.hook_name (SAELens 6)."""
    cfg = getattr(sae, "cfg", None)
    return getattr(cfg, "hook_name", None) or getattr(getattr(cfg, "metadata", None), "hook_name", None)


def splice(model, sae, at: str | None = None, keep_error: bool = True) -> Splice:
    """Splice ``sae`` at a residual value (a standard path, a TransformerLens hook name, or its cfg.hook_name)."""
    return Splice(model, sae, at, keep_error)
