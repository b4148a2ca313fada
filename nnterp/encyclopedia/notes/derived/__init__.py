"""Notes derived from a family's own objects, so that they cannot drift from the code.

Each note states one fact of the family in its heading, says where it comes from, and carries a snippet that
asserts it on the family's tiny model. The facts of the real checkpoints are read from the representative
checkpoint built on the meta device from its config facts (its modules, its attributes as transformers computes
them: ``self_attn.scaling``, the rotary's ``inv_freq``, the norms' epsilons, whether ``lm_head`` is the embedding
matrix, the parameter count); the facts a config decides differently on the tiny model are said so, and the
snippet asserts what the tiny model has. Where the form of a computation is not written in any declaration (the
RMSNorm's ``x · w`` or ``x · (1 + w)``, how a fused projection is cut, what the model does past ``lm_head``), the
candidates are tried on the tiny model when the page is built and the one that holds is written, with the snippet
that asserts it; none is written when none holds.

Each maker is a module of this package, a function of a ``Subject`` that returns its note or None; ``MAKERS`` is their
page order, and the one place a new maker is added.
"""

from __future__ import annotations

from nnterp.encyclopedia.notes.derived.block import block_note
from nnterp.encyclopedia.notes.derived.checkpoints import checkpoints_note
from nnterp.encyclopedia.notes.derived.config_drops import config_drops_note
from nnterp.encyclopedia.notes.derived.embedding_scale import embedding_scale_note
from nnterp.encyclopedia.notes.derived.graph import graph_note
from nnterp.encyclopedia.notes.derived.grouped import grouped_note
from nnterp.encyclopedia.notes.derived.latent_attention import latent_attention_note
from nnterp.encyclopedia.notes.derived.mlp import mlp_note
from nnterp.encyclopedia.notes.derived.moe import moe_note
from nnterp.encyclopedia.notes.derived.norm import norm_note
from nnterp.encyclopedia.notes.derived.past_head import past_head_note
from nnterp.encyclopedia.notes.derived.post_norm import post_norm_note
from nnterp.encyclopedia.notes.derived.projections import projections_note
from nnterp.encyclopedia.notes.derived.qk_norm import qk_norm_note
from nnterp.encyclopedia.notes.derived.qk_norm_property import qk_norm_property_note
from nnterp.encyclopedia.notes.derived.readout import readout_note
from nnterp.encyclopedia.notes.derived.rotary import rotary_note
from nnterp.encyclopedia.notes.derived.scale import scale_note
from nnterp.encyclopedia.notes.derived.sliding import sliding_note
from nnterp.encyclopedia.notes.derived.ssm import ssm_note
from nnterp.encyclopedia.notes.derived.subject import Stated, Subject
from nnterp.encyclopedia.notes.derived.tokenizer import tokenizer_note

__all__ = ["MAKERS", "Stated", "Subject", "notes"]

#: the note makers, in page order
MAKERS = (block_note, post_norm_note, embedding_scale_note, projections_note, grouped_note, qk_norm_note,
          qk_norm_property_note, latent_attention_note, rotary_note, ssm_note, graph_note, scale_note, sliding_note,
          mlp_note, moe_note, norm_note, readout_note, past_head_note, config_drops_note, tokenizer_note,
          checkpoints_note)
#: the makers that write a note on every family, Llama included; the others write one only where the family has
#: the feature (a window, experts, a norm after each sublayer...)
GENERIC = ("block_note", "projections_note", "grouped_note", "rotary_note", "scale_note", "mlp_note", "norm_note",
           "readout_note", "tokenizer_note", "checkpoints_note")
#: the aspect of the architecture a feature maker's note is about, for the "As Llama, except" line
FEATURE_ASPECTS = {"post_norm_note": "norms", "embedding_scale_note": "embedding scale", "qk_norm_note": "norms",
                   "qk_norm_property_note": "norms", "latent_attention_note": "attention", "ssm_note": "mixer",
                   "sliding_note": "window", "moe_note": "experts", "past_head_note": "readout",
                   "config_drops_note": "config"}


def notes(subject: Subject, drop=()) -> list[tuple[str, str]]:
    """The derived notes' (kind, text), in page order: kind "feature" where the note states what the family does
    otherwise than Llama, "generic" where it states what every family has; ``drop``: names of makers whose note a
    hand-written one replaces (its aspect still counts in what the family does otherwise than Llama, which is
    computed from the architecture, not from the notes shown)."""
    found = []
    for make in MAKERS:
        before, claimed = len(subject.differences), len(subject.claims)
        text = make(subject)
        dropped = make.__name__ in drop
        # a number read but not written (the note said it otherwise, or was not written) is no claim of the page
        subject.claims[claimed:] = [c for c in subject.claims[claimed:] if text and not dropped and c.check()[-1] in text]
        if not text:
            continue
        if dropped:
            if make.__name__ in FEATURE_ASPECTS:
                subject.differs(FEATURE_ASPECTS[make.__name__], text.strip("\n").split("\n", 1)[0].removeprefix("## "))
            continue
        text = text.strip("\n") + "\n"
        if make.__name__ in FEATURE_ASPECTS:
            subject.differs(FEATURE_ASPECTS[make.__name__], text.split("\n", 1)[0].removeprefix("## "))
        feature = make.__name__ not in GENERIC or len(subject.differences) > before
        found.append(("feature" if feature else "generic", text))
    return found
