"""The readout: what the model does from the last block's output to its logits, shared by the model's
``project_on_vocab`` and the conformance contract."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import torch
from nnterp.declare.engine import module_of


def head_input(head, hidden: torch.Tensor) -> torch.Tensor:
    """A stream kept in float32 under a half-precision load (Mamba's, ZAYA's) is cast to the head's dtype, as the
    models do before lm_head."""
    weight = getattr(head, "weight", None)
    if isinstance(weight, torch.Tensor) and weight.is_floating_point() and hidden.dtype != weight.dtype:
        return hidden.to(weight.dtype)
    return hidden


@dataclass(frozen=True)
class Readout:
    """The readout a family declares (``Family(readout=...)``): how the last block's output becomes the logits.

    Past lm_head, from config keys, in this order, as the models do: the padded vocabulary rows dropped, a cast to
    float32, a multiplier, a divisor, a softcap (``__call__``). Before it: a divisor of the final norm's output
    (``normed_divided_by``), or the family's whole map from the last block's output to lm_head's logits where it
    is not norm then lm_head (``unembed``). ``exact_lens=False`` where the logits mix more than the last block's
    output, so that project_on_vocab is a lens, not the readout. ``Readout()`` is the common readout."""

    unpad_to: str | None = None      #: config key of the vocabulary rows kept (where it is set)
    float32: bool = False            #: the logits are cast to float32 first
    times: str | None = None         #: config key the logits are multiplied by, where the config sets it
    divided_by: str | None = None    #: config key the logits are divided by
    softcap: str | None = None       #: config key of cap: cap * tanh(logits / cap), where the config sets it
    softcap_in_float32: bool = False  #: the softcap, where it applies, is taken in float32
    #: config key the final norm's output is divided by before lm_head (MiniCPM3's logits_scaling)
    normed_divided_by: str | None = None
    #: (model, last block's output) -> lm_head's logits, where that is not norm then lm_head (OPT-350M's
    #: project_out and no final norm)
    unembed: Callable | None = None
    #: False where the logits mix more than the last block's output (depth attention over the block states): the
    #: contract then does not compare project_on_vocab with the logits
    exact_lens: bool = True
    #: config -> the vocabulary columns the model sets to its dtype's float minimum after every other step
    #: (Chameleon's image-token columns, which it never lets the text head predict); ``floored_what`` says which
    floored: Callable | None = None
    floored_what: str = ""

    @property
    def past_head_identity(self) -> bool:
        """Whether the logits are lm_head's output as it is."""
        return not (self.unpad_to or self.float32 or self.times or self.divided_by or self.softcap or self.floored)

    def head_logits(self, model, hidden: torch.Tensor) -> torch.Tensor:
        """lm_head's logits from the last block's output, as the model computes them."""
        if self.unembed is not None:
            return self.unembed(model, hidden)
        normed = model.norm(hidden)
        if self.normed_divided_by:
            normed = normed / getattr(model._nnterp_state.config, self.normed_divided_by)
        return model.lm_head(head_input(module_of(model.lm_head), normed))

    def __call__(self, config, logits: torch.Tensor) -> torch.Tensor:
        size = getattr(config, self.unpad_to, None) if self.unpad_to else None
        if size is not None and size < logits.shape[-1]:
            logits = logits[..., :size]
        if self.float32:
            logits = logits.float()
        factor = getattr(config, self.times, None) if self.times else None
        if factor is not None:  # an unset multiplier is 1 (Cohere Compass' logit_scale: None)
            logits = logits * factor
        if self.divided_by:
            logits = logits / getattr(config, self.divided_by)
        cap = getattr(config, self.softcap, None) if self.softcap else None
        if cap is not None:
            logits = torch.tanh((logits.float() if self.softcap_in_float32 else logits) / cap) * cap
        if self.floored is not None:  # out of place: the lm_head output handed in stays as it is
            columns = torch.tensor(self.floored(config), dtype=torch.long, device=logits.device)
            logits = logits.index_fill(-1, columns, torch.finfo(logits.dtype).min)
        return logits

    def formula(self) -> str:
        """The readout in words, from lm_head_output to logits."""
        steps = []
        if self.unpad_to:
            steps.append(f"the rows past config.{self.unpad_to} dropped")
        if self.float32:
            steps.append("cast to float32")
        if self.times:
            steps.append(f"times config.{self.times} (where set)")
        if self.divided_by:
            steps.append(f"divided by config.{self.divided_by}")
        if self.softcap:
            where = " in float32" if self.softcap_in_float32 else ""
            steps.append(f"soft-capped{where} to cap * tanh(x / cap), cap = config.{self.softcap} (where set)")
        if self.floored:
            steps.append(f"the columns of {self.floored_what} set to the dtype's float minimum")
        return "logits = lm_head_output" + (", " + ", then ".join(steps) if steps else "")


#: the common readout: logits are lm_head's output
IDENTITY = Readout()
#: the final logit softcap of the Gemma 2 lineage
SOFTCAPPED = Readout(softcap="final_logit_softcapping")
