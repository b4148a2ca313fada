"""The block's shape: sandwich, post-norm, parallel or no MLP, with where each value is read."""

from __future__ import annotations

import re

import torch

from nnterp.encyclopedia.notes.derived.reading import _trace
from nnterp.encyclopedia.notes.identity import identity_note

_CHILD = re.compile(r"^the child module (\w+)'s (output|input)$")
_SIBLING = re.compile(r"^the block's child module (\w+)'s output$")


def _read_at(row):
    return row.read_at if row is not None and row.status != "unavailable" else None


def _child_of(row) -> str | None:
    match = _CHILD.match(_read_at(row) or "")
    return match.group(1) if match else None


def _sibling_of(row) -> str | None:
    match = _SIBLING.match(_read_at(row) or "")
    return match.group(1) if match else None


def _block_shape(subject) -> dict:
    first = subject.first()
    n = subject.native
    attn_norm = _child_of(first.get("attention_norm_output"))
    mlp_norm = _child_of(first.get("mlp_norm_output"))
    post_attn = _sibling_of(first.get("attention_output"))
    post_mlp = _sibling_of(first.get("mlp_output"))
    has_mlp = first.get("mlp_output") is not None and first["mlp_output"].status != "unavailable"
    return {"attn_norm": attn_norm and n(attn_norm), "mlp_norm": mlp_norm and n(mlp_norm),
            "post_attn": post_attn, "post_mlp": post_mlp, "has_mlp": has_mlp,
            "attn": n("self_attn"), "mlp": n("mlp")}


def _formula(subject, shape) -> list[str] | None:
    first = subject.first()
    plain = ("the module's own output", None)
    for name in ("attention_output", "mlp_output"):
        row = first.get(name)
        if row is not None and row.status != "unavailable" and _read_at(row) != "the module's own output" \
                and not _sibling_of(row):
            return None  # read inside a forward: the block's own arithmetic, said in prose
    del plain
    attn_in = f"{shape['attn_norm']}(x)" if shape["attn_norm"] else "x"
    attn = f"{shape['attn']}({attn_in})"
    if shape["post_attn"]:
        attn = f"{shape['post_attn']}({attn})"
    if not shape["has_mlp"]:
        return [f"out = x + {attn}"]
    if "parallel" in subject.block_kind:
        if shape["mlp_norm"] and shape["mlp_norm"] == shape["attn_norm"]:
            mlp = f"{shape['mlp']}(h)"
            attn = attn.replace(attn_in, "h")
            return [f"h   = {attn_in}", f"out = x + {attn} + {mlp}"]
        mlp = f"{shape['mlp']}({shape['mlp_norm']}(x))" if shape["mlp_norm"] else f"{shape['mlp']}(x)"
        return [f"out = x + {attn} + {mlp}"]
    mlp = f"{shape['mlp']}({shape['mlp_norm']}(h))" if shape["mlp_norm"] else f"{shape['mlp']}(h)"
    if shape["post_mlp"]:
        mlp = f"{shape['post_mlp']}({mlp})"
    return [f"h   = x + {attn}", f"out = h + {mlp}"]


def _block_heading(subject, shape) -> str:
    kind = subject.block_kind
    if shape["post_attn"] and shape["attn_norm"]:
        return f"The block is a sandwich: a norm before and after each sublayer, `{shape['attn_norm']}` first"
    if shape["post_attn"]:
        return f"The block normalizes each sublayer's output, not its input: `{shape['post_attn']}` after the attention"
    if "parallel" in kind:
        if shape["mlp_norm"] and shape["mlp_norm"] == shape["attn_norm"]:
            return f"The block is parallel, with one norm: `{shape['attn_norm']}` feeds both sublayers"
        return "The block is parallel: the attention and the MLP read the same input, and the block adds both at once"
    if not shape["has_mlp"]:
        mixer = f"`{shape['attn']}`"
        return f"The block is {kind}: one mixer, {mixer}, and no MLP" if shape["attn_norm"] is None else \
            f"The block is {kind}: `{shape['attn_norm']}`, then {mixer}, and no MLP"
    if shape["attn_norm"] and shape["mlp_norm"]:
        return (f"The block is {kind} and pre-norm: `{shape['attn_norm']}` before the attention, "
                f"`{shape['mlp_norm']}` before the MLP")
    return f"The block is {kind}"


def block_note(subject) -> str:
    first = subject.first()
    shape = _block_shape(subject)
    llama = (subject.block_kind == "sequential" and subject.sums and shape["has_mlp"] and shape["attn_norm"]
             and shape["mlp_norm"] and not shape["post_attn"] and not shape["post_mlp"])
    if llama:  # Llama's sequential pre-norm block: section 01 states its identity
        subject.as_llama("the sequential pre-norm block")
        return None
    heading = _block_heading(subject, shape)
    subject.differs("block", heading.removeprefix("The block is ").replace("`", ""))
    text = [f"## {heading}", ""]
    formula = _formula(subject, shape) if subject.sums else None
    if formula:
        text += ["```formula", *formula, "```", ""]
    reads = []
    for name in ("attention_norm_output", "layer_mid", "mlp_norm_output", "attention_output", "mlp_output"):
        row = first.get(name)
        if row is not None and row.status != "unavailable":
            reads.append(f"`{name}` at {_native_in(subject, row.read_at)}")
    if reads:
        text += ["Where each value of the block is read: " + "; ".join(reads) + ".", ""]
    stream = [first.get(name) for name in ("layer_input", "layer_output")]
    if all(row is not None and row.status == "served" for row in stream):
        text += identity_note(first, subject.rows, subject.sums, subject.mid_sums)
        returns = _block_returns(subject)
        if returns:
            text += [returns, ""]
    else:
        reason = next(row.note for row in stream if row is not None and row.status != "served")
        text += [f"The block has no single residual stream to read: {reason}.", ""]
    return "\n".join(text)


def _native_in(subject, read_at: str) -> str:
    """A read_at sentence with its standard module names followed by the native ones."""
    def swap(match):
        name = match.group(1)
        native = subject.native(name)
        return f"`{name}`" + (f" (native `{native}`)" if native != name else "")
    return re.sub(r"module (\w+)'s", lambda m: "module " + swap(m) + "'s", read_at)


def _block_returns(subject) -> str | None:
    """What the block's forward returns, seen on the tiny model."""
    try:
        saved = _trace(subject.tiny, {"out": lambda: subject.tiny.layers[0].output})
    except Exception:
        return None
    out = saved["out"]
    if isinstance(out, torch.Tensor):
        return "The block returns a bare tensor, so `model.layers[i].output` is `layer_output`."
    if isinstance(out, (tuple, list)):
        return (f"The block returns a tuple of {len(out)}; `layer_output` is its first element, a tensor, "
                "whatever the block returns.")
    return None
