"""Shared pieces of the Llama-wired families whose modules carry other names (fused projections,
renamed norms, other MLP names): the block is Llama's, the renames and a few sites differ."""

from nnterp.sites import KERNEL_ARGUMENTS, Argument, Call, Read


def normed_then_rotated(norm: str, what: str, index: int) -> Read:
    """The queries (index 1) or keys (2) at the kernel, after a per-head norm and the rotary."""
    return Read(Call("attention_interface", "input"), Argument(index), condition=KERNEL_ARGUMENTS,
                description=f"The {what} entering attention: normed per head by {norm}, then rotated")


def rotated_then_normed(norm: str, what: str, index: int) -> Read:
    """The queries (index 1) or keys (2) at the kernel, after the rotary and a per-head norm."""
    return Read(Call("attention_interface", "input"), Argument(index), condition=KERNEL_ARGUMENTS,
                description=f"The {what} entering attention: rotated, then normed per head by {norm}")


def softcapped(model, logits):
    """The final logit softcap: cap * tanh(logits / cap), as the model computes it."""
    import torch

    cap = model._nnterp_state.config.final_logit_softcapping
    if cap is None:
        return logits
    return torch.tanh(logits / cap) * cap


def normed_then_rotated_on_sliding_layers(norm: str, what: str, index: int) -> Read:
    """The queries (index 1) or keys (2) at the kernel, normed per head, then rotated except on the
    full-attention layers of a model with sliding-window layers (global NoPE)."""
    return Read(Call("attention_interface", "input"), Argument(index), condition=KERNEL_ARGUMENTS,
                description=f"The {what} entering attention: normed per head by {norm}, then rotated on the "
                            f"sliding-window layers; the full-attention layers of a model with sliding-window layers "
                            f"are not rotated (NoPE)")
