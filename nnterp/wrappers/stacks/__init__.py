"""Language stacks that live only inside a wrapper: text models with no CausalLM of their own (Cosmos3EdgeTextModel,
DeepseekOcr2TextModel, MuseGlimmerTextModel, MuseSparkTextModel, Step3p7TextModel,
MistralLarge4TextModel, Glm5NextTextModel, IDEFICS's IdeficsModel, Evolla's EvollaModel) whose blocks differ from every
nnterp family's in a module name, a value's site or the block's arithmetic. Each module declares one as its
difference from its parent family (``like``, the parent a family or a stack): the parent's renames, sites, block,
router and readout, with this stack's changes. It has no tiny model of its own: its wrapper's tiny recipe builds it
as text_config."""

from __future__ import annotations

import dataclasses

from nnterp.declare.family import Family
from nnterp.families._declared import declared


def like(parent: "str | Family", module: str, *, rename: dict | None = None, sites: dict | None = None,
         accessors: dict | None = None, common: tuple[str, ...] = (), **changes) -> Family:
    """The family of a language stack: ``parent``'s declaration (a family, or a family's name), its renames, sites
    and accessors updated by these, the values and dimensions named in ``common`` served by the common (Llama)
    conventions again (a parent's latent attention where the stack's is Llama's), the other fields replaced;
    ``module`` (the declaring module's __name__) gives its page its docstring, and its name and model type (the
    module's own name)."""
    import sys

    stack = module.rsplit(".", 1)[-1]
    changes = {"name": stack, "model_types": (stack,), **changes}
    base = parent if isinstance(parent, Family) else declared(parent)
    # what the parent's module declared, without what its block and router presets gave it: a stack with presets of
    # its own gets theirs
    kept_sites = {name: site for name, site in base._declared["sites"].items() if name not in common}
    kept_accessors = {name: accessor for name, accessor in base._declared["accessors"].items() if name not in common}
    family = dataclasses.replace(
        base, rename={**base.rename, **(rename or {})}, sites={**kept_sites, **(sites or {})},
        accessors={**kept_accessors, **(accessors or {})}, checkpoints=(), tiny={}, variants={}, **changes)
    family.module = sys.modules[module]
    return family
