"""What a family module declares its sites with, in one import.

A site is *where* (``nnterp.declare.locations``: the host's own input or output, a child module's, an operation inside
the forward) plus *which element* of what is found there, a *layout* (``nnterp.declare.layouts``: heads unflattened,
heads moved after positions) and how it reads and carries an edit back (``nnterp.declare.writeback``: ``Read``,
``Derived``, ``Nowhere``); ``nnterp.declare.companions`` holds the sites that follow from another value's site. The core
imports each from its own module; a family module imports them from here.
"""

from nnterp.declare.companions import (
    SINKS, Companion, HeadContributions, NormScale, RotaryInput, contributions_of, input_of, norm_centres, norm_scale,
    projection_of, scale_of, sink_scores,
)
from nnterp.declare.layouts import (
    BATCH_HEADS, FOLDED_HEADS, HEADS_AFTER_POSITIONS, KEYS_LAST, KEY_VALUE_GROUPS, SAME, SPLIT_HEADS, TOKEN_ROWS,
    CallPositions, HeadsAfterPositions, KeysLast, Same, SplitHeads, TokenRows,
)
from nnterp.declare.locations import (
    EAGER_ONLY, KERNEL_ARGUMENTS, WHOLE, Argument, Assigned, Attribute, ByDtype, Call, Child, Condition, Element,
    ListItem, Own, Sibling, Where, Whole, _walk, eager_only,
)
from nnterp.declare.writeback import Derived, EarlierFirst, Nowhere, PlusEarlier, Read, Site, where_of

__all__ = [
    "SINKS", "Companion", "HeadContributions", "NormScale", "RotaryInput", "contributions_of", "input_of",
    "norm_centres", "norm_scale", "projection_of", "scale_of", "sink_scores",
    "BATCH_HEADS", "FOLDED_HEADS", "HEADS_AFTER_POSITIONS", "KEY_VALUE_GROUPS", "KEYS_LAST", "SAME", "SPLIT_HEADS",
    "TOKEN_ROWS", "CallPositions", "HeadsAfterPositions", "KeysLast", "Same", "SplitHeads", "TokenRows",
    "EAGER_ONLY", "KERNEL_ARGUMENTS", "WHOLE", "Argument", "Assigned", "Attribute", "ByDtype", "Call", "Child",
    "Condition", "Element", "ListItem", "Own", "Sibling", "Where", "Whole", "_walk", "eager_only",
    "Derived", "EarlierFirst", "Nowhere", "PlusEarlier", "Read", "Site", "where_of",
]
