"""Steering: add a vector to the residual stream at chosen blocks, positions and batch rows.

``steer(vector, layers=[6, 7])`` adds ``vector`` to ``layer_output`` of those blocks. With
``relative=True`` the vector is rescaled, per row, to ``coefficient`` times the mean norm of the
stream it is added to, position 0 left out: the first position carries a norm far above every
other (the first-position sink), and a mean over positions that includes it is mostly that one
outlier. ``mean_difference`` builds a vector from two sets of prompts.
"""

from __future__ import annotations

import torch

from nnterp.tools._common import ToolError, encode, first_real_position, layer_list, read, spec, trace
from nnterp.tools.interventions import Edit, Intervention, selection

RESIDUAL_VALUES = ("layer_input", "layer_mid", "layer_output", "attention_output", "mlp_output")


def _residual(value: str) -> str:
    if value not in RESIDUAL_VALUES:
        spec(value)
        raise ToolError(f"steering adds to the residual stream: value must be one of {', '.join(RESIDUAL_VALUES)}")
    return value


def stream_norm_without_sink(stream: torch.Tensor, sink: torch.Tensor | None, step: int = 0) -> torch.Tensor:
    """Per row, the mean norm over positions of a [batch seq hidden] stream, the first real position left out.

    Padding is left out too; a row whose only real position is the first keeps it (there is
    nothing else to measure).
    """
    batch, seq, _ = stream.shape
    norms = stream.float().norm(dim=-1)                                  # [batch seq]
    keep = torch.ones(batch, seq, dtype=torch.bool, device=stream.device)
    if sink is not None and step == 0:
        columns = torch.arange(seq, device=stream.device)[None, :]
        first = sink.to(stream.device)[:, None]
        keep = columns > first                                           # padding sits before the first real token
        keep |= ~keep.any(-1, keepdim=True) & (columns == first)          # a one-token row keeps its only token
    return (norms * keep).sum(-1) / keep.sum(-1).clamp(min=1)


def steer(vector: torch.Tensor | dict, layers=None, *, positions=None, rows=None, coefficient: float = 1.0,
          relative: bool = False, value: str = "layer_output") -> Intervention:
    """Add ``coefficient * vector`` to ``value`` (``layer_output`` by default) of each block in ``layers``.

    ``vector`` is [hidden_size], or a dict block -> vector (then ``layers`` defaults to its keys).
    ``positions`` and ``rows`` pick where (None: everywhere; during generation, ``-1`` is each new
    token). ``relative=True`` first rescales the vector, per row, to ``coefficient`` times the mean
    norm of the stream there, position 0 left out (that norm is a measured constant: a gradient
    flows to the vector and through the stream, not through the norm).
    """
    value = _residual(value)
    vectors = dict(vector) if isinstance(vector, dict) else None
    if vectors is not None and layers is None:
        layers = list(vectors)
    if layers is None:
        raise ToolError("say where to steer: layers=[...] (block indices)")

    def edit_for(layer: int, vec: torch.Tensor) -> Edit:
        vec = torch.as_tensor(vec)
        if vec.dim() != 1:
            raise ToolError(f"a steering vector is one direction [hidden_size]; got shape {list(vec.shape)}")

        def apply(model, context):
            if vec.shape[0] != model.hidden_size:
                raise ToolError(f"the steering vector has {vec.shape[0]} entries; this model's stream has {model.hidden_size}")
            stream = read(model, value, layer % model.num_layers)
            batch, seq, _ = stream.shape
            compute = torch.promote_types(stream.dtype, torch.float32)  # bfloat16 streams steer in float32
            where = selection(batch, seq, rows, positions).to(stream.device, compute)
            added = vec.to(stream.device, compute)
            if relative:
                # the scale is measured, not differentiated: the in-place add below would break its backward
                scale = stream_norm_without_sink(stream.detach(), context.get("sink"), context["step"])
                # a tensor norm, not a Python float: a vector being learned keeps its gradient, and a zero vector stays zero
                added = added / added.norm().clamp(min=torch.finfo(compute).tiny)
                added = (coefficient * scale.to(compute))[:, None, None] * added
            else:
                added = coefficient * added
            stream += (where * added).to(stream.dtype)

        return Edit(value, layer, apply)

    blocks = [int(layer) for layer in (layers if isinstance(layers, (list, tuple, range)) else [layers])]
    edits = []
    if relative:
        def read_sink(model, context):
            if "sink" in context:
                return
            mask = model.attention_mask
            context["sink"] = None if mask is None else first_real_position({"attention_mask": mask})

        edits.append(Edit("attention_mask", None, read_sink))
    for layer in blocks:
        edits.append(edit_for(layer, vectors[layer] if vectors is not None else vector))
    return Intervention(edits, f"steer {value} at blocks {sorted(blocks)}")


def mean_difference(model, positive, negative, layer: int, *, position: int = -1,
                    value: str = "layer_output") -> torch.Tensor:
    """mean(stream of ``positive``) - mean(stream of ``negative``) at ``position`` of block ``layer``: a steering vector."""
    value = _residual(value)
    (layer,) = layer_list(model, layer)
    means = []
    for prompts in (positive, negative):
        batch = encode(model, prompts)
        with torch.no_grad():
            with trace(model, batch):
                stream = read(model, value, layer)[:, position].save()
        means.append(stream.float().mean(0))
    return means[0] - means[1]
