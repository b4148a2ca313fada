"""SAEs and transcoders spliced into the forward: ``splice(model, sae, at=...)``, ``splice(model, transcoder)``.

The SAE is duck typed: anything with ``encode(x) -> latents`` and ``decode(latents) -> x_hat`` (SAELens's
``SAE`` objects as they are). ``at`` names any writable value the model serves, by standard path
(``"layers[3].layer_output"``, ``"layers[3].mlp.mlp_output"``, ``"layers[3].self_attn.attention_premix"``) or by
TransformerLens hook name (``"blocks.3.hook_mlp_out"``, ``"blocks.3.attn.hook_z"``, ``"blocks.3.mlp.hook_post"``,
``"blocks.3.ln2.hook_normalized"``; ``names.resolve`` reads it); left out, it is the SAE's own ``cfg.hook_name``
(``cfg.metadata.hook_name`` on SAELens 6). Per-head values are flattened to ``heads * head_dim`` for an SAE of that
width (SAELens's hook_z SAEs). Under TransformerLens's ``hook_normalized`` the SAE sees TransformerLens's tensor,
the norm's output before its gain and bias, ``(output - bias) / gain`` (the norm's gain and bias measured on its
module), and its writes go back through them.

A transcoder reads at one value and writes at another: SAELens's ``Transcoder`` and ``SkipTranscoder``
(``cfg.metadata.hook_name`` and ``hook_name_out``), circuit-tracer's ``SingleLayerTranscoder`` (``layer_idx``;
``at`` and ``to`` given, or its set's ``feature_input_hook``/``feature_output_hook``). ``splice(model, clt)`` splices
circuit-tracer's ``CrossLayerTranscoder``: it reads at every block and writes to every later block's MLP output.

Inside a trace, ``spliced.latents`` reads the input, encodes it and hands the latents out as a value of the trace,
presented where the reconstruction is written: read them, save them, edit them in place or assign them
(``spliced.latents = new``). When the forward moves on, the written value becomes ``output + decode(latents) -
decode(latents as read)``: the reconstruction's change is added, so the error term ``output - decode(encode(x))``
is kept by default and unedited latents leave the logits as they were (bit for bit: an unedited read hands the
model its own tensor back). With gradients on, the forward consumes the latents (the value is still the model's,
bit for bit), so ``latents.grad`` is the loss's gradient with respect to them; the error term is then a constant
and the input is read detached, as in circuit-tracer's replacement model. ``keep_error=False`` writes the
reconstruction alone.

``model.cache(prompts, splices=[spliced])`` keeps, beside the values, each splice's latents and error term (the value
less the reconstruction, as the SAE sees them) under the key of the value it reads: ``layers.3.mlp.mlp_output.latents``
and ``.error`` (a cross-layer transcoder's at every block), or the path a trace reads them by
(``model.layers[3].mlp.mlp_output.latents``); an SAE named by a TransformerLens hook also under SAELens's names,
``blocks.3.hook_mlp_out.hook_sae_acts_post`` and ``.hook_sae_error`` (the input less the reconstruction, as SAELens's).

A local SAE or transcoder works without SAELens: ``LocalSAE(W_enc, b_enc, W_dec, b_dec)`` (ReLU latents); a local
cross-layer transcoder, in circuit-tracer's layout, without circuit-tracer: ``LocalCLT``.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from functools import partial
from typing import Any

import torch

from nnterp.compat import names
from nnterp.declare.engine import module_of
from nnterp.declare.locations import block_hosts
from nnterp.declare.vocabulary import BY_NAME
from nnterp.declare.writeback import Read, _Context, _version, carried_back
from nnterp.runtime import bridge
from nnterp.runtime.bridge import drop_pending, swap, value_at
from nnterp.runtime.cache import SpliceRead
from nnterp.tools._common import _AFTER_BLOCKS, _BEFORE_BLOCKS, _IN_A_BLOCK, ToolError
from nnterp.tools.attribution import norm_gain

#: TransformerLens's hook_normalized: the norm scale it resolves to, and the norm output its splice writes
NORMED_OUTPUT = {"attention_norm_scale": "attention_norm_output", "mlp_norm_scale": "mlp_norm_output",
                 "final_norm_scale": "final_norm_output"}


class LocalSAE(torch.nn.Module):
    """A sparse autoencoder (or transcoder: ``d_out`` other than ``d_in``) of ReLU latents:
    ``encode(x) = relu((x - b_dec) @ W_enc + b_enc)`` (without the ``b_dec`` shift for a transcoder),
    ``decode(z) = z @ W_dec + b_dec``; ``cfg.hook_name`` (and ``cfg.hook_name_out``) name where it reads (and
    writes), as SAELens's do."""

    def __init__(self, W_enc, b_enc, W_dec, b_dec, hook_name: str | None = None,
                 hook_name_out: str | None = None) -> None:
        super().__init__()
        self.W_enc, self.b_enc = torch.nn.Parameter(W_enc), torch.nn.Parameter(b_enc)
        self.W_dec, self.b_dec = torch.nn.Parameter(W_dec), torch.nn.Parameter(b_dec)
        self.cfg = type("Cfg", (), {"hook_name": hook_name, "hook_name_out": hook_name_out, "d_in": W_enc.shape[0],
                                    "d_sae": W_enc.shape[1], "d_out": W_dec.shape[1]})()

    @property
    def is_transcoder(self) -> bool:
        return self.cfg.hook_name_out is not None

    @classmethod
    def random(cls, d_in: int, d_sae: int, hook_name: str | None = None, seed: int = 0, d_out: int | None = None,
               hook_name_out: str | None = None, threshold: float = 0.0) -> "LocalSAE":
        """Gaussian weights; ``threshold`` > 0 makes the latents sparse (``b_enc = -threshold``)."""
        generator = torch.Generator().manual_seed(seed)
        W_enc = torch.randn(d_in, d_sae, generator=generator) / d_in ** 0.5
        W_dec = W_enc.T.clone() if d_out is None else torch.randn(d_sae, d_out, generator=generator) / d_sae ** 0.5
        return cls(W_enc, torch.full((d_sae,), -float(threshold)), W_dec, torch.zeros(W_dec.shape[1]), hook_name,
                   hook_name_out)

    @classmethod
    def identity(cls, d_in: int, hook_name: str | None = None) -> "LocalSAE":
        """2·d_in latents, relu(x) and relu(-x): decode(encode(x)) == x exactly."""
        eye = torch.eye(d_in)
        return cls(torch.cat([eye, -eye], 1), torch.zeros(2 * d_in), torch.cat([eye, -eye], 0), torch.zeros(d_in),
                   hook_name)

    def encode(self, x):
        shifted = x if self.is_transcoder else x - self.b_dec
        return torch.relu(shifted @ self.W_enc + self.b_enc)

    def decode(self, z):
        return z @ self.W_dec + self.b_dec


