"""Shared pieces of the Llama-wired families whose modules carry other names (fused projections,
renamed norms, other MLP names): the block is Llama's, the renames and a few sites differ."""


def normed_then_rotated(norm: str, what: str) -> str:
    """How the queries or keys read at the kernel were made: a per-head norm, then the rotary."""
    return f"The {what} entering attention: normed per head by {norm}, then rotated"


def rotated_then_normed(norm: str, what: str) -> str:
    """How the queries or keys read at the kernel were made: the rotary, then a per-head norm."""
    return f"The {what} entering attention: rotated, then normed per head by {norm}"


def normed_then_rotated_on_sliding_layers(norm: str, what: str) -> str:
    """How the queries or keys read at the kernel were made: normed per head, then rotated except on the
    full-attention layers of a model with sliding-window layers (global NoPE)."""
    return (f"The {what} entering attention: normed per head by {norm}, then rotated on the sliding-window layers; "
            f"the full-attention layers of a model with sliding-window layers are not rotated (NoPE)")
