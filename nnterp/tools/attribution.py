"""Attribution: which parts of the model write the answer.

``direct_logit_attribution`` splits the last block's ``layer_output`` at one position into what
every part wrote there: the block's input at block 0 (the embeddings), every head (its slot of
``attention_premix`` through ``o_proj``, one head at a time), each attention's bias (whatever the
attention adds that no head writes: ``o_proj``'s bias, or a bias the block adds), and every
``mlp_output``. Each part is read out through the final norm with its scale frozen at the value
the run computed, then ``lm_head``; the norm's and ``lm_head``'s own biases are one more part. The
parts sum to ``lm_head_output`` (``logits`` on a model that does nothing past ``lm_head``).

``attribution_patching`` estimates activation patching to first order from one backward pass:
(clean - corrupt) · d metric / d value, at every block and position (or head).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from nnterp.declare.engine import module_of
from nnterp.tools._common import ToolError, available, encode, read, require, token_id, token_text, trace, write
from nnterp.tools.patching import HEAD_VALUES, RESIDUAL_VALUES, Patching, _clean_run, _score
from nnterp.tools.plots import plot_attribution

_EPSILON_NAMES = ("eps", "variance_epsilon", "epsilon", "layer_norm_eps", "norm_eps")


# --------------------------------------------------------------------------- the final norm, linearized
def _eps(module) -> float:
    return next((float(getattr(module, n)) for n in _EPSILON_NAMES if isinstance(getattr(module, n, None), (int, float))), 0.0)


def _probe(norm, width: int, dtype, device, eps: float):
    """A norm's elementwise gain and bias (float32) and whether it centres, measured by calling it: ``bias = norm(0)``;
    centring shows as ``norm(1) == norm(0)``; the gain is read off a zero-mean probe of ±1 entries."""
    zero = torch.zeros(1, width, dtype=dtype, device=device)
    bias = norm(zero)[0].float()
    ones = norm(torch.ones(1, width, dtype=dtype, device=device))[0].float()
    centred = bool(torch.allclose(ones, bias, atol=1e-6 * (1 + float(bias.abs().max()))))
    probe = torch.ones(width, device=device)
    probe[1::2] = -1
    probe = probe - probe.mean()
    sigma = (probe.pow(2).mean() + eps).sqrt()
    gain = (norm(probe[None].to(dtype))[0].float() - bias) * sigma / probe
    return gain, bias, centred


def norm_gain(module, width: int) -> tuple[torch.Tensor, torch.Tensor]:
    """A norm module's elementwise gain and bias, float32, measured on the module (``w`` or ``1 + w`` alike)."""
    parameter = next(module.parameters(), None)
    dtype = parameter.dtype if parameter is not None else torch.float32
    device = parameter.device if parameter is not None else None
    with torch.no_grad():
        gain, bias, _ = _probe(module, width, dtype, device, _eps(module))
    return gain, bias


class FrozenNorm:
    """The final norm with its scale frozen at one stream ``x``: ``norm(x) = linear(x) + bias``.

    Measured on the module itself, so it covers LayerNorm (centred), RMSNorm, and gains stored as
    ``w`` or ``1 + w``: ``bias = norm(0)``; centring shows as ``norm(1) == norm(0)``; the gain is read
    off a zero-mean probe of ±1 entries. The fit is checked against ``norm(x)``.
    """

    def __init__(self, model, x: torch.Tensor) -> None:
        norm = model.norm
        module = module_of(norm)
        dtype = x.dtype
        width = x.shape[-1]
        self.eps = _eps(module)
        with torch.no_grad():
            self.gain, self.bias, self.centred = _probe(norm, width, dtype, x.device, self.eps)
            self.scale = self._sigma(x.float())                                 # [..., 1]
            fitted = self.linear(x.float()) + self.bias
            actual = norm(x).float()
        error = float((fitted - actual).abs().max())
        if error > 1e-3 * (1 + float(actual.abs().max())):
            raise ToolError(
                f"the final norm ({type(module).__name__}) is not a LayerNorm or RMSNorm with an elementwise gain "
                f"(frozen-scale fit off by {error:.3g}), so its output cannot be split into parts")

    def _centre(self, v: torch.Tensor) -> torch.Tensor:
        return v - v.mean(-1, keepdim=True) if self.centred else v

    def _sigma(self, x: torch.Tensor) -> torch.Tensor:
        return (self._centre(x).pow(2).mean(-1, keepdim=True) + self.eps).sqrt()

    def linear(self, parts: torch.Tensor) -> torch.Tensor:
        """The norm's linear part at the frozen scale, applied to each part [..., hidden]."""
        return self.gain * self._centre(parts.float()) / self.scale