class LocalCLT(torch.nn.Module):
    """A cross-layer transcoder in circuit-tracer's layout (``CrossLayerTranscoder``'s attributes and methods as
    nnterp uses them), of ReLU latents: block ``l``'s latents ``relu(x_l @ W_enc[l].T + b_enc[l])`` read at its
    ``feature_input_hook`` and write ``latents @ W_dec[l][:, k - l]`` to block ``k``'s ``feature_output_hook`` for
    every ``k >= l``, plus ``b_dec[k]`` (and ``x_k @ W_skip[k]`` with a skip)."""

    def __init__(self, W_enc, b_enc, W_dec: list, b_dec, W_skip=None, feature_input_hook: str = "hook_resid_mid",
                 feature_output_hook: str = "hook_mlp_out") -> None:
        super().__init__()
        self.n_layers, self.d_transcoder, self.d_model = W_enc.shape
        self.W_enc, self.b_enc = torch.nn.Parameter(W_enc), torch.nn.Parameter(b_enc)
        self.W_dec = torch.nn.ParameterList([torch.nn.Parameter(w) for w in W_dec])
        self.b_dec = torch.nn.Parameter(b_dec)
        self.W_skip = None if W_skip is None else torch.nn.Parameter(W_skip)
        self.feature_input_hook, self.feature_output_hook = feature_input_hook, feature_output_hook

    @classmethod
    def random(cls, n_layers: int, d_model: int, d_transcoder: int, seed: int = 0, threshold: float = 0.0,
               feature_input_hook: str = "hook_resid_mid", skip: bool = False) -> "LocalCLT":
        """Gaussian weights; ``threshold`` > 0 makes the latents sparse (``b_enc = -threshold``)."""
        generator = torch.Generator().manual_seed(seed)
        W_enc = torch.randn(n_layers, d_transcoder, d_model, generator=generator) / d_model ** 0.5
        W_dec = [torch.randn(d_transcoder, n_layers - l, d_model, generator=generator) / d_transcoder ** 0.5
                 for l in range(n_layers)]
        W_skip = torch.randn(n_layers, d_model, d_model, generator=generator) / d_model if skip else None
        return cls(W_enc, torch.full((n_layers, d_transcoder), -float(threshold)), W_dec,
                   torch.randn(n_layers, d_model, generator=generator) / d_model, W_skip, feature_input_hook)

    @property
    def dtype(self) -> torch.dtype:
        return self.b_enc.dtype

    def encode_layer(self, x, layer_id: int):
        return torch.relu(x @ self.W_enc[layer_id].T + self.b_enc[layer_id])


