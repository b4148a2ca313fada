"""The notes written by hand for a family's encyclopedia page, one module beside the family modules per family,
named as the family: ``NOTES`` (the page's notes) or ``MORE`` (added to the notes derived from the family's own
objects), in the format of ``nnterp.encyclopedia.markdown``; optionally ``LOAD``, the attention implementation
their snippets run under, and for a real checkpoint available offline ``CHECKPOINT``, ``load_checkpoint()`` and
``facts(scope)``. Every code block in them runs when the site is built."""