@dataclass
class LogitAttribution:
    """Direct logit attribution at one position: every part's share of the target's logit.

    A block whose token mixer has no heads (a recurrence) has one part, its ``attention_output``:
    its row of ``heads`` and its ``attention_biases`` are NaN and ``attentions`` holds the whole.
    A block without an MLP has ``mlps`` 0.
    """

    target: str
    position: int
    embeddings: float                 # what enters block 0
    attentions: torch.Tensor          # [blocks]: each block's attention_output, heads and bias together
    heads: torch.Tensor               # [blocks num_heads]
    attention_biases: torch.Tensor    # [blocks]: attention_output less every head's part
    mlps: torch.Tensor                # [blocks]
    readout_bias: float               # the final norm's bias and lm_head's bias, through lm_head
    lm_head_output: float             # what the parts sum to
    stream_error: float               # max |sum of the parts - the last layer_output|, rounding only

    @property
    def total(self) -> float:
        return float(self.embeddings + self.attentions.sum() + self.mlps.sum() + self.readout_bias)

    def top_heads(self, k: int = 5, against: bool = False) -> list[tuple[int, int, float]]:
        """The heads that write most for the target (``against=True``: most against it): (block, head, logit)."""
        sign = -1.0 if against else 1.0
        flat = (sign * self.heads).nan_to_num(nan=-float("inf")).flatten()
        count = min(k, int(self.heads.isfinite().sum()))
        values, index = flat.topk(count)
        heads = self.heads.shape[1]
        return [(int(i) // heads, int(i) % heads, sign * float(v)) for v, i in zip(values, index)]

    def table(self, k: int = 8) -> str:
        has_heads = self.heads.isfinite().any(-1)
        lines = [f"direct logit attribution of {self.target} at position {self.position}: "
                 f"parts sum to {self.total:.4f}, lm_head_output {self.lm_head_output:.4f}",
                 f"  embeddings {self.embeddings:+.3f}, readout bias {self.readout_bias:+.3f}, "
                 f"attention {float(self.attentions.sum()):+.3f} (heads {float(self.heads.nansum()):+.3f}, "
                 f"biases {float(self.attention_biases.nansum()):+.3f}"
                 + (f", mixers without heads {float(self.attentions[~has_heads].sum()):+.3f}" if not has_heads.all() else "")
                 + f"), MLPs {float(self.mlps.sum()):+.3f}"]
        if has_heads.any():
            lines.append(f"  top {k} heads (block.head: logit):")
            lines += [f"    {layer}.{head}: {value:+.3f}" for layer, head, value in self.top_heads(k)]
            lines.append(f"  the {min(k, 3)} heads most against it:")
            lines += [f"    {layer}.{head}: {value:+.3f}" for layer, head, value in self.top_heads(min(k, 3), against=True)]
        order = self.mlps.abs().argsort(descending=True)[:k]
        lines.append(f"  top {k} MLPs by |logit| (block: logit):")
        lines += [f"    {int(i)}: {float(self.mlps[i]):+.3f}" for i in order]
        return "\n".join(lines)

    def plot(self, path=None, **kwargs):
        return plot_attribution(self, path, **kwargs)


def head_contributions(model, layer: int, premix: torch.Tensor) -> torch.Tensor:
    """What each head writes into the stream: its slot of ``attention_premix`` [..., heads head_dim]
    through ``o_proj`` with every other slot zero, less ``o_proj(0)``. Returns [..., heads hidden]."""
    o_proj = model.layers[layer].self_attn.o_proj
    heads = premix.shape[-2]
    lead = premix.shape[:-2]
    eye = torch.eye(heads, dtype=premix.dtype, device=premix.device)
    isolated = eye[:, :, None] * premix[..., None, :, :]                   # [..., heads(which) heads head_dim]
    with torch.no_grad():
        out = o_proj(isolated.flatten(-2))                                  # [..., heads hidden]
        zero = o_proj(torch.zeros(1, premix.shape[-2] * premix.shape[-1], dtype=premix.dtype, device=premix.device))
    return (out - zero).reshape(*lead, heads, -1)


def _direction(model, target) -> tuple[torch.Tensor, str]:
    """A direction in logit space: one token, or ``(good, bad)`` for their difference."""
    vocab = model.vocab_size
    if isinstance(target, (tuple, list)) and len(target) == 2:
        good, bad = token_id(model, target[0]), token_id(model, target[1])
        direction = torch.zeros(vocab)
        direction[good], direction[bad] = 1.0, -1.0
        return direction, f"logit({model.tokenizer.decode([good])!r}) - logit({model.tokenizer.decode([bad])!r})"
    index = token_id(model, target)
    direction = torch.zeros(vocab)
    direction[index] = 1.0
    return direction, f"logit({model.tokenizer.decode([index])!r})"


def direct_logit_attribution(model, prompt: str, target, *, position: int = -1) -> LogitAttribution:
    """Split the logit of ``target`` (a token, or ``(good, bad)`` for a difference) at ``position`` into every part's share."""
    layers = list(range(model.num_layers))
    batch = encode(model, prompt)
    if batch["input_ids"].shape[0] != 1:
        raise ToolError("direct logit attribution reads one prompt: pass a string")
    direction, label = _direction(model, target)
    with_heads = [available(model, "attention_premix", layer) for layer in layers]
    with_mlp = [available(model, "mlp_output", layer) for layer in layers]
    require(model, "attention_output", layers)
    first, premixes, attentions, mlps = [], {}, [], {}
    with torch.no_grad():
        with trace(model, batch):
            first.append(model.layers[0].layer_input[0, position].save())
            for layer in layers:
                if with_heads[layer]:
                    premixes[layer] = model.layers[layer].self_attn.attention_premix[0, position].save()
                attentions.append(model.layers[layer].self_attn.attention_output[0, position].save())
                if with_mlp[layer]:
                    mlps[layer] = model.layers[layer].mlp.mlp_output[0, position].save()
            last = model.layers[-1].layer_output[0, position].save()
            head_logits = model.lm_head_output[0, position].save()
    width = last.shape[-1]
    num_heads = max((p.shape[0] for p in premixes.values()), default=0)
    nan_heads = torch.full((num_heads, width), float("nan"))
    heads = torch.stack([head_contributions(model, l, premixes[l]).float().cpu() if l in premixes else nan_heads
                         for l in layers])                                                    # [L H hidden]
    attention_parts = torch.stack(attentions).float().cpu()                                     # [L hidden]
    mlp_parts = torch.stack([mlps[l].float().cpu() if l in mlps else torch.zeros(width) for l in layers])
    embeddings = first[0].float().cpu()
    total_stream = embeddings + attention_parts.sum(0) + mlp_parts.sum(0)
    stream_error = float((total_stream - last.float().cpu()).abs().max())

    frozen = FrozenNorm(model, last[None])
    lm_head = model.lm_head
    dtype, device = last.dtype, last.device
    with torch.no_grad():
        zero_logits = lm_head(torch.zeros(1, width, dtype=dtype, device=device))[0].float()
        d = direction.to(device)

        def through(parts: torch.Tensor) -> torch.Tensor:
            """Each part's logit along the direction: frozen norm, then lm_head's linear part."""
            flat = parts.reshape(-1, width).to(device)
            logits = lm_head(frozen.linear(flat).to(dtype)).float() - zero_logits
            return (logits @ d).reshape(parts.shape[:-1]).cpu()

        head_logits_per_part = through(heads.nan_to_num()) if num_heads else torch.zeros(len(layers), 0)
        head_logits_per_part[~torch.tensor(with_heads)] = float("nan")
        attention_logits = through(attention_parts)
        biases = attention_logits - head_logits_per_part.sum(-1)
        biases[~torch.tensor(with_heads)] = float("nan")
        result = LogitAttribution(
            target=label, position=position,
            embeddings=float(through(embeddings[None])[0]),
            attentions=attention_logits, heads=head_logits_per_part,
            attention_biases=biases,
            mlps=through(mlp_parts),
            readout_bias=float((lm_head(frozen.bias[None].to(dtype))[0].float() @ d)),
            lm_head_output=float(head_logits.float() @ d), stream_error=stream_error)
    return result


# --------------------------------------------------------------------------- attribution patching
def attribution_patching(model, clean: str, corrupt: str, metric, *, value: str = "layer_output",
                         layers=None) -> Patching:
    """First-order estimate of activation patching from one forward and backward pass of the corrupt run.

    For a residual ``value``: [blocks positions], each (clean - corrupt) · grad summed over the
    hidden dimension; for ``attention_premix``/``attention_head_outputs``: [blocks heads], summed
    over positions and head_dim. ``scores`` add the estimate to the corrupt run's metric, so they
    read like ``patch_positions``/``patch_heads``.
    """
    if value not in RESIDUAL_VALUES + HEAD_VALUES:
        raise ToolError(f"attribution patching reads one of {', '.join(RESIDUAL_VALUES + HEAD_VALUES)}")
    layers, clean_batch, corrupt_batch, _, source = _clean_run(model, clean, corrupt, value, layers, None)
    activations, gradients = [], []
    with torch.enable_grad():
        with trace(model, corrupt_batch):
            for layer in layers:
                activation = read(model, value, layer)
                if value in HEAD_VALUES:
                    # the heads are served as a view the forward does not run through: hand the
                    # forward a copy, so the gradient flows through the tensor we hold
                    activation = activation.clone()
                    write(model, value, layer, activation)
                activations.append(activation.save())
            score = metric(model.logits[:, -1]).sum()
            # gradients flow to the values read, never into the parameters: no .grad is left on the model
            with score.backward(inputs=activations):
                for activation in reversed(activations):            # gradients arrive last block first
                    gradients.append(activation.grad.save())
            corrupt_score = score.detach().save()
    gradients = gradients[::-1]
    heads = value in HEAD_VALUES
    rows = []
    for index, layer in enumerate(layers):
        effect = (source[layer].float() - activations[index].detach().float()) * gradients[index].float()
        rows.append(effect[0].sum((0, 2)) if heads else effect[0].sum(-1))
    estimate = torch.stack(rows).cpu()
    tokens = token_text(model, clean_batch["input_ids"][0])
    columns = list(range(estimate.shape[1]))
    labels = [f"head {h}" for h in columns] if heads else tokens
    corrupt_value = float(corrupt_score)
    return Patching(estimate + corrupt_value, float(_score(model, clean_batch, metric)[0]), corrupt_value, layers,
                    columns, labels, value, "heads" if heads else "positions", getattr(metric, "__name__", "metric"),
                    method="attribution patching", tokens=tokens)