# --------------------------------------------------------------------------- where an SAE reads and writes
@dataclass
class Point:
    """One served value an SAE reads or writes: its host envoy, name, block and site; ``affine`` (gain, bias) where
    the SAE sees TransformerLens's hook_normalized, the norm's output before them."""

    host: Any
    name: str
    layer: int | None
    path: str
    site: Any
    affine: tuple | None = None
    #: the TransformerLens hook name it was named by (``blocks.3.hook_mlp_out``), None for a standard path
    hook_name: str | None = None

    def location(self) -> str:
        return self.site._location(self.host)

    def present(self, model, raw):
        """The value as the SAE sees it, from what the forward holds at its location."""
        value = self.site._present(_Context(self.host, model), raw)
        if self.affine is not None:
            gain, bias = self.affine
            value = ((value.float() - bias) / gain).to(value.dtype)
        return value

    def read(self):
        """The value as the SAE sees it, read inside a trace (in forward order)."""
        value = getattr(self.host, self.name)
        if self.affine is not None:
            gain, bias = self.affine
            value = ((value.float() - bias) / gain).to(value.dtype)
        return value

    def put(self, model, raw, value):
        """``raw`` with ``value`` (as the SAE sees it) in place of the served value."""
        if self.affine is not None:
            gain, bias = self.affine
            value = value.float() * gain + bias
        return self._replace(model, raw, value)

    def add(self, model, raw, change):
        """``raw`` with ``change`` (as the SAE sees it) added to the served value: a zero change leaves it bit for bit."""
        if self.affine is not None:
            change = change.float() * self.affine[0]
        native = self.site._present(_Context(self.host, model), raw)
        return self._replace(model, raw, native + change.to(native.dtype))

    def _replace(self, model, raw, value):
        context = _Context(self.host, model)
        value = value.to(self.site._current(context, raw).dtype)
        if self.site.shared:  # the forward holds it under two names: copy into it, so both see the edit
            self.site._current(context, raw).copy_(value)
            return raw
        return self.site._put(context, raw, value)


