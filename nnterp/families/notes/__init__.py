"""The notes written by hand for the families' encyclopedia pages: ``<family>.md``, one Markdown file per family,
read by ``nnterp.encyclopedia.notes.hand`` (its docstring gives the front matter), with ``<family>.py`` beside it
only where the snippets measure a real checkpoint available offline. Every code block runs when the site is built."""
