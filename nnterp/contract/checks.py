"""The conformance contract's record and the comparisons every part of it makes: a ``Report`` of results, the
closeness of a recomputation (``numerics.tolerance``), a value's layout, and contract 5's edits of one value."""

from __future__ import annotations

from dataclasses import dataclass, field

import torch

from nnterp.contract.numerics import UNIT_ROUNDOFF, roundings, tolerance
from nnterp.declare.errors import NnterpError
from nnterp.declare.vocabulary import BY_NAME


class ConformanceError(NnterpError):
    """The model broke the contract; the message lists the failed checks."""


@dataclass
class Result:
    check: str
    where: str
    ok: bool
    detail: str = ""


@dataclass
class Report:
    family: str
    load: str
    results: list[Result] = field(default_factory=list)

    def add(self, check, where, ok, detail=""):
        self.results.append(Result(check, where, bool(ok), detail))

    @property
    def failures(self):
        return [r for r in self.results if not r.ok]

    @property
    def ok(self) -> bool:
        return not self.failures

    def __str__(self) -> str:
        lines = [f"conformance of {self.family} under attn_implementation={self.load!r}: "
                 f"{len(self.results) - len(self.failures)}/{len(self.results)} checks passed"]
        lines += [f"  FAILED {r.check} at {r.where}: {r.detail}" for r in self.failures]
        return "\n".join(lines)

    __repr__ = __str__


def _diff(a, b) -> float:
    return float((a.detach().double() - b.detach().double()).abs().max()) if a.numel() else 0.0


def _close(a, b, length: int, magnitude: float | None = None) -> bool:
    """``a`` is ``b`` recomputed through ``length`` roundings in another order (``numerics.tolerance``, in the
    coarser of their dtypes), at ``magnitude``: that of the terms summed, by default the largest entry of either."""
    if a.shape != b.shape:
        return False
    if magnitude is None:
        magnitude = max(float(a.detach().abs().amax()), float(b.detach().abs().amax())) if a.numel() else 0.0
    dtype = max(a.dtype, b.dtype, key=lambda d: UNIT_ROUNDOFF.get(d, 0.0))
    atol = tolerance(dtype if dtype in UNIT_ROUNDOFF else torch.float32, magnitude, length)
    return bool((a.detach().double() - b.detach().double()).abs().max() <= atol) if a.numel() else True


def _check_layout(report, where, name, value, shape, dtype) -> None:
    """The value's shape, and its dtype: the model's, or float32, in which a model may compute under a
    half-precision load (routers, upcast attention scores, Dory's head, Mamba's and ZAYA's streams); token ids and
    chosen experts are indices."""
    kind = BY_NAME[name].layout.kind
    dtypes = (torch.long,) if kind in ("Tokens", "Experts") else (torch.bool,) if kind == "Mask" else (dtype, torch.float32)
    report.add("layout", f"{where}.{name}", tuple(value.shape) == shape and value.dtype in dtypes,
               f"{tuple(value.shape)} {value.dtype}, expected {shape} {' or '.join(map(str, dtypes))}")


def _logits_after(model, prompt, host_of, name, edit):
    with model.trace(prompt):
        envoy = host_of()
        if edit == "inplace":
            getattr(envoy, name)[:] = 0
        elif edit == "assign":
            setattr(envoy, name, torch.zeros_like(getattr(envoy, name)))
        else:
            getattr(envoy, name)
        logits = model.logits.save()
    return logits


def _check_writable(model, prompt, host_of, name, label, report, base) -> None:
    """Contract 5 on one writable value: a read leaves the logits bit-identical, an in-place edit and an assignment
    give the same logits, and zeroing it reaches them."""
    read = _logits_after(model, prompt, host_of, name, "read")
    report.add("a read leaves logits bit-identical", label, torch.equal(read, base), f"max diff {_diff(read, base):.3g}")
    inplace = _logits_after(model, prompt, host_of, name, "inplace")
    assigned = _logits_after(model, prompt, host_of, name, "assign")
    # the same edit, made through another path: every block's reductions may run another kernel after it
    report.add("in-place edit == assignment", label,
               torch.equal(inplace, assigned) or _close(inplace, assigned, roundings(model)),
               f"max diff {_diff(inplace, assigned):.3g}")
    report.add("a zeroing edit reaches the logits", label, not torch.equal(inplace, base))