def resolve_at(model, at: str, transformerlens: int = 3, computed: bool = False) -> Point:
    """The served value ``at`` names: a standard path or a TransformerLens hook name (``nnterp.compat.names``, in
    ``transformerlens``'s generation; a name whose TransformerLens tensor is neither the model's nor its norm output
    before the gain is refused). ``computed``: a value the model computes from others (a sum of two modules'
    outputs) is taken too, for a reader that reads and assigns it in a trace rather than splicing into it (an
    attribution graph's replacement)."""
    text = at.strip()
    kind = model.family.block.kind(model._nnterp_state.config)
    try:
        path = names.resolve(text, model.num_layers, kind, model.family.name, transformerlens)
    except names.UnknownPath as unknown:
        raise ToolError(f"cannot splice at {at!r}: {unknown}") from None
    value, affine_of = path.value, None
    if isinstance(path.convention, names.Normalized) and value in NORMED_OUTPUT:
        value, affine_of = NORMED_OUTPUT[value], value
    elif not path.convention.same:
        raise ToolError(f"cannot splice at {at!r}: TransformerLens's tensor there is "
                        f"{path.convention.said(path.value)}, not a tensor the model holds; splice at the value itself, "
                        f"{names.Path(path.value, path.layer).attribute}")
    spec_host = names.Path(value).host
    if spec_host == "model":
        host, layer, where = model, None, f"model.{value}"
    else:
        layer = path.layer
        if layer is None or not isinstance(layer, int):
            raise ToolError(f"cannot splice at {at!r}: name the block, e.g. layers[3].{value}")
        host = block_hosts(model.layers[layer]).get(spec_host)
        where = names.Path(value, layer).attribute
        if host is None:
            raise ToolError(f"cannot splice at {where}: block {layer} has no {spec_host}")
    why = model.serves(value, layer)
    if why is not None:
        raise ToolError(f"cannot splice at {where}: {why}")
    site = host._nnterp_site(value)
    if (type(site) is not Read or site.snapshot) and not computed:
        raise ToolError(f"cannot splice at {where}: it is {site.describe(getattr(host, '_module', None))}, a value "
                        "computed from others rather than a tensor the forward hands on; splice at the value it is "
                        "computed from")
    affine = _norm_affine(host, affine_of, model) if affine_of else None
    hook_name = None if path.via is None else path.via.name if layer is None else f"blocks.{layer}.{path.via.name}"
    return Point(host, value, layer, where, site, affine, hook_name)


def _norm_affine(host, scale_name: str, model) -> tuple:
    """The gain and bias of the norm whose scale is ``scale_name``, measured on its module (``attribution.norm_gain``)."""
    module = module_of(host._nnterp_site(scale_name).where.target(host))
    gain, bias = norm_gain(module, model.hidden_size)
    if bool((gain == 0).any()):
        raise ToolError("the norm has a zero gain, so its output does not determine TransformerLens's hook_normalized; "
                        "splice at the norm's output instead")
    return gain, bias


# --------------------------------------------------------------------------- what an SAE or transcoder computes
def _width(module, names_: tuple) -> int | None:
    cfg = getattr(module, "cfg", None)
    for name in names_:
        value = getattr(cfg, name, None) or getattr(module, name, None)
        if isinstance(value, int):
            return value
    return None


def sae_widths(sae) -> tuple:
    """``((d_in, said), (d_out, said))``: the widths an SAE or transcoder reads and writes, each with where it was
    read (None where the SAE carries neither), from whatever it carries: a width attribute (SAELens's ``cfg.d_in``,
    sparsify's ``d_in``, circuit-tracer's ``d_model``, dictionary_learning's ``activation_dim``), an encoder or
    decoder ``Linear``, or ``W_enc`` and ``W_dec`` (the latents are the dimension they share: ``W_dec`` is
    [latents, d_out] in every layout, ``W_enc`` [d_in, latents] in SAELens's and [latents, d_in] in
    circuit-tracer's)."""
    cfg = getattr(sae, "cfg", None)

    def attribute(*names_):
        for owner, prefix in ((cfg, "cfg."), (sae, "")):
            for name in names_:
                value = getattr(owner, name, None)
                if isinstance(value, int) and not isinstance(value, bool):
                    return value, f"its {prefix}{name}"
        return None

    def linear(name, side):
        module = getattr(sae, name, None)
        return (getattr(module, side), f"its {name}'s {side}") if isinstance(module, torch.nn.Linear) else None

    W_enc, W_dec = getattr(sae, "W_enc", None), getattr(sae, "W_dec", None)
    from_weights = None
    if isinstance(W_enc, torch.Tensor) and W_enc.dim() == 2:
        latents = W_dec.shape[0] if isinstance(W_dec, torch.Tensor) and W_dec.dim() == 2 else W_enc.shape[1]
        from_weights = (W_enc.shape[1] if W_enc.shape[0] == latents else W_enc.shape[0]), "its W_enc"
    d_in = attribute("d_in", "d_model", "activation_dim") or linear("encoder", "in_features") or from_weights
    d_out = attribute("d_out") or linear("decoder", "out_features")
    if d_out is None and isinstance(W_dec, torch.Tensor) and W_dec.dim() == 2:
        d_out = W_dec.shape[1], "its W_dec"
    return d_in, d_out or d_in


