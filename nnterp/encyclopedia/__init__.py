"""The encyclopedia: a static site with a page per model family, generated from the library's own objects.

``build(out)`` (or ``nnterp encyclopedia build --out DIR``) writes ``index.html`` and ``<family>.html`` for
every family in the registry. A page is made from the family module (summary, tags, docstring),
``support()``, the printout and the config of the representative checkpoint built on the meta device, and
the family's notes, whose snippets run on the family's tiny model while the page is built. Pages open from
disk: styles and scripts are inline, and nothing is fetched.
"""

from nnterp.encyclopedia.build import Report, build

__all__ = ["build", "Report"]
