"""Language stacks that live only inside a wrapper: text models with no CausalLM of their own (Cosmos3EdgeTextModel,
DeepseekOcr2TextModel, MuseGlimmerTextModel) whose blocks differ from every nnterp family's in a module name or a
value's site. Each
module declares one as its difference from its parent family (``like``): the parent's renames, sites, block,
router and readout, with this stack's changes. It has no tiny model of its own: its wrapper's tiny recipe builds it
as text_config."""

from __future__ import annotations

import dataclasses

from nnterp.family import Family, family_named


def like(parent: "str | Family", module: str, *, rename: dict | None = None, sites: dict | None = None,
         accessors: dict | None = None, common: tuple[str, ...] = (), **changes) -> Family:
    """The family of a language stack: ``parent``'s declaration, its renames, sites and accessors updated by these,
    the values and dimensions named in ``common`` served by the common (Llama) conventions again (a parent's latent
    attention where the stack's is Llama's), the other fields replaced; ``module`` (the declaring module's
    __name__) gives its page its docstring."""
    import sys

    base = parent if isinstance(parent, Family) else family_named(parent)  # a stack's own parent is no family name
    # a stack with its own mixture drops the values and dimensions the parent's mixture declared
    mixture = (set(base.moe.sites()) | set(base.moe.accessors())) if "moe" in changes and base.moe else set()
    kept_sites = {name: site for name, site in base.sites.items() if name not in {*common, *mixture}}
    kept_accessors = {name: accessor for name, accessor in base.accessors.items() if name not in {*common, *mixture}}
    family = dataclasses.replace(
        base, rename={**base.rename, **(rename or {})}, sites={**kept_sites, **(sites or {})},
        accessors={**kept_accessors, **(accessors or {})}, checkpoints=(), tiny={}, variants={}, **changes)
    family.module = sys.modules[module]
    return family