def _fits(width: int | None, shape) -> bool:
    """Whether a value of ``shape`` is ``width`` wide: its last dimension, or its last two (per-head values)."""
    return width is None or shape[-1] == width or (len(shape) >= 2 and shape[-2] * shape[-1] == width)


def _takes_input(decode) -> bool:
    try:
        return "input_acts" in inspect.signature(decode).parameters
    except (TypeError, ValueError):
        return False


def _skip(module, x):
    """SAELens's SkipTranscoder adds ``x @ W_skip.T`` in forward, not in decode."""
    W_skip = getattr(module, "W_skip", None)
    return None if W_skip is None else x @ W_skip.T.to(x.dtype)


@dataclass
class _SpliceContext:
    x: Any = None
    like: Any = None
    original: Any = None


class Splice:
    """An SAE (``to`` None) or a transcoder spliced into the forward; ``latents`` inside a trace is its value of
    that trace."""

    def __init__(self, model, sae, at: str | None = None, to: str | None = None, keep_error: bool = True,
                 transformerlens: int = 3, computed: bool = False) -> None:
        for method in ("encode", "decode"):
            if not callable(getattr(sae, method, None)):
                raise ToolError(f"an SAE to splice needs {method}(); {type(sae).__name__} has none")
        reads, writes = _hook_names(sae)
        at, to = at or reads, to or writes
        if not at:
            raise ToolError("say where to splice the SAE: at='layers[3].layer_output' (its cfg.hook_name is unset)")
        self.model, self.sae, self.keep_error = model, sae, keep_error
        self.reads = resolve_at(model, at, transformerlens, computed)
        self.writes = resolve_at(model, to, transformerlens, computed) if to else self.reads
        self.path = self.reads.path
        if self.writes is not self.reads and self.writes.path == self.reads.path:
            self.writes = self.reads
        if self.writes is not self.reads and _order(model, self.writes) <= _order(model, self.reads):
            raise ToolError(f"a transcoder reads before it writes: {self.reads.path} comes after {self.writes.path} "
                            "in the forward")
        (self.d_in, self.said_in), (self.d_out, self.said_out) = (pair or (None, None) for pair in sae_widths(sae))
        width = model.hidden_size  # a residual value's width is the model's on every block; others are checked
        for point, role in ((self.reads, "reads"), (self.writes, "writes")):  # when a trace first reads them
            if BY_NAME[point.name].layout.dims[-1:] == ("hidden_size",):
                self._refuse_width(point, role, (width,))

    def _refuse_width(self, point, role: str, shape) -> None:
        """A sentence, not an error inside the SAE's arithmetic, where the SAE's width is not the value's."""
        sae_width, said = (self.d_in, self.said_in) if role == "reads" else (self.d_out, self.said_out)
        if _fits(sae_width, shape):
            return
        kind = "transcoder" if self.writes is not self.reads else "SAE"
        wide = " × ".join(map(str, shape)) + (f" (flattened {shape[-2] * shape[-1]})" if len(shape) > 1 else "")
        raise ToolError(f"the {kind} {role} vectors of width {sae_width} ({said}) but {point.path} is {wide} wide: "
                        f"splice one trained on this model's {point.name}, or name the value it was trained on "
                        f"({'at' if role == 'reads' else 'to'}=)")

    # where the latents are handed out, the write point: a trace's read-order plan places a read of them there
    @property
    def host_of(self):
        return self.writes.host

    @property
    def name(self) -> str:
        return self.writes.name

    @property
    def layer(self) -> int | None:
        return self.writes.layer

    def __repr__(self) -> str:
        where = self.path if self.writes is self.reads else f"{self.reads.path} -> {self.writes.path}"
        return f"Splice({type(self.sae).__name__} at {where}, keep_error={self.keep_error})"

    # the SAE's arithmetic, on the value's own shape (per-head values flattened for an SAE of that width)
    def _flat(self, x):
        if getattr(self.sae, "hook_z_reshaping_mode", False):  # SAELens's hook_z SAE flattens the heads itself
            return x
        if self.d_in is not None and x.shape[-1] != self.d_in and x.dim() >= 2 and \
                x.shape[-2] * x.shape[-1] == self.d_in:
            return x.flatten(-2)
        return x

    def encode(self, x):
        self._refuse_width(self.reads, "reads", tuple(x.shape[2:]) or tuple(x.shape[-1:]))
        return self.sae.encode(self._flat(x))

    def reconstruct(self, latents, x, like):
        """What the SAE writes for ``latents`` (read from ``x``), in the shape and dtype of ``like``."""
        self._refuse_width(self.writes, "writes", tuple(like.shape[2:]) or tuple(like.shape[-1:]))
        flat = self._flat(x)
        if _takes_input(self.sae.decode):  # circuit-tracer: decode(acts, input_acts) adds the skip itself
            out = self.sae.decode(latents, flat if getattr(self.sae, "W_skip", None) is not None else None)
        else:
            out = self.sae.decode(latents)
            skip = _skip(self.sae, flat)
            out = out if skip is None else out + skip
        return out.reshape(like.shape).to(like.dtype)

    # the latents as a value of the trace: presented where the reconstruction is written, carried back on moving on
    def _present(self, context, x, output):
        tracking = _tracks(x) or _tracks(output)
        source = x.detach() if tracking and self.keep_error else x
        latents = self.encode(source)
        if tracking and not latents.requires_grad:
            latents.requires_grad_(True)
        context.x, context.like = source, output
        context.original = self.reconstruct(latents, source, output).detach()
        latents._nnterp_version = latents._version
        latents._nnterp_splice_context = context
        return latents

    def _write(self, context, latents, raw):
        """``raw`` with the value ``latents`` make: the reconstruction's change added (the error term kept), or the
        reconstruction alone."""
        reconstruction = self.reconstruct(latents, context.x, context.like)
        if not self.keep_error:
            return self.writes.put(self.model, raw, reconstruction)
        return self.writes.add(self.model, raw, reconstruction - context.original)

    def _carry_back(self, context, latents, raw):
        unedited = _version(latents) == getattr(latents, "_nnterp_version", None)
        if self.keep_error and unedited and not _tracks(latents):
            return raw  # not edited: the model's own tensor, bit for bit
        return self._write(context, latents, raw)

    def _presenter(self, context):
        if self.writes is self.reads:
            def present(raw):
                value = self.reads.present(self.model, raw)
                return self._present(context, value, value)
        else:
            x = self.reads.read()

            def present(raw):
                return self._present(context, x, self.writes.present(self.model, raw))
        return present

    def _begin(self):
        """At the read point: the input, kept for the latents the write point hands out (``_latents``)."""
        context = _SpliceContext()
        return context, self._presenter(context)

    def _latents(self, context, present):
        return carried_back(self.writes.location(), self, present, partial(self._carry_back, context))

    @property
    def latents(self):
        """The latents inside a trace (read, save, edit in place, or assign)."""
        kept = bridge.captured(self, "latents", f"{self.path}.latents")  # read out of order: what a capture kept
        if kept is not bridge.NOTHING:
            return kept
        return self._latents(*self._begin())

    @property
    def key(self) -> str:
        """The cache's key of this splice's values: ``{key}.latents`` and ``{key}.error`` (``layers.3.mlp.mlp_output``,
        the value it reads)."""
        return names.Path(self.reads.name, self.reads.layer).key

    def cache_reads(self) -> list:
        """What ``model.cache(..., splices=[this])`` reads: the input at the read point, then at the write point
        the latents and the error term (the written value less the reconstruction, as the SAE sees them)."""
        def begin():
            context, present = self._begin()

            def finish():
                latents = self._latents(context, present)
                return {f"{self.key}.latents": latents, f"{self.key}.error": context.like - context.original}

            return finish

        aliases = {f"{self.path}.latents": f"{self.key}.latents", f"{self.path}.error": f"{self.key}.error"}
        if self.writes is self.reads and self.reads.hook_name is not None:  # SAELens's names of an SAE's hooks
            aliases[f"{self.reads.hook_name}.hook_sae_acts_post"] = f"{self.key}.latents"
            aliases[f"{self.reads.hook_name}.hook_sae_error"] = f"{self.key}.error"
        return [SpliceRead((self.reads.layer, self.reads.name), (self.writes.layer, self.writes.name), begin,
                           aliases, _width(self.sae, ("d_sae", "d_transcoder")))]

    @latents.setter
    def latents(self, value) -> None:
        location = self.writes.location()
        pending = drop_pending(location, self)
        if pending is not None:
            context = pending._nnterp_splice_context  # read just before: its input and reconstruction
        else:
            context = _SpliceContext()
            present = self._presenter(context)
            present(value_at(location))
        swap(location, self._write(context, value, value_at(location)))


