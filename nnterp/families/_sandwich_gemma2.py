"""Shared pieces of the Gemma 2 sandwich: four norms per block.

input_layernorm -> self_attn -> post_attention_layernorm -> add; pre_feedforward_layernorm -> mlp
-> post_feedforward_layernorm -> add. The name trap: post_attention_layernorm is a post-norm on the
attention's OUTPUT, not Llama's pre-MLP norm (that one is pre_feedforward_layernorm). What the
stream receives is each post-norm's output, a module of the block beside the attention and the
MLP: attention_output and mlp_output are read there (Sibling sites).
"""

import math
import sys
from dataclasses import dataclass

from nnsight.intervention.interleaver import Mediator

from nnterp import labels
from nnterp.sites import EAGER_ONLY, Argument, Call, Child, Read, Sibling, _Context, _version, check_layout


def sandwich_sites(post_attention="post_attention_layernorm", pre_mlp="pre_feedforward_layernorm",
                   post_mlp="post_feedforward_layernorm") -> dict:
    """The residual values of a sandwich block, by the names of its three non-input norms."""
    return {
        "attention_output": Read(
            Sibling(post_attention),
            description=f"What the attention adds to the residual stream: its output after the block's post-norm "
                        f"{post_attention}"),
        "layer_mid": Read(Child(pre_mlp, "input"), Argument(0), shared=True),
        "mlp_norm_output": Read(
            Child(pre_mlp), description=f"The normed stream entering the MLP: {pre_mlp}'s output"),
        "mlp_output": Read(
            Sibling(post_mlp),
            description=f"What the MLP adds to the residual stream: its output after the block's post-norm {post_mlp}"),
    }


SCALED_EMBEDDINGS = Read(
    Child("embed_tokens"),
    description="The embedding module's output, already multiplied by sqrt(hidden_size) inside it")


def softcapped_scores(kernel="eager_attention_forward") -> Read:
    """attention_scores read at the softmax's input, after the kernel's logit softcap and the mask."""
    return Read(
        Call("nn.functional.softmax", "input", inside="attention_interface", eager=kernel),
        Argument(0), condition=EAGER_ONLY,
        description="The attention scores entering the softmax: scaled by query_pre_attn_scalar ** -0.5, "
                    "soft-capped to attn_logit_softcapping * tanh(s / attn_logit_softcapping), then masked")


# --------------------------------------------------------------------------- Beam's depth-scaled adds
@dataclass(frozen=True)
class InBlock(Call):
    """An operation of the block's forward, read from a host inside the block (the attention or
    the MLP): the residual add the block applies to that host's output. ``block_class`` names the
    decoder layer's class in the host's module, to name the operation outside a trace."""

    block_class: str = ""

    def target(self, host):
        return super().target(host.parent)

    def labels_for(self, module):
        block = getattr(sys.modules[type(module).__module__], self.block_class)
        return self._label(labels.compiled_function(block.forward), self.callee), None

    def describe(self, module) -> str:
        label, _ = self.labels_for(module)
        return f"inside the block's forward: the {'arguments' if self.key == 'input' else 'output'} of {label}"


def _depth_scales(k):
    """depth_scaled_residual_add's factors for add number k: (branch scale, residual scale)."""
    return 1.0 / math.sqrt(k), math.sqrt((k - 1) / k)


@dataclass(eq=False)
class DepthScaledDelta(Read):
    """What a depth-scaled residual add, branch / sqrt(k) + residual * sqrt((k - 1) / k), changes in
    the stream: the add minus the residual. Read at the add's arguments; an edit is carried back into
    the branch, (value + residual - residual * sqrt((k - 1) / k)) * sqrt(k), so that the add gives
    residual + value."""

    def _present(self, context, raw):
        (branch, residual, k, *_), _ = raw
        branch_scale, residual_scale = _depth_scales(k)
        value = (branch * branch_scale + residual * residual_scale) - residual
        value._nnterp_version = value._version
        return value

    def _branch_for(self, raw, value):
        (branch, residual, k, *rest), kwargs = raw
        branch_scale, residual_scale = _depth_scales(k)
        new_branch = (value + residual - residual * residual_scale) / branch_scale
        return (new_branch.to(branch.dtype), residual, k, *rest), kwargs

    def _carry_back(self, context, value, raw):
        if _version(value) == getattr(value, "_nnterp_version", None):
            return raw  # not edited: the model's own objects, bit for bit
        return self._branch_for(raw, value)

    def read(self, host, spec):
        target = self.where.target(host)
        return self._read_with_writeback(target, _Context(target.path, host, host.root))

    def write(self, host, spec, value) -> None:
        target = self.where.target(host)
        location = f"{target.path}.{self.where.key}"
        raw = Mediator.value(location)
        check_layout(spec, self._present(None, raw), value, host.root)
        Mediator.swap(location, self._branch_for(raw, value))

    def describe(self, module) -> str:
        return self.where.describe(module)