def _tracks(tensor) -> bool:
    return isinstance(tensor, torch.Tensor) and tensor.requires_grad and torch.is_grad_enabled()


def _order(model, point: Point) -> tuple:
    if point.layer is None:
        before = point.name in _BEFORE_BLOCKS
        return (-1 if before else model.num_layers, (_BEFORE_BLOCKS if before else _AFTER_BLOCKS).get(point.name, 0))
    return (point.layer, _IN_A_BLOCK.get(point.name, 0))


def _hook_names(sae) -> tuple[str | None, str | None]:
    """Where an SAE says it reads (and a transcoder writes): cfg.hook_name (and hook_name_out), or the same under
    cfg.metadata (SAELens 6); circuit-tracer's single-layer transcoder: its layer_idx with its set's hooks, when set."""
    cfg = getattr(sae, "cfg", None)
    metadata = getattr(cfg, "metadata", None)
    reads = getattr(cfg, "hook_name", None) or getattr(metadata, "hook_name", None)
    writes = getattr(cfg, "hook_name_out", None) or getattr(metadata, "hook_name_out", None)
    layer = getattr(sae, "layer_idx", None)
    if reads is None and layer is not None and getattr(sae, "feature_input_hook", None):
        reads = f"blocks.{layer}.{sae.feature_input_hook}"
        writes = f"blocks.{layer}.{sae.feature_output_hook}"
    return reads, writes


# --------------------------------------------------------------------------- cross-layer transcoders
class CrossLayerSplice:
    """circuit-tracer's ``CrossLayerTranscoder`` spliced: block ``l``'s latents read at its ``feature_input_hook``
    and write to the ``feature_output_hook`` of every block from ``l`` on. ``latents[l]`` inside a trace reads
    block ``l``'s (in forward order); the written value at block ``l`` is its output plus the change of every
    read block ``k <= l``'s contribution, ``decode_{k->l}(latents_k) - decode_{k->l}(latents_k as read)``, so an
    edit at block ``k`` reaches block ``l`` when block ``l``'s latents are read too (``finish()`` writes it to
    every later block without reading them). Unedited latents leave the logits bit for bit."""

    def __init__(self, model, clt, keep_error: bool = True, transformerlens: int = 3) -> None:
        if not keep_error:
            raise ToolError("a cross-layer transcoder is spliced with its error term: its reconstruction at a block "
                            "sums every earlier block's latents, so keep_error=False would need all of them read")
        self.model, self.clt = model, clt
        self.n_layers = int(clt.n_layers)
        if self.n_layers != model.num_layers:
            raise ToolError(f"the cross-layer transcoder spans {self.n_layers} blocks; the model has {model.num_layers}")
        self.reads = [resolve_at(model, f"blocks.{l}.{clt.feature_input_hook}", transformerlens)
                      for l in range(self.n_layers)]
        self.writes = [resolve_at(model, f"blocks.{l}.{clt.feature_output_hook}", transformerlens)
                       for l in range(self.n_layers)]
        self._trace, self._read = None, {}
        self.latents = _LayerLatents(self)

    def decoder(self, source: int) -> torch.Tensor:
        """Block ``source``'s decoder vectors, [d_transcoder, n_layers - source, d_model]."""
        W_dec = getattr(self.clt, "W_dec", None)
        if W_dec is not None:
            return W_dec[source]
        return self.clt._get_decoder_vectors(source)

    def _state(self, location):
        mediator = bridge.worker(location)
        if self._trace is not mediator:  # a new trace: forget the last one's latents
            self._trace, self._read = mediator, {}
        return self._read

    def _delta(self, read, layer, like):
        total = None
        for source, (latents, original, _) in read.items():
            if source > layer:
                continue
            change = latents - original
            if not bool(change.any()) and not _tracks(latents):
                continue
            term = change.to(self.clt.dtype) @ self.decoder(source)[:, layer - source].to(change.device)
            total = term if total is None else total + term
        return None if total is None else total.to(like.dtype)

    def _carry_back(self, layer, latents, raw):
        read = self._read
        delta = self._delta(read, layer, raw)
        if delta is None:
            return raw
        return self.writes[layer].add(self.model, raw, delta)

    def read(self, layer: int):
        return self._latents(layer, self._begin(layer))

    def _begin(self, layer: int):
        """At block ``layer``'s read point: its input, kept for the latents its write point hands out."""
        read = self._state(self.reads[layer].location())
        x = self.reads[layer].read()

        def present(raw):
            source = x.detach() if _tracks(x) else x
            latents = self.clt.encode_layer(source.to(self.clt.dtype), layer)
            if _tracks(x) and not latents.requires_grad:
                latents.requires_grad_(True)
            read[layer] = (latents, latents.detach().clone(), source)
            return latents

        return present

    def _latents(self, layer: int, present):
        location = self.writes[layer].location()
        return carried_back(location, (self, layer), present, partial(self._carry_back, layer))

    def reconstruction(self, layer: int, like):
        """Block ``layer``'s reconstruction from the latents read so far (every block up to it): the sum of their
        decoder vectors into it, its decoder bias, and its skip where the transcoder has one."""
        total = self.clt.b_dec[layer].to(torch.float32)
        for source in range(layer + 1):
            latents, _, x = self._read[source]
            total = total + latents.to(self.clt.dtype) @ self.decoder(source)[:, layer - source].to(latents.device)
        W_skip = getattr(self.clt, "W_skip", None)
        if W_skip is not None:
            total = total + self._read[layer][2].to(W_skip.dtype) @ W_skip[layer]
        return total.to(like.dtype)

    def key(self, layer: int) -> str:
        """The cache's key of block ``layer``'s values: ``{key}.latents``, ``{key}.error``."""
        return names.Path(self.reads[layer].name, layer).key

    def cache_reads(self) -> list:
        """What ``model.cache(..., splices=[this])`` reads at every block: the input at its read point, then at its
        write point the latents and the error term (the MLP output less the reconstruction of every block's
        latents up to it)."""
        def reads_of(layer):
            def begin():
                present = self._begin(layer)

                def finish():
                    latents = self._latents(layer, present)
                    output = self.writes[layer].present(self.model, value_at(self.writes[layer].location()))
                    return {f"{self.key(layer)}.latents": latents,
                            f"{self.key(layer)}.error": output - self.reconstruction(layer, output)}

                return finish

            return begin

        return [SpliceRead((layer, self.reads[layer].name), (layer, self.writes[layer].name), reads_of(layer),
                           {f"{self.reads[layer].path}.{part}": f"{self.key(layer)}.{part}"
                            for part in ("latents", "error")}, int(self.clt.d_transcoder))
                for layer in range(self.n_layers)]

    def finish(self) -> None:
        """Inside a trace, after the last edit: write every edited block's change to each later block's output."""
        if not self._read:
            return
        start = max(self._read) + 1
        for layer in range(start, self.n_layers):
            location = self.writes[layer].location()
            raw = value_at(location)
            swap(location, self._carry_back(layer, None, raw))


class _LayerLatents:
    def __init__(self, spliced: CrossLayerSplice) -> None:
        self._spliced = spliced

    def __getitem__(self, layer: int):
        return self._spliced.read(int(layer) % self._spliced.n_layers)

    def __len__(self) -> int:
        return self._spliced.n_layers


def splice(model, sae, at: str | None = None, to: str | None = None, keep_error: bool = True,
           transformerlens: int = 3):
    """Splice ``sae`` at a served value (a standard path, a TransformerLens hook name, or its cfg.hook_name); a
    transcoder reads at ``at`` and writes at ``to`` (its cfg's hook_name_out); a cross-layer transcoder at every
    block. ``transformerlens=4`` reads the hook names as TransformerBridge's where they mean another tensor there
    (``nnterp.compat.names.BRIDGE_MEANINGS``); 3, HookedTransformer's, by default."""
    if hasattr(sae, "encode_layer") and hasattr(sae, "n_layers") and hasattr(sae, "feature_input_hook") and \
            not hasattr(sae, "transcoders"):
        return CrossLayerSplice(model, sae, keep_error, transformerlens)
    return Splice(model, sae, at, to, keep_error, transformerlens)
